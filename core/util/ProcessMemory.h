#pragma once

#include <QtGlobal>

namespace ws {

// Resident memory of this process in bytes (Linux /proc/self/statm), or -1 where unknown. What
// the status bar shows as "memory in use" and the GUI benchmark tracks for growth.
qint64 residentMemoryBytes();

} // namespace ws

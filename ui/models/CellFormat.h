#pragma once

#include "model/ResourceVersion.h"

#include <QString>

namespace ws {

// Text for table cells, shared by the models so the same quantity reads the same everywhere.
// RVs are identifiers, so they get no group separators (they are copied into kubectl/etcdctl);
// counts do, because they are read as magnitudes.
QString formatRv(ResourceVersion rv);  // "—" for 0 (absent)
QString formatCount(qint64 value);     // "12,345"
QString formatSeconds(double seconds); // "0.250"
QString formatTimeUs(TimeUs time);     // session time: "12.345"

} // namespace ws

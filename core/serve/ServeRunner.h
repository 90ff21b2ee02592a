#pragma once

#include "ServeOptions.h"

#include <QString>
#include <functional>

namespace ws {

// `watchscope-cli serve`: builds the served cluster, listens, prints where it serves on stdout
// (one line, flushed: scripts and tests read the port from it) and runs until SIGINT/SIGTERM or
// --duration. Returns the exit code; errors are one line through `fail`, and so are warnings
// ("warning: ...") that do not stop it.
class ServeRunner {
public:
    static int run(const ServeOptions& options, const std::function<void(const QString&)>& out,
                   const std::function<void(const QString&)>& fail);
};

} // namespace ws

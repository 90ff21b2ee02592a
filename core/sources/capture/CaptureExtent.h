#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <atomic>
#include <optional>

namespace ws {

// How long a capture's recorded session is, for a replay's time slider: the End record's time
// when the capture was closed cleanly; otherwise the last frame's (a cut capture) or, for a
// scenario capture, the length its scenario runs. Reads the whole file (an etcd capture's frames
// are decompressed), so a window calls it off its own thread.
struct CaptureExtent {
    TimeUs duration = 0;
    bool complete = false; // the End record was read
    QString sourceKind;    // "simulator", "etcd", ...

    // nullopt with one line in *error when `path` is not a readable capture; `cancel` set from
    // another thread ends the reading early (nullopt, no error).
    static std::optional<CaptureExtent> measure(const QString& path, QString* error,
                                                const std::atomic<bool>* cancel = nullptr);
};

} // namespace ws

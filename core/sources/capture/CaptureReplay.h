#pragma once

#include "capture/CaptureHeader.h"
#include "engine/Source.h"
#include "engine/SourceSpec.h"

#include <memory>
#include <optional>

namespace ws {

// Picks how a capture is played back, by what recorded it: an etcd source's frames through the
// etcd decoders (CaptureSource); a scenario run again from the YAML and seed it holds (the
// simulator is deterministic), under other versions when spec.whatIf says so.
class CaptureReplay {
public:
    static std::unique_ptr<Source> create(const SourceSpec& spec, QString* error);
    // Just the header (the CLI and the window read --resources and the source from it).
    static std::optional<CaptureHeader> header(const QString& path, QString* error);
};

} // namespace ws

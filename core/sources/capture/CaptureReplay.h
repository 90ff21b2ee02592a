#pragma once

#include "capture/CaptureHeader.h"
#include "engine/Source.h"
#include "engine/SourceSpec.h"

#include <memory>
#include <optional>

namespace ws {

// Picks how a capture is played back, by what recorded it: an etcd source's frames through the
// etcd decoders (CaptureSource); a scenario run again from the YAML and seed it holds (the
// simulator is deterministic), under other versions when spec.whatIf says so; an etcd capture
// under spec.whatIf is its recorded writes put through a simulated cluster of those versions.
class CaptureReplay {
public:
    static std::unique_ptr<Source> create(const SourceSpec& spec, QString* error);
    // Just the header (the CLI and the window read --resources and the source from it).
    static std::optional<CaptureHeader> header(const QString& path, QString* error);

private:
    // An etcd capture's writes put through simulated apiservers and clients of other versions.
    static std::unique_ptr<Source> etcdWhatIf(const SourceSpec& spec, QString* error);
};

} // namespace ws

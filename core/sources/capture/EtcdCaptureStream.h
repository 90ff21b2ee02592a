#pragma once

#include "scenario/RecordedEtcdStream.h"

#include <QString>
#include <optional>

namespace ws {

// Reads an etcd capture into the writes it saw (RecordedEtcdStream): the first list's objects,
// every watch event with its revision and arrival time, the compactions its watch was told of.
// A relist after the watch fell behind a compaction is turned into the changes it reveals (keys
// gone are deleted, keys changed are written at the list's time). Ends at a cut or damaged
// capture's last complete record, like a replay.
class EtcdCaptureStream {
public:
    static std::optional<RecordedEtcdStream> read(const QString& path, QString* error);
};

} // namespace ws

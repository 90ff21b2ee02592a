#pragma once

#include <cstdint>

namespace ws {

// The etcd source's frames (engine/Frame.h), as a capture stores them. Bytes frames hold a
// gRPC message exactly as it arrived; control frames hold a QDataStream (Qt 6.4 format) of the
// fields named here, so that the decoder replays the stream's own actions in order.
enum class EtcdFrameKind : std::uint16_t {
    WatchResponse = 1,   // bytes: etcdserverpb.WatchResponse (fragments, created, canceled too)
    RangeResponse = 2,   // bytes: etcdserverpb.RangeResponse, one page of a list
    WatchCreateSent = 3, // control: qint64 start revision, QString endpoint
    ListStarted = 4,     // control: bool relist
    ListCompleted = 5,   // control: qint64 list revision, qint64 items
    ListFailed = 6,      // control: QString message, bool compacted
    WatchBroken = 7,     // control: QString message, bool transport, qint64 retry in ms
    Status = 8,          // control: qint64 header revision of a Maintenance.Status answer
    // control: bool final. The session's clock: the source ticked its detectors (and sampled the
    // series when due; always when final) at this time. Recorded so that a replay ticks and
    // samples exactly where the live session did.
    Tick = 9,
};

} // namespace ws

#pragma once

#include "FieldSelector.h"
#include "LabelSelector.h"
#include "ResponseSink.h"
#include "kube/ResourceCatalog.h"
#include "sources/sim/apiserver/ServerWatch.h"

#include <memory>
#include <optional>

namespace ws {

class SimKeyspace;

// One HTTP watch: moves what the simulated cacher dispatched to its ServerWatch onto the
// socket, as JSON watch events or protobuf frames, while the socket keeps up. When it does not, the
// watch stops reading (readAllowance 0), its buffer fills, and the cacher's dispatch budget closes
// it as a real apiserver closes an unresponsive watcher.
class WatchStream {
public:
    // Bytes queued on the socket before the watch stops reading: about what a kernel socket
    // buffer and an HTTP/2 stream window hold. Two simulation ticks at 50,000 events/s are
    // ~270 KB; at 1 MiB a client that kept up was still closed twice a minute when serve was
    // descheduled, at 4 MiB never (bench/capture/record-50k.sh). The price: a stalled watcher
    // holds up to 4 MiB until the dispatch budget closes it.
    static constexpr std::size_t kHighWater = 4 * 1024 * 1024;

    // How the events are written.
    struct Encoding {
        // Length-delimited protobuf frames (ObjectProto; the caller checked that the resource
        // has them) instead of JSON events.
        bool protobuf = false;
        // JSON bookmarks carry "creationTimestamp":null (ServerProfile).
        bool zeroCreationTimestamp = false;
    };
    WatchStream(const SimKeyspace& keyspace, ResourceInfo info, std::shared_ptr<ServerWatch> watch,
                std::shared_ptr<ResponseSink> sink, FieldSelector fields,
                std::optional<LabelSelector> labels, Encoding encoding);
    // false once the stream is over (the caller drops it).
    bool pump();
    std::int64_t eventsSent() const { return m_events; }

private:
    bool wanted(const WatchDelivery& d) const;
    // Appends one delivery to m_out; false when its object cannot be encoded: an ERROR event
    // (500 InternalError, naming the object and why) is appended instead and the stream ends.
    bool append(const WatchDelivery& d);

    const SimKeyspace& m_keyspace;
    ResourceInfo m_info;
    std::shared_ptr<ServerWatch> m_watch;
    std::shared_ptr<ResponseSink> m_sink;
    FieldSelector m_fields;
    std::optional<LabelSelector> m_labels;
    bool m_protobuf = false;
    bool m_zeroCreationTimestamp = false;
    bool m_started = false;
    std::int64_t m_events = 0;
    std::string m_out;
};

} // namespace ws

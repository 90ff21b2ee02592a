#pragma once

#include "model/ResourceVersion.h"

#include <QByteArray>
#include <QString>
#include <cstdint>

namespace ws {

// The capture seam (SPEC §4): what a transport received, as it received it, with the time it
// arrived, per connection. A source's transport threads produce frames; its decoder consumes
// them on the session thread; a capture writer can tap them in between and a replay can feed
// them back through the very same decoder.

// One connection of a source: an etcd watch stream, an HTTP watch, a LIST. Never credentials.
struct ConnectionInfo {
    int id = 0;         // unique within the session
    QString sourceKind; // "etcd", "cluster", ...
    QString endpoint;   // "http://127.0.0.1:2379"
    QString resource;   // plural resource name, empty for a whole keyspace
    QString versions;   // "etcd 3.4.23", "kube-apiserver 1.30.2, client-go 0.35"
};

struct Frame {
    int connection = 0;
    TimeUs received = 0;    // session time at arrival
    std::uint16_t kind = 0; // what the bytes are, in the source's own numbering
    QByteArray bytes;       // as received (a control record: the source's own small encoding)
};

// Sees every connection and frame of a session, in order, on the session thread.
class FrameTap {
public:
    virtual ~FrameTap() = default;
    virtual void connectionOpened(const ConnectionInfo& connection) = 0;
    virtual void frameReceived(const Frame& frame) = 0;
};

} // namespace ws

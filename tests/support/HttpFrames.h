#pragma once

// A frame of the cluster transport as its thread hands it to the session thread (the kinds of
// core/sources/cluster/http/HttpFrameKind.h), for the tests that drive the cluster source's
// consumers frame by frame.

#include "model/Frame.h"
#include "sources/cluster/http/HttpFrameKind.h"

#include <QByteArray>
#include <cstdint>
#include <utility>

namespace ws::test {

inline Frame httpFrame(int connection, HttpFrameKind kind, QByteArray bytes, TimeUs received = 0) {
    Frame f;
    f.connection = connection;
    f.received = received;
    f.kind = static_cast<std::uint16_t>(kind);
    f.bytes = std::move(bytes);
    return f;
}

} // namespace ws::test

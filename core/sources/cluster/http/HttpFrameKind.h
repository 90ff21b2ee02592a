#pragma once

#include <QString>
#include <cstdint>

namespace ws {

// The cluster HTTP transport's frames (engine/Frame.h), as a capture stores them. Frame.connection
// is the id the caller gave the request. For one request the frames are: RequestSent, then
// (once a response arrived) ResponseHead and BodyChunk*, and always exactly one ResponseEnd last.
// A later RequestSent for the same id (attempt 2: a retry after 401 with a refreshed exec
// credential) supersedes the earlier attempt, whose response was not recorded.
// Control frames hold a QDataStream (Qt 6.4 format) of the fields named here; HttpFrameRecords.h
// encodes and decodes them.
enum class HttpFrameKind : std::uint16_t {
    RequestSent = 1,  // control: QByteArray method, QString path and query, qint32 attempt
    ResponseHead = 2, // control: qint32 status, QByteArray reason, filtered header pairs
    BodyChunk = 3,    // bytes: the body as read (after the transport's gzip decoding)
    ResponseEnd = 4,  // control: quint16 HttpErrorKind, QString one-line message
};
// Kind 9 on connection 0 (no request) is the cluster session's clock, not a transport frame:
// ClusterFrameConsumer::kTickKind.

// Why a request ended. None: the response was read to its end (whatever its HTTP status).
enum class HttpErrorKind : std::uint16_t {
    None = 0,
    ConnectionRefused = 1,
    HostNotFound = 2,
    Tls = 3,
    Timeout = 4,
    Cancelled = 5,
    ProtocolError = 6,
    Other = 7,
    // The connection was closed (EOF) or reset before any response: what Go's net/http reports
    // as EOF or "connection reset by peer" (the transport tells the two apart no more than that).
    ConnectionClosed = 8,
};

// "connection-refused", "tls", ...: for logs and test messages.
inline QString httpErrorKindName(HttpErrorKind kind) {
    switch (kind) {
    case HttpErrorKind::None:
        return QStringLiteral("none");
    case HttpErrorKind::ConnectionRefused:
        return QStringLiteral("connection-refused");
    case HttpErrorKind::HostNotFound:
        return QStringLiteral("host-not-found");
    case HttpErrorKind::Tls:
        return QStringLiteral("tls");
    case HttpErrorKind::Timeout:
        return QStringLiteral("timeout");
    case HttpErrorKind::Cancelled:
        return QStringLiteral("cancelled");
    case HttpErrorKind::ProtocolError:
        return QStringLiteral("protocol-error");
    case HttpErrorKind::Other:
        return QStringLiteral("other");
    case HttpErrorKind::ConnectionClosed:
        return QStringLiteral("connection-closed");
    }
    return QStringLiteral("unknown");
}

} // namespace ws

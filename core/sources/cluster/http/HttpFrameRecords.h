#pragma once

#include "HttpFrameKind.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace ws {

// The control records of the cluster HTTP transport's frames (HttpFrameKind), so that a decoder
// or a replay reads exactly what the transport wrote. Never holds a header that carries
// credentials: RequestSent has no headers at all, ResponseHead only the filtered ones.
struct HttpRequestSent {
    QByteArray method;
    QString pathAndQuery; // as the caller gave it, relative to the target's server URL
    qint32 attempt = 1;   // 2: a 401's retry with a refreshed exec credential (older captures)
};

struct HttpResponseHead {
    qint32 status = 0;
    QByteArray reason;
    // Only Content-Type, Content-Encoding, Retry-After, Audit-Id, Warning and Date, in the order
    // received (names as the server spelled them).
    QList<QPair<QByteArray, QByteArray>> headers;
    // The HTTP/2 connection it came over, numbered by the transport from 1 in the order they
    // were opened; 0 over HTTP/1.1.
    // Everything on one connection was answered by one apiserver (a load balancer forwards a TCP
    // connection to one backend); no response header names the apiserver. Captures made before
    // the field existed decode it as 0.
    qint32 connection = 0;
    // A 401 to a credential plugin's credential that the transport replaces (client-go's exec
    // authenticator): the requests that follow go with a new one, so retrying can help. Written
    // to the record (after `connection`) only when set.
    bool credentialReplaced = false;

    // The first value of `name` (case-insensitive), empty when absent.
    QByteArray header(const QByteArray& name) const;
};

struct HttpResponseEnd {
    HttpErrorKind error = HttpErrorKind::None;
    QString message; // one line, no secrets; empty when error is None
};

// The headers a ResponseHead keeps.
bool isRecordedResponseHeader(const QByteArray& name);

QByteArray encodeHttpRecord(const HttpRequestSent& record);
QByteArray encodeHttpRecord(const HttpResponseHead& record);
QByteArray encodeHttpRecord(const HttpResponseEnd& record);

// False when `bytes` is not a complete record of that kind (truncated, trailing bytes, unknown
// error kind).
bool decodeHttpRecord(const QByteArray& bytes, HttpRequestSent* record);
bool decodeHttpRecord(const QByteArray& bytes, HttpResponseHead* record);
bool decodeHttpRecord(const QByteArray& bytes, HttpResponseEnd* record);

} // namespace ws

#pragma once

#include "HttpFrameKind.h"
#include "HttpFrameRecords.h"
#include "model/Frame.h"

namespace ws {

// Gathers one small response (discovery documents, /metrics) from its request's frames: the
// status, the body up to a limit, and how it ended. A repeated RequestSent (the retry after a
// refreshed exec credential) starts over.
struct HttpResponseCollector {
    int status = 0;
    qint32 connection = 0; // HttpResponseHead::connection
    QByteArray body;
    bool bodyOverLimit = false; // body stopped at the limit: what it holds is not the whole
    HttpResponseEnd end;

    // True when `frame` was the ResponseEnd: the response is complete.
    bool add(const Frame& frame, qsizetype maxBody) {
        switch (static_cast<HttpFrameKind>(frame.kind)) {
        case HttpFrameKind::RequestSent:
            status = 0;
            connection = 0;
            body.clear();
            bodyOverLimit = false;
            return false;
        case HttpFrameKind::ResponseHead: {
            HttpResponseHead head;
            if (decodeHttpRecord(frame.bytes, &head)) {
                status = head.status;
                connection = head.connection;
            }
            return false;
        }
        case HttpFrameKind::BodyChunk:
            if (body.size() + frame.bytes.size() <= maxBody)
                body += frame.bytes;
            else
                bodyOverLimit = true;
            return false;
        case HttpFrameKind::ResponseEnd:
            if (!decodeHttpRecord(frame.bytes, &end)) {
                end.error = HttpErrorKind::ProtocolError;
                end.message = QStringLiteral("malformed response record");
            }
            return true;
        }
        return false;
    }
};

} // namespace ws

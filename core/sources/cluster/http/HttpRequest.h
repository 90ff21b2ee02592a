#pragma once

#include <QByteArray>
#include <QString>

namespace ws {

// How many short requests (discovery's GETs, LISTs, /metrics) a cluster session has in flight at
// most: client-go's rest client lets start-up requests through its token bucket a few at a time
// (QPS 5, burst 10), not hundreds at once; ApiDiscovery and ListThrottle keep the rest waiting.
inline constexpr int kShortRequestsInFlight = 6;

// One request for ClusterHttpTransport::submit(). Everything it receives becomes frames whose
// Frame.connection is `id` (HttpFrameKind.h).
struct HttpRequest {
    int id = 0; // chosen by the caller, unique among its requests in flight
    QByteArray method = "GET";
    // Already percent-encoded, relative to the target's server URL (which may carry a path
    // prefix): "/api/v1/namespaces/default/pods?watch=1&resourceVersion=42".
    QString pathAndQuery;
    QByteArray accept = "application/json";
    QByteArray body;
    QByteArray contentType; // sent when set (or "application/json" when only a body is)
    // A watch: no inactivity timeout once the response head arrived, never queued behind other
    // requests: over HTTP/1.1 a connection of its own, over HTTP/2 a stream of a connection
    // with room for it.
    bool streaming = false;
    // Non-streaming: the request fails with Timeout when no byte moved for this long (0: 60 s);
    // a body keeps the request alive as long as it keeps arriving. Streaming: the limit for the
    // response head only.
    int timeoutMs = 0;
};

} // namespace ws

#pragma once

#include "ClientProfile.h"
#include "model/ResourceVersion.h"

#include <optional>

namespace ws {

// client-go's rest.Request retries of one request (rest/request.go, rest/with_retry.go): an
// answer the REST layer reads away and sends again after a wait, so that the reflector above
// sees only the last one. A 429 or 5xx with a Retry-After in whole seconds waits that long (the
// apiserver sends one whenever its Status has retryAfterSeconds: the cache's 504 "Too large
// resource version", the 1.31+ 429 "storage is (re)initializing"). A LIST page whose connection
// was reset or hit EOF before any answer, and a WATCH (0.22+) that hit EOF, a reset or a
// timeout, wait 1 s. Up to the profile's listRetries / watchRetries times per request.
// The Reflector (kube/Reflector.h) asks it for the request in flight.
class RestRetries {
public:
    enum class Call { ListPage, Watch };
    // How a request failed without an answer.
    enum class Failure {
        ConnectionClosed, // reset or EOF
        Timeout,
        Other, // refused, TLS, unknown host: not retried
    };

    // A new request: none of its retries made yet.
    void start(const ClientProfile& profile, Call call);
    // The wait before it is sent again after this answer (nullopt: no Retry-After), or nullopt:
    // the caller gets the answer.
    std::optional<TimeUs> afterAnswer(int httpStatus, std::optional<int> retryAfterSeconds);
    std::optional<TimeUs> afterFailure(Failure failure);
    // Retries made of this request so far.
    int made() const { return m_made; }

private:
    std::optional<TimeUs> retry(TimeUs wait);

    Call m_call = Call::ListPage;
    int m_limit = 0;
    int m_made = 0;
};

} // namespace ws

#include "RestRetries.h"

#include <algorithm>

namespace ws {

void RestRetries::start(const ClientProfile& profile, Call call) {
    m_call = call;
    m_limit = call == Call::ListPage ? profile.listRetries : profile.watchRetries;
    m_made = 0;
}

std::optional<TimeUs> RestRetries::afterAnswer(int httpStatus,
                                               std::optional<int> retryAfterSeconds) {
    // checkWait: only a 429 or 5xx, and only with a Retry-After.
    if (!retryAfterSeconds || !ClientProfile::retriesOnRetryAfter(httpStatus))
        return std::nullopt;
    return retry(seconds(std::max(0, *retryAfterSeconds)));
}

std::optional<TimeUs> RestRetries::afterFailure(Failure failure) {
    // A GET (Request.Do) retries a reset or EOF (0.16/0.17 only a reset: reported alike); a
    // WATCH (Request.Watch, 0.22+) an EOF, a reset or a timeout. Both with an artificial
    // "Retry-After: 1".
    const bool retried = failure == Failure::ConnectionClosed ||
                         (failure == Failure::Timeout && m_call == Call::Watch);
    return retried ? retry(seconds(1)) : std::nullopt;
}

std::optional<TimeUs> RestRetries::retry(TimeUs wait) {
    if (m_made >= m_limit)
        return std::nullopt;
    ++m_made;
    return wait;
}

} // namespace ws

#include "RetryLoopDetector.h"

namespace ws {

void RetryLoopDetector::onListCompleted(WatcherId w, std::int64_t items) {
    if (items > 0)
        m_state[static_cast<size_t>(w)].listedSince = true;
}

void RetryLoopDetector::onError(WatcherId w, TimeUs now, const ObservedStatus& status,
                                ResourceVersion highest) {
    State& s = m_state[static_cast<size_t>(w)];
    const bool progressed = s.listedSince || highest > s.highestAtLast;
    if (progressed)
        s.raised = false;
    if (!progressed && s.count > 0 && status.code == s.code && status.reason == s.reason) {
        ++s.count;
    } else {
        s.count = 1;
        s.code = status.code;
        s.reason = status.reason;
    }
    s.listedSince = false;
    s.highestAtLast = highest;
    if (s.count < m_ctx.thresholds().retryLoopCount || s.raised)
        return;
    s.raised = true;
    Anomaly a = m_ctx.make(w, now, AnomalyKind::RetryLoop, Severity::Error);
    a.rv = status.requestedRv;
    a.message = QStringLiteral("%1 %2 received %3 times in a row without progress (watcher stays "
                               "at RV %4)")
                    .arg(status.code)
                    .arg(status.reason)
                    .arg(s.count)
                    .arg(highest);
    if (!status.message.isEmpty())
        a.message += QStringLiteral(": ") + status.message;
    m_ctx.raise(a);
}

} // namespace ws

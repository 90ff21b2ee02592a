#include "InitialEventsStalledDetector.h"

#include "model/Deadline.h"

#include <algorithm>

namespace ws {

void InitialEventsStalledDetector::onWatchOpened(WatcherId w, TimeUs now,
                                                 const WatchRequest& request) {
    State& s = m_state[static_cast<size_t>(w)];
    if (!request.sendInitialEvents) {
        s.deadline = kNone;
        return;
    }
    s.openedAt = now;
    s.deadline = now + m_ctx.thresholds().initialEventsTimeout;
    if (std::find(m_pending.begin(), m_pending.end(), w) == m_pending.end())
        m_pending.push_back(w);
}

void InitialEventsStalledDetector::onProgress(WatcherId w, bool initialEventsEnd) {
    if (initialEventsEnd)
        m_state[static_cast<size_t>(w)].deadline = kNone;
}

void InitialEventsStalledDetector::onWatchEnded(WatcherId w) {
    // The watch is gone: its successor (if any) gets its own deadline.
    m_state[static_cast<size_t>(w)].deadline = kNone;
}

void InitialEventsStalledDetector::tick(TimeUs now) {
    std::erase_if(m_pending, [&](WatcherId w) {
        poll(w, now);
        return m_state[static_cast<size_t>(w)].deadline == kNone;
    });
}

TimeUs InitialEventsStalledDetector::nextDue() const {
    TimeUs due = kNoDeadline;
    for (WatcherId w : m_pending)
        if (const TimeUs d = m_state[static_cast<size_t>(w)].deadline; d != kNone)
            due = std::min(due, d);
    return due;
}

void InitialEventsStalledDetector::raise(WatcherId w, TimeUs now) {
    State& s = m_state[static_cast<size_t>(w)];
    s.deadline = kNone;
    Anomaly a = m_ctx.make(w, now, AnomalyKind::InitialEventsStalled, Severity::Warning);
    a.message =
        QStringLiteral("watch-list opened %1 s ago has not delivered its "
                       "k8s.io/initial-events-end bookmark (timeout %2 s)")
            .arg(static_cast<double>(now - s.openedAt) / kUsPerSecond, 0, 'f', 1)
            .arg(static_cast<double>(m_ctx.thresholds().initialEventsTimeout) / kUsPerSecond);
    m_ctx.raise(a);
}

} // namespace ws

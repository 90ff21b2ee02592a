#include "CacheNotReadyDetector.h"

#include "model/Deadline.h"

#include <algorithm>

namespace ws {

bool CacheNotReadyDetector::isNotReadyStatus(const ObservedStatus& s) {
    // 1.31+: errors.NewTooManyRequests("storage is (re)initializing[: <last error>]", n).
    if (s.code == 429 && s.message.startsWith(QLatin1String("storage is (re)initializing")))
        return true;
    // 1.27-1.30: ready.wait(ctx) ended by the watch's deadline, errors.NewServiceUnavailable.
    return s.code == 503 && s.reason == QLatin1String("ServiceUnavailable") &&
           (s.message == QLatin1String("context deadline exceeded") ||
            s.message.startsWith(QLatin1String("storage is (re)initializing")));
}

void CacheNotReadyDetector::addWatcher(const WatcherInfo& info) {
    State s;
    s.cacher = info.layer == WatchLayer::Etcd && info.id.startsWith(QLatin1String("cacher/"));
    m_state.push_back(s);
}

void CacheNotReadyDetector::begin(WatcherId w, TimeUs now) {
    State& s = m_state[static_cast<size_t>(w)];
    if (s.since != kNone)
        return;
    s.since = now;
    s.failures = 0;
    s.maxRetryAfter = 0;
    s.waitedOut = false;
    s.raised = false;
    s.lastStatus.clear();
    if (std::find(m_open.begin(), m_open.end(), w) == m_open.end())
        m_open.push_back(w);
}

void CacheNotReadyDetector::end(WatcherId w) {
    State& s = m_state[static_cast<size_t>(w)];
    s.since = kNone;
    s.watchOpenedAt = kNone;
}

void CacheNotReadyDetector::onListStarted(WatcherId w, TimeUs now) {
    State& s = m_state[static_cast<size_t>(w)];
    if (!s.cacher)
        return;
    // startCaching: the cache is not ready from the start of its list.
    begin(w, now);
    s.watchOpenedAt = kNone;
    s.listingSince = now;
    check(w, now, false);
}

void CacheNotReadyDetector::onListEnded(WatcherId w) {
    m_state[static_cast<size_t>(w)].listingSince = kNone;
}

void CacheNotReadyDetector::onError(WatcherId w, TimeUs now, const ObservedStatus& status) {
    State& s = m_state[static_cast<size_t>(w)];
    if (s.cacher) {
        // Its list or watch failed: ListAndWatch ends, the cache is not ready.
        begin(w, now);
        s.watchOpenedAt = kNone;
    } else if (isNotReadyStatus(status)) {
        begin(w, now);
    } else {
        return;
    }
    ++s.failures;
    s.maxRetryAfter = std::max(s.maxRetryAfter, status.retryAfterSeconds);
    // A 503 after a blocked watch: it waited its whole timeout (client-go: 5-10 min) already.
    s.waitedOut = s.waitedOut || status.code == 503;
    s.lastStatus = QStringLiteral("%1 %2: %3").arg(status.code).arg(status.reason, status.message);
    check(w, now, true);
}

void CacheNotReadyDetector::onWatchOpened(WatcherId w, TimeUs now) {
    State& s = m_state[static_cast<size_t>(w)];
    if (s.since == kNone)
        return;
    if (!s.cacher) {
        // The cache accepted the watch: it is ready. (A watch served by etcd directly, RV=""
        // in 1.27.0, also ends it: the client got what it wanted.)
        end(w);
        return;
    }
    s.watchOpenedAt = now;
}

void CacheNotReadyDetector::onDelivered(WatcherId w, TimeUs now) {
    State& s = m_state[static_cast<size_t>(w)];
    if (s.since == kNone)
        return;
    check(w, now, false);
    end(w);
}

void CacheNotReadyDetector::tick(TimeUs now) {
    std::erase_if(m_open, [&](WatcherId w) {
        poll(w, now);
        const State& s = m_state[static_cast<size_t>(w)];
        // A client's episode stays open until a watch succeeds, but only its cacher needs ticks.
        return s.since == kNone || !s.cacher;
    });
}

TimeUs CacheNotReadyDetector::nextDue() const {
    const DetectorThresholds& t = m_ctx.thresholds();
    TimeUs due = kNoDeadline;
    for (WatcherId w : m_open) {
        const State& s = m_state[static_cast<size_t>(w)];
        if (s.since == kNone || !s.cacher)
            continue;
        if (s.watchOpenedAt != kNone)
            due = std::min(due, s.watchOpenedAt + t.cacheSettledAfter);
        if (!s.raised)
            due = std::min(due, s.since + t.cacheNotReadyAfter);
    }
    return due;
}

void CacheNotReadyDetector::check(WatcherId w, TimeUs now, bool refused) {
    State& s = m_state[static_cast<size_t>(w)];
    if (s.since == kNone)
        return;
    const DetectorThresholds& t = m_ctx.thresholds();
    if (s.cacher && s.watchOpenedAt != kNone && now - s.watchOpenedAt >= t.cacheSettledAfter) {
        end(w); // the etcd watch held: the cache is serving
        return;
    }
    const bool longEnough = now - s.since >= t.cacheNotReadyAfter;
    // A cacher's state is known at every moment; a client only knows what its requests were
    // told: refusals spanning the threshold (a client backing off after the cache became ready
    // has no evidence that it stayed not ready), or one 503 after a watch waited its timeout.
    const bool evidence = s.cacher ? longEnough : refused && (longEnough || s.waitedOut);
    if (s.raised || !evidence)
        return;
    s.raised = true;
    const double secs = static_cast<double>(now - s.since) / kUsPerSecond;
    Anomaly a = m_ctx.make(w, now, AnomalyKind::CacheNotReady, Severity::Warning);
    if (s.cacher && s.failures == 0) {
        a.message = QStringLiteral("watch cache not ready for %1 s: its LIST has not completed")
                        .arg(secs, 0, 'f', 1);
    } else if (s.cacher) {
        a.message = QStringLiteral("watch cache not ready for %1 s: its list and watch failed %2 "
                                   "times without a watch that held")
                        .arg(secs, 0, 'f', 1)
                        .arg(s.failures);
        if (s.listingSince != kNone)
            a.message +=
                QStringLiteral(", the current LIST running for %1 s")
                    .arg(static_cast<double>(now - s.listingSince) / kUsPerSecond, 0, 'f', 1);
    } else if (now - s.since < t.cacheNotReadyAfter) {
        a.message = QStringLiteral("a watch waited for a watch cache that is not ready until its "
                                   "own timeout");
    } else {
        a.message = QStringLiteral("requests refused by a watch cache that is not ready for "
                                   "%1 s (%2 times)")
                        .arg(secs, 0, 'f', 1)
                        .arg(s.failures);
    }
    if (!s.lastStatus.isEmpty())
        a.message += QStringLiteral("; last: ") + s.lastStatus;
    if (s.maxRetryAfter > 0)
        a.message += QStringLiteral(" (Retry-After up to %1 s)").arg(s.maxRetryAfter);
    m_ctx.raise(a);
}

} // namespace ws

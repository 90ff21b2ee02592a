#include "TimeTravelDetector.h"

#include <algorithm>

namespace ws {

void TimeTravelDetector::onListCompleted(WatcherId w, TimeUs now, ResourceVersion listRv) {
    State& s = m_state[static_cast<size_t>(w)];
    // Equal is fine: a list served at the RV the client already has is not going back.
    if (listRv > 0 && listRv < s.highest)
        raise(w, now, listRv, s.highest, QStringLiteral("list returned RV %1").arg(listRv), kNoKey);
    if (listRv > s.highest)
        s.highest = listRv;
}

void TimeTravelDetector::onWatchOpened(WatcherId w, const WatchRequest& request) {
    State& s = m_state[static_cast<size_t>(w)];
    const bool explicitRv = !request.rvEmpty && request.rv > 0;
    s.floor = explicitRv && request.rv < s.highest ? request.rv : s.highest;
    s.streamTop = 0;
    s.streamProgress = 0;
    s.liveSeen = false;
    s.reported = false;
}

void TimeTravelDetector::onResponse(WatcherId w, TimeUs now,
                                    std::span<const ObservedEvent> events) {
    State& s = m_state[static_cast<size_t>(w)];
    ResourceVersion top = 0;
    for (const ObservedEvent& e : events) {
        if (!s.liveSeen && !e.initial) [[unlikely]] {
            s.liveSeen = true;
            // Ordered carries the check on to the rest of the stream; an event at or below a
            // bookmark of this stream is a bookmark-violation instead.
            if (!s.reported && e.rv < s.floor && e.rv > s.streamProgress) {
                s.reported = true;
                raise(w, now, e.rv, s.floor,
                      QStringLiteral("first event of a new watch, %1 at %2")
                          .arg(eventTypeLabel(e.type, m_ctx.isEtcd(w)))
                          .arg(e.rv),
                      e.key);
            }
        }
        if (e.rv > top)
            top = e.rv;
    }
    // Only the stream's own events count for its bookmarks, hence a second max.
    if (top > s.streamTop)
        s.streamTop = top;
    if (top > s.highest)
        s.highest = top;
}

void TimeTravelDetector::onProgress(WatcherId w, TimeUs now, ResourceVersion rv) {
    State& s = m_state[static_cast<size_t>(w)];
    // A bookmark below an earlier bookmark of this stream is a bookmark-violation instead.
    const ResourceVersion seen = std::max(s.floor, s.streamTop);
    if (!s.reported && rv >= s.streamProgress && rv < seen) {
        s.reported = true;
        raise(w, now, rv, seen, QStringLiteral("bookmark at %1").arg(rv), kNoKey);
    }
    if (rv > s.streamProgress)
        s.streamProgress = rv;
    if (rv > s.highest)
        s.highest = rv;
}

void TimeTravelDetector::onRequested(WatcherId w, TimeUs now, ResourceVersion rv, bool list) {
    State& s = m_state[static_cast<size_t>(w)];
    if (rv <= 0)
        return;
    if (rv < s.requested) {
        Anomaly a = m_ctx.make(w, now, AnomalyKind::RevisionRegression, Severity::Error);
        a.rv = rv;
        a.message = QStringLiteral("time travel: %1 asked for RV %2, below RV %3 this client asked "
                                   "for before (%4 revisions back)")
                        .arg(list ? QStringLiteral("list") : QStringLiteral("watch"))
                        .arg(rv)
                        .arg(s.requested)
                        .arg(s.requested - rv);
        m_ctx.raise(a);
    }
    s.requested = rv; // where the client is now, back or forward
}

void TimeTravelDetector::raise(WatcherId w, TimeUs now, ResourceVersion rv, ResourceVersion highest,
                               const QString& what, KeyId key) {
    Anomaly a = m_ctx.make(w, now, AnomalyKind::RevisionRegression, Severity::Error);
    a.key = m_ctx.keyName(key);
    a.rv = rv;
    a.message = QStringLiteral("time travel: %1, below RV %2 already seen by this watcher (%3 "
                               "revisions back)")
                    .arg(what)
                    .arg(highest)
                    .arg(highest - rv);
    m_ctx.raise(a);
}

} // namespace ws

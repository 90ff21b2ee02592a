#include "WatchGuaranteeChecker.h"

#include <algorithm>

namespace ws {

void WatchGuaranteeChecker::addWatcher() {
    m_streams.emplace_back();
    m_streams.back().keysAtMax.reserve(8); // no allocation on the event path for usual revisions
}

void WatchGuaranteeChecker::onWatchOpened(WatcherId w) {
    Stream& s = m_streams[static_cast<size_t>(w)];
    s.maxRv = 0;
    s.progressRv = 0;
    s.lastResponseRv = 0;
    s.keysAtMax.clear();
}

void WatchGuaranteeChecker::onResponse(WatcherId w, TimeUs now,
                                       std::span<const ObservedEvent> events) {
    Stream& s = m_streams[static_cast<size_t>(w)];
    const bool etcd = m_ctx.isEtcd(w);
    bool firstLive = true;
    ResourceVersion lastLive = 0;
    for (const ObservedEvent& e : events) {
        if (e.initial) [[unlikely]]
            continue;
        const ResourceVersion rv = e.rv;
        if (rv > s.maxRv) [[likely]] {
            if (rv <= s.progressRv) [[unlikely]]
                raiseEventAtBookmark(w, now, e, s);
            s.maxRv = rv;
            s.keysAtMax.clear();
            s.keysAtMax.push_back(e.key);
        } else if (rv == s.maxRv) {
            if (std::find(s.keysAtMax.begin(), s.keysAtMax.end(), e.key) != s.keysAtMax.end()) {
                raiseDuplicate(w, now, e);
            } else {
                s.keysAtMax.push_back(e.key);
                if (rv <= s.progressRv)
                    raiseEventAtBookmark(w, now, e, s);
                else if (etcd && firstLive && rv == s.lastResponseRv)
                    raiseSplit(w, now, e);
            }
        } else {
            raiseRegression(w, now, e, s);
        }
        firstLive = false;
        lastLive = rv;
    }
    if (!firstLive)
        s.lastResponseRv = lastLive;
}

void WatchGuaranteeChecker::onProgress(WatcherId w, TimeUs now, ResourceVersion rv) {
    Stream& s = m_streams[static_cast<size_t>(w)];
    if (rv < s.progressRv) {
        Anomaly a = m_ctx.make(w, now, AnomalyKind::BookmarkViolation, Severity::Error);
        a.rv = rv;
        a.message = QStringLiteral("bookmark at %1 after a bookmark at %2 on the same watch")
                        .arg(rv)
                        .arg(s.progressRv);
        m_ctx.raise(a);
        return;
    }
    s.progressRv = rv;
}

void WatchGuaranteeChecker::raiseRegression(WatcherId w, TimeUs now, const ObservedEvent& e,
                                            const Stream& s) {
    Anomaly a = m_ctx.make(w, now, AnomalyKind::RevisionRegression, Severity::Error);
    a.key = m_ctx.keyName(e.key);
    a.rv = e.rv;
    a.message = QStringLiteral("%1 at %2 after an event at %3 on the same watch (reordered by %4)")
                    .arg(eventTypeLabel(e.type, m_ctx.isEtcd(w)))
                    .arg(e.rv)
                    .arg(s.maxRv)
                    .arg(s.maxRv - e.rv);
    m_ctx.raise(a);
}

void WatchGuaranteeChecker::raiseDuplicate(WatcherId w, TimeUs now, const ObservedEvent& e) {
    Anomaly a = m_ctx.make(w, now, AnomalyKind::DuplicateEvent, Severity::Error);
    a.key = m_ctx.keyName(e.key);
    a.rv = e.rv;
    a.message = QStringLiteral("%1 of %2 at %3 delivered twice on the same watch")
                    .arg(eventTypeLabel(e.type, m_ctx.isEtcd(w)), a.key)
                    .arg(e.rv);
    m_ctx.raise(a);
}

void WatchGuaranteeChecker::raiseSplit(WatcherId w, TimeUs now, const ObservedEvent& e) {
    Anomaly a = m_ctx.make(w, now, AnomalyKind::SplitRevision, Severity::Error);
    a.key = m_ctx.keyName(e.key);
    a.rv = e.rv;
    a.message =
        QStringLiteral("revision %1 split across two watch responses: the previous response "
                       "ended with revision %1 and this one starts with %2 at %1")
            .arg(e.rv)
            .arg(a.key);
    m_ctx.raise(a);
}

void WatchGuaranteeChecker::raiseEventAtBookmark(WatcherId w, TimeUs now, const ObservedEvent& e,
                                                 const Stream& s) {
    Anomaly a = m_ctx.make(w, now, AnomalyKind::BookmarkViolation, Severity::Error);
    a.key = m_ctx.keyName(e.key);
    a.rv = e.rv;
    a.message = QStringLiteral("%1 at %2 after a bookmark at %3 on the same watch")
                    .arg(eventTypeLabel(e.type, m_ctx.isEtcd(w)))
                    .arg(e.rv)
                    .arg(s.progressRv);
    m_ctx.raise(a);
}

} // namespace ws

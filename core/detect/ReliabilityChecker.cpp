#include "ReliabilityChecker.h"

namespace ws {

void ReliabilityChecker::onWatchOpened(WatcherId w, const WatchRequest& request) {
    Stream& s = m_streams[static_cast<size_t>(w)];
    // WatchRequest.rv is the last revision the client already has (start_revision - 1); with no
    // start revision etcd starts at "now", so the first event tells where the stream is.
    s.known = !request.rvEmpty && request.rv > 0;
    s.last = s.known ? request.rv : 0;
}

void ReliabilityChecker::onResponse(WatcherId w, TimeUs now,
                                    std::span<const ObservedEvent> events) {
    Stream& s = m_streams[static_cast<size_t>(w)];
    const bool every = m_ctx.seesEveryRevision(w);
    const HistoryOracle* oracle = m_ctx.historyOracle(w);
    for (const ObservedEvent& e : events) {
        const ResourceVersion rv = e.rv;
        if (!s.known) [[unlikely]] {
            s.known = true;
            s.last = rv;
            continue;
        }
        // Same revision (a multi-key txn) or lower (Ordered's business): nothing skipped here.
        if (rv <= s.last)
            continue;
        if (rv != s.last + 1) [[unlikely]] {
            if (every) {
                raiseGap(w, now, e, s.last, s.last + 1, false);
            } else if (oracle) {
                // Only a jump can hide a skipped revision, so the oracle is asked only then.
                const ResourceVersion next =
                    oracle->nextRevision(m_ctx.watcher(w).resource, s.last);
                if (next != 0 && next < rv)
                    raiseGap(w, now, e, s.last, next, true);
            }
        }
        s.last = rv;
    }
}

void ReliabilityChecker::raiseGap(WatcherId w, TimeUs now, const ObservedEvent& e,
                                  ResourceVersion last, ResourceVersion firstMissing,
                                  bool byOracle) {
    Anomaly a = m_ctx.make(w, now, AnomalyKind::RevisionGap, Severity::Error);
    a.key = m_ctx.keyName(e.key);
    a.rv = e.rv;
    const ResourceVersion lastMissing = e.rv - 1;
    const QString range = firstMissing == lastMissing
                              ? QStringLiteral("revision %1").arg(firstMissing)
                              : QStringLiteral("revisions %1..%2 (%3)")
                                    .arg(firstMissing)
                                    .arg(lastMissing)
                                    .arg(lastMissing - firstMissing + 1);
    // With an oracle only the first skipped change is certain; the rest of the range may hold
    // other resources' revisions.
    a.message =
        byOracle
            ? QStringLiteral("event at %1 after %2, but %3 changed at %4: missing %5")
                  .arg(e.rv)
                  .arg(last)
                  .arg(a.resource)
                  .arg(firstMissing)
                  .arg(firstMissing == lastMissing ? range : QStringLiteral("changes in ") + range)
            : QStringLiteral("event at %1 after %2, expected %3: %4 missing")
                  .arg(e.rv)
                  .arg(last)
                  .arg(last + 1)
                  .arg(range);
    m_ctx.raise(a);
}

} // namespace ws

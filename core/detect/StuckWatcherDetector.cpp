#include "StuckWatcherDetector.h"

namespace ws {

void StuckWatcherDetector::onPosition(WatcherId w, TimeUs now, ResourceVersion rv,
                                      ResourceVersion head) {
    State& s = m_state[static_cast<size_t>(w)];
    if (!s.seen || rv != s.rv) {
        s.seen = true;
        s.raised = false;
        s.rv = rv;
        s.since = now;
        s.headAtSince = head;
        return;
    }
    if (s.raised || head <= rv || head <= s.headAtSince ||
        now - s.since < m_ctx.thresholds().stuckWatcherAfter)
        return;
    s.raised = true;
    Anomaly a = m_ctx.make(w, now, AnomalyKind::StuckWatcher, Severity::Warning);
    a.rv = rv;
    a.message = QStringLiteral("RV %1 unchanged for %2 s while the head moved %3 -> %4 (%5 "
                               "revisions behind)")
                    .arg(rv)
                    .arg(static_cast<double>(now - s.since) / kUsPerSecond, 0, 'f', 1)
                    .arg(s.headAtSince)
                    .arg(head)
                    .arg(head - rv);
    m_ctx.raise(a);
}

} // namespace ws

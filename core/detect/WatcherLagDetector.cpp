#include "WatcherLagDetector.h"

namespace ws {

void WatcherLagDetector::onPosition(WatcherId w, TimeUs now, ResourceVersion rv,
                                    ResourceVersion head, double lagSeconds) {
    const double threshold = m_ctx.thresholds().watcherLagSeconds;
    unsigned char& raised = m_raised[static_cast<size_t>(w)];
    if (lagSeconds < 0)
        return; // unknown (DetectorHub::kLagUnknown): neither a lag nor a recovery
    if (raised) {
        if (lagSeconds < threshold / 2)
            raised = 0;
        return;
    }
    if (lagSeconds <= threshold)
        return;
    raised = 1;
    Anomaly a = m_ctx.make(w, now, AnomalyKind::WatcherLag, Severity::Warning);
    a.rv = rv;
    a.message = QStringLiteral("%1 revisions behind (head %2, watcher at %3), %4 s behind "
                               "(threshold %5 s)")
                    .arg(head - rv)
                    .arg(head)
                    .arg(rv)
                    .arg(lagSeconds, 0, 'f', 1)
                    .arg(threshold);
    m_ctx.raise(a);
}

} // namespace ws

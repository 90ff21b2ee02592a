#include "WatcherTerminatedDetector.h"

namespace ws {

void WatcherTerminatedDetector::onWatchClosed(WatcherId w, TimeUs now, WatchCloseReason reason,
                                              ResourceVersion rv) {
    if (reason != WatchCloseReason::ServerClosed)
        return;
    Anomaly a = m_ctx.make(w, now, AnomalyKind::WatcherTerminated, Severity::Warning);
    a.rv = rv > 0 ? rv : 0;
    a.message = QStringLiteral("server closed the watch without an ERROR event at RV %1").arg(rv);
    const TimeUs openedAt = m_openedAt[static_cast<size_t>(w)];
    if (openedAt >= 0)
        a.message += QStringLiteral(" after %1 s")
                         .arg(static_cast<double>(now - openedAt) / kUsPerSecond, 0, 'f', 1);
    m_ctx.raise(a);
}

} // namespace ws

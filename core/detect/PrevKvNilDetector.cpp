#include "PrevKvNilDetector.h"

#include <QRegularExpression>

namespace ws {

void PrevKvNilDetector::raiseEvent(WatcherId w, TimeUs now, const ObservedEvent& e) {
    Anomaly a = m_ctx.make(w, now, AnomalyKind::PrevKvNil, Severity::Error);
    a.key = m_ctx.keyName(e.key);
    a.rv = e.rv;
    a.message = QStringLiteral("%1 at %2 without prev_kv")
                    .arg(eventTypeLabel(e.type, m_ctx.isEtcd(w)))
                    .arg(e.rv);
    if (e.createRv > 0)
        a.message += QStringLiteral("; created at %1").arg(e.createRv);
    if (const ResourceVersion compact = m_ctx.compactRevision(); compact > 0)
        a.message += QStringLiteral("; compact revision %1").arg(compact);
    Last& last = m_last[static_cast<size_t>(w)];
    last.key = a.key;
    last.rv = a.rv;
    m_ctx.raise(a);
}

void PrevKvNilDetector::onWatchError(WatcherId w, TimeUs now, const ObservedStatus& status) {
    if (status.code != 500 || !status.message.contains(QLatin1String("PrevKv=nil")))
        return;
    // "etcd event received with PrevKv=nil (key="...", modRevision=N, type=DELETE)"
    // Built per call: this path is rare, and no regex state is shared between sessions' threads.
    const QRegularExpression keyRe(QStringLiteral("key=\"([^\"]*)\""));
    const QRegularExpression revRe(QStringLiteral("modRevision=(\\d+)"));
    const QString key = keyRe.match(status.message).captured(1);
    const ResourceVersion rv = revRe.match(status.message).captured(1).toLongLong();
    Last& last = m_last[static_cast<size_t>(w)];
    if (rv != 0 && rv == last.rv && key == last.key)
        return; // the event itself was already reported on this watcher
    Anomaly a = m_ctx.make(w, now, AnomalyKind::PrevKvNil, Severity::Error);
    a.key = key;
    a.rv = rv;
    a.message = QStringLiteral("%1 %2: %3").arg(status.code).arg(status.reason, status.message);
    last.key = key;
    last.rv = rv;
    m_ctx.raise(a);
}

} // namespace ws

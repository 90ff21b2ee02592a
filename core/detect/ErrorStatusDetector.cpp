#include "ErrorStatusDetector.h"

namespace ws {

bool ErrorStatusDetector::isTooOld(const ObservedStatus& status) {
    return status.code == 410 || status.compactRevision > 0 ||
           status.reason == QLatin1String("Compacted");
}

bool ErrorStatusDetector::isTooLarge(const ObservedStatus& status) {
    // The request-timeout filter's 504 (reason Timeout too, server/filters/timeout.go) is a
    // slow request, not an RV the cache has not reached.
    if (status.message.contains(QLatin1String("request did not complete within")))
        return false;
    return status.code == 504 &&
           (status.reason == QLatin1String("Timeout") ||
            status.message.contains(QLatin1String("Too large resource version"),
                                    Qt::CaseInsensitive));
}

void ErrorStatusDetector::onError(WatcherId w, TimeUs now, const ObservedStatus& status,
                                  bool onList) {
    const bool tooOld = isTooOld(status);
    if (!tooOld && !isTooLarge(status))
        return;
    Anomaly a = m_ctx.make(w, now, tooOld ? AnomalyKind::TooOldRv : AnomalyKind::TooLargeRv,
                           Severity::Warning);
    a.rv = status.requestedRv;
    QString what = onList ? QStringLiteral("list") : QStringLiteral("watch");
    if (status.requestedRv > 0)
        what += QStringLiteral(" from RV %1").arg(status.requestedRv);
    if (tooOld && status.compactRevision > 0) {
        a.message = QStringLiteral("%1 canceled: compacted at revision %2")
                        .arg(what)
                        .arg(status.compactRevision);
    } else {
        a.message = QStringLiteral("%1 failed: %2").arg(what).arg(status.code);
        if (!status.reason.isEmpty())
            a.message += QLatin1Char(' ') + status.reason;
    }
    if (!status.message.isEmpty())
        a.message += QStringLiteral(": ") + status.message;
    m_ctx.raise(a);
}

} // namespace ws

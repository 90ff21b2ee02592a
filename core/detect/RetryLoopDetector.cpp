#include "RetryLoopDetector.h"

#include <QHash>

#include <algorithm>

namespace ws {

namespace {

// A connection failure in words: the reasons the sources give one (ApiStatus' ConnectionReset and
// ConnectionRefused, the cluster transport's HttpErrorKind names).
QString transportFailure(const QString& reason) {
    static const QHash<QString, QString> words{
        {QStringLiteral("ConnectionReset"), QStringLiteral("connection reset")},
        {QStringLiteral("ConnectionRefused"), QStringLiteral("connection refused")},
        {QStringLiteral("connection-refused"), QStringLiteral("connection refused")},
        {QStringLiteral("host-not-found"), QStringLiteral("host not found")},
        {QStringLiteral("tls"), QStringLiteral("TLS failure")},
        {QStringLiteral("timeout"), QStringLiteral("no response (timeout)")},
        {QStringLiteral("cancelled"), QStringLiteral("request cancelled")},
        {QStringLiteral("protocol-error"), QStringLiteral("protocol error")},
    };
    const auto it = words.constFind(reason);
    if (it != words.constEnd())
        return *it;
    return reason.isEmpty() ? QStringLiteral("connection failure")
                            : QStringLiteral("connection failure (%1)").arg(reason);
}

// What was received, as the loop's message starts: "504 Timeout received", "connection reset".
QString errorReceived(const ObservedStatus& status) {
    if (status.code == 0)
        return transportFailure(status.reason);
    if (status.reason.isEmpty())
        return QStringLiteral("%1 received").arg(status.code);
    return QStringLiteral("%1 %2 received").arg(status.code).arg(status.reason);
}

} // namespace

void RetryLoopDetector::onListCompleted(WatcherId w, std::int64_t items) {
    if (items > 0)
        m_state[static_cast<size_t>(w)].listedSince = true;
}

RetryLoopDetector::State& RetryLoopDetector::count(WatcherId w, const ObservedStatus& status,
                                                   ResourceVersion highest) {
    State& s = m_state[static_cast<size_t>(w)];
    const bool progressed = s.listedSince || highest > s.highestAtLast;
    if (progressed)
        s.raised = false;
    if (!progressed && s.count > 0 && status.code == s.code && status.reason == s.reason) {
        ++s.count;
    } else {
        s.count = 1;
        s.returned = 0;
        s.code = status.code;
        s.reason = status.reason;
    }
    s.listedSince = false;
    s.highestAtLast = highest;
    return s;
}

void RetryLoopDetector::onRetried(WatcherId w, const ObservedStatus& status,
                                  ResourceVersion highest) {
    count(w, status, highest);
}

void RetryLoopDetector::onError(WatcherId w, TimeUs now, const ObservedStatus& status,
                                ResourceVersion highest) {
    State& s = count(w, status, highest);
    ++s.returned;
    const int threshold = m_ctx.thresholds().retryLoopCount;
    if (s.count < threshold || s.returned < std::min(2, threshold) || s.raised)
        return;
    s.raised = true;
    Anomaly a = m_ctx.make(w, now, AnomalyKind::RetryLoop, Severity::Error);
    a.rv = status.requestedRv;
    // No HTTP status: the apiserver could not be reached (dead, restarting). The loop is the
    // server's, shared by every client that tries it; a status it answered is the client's own.
    if (status.code == 0)
        a.apiserver = status.server;
    const int retried = s.count - s.returned;
    a.message =
        QStringLiteral("%1 %2 times in a row%3 without progress (%4)")
            .arg(errorReceived(status))
            .arg(s.count)
            .arg(retried > 0 ? QStringLiteral(" (%1 sent again by the REST client)").arg(retried)
                             : QString())
            .arg(highest > 0 ? QStringLiteral("watcher stays at RV %1").arg(highest)
                             : QStringLiteral("watcher has no RV yet"));
    if (!status.message.isEmpty())
        a.message += QStringLiteral(": ") + status.message;
    m_ctx.raise(a);
}

} // namespace ws

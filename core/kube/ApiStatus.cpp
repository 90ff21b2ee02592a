#include "ApiStatus.h"

#include "ServerProfile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ws {

QByteArray ApiStatus::toJson() const {
    QJsonObject o{{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", QJsonObject{}},
                  {"status", "Failure"}, {"message", message}, {"reason", reason},
                  {"code", code}};
    if (hasCause || retryAfterSeconds > 0) {
        QJsonObject details;
        if (hasCause) {
            QJsonObject cause;
            if (!causeReason.isEmpty())
                cause.insert("reason", causeReason);
            cause.insert("message", causeMessage);
            details.insert("causes", QJsonArray{cause});
        }
        if (retryAfterSeconds > 0)
            details.insert("retryAfterSeconds", retryAfterSeconds);
        o.insert("details", details);
    }
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

ObservedStatus ApiStatus::toObserved(ResourceVersion requested) const {
    ObservedStatus s;
    s.code = code;
    s.reason = reason;
    s.message = message;
    s.requestedRv = requested;
    return s;
}

ApiStatus ApiStatus::tooOld(const ServerProfile& profile, ResourceVersion requested,
                            ResourceVersion oldestMinusOne) {
    ApiStatus s;
    s.code = 410;
    s.reason = profile.tooOldReason();
    s.message =
        QStringLiteral("too old resource version: %1 (%2)").arg(requested).arg(oldestMinusOne);
    return s;
}

ApiStatus ApiStatus::tooOldFromEtcd(const ServerProfile& profile) {
    ApiStatus s;
    s.code = 410;
    s.reason = profile.tooOldReason();
    s.message = QStringLiteral("The resourceVersion for the provided watch is too old.");
    return s;
}

ApiStatus ApiStatus::tooLarge(const ServerProfile& profile, ResourceVersion requested,
                              ResourceVersion current) {
    // Three shapes (seed 002; client-go's isTooLargeResourceVersionError): 1.16 has no causes,
    // 1.17.0-1.18.5 a cause with only a message, 1.18.6+ a cause with reason
    // ResourceVersionTooLarge.
    ApiStatus s;
    s.code = 504;
    s.reason = QStringLiteral("Timeout");
    s.message = QStringLiteral("Timeout: Too large resource version: %1, current: %2")
                    .arg(requested)
                    .arg(current);
    s.retryAfterSeconds = 1;
    if (profile.minor >= 17) {
        s.hasCause = true;
        s.causeMessage = QStringLiteral("Too large resource version");
        if (profile.minor > 18 || (profile.minor == 18 && profile.patch >= 6))
            s.causeReason = QStringLiteral("ResourceVersionTooLarge");
    }
    return s;
}

ApiStatus ApiStatus::prevKvNil(const QString& key, ResourceVersion modRevision, bool isDelete) {
    ApiStatus s;
    s.code = 500;
    s.reason = QStringLiteral("InternalError");
    s.message = QStringLiteral("Internal error occurred: etcd event received with PrevKv=nil "
                               "(key=\"%1\", modRevision=%2, type=%3)")
                    .arg(key)
                    .arg(modRevision)
                    .arg(isDelete ? QStringLiteral("DELETE") : QStringLiteral("PUT"));
    return s;
}

ApiStatus ApiStatus::connectionRefused(const QString& server) {
    ApiStatus s;
    s.code = 0;
    s.reason = QStringLiteral("ConnectionRefused");
    s.message = QStringLiteral("dial tcp %1: connect: connection refused").arg(server);
    return s;
}

ApiStatus ApiStatus::connectionReset(const QString& server) {
    ApiStatus s;
    s.code = 0;
    s.reason = QStringLiteral("ConnectionReset");
    s.message =
        QStringLiteral("read tcp %1 (via load balancer): connection reset by peer").arg(server);
    return s;
}

ApiStatus ApiStatus::etcdUnavailable() {
    ApiStatus s;
    s.code = 500;
    s.reason = QStringLiteral("InternalError");
    s.message = QStringLiteral("etcdserver: request timed out");
    return s;
}

} // namespace ws

#include "ApiStatus.h"
#include "util/JsonText.h"

#include "ServerProfile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ws {

QByteArray ApiStatus::toJson() const {
    // metav1.Status in its Go field order (kind, apiVersion, metadata, status, message, reason,
    // details, code), as the apiserver's JSON encoder writes it.
    std::string o = R"({"kind":"Status","apiVersion":"v1","metadata":{)";
    if (!listContinue.isEmpty()) {
        o += R"("continue":)";
        appendJsonString(o, listContinue);
    }
    o += R"(},"status":"Failure","message":)";
    appendJsonString(o, message);
    o += R"(,"reason":)";
    appendJsonString(o, reason);
    const bool hasCauses = hasCause || !fieldCauses.empty();
    if (hasCauses || retryAfterSeconds > 0 || !detailsKind.isEmpty() || !detailsName.isEmpty()) {
        // StatusDetails field order: name, group, kind, uid, causes, retryAfterSeconds.
        o += R"(,"details":{)";
        bool first = true;
        auto field = [&](const char* name) {
            if (!first)
                o += ',';
            first = false;
            o += '"';
            o += name;
            o += R"(":)";
        };
        if (!detailsName.isEmpty()) {
            field("name");
            appendJsonString(o, detailsName);
        }
        if (!detailsGroup.isEmpty()) {
            field("group");
            appendJsonString(o, detailsGroup);
        }
        if (!detailsKind.isEmpty()) {
            field("kind");
            appendJsonString(o, detailsKind);
        }
        if (hasCauses) {
            field("causes");
            o += '[';
            bool firstCause = true;
            auto cause = [&](const QString& reason, const QString& message,
                             const QString& fieldName) {
                if (!firstCause)
                    o += ',';
                firstCause = false;
                o += '{';
                if (!reason.isEmpty()) {
                    o += R"("reason":)";
                    appendJsonString(o, reason);
                    o += ',';
                }
                o += R"("message":)";
                appendJsonString(o, message);
                if (!fieldName.isEmpty()) {
                    o += R"(,"field":)";
                    appendJsonString(o, fieldName);
                }
                o += '}';
            };
            if (hasCause)
                cause(causeReason, causeMessage, QString());
            for (const FieldCause& c : fieldCauses)
                cause(c.reason, c.message, c.field);
            o += ']';
        }
        if (retryAfterSeconds > 0) {
            field("retryAfterSeconds");
            o += std::to_string(retryAfterSeconds);
        }
        o += '}';
    }
    o += R"(,"code":)" + std::to_string(code) + '}';
    return QByteArray::fromStdString(o);
}

ObservedStatus ApiStatus::toObserved(ResourceVersion requested, const QString& server) const {
    ObservedStatus s;
    s.server = server;
    s.code = code;
    s.reason = reason;
    s.message = message;
    s.requestedRv = requested;
    s.retryAfterSeconds = retryAfterSeconds;
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

ApiStatus ApiStatus::tooOldFromEtcd(const ServerProfile&) {
    // etcd3/errors.go interpretWatchError: NewResourceExpired in every version.
    ApiStatus s;
    s.code = 410;
    s.reason = QStringLiteral("Expired");
    s.message = QStringLiteral("The resourceVersion for the provided watch is too old.");
    return s;
}

// etcd3/errors.go (interpretListError, handleCompactedErrorForPaging): the same texts from
// v1.16.0 to v1.34.0.
ApiStatus ApiStatus::listTooOld() {
    ApiStatus s;
    s.code = 410;
    s.reason = QStringLiteral("Expired");
    s.message = QStringLiteral("The resourceVersion for the provided list is too old.");
    return s;
}

ApiStatus ApiStatus::continueTooOld(const QString& freshToken) {
    ApiStatus s;
    s.code = 410;
    s.reason = QStringLiteral("Expired");
    s.message = QStringLiteral("The provided continue parameter is too old to display a "
                               "consistent list result. You can start a new list without the "
                               "continue parameter");
    if (freshToken.isEmpty()) {
        s.message += u'.';
        return s;
    }
    s.message += QStringLiteral(
        ", or use the continue token in this response to retrieve the remainder of the results. "
        "Continuing with the provided token results in an inconsistent list - objects that were "
        "created, modified, or deleted between the time the first chunk was returned and now may "
        "show up in the list.");
    s.listContinue = freshToken;
    return s;
}

ApiStatus ApiStatus::invalidContinue(const QString& why) {
    ApiStatus s;
    s.code = 400;
    s.reason = QStringLiteral("BadRequest");
    s.message = QStringLiteral("invalid continue token: continue key is not valid: %1").arg(why);
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

ApiStatus ApiStatus::tooLargeFromEtcd(const ServerProfile& profile, ResourceVersion requested,
                                      ResourceVersion current) {
    ApiStatus s = tooLarge(profile, requested, current);
    if (profile.minor >= 19)
        s.retryAfterSeconds = 0;
    return s;
}

ApiStatus ApiStatus::prevKvNil(const QString& key, ResourceVersion modRevision, bool isDelete) {
    ApiStatus s;
    s.code = 500;
    s.reason = QStringLiteral("InternalError");
    // errors.NewInternalError: the cause carries the inner error's text.
    s.hasCause = true;
    s.causeMessage = QStringLiteral("etcd event received with PrevKv=nil (key=\"%1\", "
                                    "modRevision=%2, type=%3)")
                         .arg(key)
                         .arg(modRevision)
                         .arg(isDelete ? QStringLiteral("DELETE") : QStringLiteral("PUT"));
    s.message = QStringLiteral("Internal error occurred: ") + s.causeMessage;
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

ApiStatus ApiStatus::tooManyRequests(int retryAfterSeconds) {
    ApiStatus s;
    s.code = 429;
    s.reason = QStringLiteral("TooManyRequests");
    s.message = QStringLiteral("Too many requests, please try again later.");
    s.retryAfterSeconds = retryAfterSeconds;
    s.plainText = true;
    return s;
}

ApiStatus ApiStatus::watchListStorageUnsupported() {
    ApiStatus s;
    s.code = 500;
    s.reason = QStringLiteral("InternalError");
    s.message = QStringLiteral("a watch stream was requested by the client but the required "
                               "storage feature RequestWatchProgress is disabled");
    return s;
}

ApiStatus ApiStatus::storageInitializing(int retryAfterSeconds, const QString& lastError) {
    ApiStatus s;
    s.code = 429;
    s.reason = QStringLiteral("TooManyRequests");
    s.message = QStringLiteral("storage is (re)initializing");
    if (!lastError.isEmpty())
        s.message += QStringLiteral(": ") + lastError;
    s.retryAfterSeconds = retryAfterSeconds;
    return s;
}

ApiStatus ApiStatus::cacheWaitDeadlineExceeded() {
    ApiStatus s;
    s.code = 503;
    s.reason = QStringLiteral("ServiceUnavailable");
    s.message = QStringLiteral("context deadline exceeded");
    return s;
}

ApiStatus ApiStatus::requestTimeout() {
    ApiStatus s;
    s.code = 504;
    s.reason = QStringLiteral("Timeout");
    s.message = QStringLiteral("Timeout: request did not complete within the allotted timeout");
    return s;
}

bool ApiStatus::isStorageInitializing() const {
    return code == 429 && message.startsWith(QLatin1String("storage is (re)initializing"));
}

} // namespace ws

#pragma once

#include "model/Observation.h"
#include "model/ResourceVersion.h"

#include <QByteArray>
#include <QString>
#include <vector>

namespace ws {

struct ServerProfile;

// A metav1.Status as the apiserver returns it (list error body, or a watch ERROR event object).
struct ApiStatus {
    int code = 0; // 0: transport failure (connection refused), no HTTP status
    QString reason;
    QString message;
    bool hasCause = false;
    QString causeReason; // may be empty even with a cause (1.17 shape)
    QString causeMessage;
    int retryAfterSeconds = 0;
    // errors.NewInvalid: details name the kind that failed validation and carry one cause per
    // field error (reason FieldValueForbidden, ..., message, field), after the cause above.
    QString detailsGroup; // "meta.k8s.io"
    QString detailsKind;  // "ListOptions"
    struct FieldCause {
        QString reason; // field.ErrorType: FieldValueForbidden, FieldValueNotSupported
        QString message;
        QString field;
    };
    std::vector<FieldCause> fieldCauses;

    QByteArray toJson() const;
    ObservedStatus toObserved(ResourceVersion requested = 0) const;

    static ApiStatus tooOld(const ServerProfile& profile, ResourceVersion requested,
                            ResourceVersion oldestMinusOne);
    static ApiStatus tooOldFromEtcd(const ServerProfile& profile);
    static ApiStatus tooLarge(const ServerProfile& profile, ResourceVersion requested,
                              ResourceVersion current);
    // The etcd path's 504 (1.19+, etcd3/store.go validateMinimumResourceVersion ->
    // storage.NewTooLargeResourceVersionError(rv, current, 0)): the same body, but without
    // retryAfterSeconds, so no Retry-After header either.
    static ApiStatus tooLargeFromEtcd(const ServerProfile& profile, ResourceVersion requested,
                                      ResourceVersion current);
    static ApiStatus prevKvNil(const QString& key, ResourceVersion modRevision, bool isDelete);
    static ApiStatus connectionRefused(const QString& server);
    // A load balancer in front of a dead apiserver accepts the connection and drops it: the
    // client sees EOF / connection reset, not "connection refused".
    static ApiStatus connectionReset(const QString& server);
    bool isConnectionRefused() const {
        return code == 0 && reason == QLatin1String("ConnectionRefused");
    }
    static ApiStatus etcdUnavailable();
    // A watch cache that is not ready (ResilientWatchCacheInitialization, 1.31+):
    // errors.NewTooManyRequests("storage is (re)initializing", retryAfter); from 1.33 the
    // message carries the last ListAndWatch error after ": " (ready.go readGenerationLocked).
    static ApiStatus storageInitializing(int retryAfterSeconds, const QString& lastError = {});
    // A watch that waited on a not-ready cache until its context ended (1.27-1.30):
    // errors.NewServiceUnavailable(ctx.Err().Error()).
    static ApiStatus cacheWaitDeadlineExceeded();
    bool isStorageInitializing() const;
};

} // namespace ws

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
    // errors.NewNotFound: details name the object, its group and its resource.
    QString detailsName;  // "ws-missing"
    QString detailsGroup; // "meta.k8s.io"
    QString detailsKind;  // "ListOptions", "configmaps"
    struct FieldCause {
        QString reason; // field.ErrorType: FieldValueForbidden, FieldValueNotSupported
        QString message;
        QString field;
    };
    std::vector<FieldCause> fieldCauses;
    // metadata.continue of the Status (ListMeta): the fresh token an expired continue gets.
    QString listContinue;
    // The body is the message as text/plain (http.Error), not a Status: API Priority and
    // Fairness rejects that way (filters/priority-and-fairness.go tooManyRequests).
    bool plainText = false;

    QByteArray toJson() const;
    // server: the apiserver the request went to, where the caller knows it.
    ObservedStatus toObserved(ResourceVersion requested = 0, const QString& server = {}) const;

    static ApiStatus tooOld(const ServerProfile& profile, ResourceVersion requested,
                            ResourceVersion oldestMinusOne);
    static ApiStatus tooOldFromEtcd(const ServerProfile& profile);
    // A list at a compacted revision from etcd (resourceVersionMatch=Exact, or a limit with
    // RV=N): 410 Expired "The resourceVersion for the provided list is too old."
    static ApiStatus listTooOld();
    // A continue whose revision was compacted: 410 Expired with a fresh token (rv -1: continue
    // at the latest revision) in metadata.continue; without one, the plain message.
    static ApiStatus continueTooOld(const QString& freshToken);
    // An undecodable continue token: 400 "invalid continue token: continue key is not valid...".
    static ApiStatus invalidContinue(const QString& why);
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
    // API Priority and Fairness (or, before 1.20, the max-in-flight filter) turning a request
    // away: its level's queues are full, or it waited past the queue-wait limit.
    static ApiStatus tooManyRequests(int retryAfterSeconds);
    // A watch-list (sendInitialEvents with bookmarks) on 1.31+ over an etcd whose progress
    // answers it does not trust (< 3.4.31 / 3.5.13): the cacher's errWatcher, a 500 ERROR event
    // at once (cacher.go Watch, "client-go is going to fall back to a standard LIST").
    static ApiStatus watchListStorageUnsupported();
    // A watch cache that is not ready (ResilientWatchCacheInitialization, 1.31+):
    // errors.NewTooManyRequests("storage is (re)initializing", retryAfter); from 1.33 the
    // message carries the last ListAndWatch error after ": " (ready.go readGenerationLocked).
    static ApiStatus storageInitializing(int retryAfterSeconds, const QString& lastError = {});
    // A watch that waited on a not-ready cache until its context ended (1.27-1.30):
    // errors.NewServiceUnavailable(ctx.Err().Error()).
    static ApiStatus cacheWaitDeadlineExceeded();
    // A non-long-running request (a list) past --request-timeout: the timeout filter's
    // errors.NewTimeoutError("request did not complete within the allotted timeout", 0), 504
    // (apiserver/pkg/server/filters/timeout.go). The handler itself runs on.
    static ApiStatus requestTimeout();
    bool isStorageInitializing() const;
};

} // namespace ws

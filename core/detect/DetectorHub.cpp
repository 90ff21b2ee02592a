#include "DetectorHub.h"

#include "CacheNotReadyDetector.h"
#include "DetectorContext.h"
#include "ErrorStatusDetector.h"
#include "InitialEventsStalledDetector.h"
#include "KeyHistoryChecker.h"
#include "ListPressureDetector.h"
#include "PrevKvNilDetector.h"
#include "ReliabilityChecker.h"
#include "RelistStormDetector.h"
#include "RetryLoopDetector.h"
#include "StaleObjectDetector.h"
#include "StuckWatcherDetector.h"
#include "TimeTravelDetector.h"
#include "WatchGuaranteeChecker.h"
#include "WatcherLagDetector.h"
#include "WatcherStateTracker.h"

#include "WatcherTerminatedDetector.h"
#include <QHash>

namespace ws {

// The detectors are concrete members, called directly: the per-event path costs a few
// non-virtual calls per response and each detector loops over the response's events itself.
struct DetectorHub::Impl {
    Impl(const KeyTable& keys, DetectorThresholds thresholds)
        : ctx(keys, thresholds), guarantees(ctx), reliability(ctx), timeTravel(ctx), prevKvNil(ctx),
          errorStatus(ctx), retryLoop(ctx), relistStorm(ctx), lag(ctx), stuck(ctx), terminated(ctx),
          staleObject(ctx), initialEvents(ctx), cacheNotReady(ctx), listPressure(ctx),
          keyHistory(ctx), states(ctx.thresholds()) {}

    DetectorContext ctx;
    WatchGuaranteeChecker guarantees;
    ReliabilityChecker reliability;
    TimeTravelDetector timeTravel;
    PrevKvNilDetector prevKvNil;
    ErrorStatusDetector errorStatus;
    RetryLoopDetector retryLoop;
    RelistStormDetector relistStorm;
    WatcherLagDetector lag;
    StuckWatcherDetector stuck;
    WatcherTerminatedDetector terminated;
    StaleObjectDetector staleObject;
    InitialEventsStalledDetector initialEvents;
    CacheNotReadyDetector cacheNotReady;
    ListPressureDetector listPressure;
    KeyHistoryChecker keyHistory;
    WatcherStateTracker states;
    QHash<QString, WatcherId> byId;
};

DetectorHub::DetectorHub(const KeyTable& keys, DetectorThresholds thresholds)
    : d(std::make_unique<Impl>(keys, thresholds)) {}

DetectorHub::~DetectorHub() = default;

void DetectorHub::setSink(Sink sink) {
    d->ctx.setSink(std::move(sink));
}

void DetectorHub::forgetKey(KeyId key) {
    d->keyHistory.forgetKey(key);
    d->staleObject.forgetKey(key);
}

int DetectorHub::watcherCount() const {
    return d->ctx.watcherCount();
}

void DetectorHub::setHistoryOracle(const HistoryOracle* oracle) {
    d->ctx.setHistoryOracle(oracle);
}

const DetectorThresholds& DetectorHub::thresholds() const {
    return d->ctx.thresholds();
}

WatcherId DetectorHub::registerWatcher(const WatcherInfo& info) {
    const WatcherId w = d->ctx.addWatcher(info);
    d->guarantees.addWatcher();
    d->reliability.addWatcher();
    d->timeTravel.addWatcher();
    d->prevKvNil.addWatcher();
    d->retryLoop.addWatcher();
    d->relistStorm.addWatcher(w);
    d->lag.addWatcher();
    d->stuck.addWatcher();
    d->terminated.addWatcher();
    d->initialEvents.addWatcher();
    d->cacheNotReady.addWatcher(info);
    d->states.addWatcher();
    d->byId.insert(info.id, w);
    return w;
}

WatcherId DetectorHub::findWatcher(const QString& id) const {
    return d->byId.value(id, -1);
}

WatcherStatus DetectorHub::watcherStatus(WatcherId id) const {
    return d->states.status(id);
}

const WatcherInfo& DetectorHub::watcher(WatcherId id) const {
    return d->ctx.watcher(id);
}

void DetectorHub::listStarted(WatcherId w, TimeUs now, const ListRequest& request) {
    d->initialEvents.poll(w, now);
    d->relistStorm.onListStarted(w, now, request);
    d->cacheNotReady.onListStarted(w, now);
    d->states.onListStarted(w, request);
    if (d->ctx.checksKeyHistory(w))
        d->keyHistory.onListStarted(w);
}

void DetectorHub::listedObjects(WatcherId w, std::span<const ObservedEvent> objects) {
    if (d->ctx.checksKeyHistory(w))
        d->keyHistory.onListedObjects(w, objects);
}

void DetectorHub::listCompleted(WatcherId w, TimeUs now, ResourceVersion listRv,
                                std::int64_t items) {
    d->initialEvents.poll(w, now);
    d->timeTravel.onListCompleted(w, now, listRv);
    d->retryLoop.onListCompleted(w, items);
    d->cacheNotReady.onListEnded(w);
    d->states.onListCompleted(w);
    if (d->ctx.checksKeyHistory(w))
        d->keyHistory.onListCompleted(w, listRv);
}

void DetectorHub::listFailed(WatcherId w, TimeUs now, const ObservedStatus& status) {
    d->initialEvents.poll(w, now);
    d->ctx.noteCompactRevision(status.compactRevision);
    d->errorStatus.onError(w, now, status, true);
    d->cacheNotReady.onListEnded(w);
    d->cacheNotReady.onError(w, now, status);
    d->states.onListFailed(w);
    // A not-ready cache's 429/503 is the server telling the client to come back: cache-not-ready
    // reports it when it lasts, not retry-loop.
    if (!CacheNotReadyDetector::isNotReadyStatus(status))
        d->retryLoop.onError(w, now, status, d->timeTravel.highest(w));
}

void DetectorHub::watchOpened(WatcherId w, TimeUs now, const WatchRequest& request) {
    d->initialEvents.poll(w, now); // the previous watch-list may be overdue
    d->guarantees.onWatchOpened(w);
    d->reliability.onWatchOpened(w, request);
    d->timeTravel.onWatchOpened(w, request);
    d->terminated.onWatchOpened(w, now);
    d->cacheNotReady.onWatchOpened(w, now);
    d->initialEvents.onWatchOpened(w, now, request);
    d->states.onWatchOpened(w, request);
    if (d->ctx.checksKeyHistory(w))
        d->keyHistory.onWatchOpened(w, request);
}

void DetectorHub::watchResponse(WatcherId w, TimeUs now, std::span<const ObservedEvent> events) {
    Q_ASSERT(w >= 0 && w < d->ctx.watcherCount());
    if (events.empty()) [[unlikely]]
        return;
    d->initialEvents.poll(w, now);
    d->cacheNotReady.onDelivered(w, now);
    d->states.onResponse(w, events);
    if (d->ctx.checksKeyHistory(w)) [[unlikely]]
        d->keyHistory.onResponse(w, now, events);
    d->guarantees.onResponse(w, now, events);
    if (d->ctx.isEtcd(w)) {
        d->prevKvNil.onResponse(w, now, events);
        d->reliability.onResponse(w, now, events);
    }
    d->timeTravel.onResponse(w, now, events);
}

void DetectorHub::watchProgress(WatcherId w, TimeUs now, ResourceVersion rv,
                                bool initialEventsEnd) {
    d->initialEvents.poll(w, now);
    d->initialEvents.onProgress(w, initialEventsEnd);
    d->cacheNotReady.onDelivered(w, now);
    d->states.onProgress(w, initialEventsEnd);
    d->guarantees.onProgress(w, now, rv);
    d->timeTravel.onProgress(w, now, rv);
}

void DetectorHub::requestedRv(WatcherId w, TimeUs now, ResourceVersion rv, bool list) {
    d->timeTravel.onRequested(w, now, rv, list);
}

void DetectorHub::watchError(WatcherId w, TimeUs now, const ObservedStatus& status) {
    d->initialEvents.poll(w, now);
    d->ctx.noteCompactRevision(status.compactRevision);
    d->errorStatus.onError(w, now, status, false);
    d->cacheNotReady.onError(w, now, status);
    d->states.onWatchError(w);
    d->prevKvNil.onWatchError(w, now, status);
    // A not-ready cache's 429/503 is the server telling the client to come back: cache-not-ready
    // reports it when it lasts, not retry-loop.
    if (!CacheNotReadyDetector::isNotReadyStatus(status))
        d->retryLoop.onError(w, now, status, d->timeTravel.highest(w));
}

void DetectorHub::requestRetried(WatcherId w, TimeUs now, const ObservedStatus& status) {
    if (CacheNotReadyDetector::isNotReadyStatus(status))
        d->cacheNotReady.onError(w, now, status);
    else
        d->retryLoop.onRetried(w, status, d->timeTravel.highest(w));
}

void DetectorHub::watchClosed(WatcherId w, TimeUs now, WatchCloseReason reason) {
    d->initialEvents.poll(w, now);
    d->initialEvents.onWatchEnded(w);
    d->terminated.onWatchClosed(w, now, reason, d->timeTravel.highest(w));
    d->states.onWatchClosed(w, reason);
}

void DetectorHub::watcherStopped(WatcherId w, TimeUs /*now*/) {
    d->states.onStopped(w);
}

void DetectorHub::watcherPosition(WatcherId w, TimeUs now, ResourceVersion rv, ResourceVersion head,
                                  double lagSeconds) {
    d->initialEvents.poll(w, now);
    d->cacheNotReady.poll(w, now);
    d->lag.onPosition(w, now, rv, head, lagSeconds);
    d->stuck.onPosition(w, now, rv, head);
    d->states.onPosition(w, now, rv, head, lagSeconds);
}

void DetectorHub::checkStore(WatcherId owner, TimeUs now, ResourceVersion storeRv,
                             std::span<const StoreEntry> entries, const ConsistencyOracle& truth) {
    // An informer that went back in time (a list from a lagging apiserver) is judged against
    // the newest state it had already seen; a cache against its own RV only, since it may hold
    // a response it has reported but not applied yet (an error in mid-response).
    const ResourceVersion seen = d->ctx.isEtcd(owner) ? storeRv : d->timeTravel.highest(owner);
    d->staleObject.check(owner, now, storeRv, seen, entries, truth);
}

void DetectorHub::report(const Anomaly& anomaly) {
    d->ctx.raise(anomaly);
}

void DetectorHub::apiserverMemory(TimeUs now, const ApiserverMemory& memory) {
    d->listPressure.onMemory(now, memory);
}

void DetectorHub::tick(TimeUs now) {
    d->initialEvents.tick(now);
    d->cacheNotReady.tick(now);
}

TimeUs DetectorHub::nextDue() const {
    return std::min(d->initialEvents.nextDue(), d->cacheNotReady.nextDue());
}

std::int64_t DetectorHub::raisedCount() const {
    return d->ctx.raisedCount();
}

} // namespace ws

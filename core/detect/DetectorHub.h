#pragma once

#include "ConsistencyOracle.h"
#include "DetectorThresholds.h"
#include "WatcherStateTracker.h"
#include "model/Anomaly.h"
#include "model/Observation.h"

#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace ws {

class KeyTable;

struct StoreEntry {
    KeyId key = kNoKey;
    ResourceVersion rv = 0; // the object's resourceVersion as the store holds it
};

// Receives everything sources observe and runs the anomaly detectors of SPEC §2 on it. Each
// detector is a small unit with its own state and thresholds; the hub routes each observation to
// the detectors that need it and forwards what they raise to the sink. Not thread-safe: a
// session owns one hub and calls it from its worker thread.
class DetectorHub {
public:
    using Sink = std::function<void(const Anomaly&)>;

    DetectorHub(const KeyTable& keys, DetectorThresholds thresholds = {});
    ~DetectorHub();
    DetectorHub(const DetectorHub&) = delete;
    DetectorHub& operator=(const DetectorHub&) = delete;

    void setSink(Sink sink);
    void setHistoryOracle(const HistoryOracle* oracle); // may be null
    const DetectorThresholds& thresholds() const;

    WatcherId registerWatcher(const WatcherInfo& info);
    const WatcherInfo& watcher(WatcherId id) const;
    int watcherCount() const;
    // The watcher registered last under this WatcherInfo::id, or -1.
    WatcherId findWatcher(const QString& id) const;
    // Its state, errors and selector as the observations so far show them (WatcherStateTracker).
    WatcherStatus watcherStatus(WatcherId id) const;

    // Lists (Kubernetes LIST, etcd paged Range).
    void listStarted(WatcherId w, TimeUs now, const ListRequest& request);
    void listCompleted(WatcherId w, TimeUs now, ResourceVersion listRv, std::int64_t items);
    void listFailed(WatcherId w, TimeUs now, const ObservedStatus& status);
    // Objects a list returned (one page at a time), for the checks that remember every key.
    void listedObjects(WatcherId w, std::span<const ObservedEvent> objects);

    // Watches. A response is what arrived in one piece: one etcd WatchResponse (fragments already
    // merged), or one Kubernetes watch event.
    void watchOpened(WatcherId w, TimeUs now, const WatchRequest& request);
    void watchResponse(WatcherId w, TimeUs now, std::span<const ObservedEvent> events);
    // A bookmark / etcd progress notification at rv. initialEventsEnd: the bookmark carries the
    // k8s.io/initial-events-end annotation.
    void watchProgress(WatcherId w, TimeUs now, ResourceVersion rv, bool initialEventsEnd);
    // The RV a list or watch asked for, as an audit log shows it (0: RV "" or "0").
    void requestedRv(WatcherId w, TimeUs now, ResourceVersion rv, bool list);
    // An ERROR event on a watch, or an etcd cancel with compact_revision.
    void watchError(WatcherId w, TimeUs now, const ObservedStatus& status);
    // An answer the client's REST layer read away and sent its request again after (a 429/5xx
    // with Retry-After, client-go's rest.Request): the watcher above never saw it, so nothing
    // changes its state or counts as its error, but a watch cache refusing requests while it
    // initialises is told by these answers (cache-not-ready).
    void requestRetried(WatcherId w, TimeUs now, const ObservedStatus& status);
    void watchClosed(WatcherId w, TimeUs now, WatchCloseReason reason);
    // The watcher stopped for good and will not retry by itself (its apiserver went down, a
    // 403): only its state changes (terminated), no detector is told.
    void watcherStopped(WatcherId w, TimeUs now);

    // Sampled at least 10 times a second per watcher: its RV, the head RV of its resource, and
    // how many seconds behind it is (age of the oldest event it should have and has not). A
    // source that knows no head (a cluster without readable /metrics) passes head 0 and
    // kLagUnknown: the watcher is then neither lagging nor stuck, and no lag is raised.
    void watcherPosition(WatcherId w, TimeUs now, ResourceVersion rv, ResourceVersion head,
                         double lagSeconds);
    static constexpr double kLagUnknown = -1;

    // A periodic consistency check of a store (the watch cache of an apiserver, or an informer's
    // store) that claims to be at storeRv, against the source of truth.
    void checkStore(WatcherId owner, TimeUs now, ResourceVersion storeRv,
                    std::span<const StoreEntry> entries, const ConsistencyOracle& truth);

    // An apiserver's memory under its lists, sampled (list-pressure).
    void apiserverMemory(TimeUs now, const ApiserverMemory& memory);

    // Passes through an anomaly a source found itself (a malformed frame: stream-error).
    void report(const Anomaly& anomaly);

    // Lets time-based detectors (stalled watch-lists) fire without an observation.
    void tick(TimeUs now);
    // The earliest time a tick() may raise or settle something; kNoDeadline when none would.
    TimeUs nextDue() const;

    std::int64_t raisedCount() const;

    // The key table forgot `key` (KeyTable::onForget): per-key state goes before the id is
    // reused for another key.
    void forgetKey(KeyId key);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace ws

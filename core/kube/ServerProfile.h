#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <QStringList>
#include <algorithm>
#include <cstddef>
#include <optional>

namespace ws {

// How a kube-apiserver version behaves on the paths WatchScope watches
// (reference/kubernetes-watch.md §1-§5). Feature gates can be overridden per scenario.
struct ServerProfile {
    QString version = QStringLiteral("1.30");
    int minor = 30;
    int patch = 0;

    bool separateCacheWatchRpc = true;    // gate SeparateCacheWatchRPC (on from 1.30)
    bool watchList = false;               // gate WatchList (alpha 1.27, on 1.32, off 1.33, on 1.34)
    bool consistentListFromCache = false; // gate ConsistentListFromCache (on from 1.31)
    // Gate WatchFromStorageWithoutResourceVersion (1.27.13/1.28.9/1.29.4 to 1.35, off): turned
    // on, watches with RV="" go to etcd again (watchWithoutRvFromEtcd()).
    bool watchFromStorageWithoutResourceVersion = false;
    // gate ResilientWatchCacheInitialization (beta, on 1.31; GA 1.34): while a cache is not
    // ready, WATCH and non-delegable LISTs get 429 "storage is (re)initializing" at once
    // instead of blocking (cacher.go Watch/GetList at v1.31.0, KEP-4568).
    bool resilientWatchCacheInitialization = false;
    // gate WatchCacheInitializationPostStartHook (beta 1.31, on by default from 1.36): /readyz
    // fails until every watch cache has been initialized.
    bool watchCacheInitializationPostStartHook = false;
    bool btreeWatchCache = false;          // B-tree store, snapshots per RV (beta 1.32, GA 1.33)
    bool listFromCacheSnapshot = false;    // Exact/continue lists from snapshots (beta on 1.34)
    bool detectCacheInconsistency = false; // digest check against etcd (beta on 1.34)
    // Gates StreamingCollectionEncodingToJSON / ToProtobuf (beta on 1.33, GA locked 1.34,
    // KEP-5116): a list response is encoded item by item instead of in one buffer. The bytes on
    // the wire are the same; only the apiserver's memory for large lists changes.
    bool streamingCollectionEncodingToJson = false;
    bool streamingCollectionEncodingToProtobuf = false;
    bool streamingListEncoding(bool protobuf) const {
        return protobuf ? streamingCollectionEncodingToProtobuf : streamingCollectionEncodingToJson;
    }
    // A watch with sendInitialEvents=true gets its initial events and the initial-events-end
    // bookmark: the WatchList gate exists from 1.27 (alpha, off, until 1.31; on 1.32; off 1.33;
    // on 1.34+). With it off the request is rejected with 422 (ListOptionsValidation.h).
    bool servesWatchList() const { return minor >= 27 && watchList; }
    // From 1.31 the cacher checks its etcd's RequestWatchProgress support (the feature support
    // checker, PR #124612): a watch-list with bookmarks over an etcd without it gets an ERROR
    // at once, and every cache wait asks etcd for progress (waitUntilFreshAndListItems,
    // Watch), not only consistent reads.
    bool checksRequestWatchProgress() const { return minor >= 31; }
    // API Priority and Fairness on by default (beta 1.20, GA 1.29); before, the max-in-flight
    // filter alone.
    bool priorityAndFairness() const { return minor >= 20; }
    // SizeBasedListCostEstimate (beta, on from 1.34): APF charges a list by the bytes it loads.
    bool sizeBasedListCostEstimate() const { return minor >= 34; }
    // ObjectMeta.creationTimestamp carries omitzero from 1.34 (apimachinery's types.go at
    // v0.34.0): a zero one - a bookmark's - is left out of JSON instead of written null.
    bool writesZeroCreationTimestamp() const { return minor <= 33; }

    TimeUs eventFreshDuration = seconds(75); // DefaultEventFreshDuration: bookmark period + 15 s
    TimeUs requestTimeout = seconds(60);     // kube-apiserver --request-timeout
    TimeUs blockTimeout = seconds(3);        // wait for a too-large RV before 504
    TimeUs internalErrorRetryWindow = seconds(30); // cacher MaxInternalErrorRetryDuration
    TimeUs bookmarkInterval = seconds(60);

    // 410 reason of the watch cache: Gone up to 1.16, Expired (NewResourceExpired) from 1.17.0.
    QString tooOldReason() const {
        return minor >= 17 ? QStringLiteral("Expired") : QStringLiteral("Gone");
    }
    // The cacher retries an InternalError (PrevKv=nil) from its last RV for 30 s from 1.25
    // (PR #111387); before, any watch error made it relist.
    bool retriesInternalErrors() const { return minor >= 25; }
    // Watch with RV="" served from etcd, sharing the cacher's gRPC stream: from 1.27.0 (PR
    // #115096) until it went behind the gate WatchFromStorageWithoutResourceVersion (off) in
    // 1.27.13 / 1.28.9 / 1.29.4 (#123935, #124007); 1.30 has the gate off too.
    bool watchWithoutRvFromEtcd() const {
        return (minor == 27 && patch < 13) || (minor == 28 && patch < 9) ||
               (minor == 29 && patch < 4) ||
               (watchFromStorageWithoutResourceVersion && minor >= 27 && minor <= 35);
    }
    // The cacher's etcd watch asks for progress notifications (EfficientWatchResumption, on
    // from 1.21): before, a quiet resource's cache RV only moves with its own events.
    bool cacherProgressNotify() const { return minor >= 21; }

    // Bookmarks roughly every minute from 1.19; before, only once, 2 s before the watch's
    // deadline (cacheWatcher.nextBookmarkTime in 1.16-1.18).
    bool periodicBookmarks() const { return minor >= 19; }
    // The ring buffer resizes itself (100..102400, 75 s of history) from 1.19 (dynamic watch
    // cache size); before, its capacity is fixed: --default-watch-cache-size, 100.
    bool dynamicWatchCacheSize() const { return minor >= 19; }
    // How much history the ring keeps: 75 s; from 1.33 max(75 s, --request-timeout + 15 s) so
    // that a watch started just before a list's timeout can still resume (PR #129205, #130344).
    TimeUs eventHistoryWindow() const {
        return minor >= 33 ? std::max(eventFreshDuration, requestTimeout + seconds(15))
                           : eventFreshDuration;
    }
    // The dynamic ring's upper bound: 102400 events, from 1.33 scaled by
    // 2^ceil(log2(window / 75 s)) so a longer window keeps as many events per second.
    std::size_t ringUpperBound() const;
    int fixedWatchCacheSize = 100; // --default-watch-cache-size
    // A resource's watch cache: 0 when it has none (its lists and watches go to etcd: events in
    // every version), else before 1.19 its fixed ring capacity; from 1.19 any non-zero value
    // means the dynamic ring.
    std::size_t watchCacheSize(const QString& resource) const;
    // Per-watcher channels sized from the ring's capacity and the watcher's index use from 1.25
    // (PR #109708); before, 10 or 1000 (CacherRules.h watcherChannelSize).
    bool adjustableWatchChannelSize() const { return minor >= 25; }

    // While a cache is not ready, a watch (and a LIST that needs the cache) waits on
    // ready.wait(): with no context up to 1.26 (it blocks until the cache is ready), with the
    // request's context from 1.27 (it ends with 503 "context deadline exceeded" when the
    // watch's timeout passes first). Only without ResilientWatchCacheInitialization.
    bool notReadyWaitHasDeadline() const { return minor >= 27; }
    // The 429's Retry-After: a fixed 1 s on 1.31-1.32; from 1.33 it grows with the time since
    // the cache's readiness last changed (cacher/util.go calculateRetryAfterForUnreadyCache,
    // kubernetes commit 04f0bd4e), and the message names the last ListAndWatch error.
    bool retryAfterGrowsWithDowntime() const { return minor >= 33; }

    static std::optional<ServerProfile> fromVersion(const QString& version, QString* error);
    // Versions to offer in a chooser, oldest first: every minor modelled (1.16 to 1.36) and the
    // patch releases where a modelled behaviour changes (1.27.13, 1.28.8, ...).
    static QStringList knownVersions();
};

} // namespace ws

#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <QStringList>
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
    // gate ResilientWatchCacheInitialization (beta, on 1.31; GA 1.34): while a cache is not
    // ready, WATCH and non-delegable LISTs get 429 "storage is (re)initializing" at once
    // instead of blocking (cacher.go Watch/GetList at v1.31.0, KEP-4568).
    bool resilientWatchCacheInitialization = false;
    // gate WatchCacheInitializationPostStartHook (beta 1.31, on by default from 1.36): /readyz
    // fails until every watch cache has been initialized.
    bool watchCacheInitializationPostStartHook = false;
    // A watch with sendInitialEvents=true gets its initial events and the initial-events-end
    // bookmark: the WatchList gate exists from 1.27 (alpha, off, until 1.31; on 1.32; off 1.33;
    // on 1.34+). With it off the request is rejected with 422 (ListOptionsValidation.h).
    bool servesWatchList() const { return minor >= 27 && watchList; }

    TimeUs eventFreshDuration = seconds(75);
    TimeUs blockTimeout = seconds(3);              // wait for a too-large RV before 504
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
               (minor == 29 && patch < 4);
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
    int fixedWatchCacheSize = 100;

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

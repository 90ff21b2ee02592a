#pragma once

#include "model/ResourceVersion.h"

namespace ws {

// The thresholds of the detectors, each with a default a demanding operator would accept.
struct DetectorThresholds {
    // retry-loop: the same error this many times in a row without progress.
    int retryLoopCount = 5;
    // relist-storm: relists of one resource within the window, across all its watchers ...
    TimeUs relistStormWindow = seconds(10);
    int relistStormCount = 10;
    // ... or this share of the resource's watchers relisting within the window (with at least
    // relistStormMinWatchers watchers).
    double relistStormShare = 0.5;
    int relistStormMinWatchers = 4;
    // watcher-lag: seconds behind (age of the oldest event the watcher has not received yet).
    double watcherLagSeconds = 10.0;
    // stuck-watcher: RV unchanged this long while the head moved.
    TimeUs stuckWatcherAfter = seconds(90);
    // initial-events-stalled: no initial-events-end bookmark this long after a watch-list opened.
    TimeUs initialEventsTimeout = seconds(30);
    // cache-not-ready: requests kept getting 429 "storage is (re)initializing" / 503, or a
    // cacher kept relisting without its watch settling, this long.
    TimeUs cacheNotReadyAfter = seconds(30);
    // ... a cacher's watch that stayed open this long without an error counts as settled.
    TimeUs cacheSettledAfter = seconds(5);
    // list-pressure: an apiserver's memory above this share of its limit, or (no limit known)
    // its lists holding more than listPressureBytes; re-armed below half of that.
    double listPressureShareOfLimit = 0.8;
    std::int64_t listPressureBytes = std::int64_t(4) << 30;
};

} // namespace ws

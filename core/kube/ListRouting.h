#pragma once

#include "EtcdFacts.h"
#include "ServerProfile.h"

namespace ws {

// Which store answers a LIST: the cache delegator's rules (storage/cacher/cacher.go
// shouldDelegateList up to 1.32, cacher/delegator.go from 1.33, delegator/interface.go 1.34).
namespace cacher {

// While a consistent read waits for the cache, the progress requester asks etcd for a progress
// notification this often (storage/cacher/progress/watch_progress.go progressRequestsPeriod).
constexpr TimeUs kProgressRequestPeriod = milliseconds(100);
// The cache compactor reads the storage's compaction revision this often and drops the
// snapshots below it (storage/cacher/compactor.go compactorPollPeriod, v1.34.0).
constexpr TimeUs kCompactorPollPeriod = seconds(15);

// ConsistentReadSupported: RV="" lists are served from the cache after the progress wait only
// with the gate on and, from 1.31, an etcd whose RequestProgress can be trusted (PR #124612:
// 3.4.31+/3.5.13+); an unknown etcd version counts as unsupported, as the checker's failed
// parse does. Before 1.31 (alpha gate) nothing was checked.
inline bool consistentReadSupported(const ServerProfile& p, const EtcdFacts& etcd) {
    if (!p.consistentListFromCache || p.minor < 28)
        return false;
    return p.minor < 31 || etcd.supportsRequestWatchProgress() == Tri::Yes;
}

// ListFromCacheSnapshot (alpha 1.33, beta on 1.34; KEP-4988): resourceVersionMatch=Exact and
// continue lists are served from the B-tree snapshots the cache keeps per event RV.
inline bool listsFromSnapshots(const ServerProfile& p) {
    return p.minor >= 33 && p.listFromCacheSnapshot && p.btreeWatchCache;
}

} // namespace cacher
} // namespace ws

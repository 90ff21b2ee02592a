#pragma once

#include <QString>
#include <cstdint>

namespace ws {

// Where a watcher (an informer's reflector, a cacher, an etcd watch) is in its list+watch cycle,
// as the pipeline derives it from what every source observes (DetectorHub's observations), so
// the simulator, etcd, a cluster and a capture replay name the same situation the same way:
//
//   listing     its first LIST (or etcd paged Range) is in flight; also before its first request
//   syncing     the list is done and the watch has not started streaming new events yet: the
//               list is being replayed into the store and the watch not opened, a first watch-list
//               is waiting for its initial-events-end bookmark, or a watch is still delivering the
//               synthetic ADDED events of its start (RV="0")
//   live        watching, less than the lag threshold behind and moving
//   lagging     watching, more than thresholds().watcherLagSeconds (10 s) behind the head (the
//               age of the oldest event it has not received); it stays lagging until it is back
//               under half of that, as the watcher-lag anomaly is re-armed. On a real cluster
//               the time counts from when it could have reached the head: an event at once, a
//               watch cache's RV only once its next bookmark is due (sources/cluster/
//               WatcherLagClock.h); where the cluster gives no head the lag is unknown and the
//               watcher is not lagging (nor stuck)
//   stuck       watching, its RV unchanged for thresholds().stuckWatcherAfter (90 s) while the
//               head of its resource moved past it (the stuck-watcher anomaly's rule): its lag
//               does not shrink although there is something to receive. Wins over lagging.
//   relisting   a LIST after the watcher had listed before, or a watch-list until its
//               initial-events-end bookmark after the watcher had synced before (a watch-list
//               client relists so): after a 410 Gone, an ERROR event, a broken stream, an
//               apiserver restart
//   backoff     its last list or watch failed (a failed LIST, an ERROR event, a watch request
//               refused, a broken stream) and it has not retried yet: client-go's backoff
//   terminated  its watch was closed by the server without an ERROR event (kube-apiserver's
//               terminated watcher: the dispatch budget ran out) or ended by the client, and no
//               new list or watch has started; also a watcher that stopped for good (its
//               apiserver went down, a 403)
enum class WatcherState : std::uint8_t {
    Listing,
    Syncing,
    Live,
    Lagging,
    Stuck,
    Relisting,
    Backoff,
    Terminated,
};

constexpr int kWatcherStateCount = 8;

// "listing", "syncing", "live", "lagging", "stuck", "relisting", "backoff", "terminated".
QString watcherStateName(WatcherState state);
// The inverse of watcherStateName; false for an unknown name.
bool parseWatcherState(const QString& name, WatcherState* state);
// A state a reader should look at: lagging, stuck, relisting, backoff, terminated.
bool watcherStateIsTrouble(WatcherState state);

} // namespace ws

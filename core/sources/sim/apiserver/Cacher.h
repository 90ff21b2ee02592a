#pragma once

#include "CacheConsistencyChecker.h"
#include "ServerWatch.h"
#include "kube/CacherRules.h"
#include "kube/WatchCache.h"
#include "sources/sim/etcd/EtcdWatchHub.h"
#include "util/RingQueue.h"

#include <functional>
#include <memory>
#include <vector>

namespace ws {

class ApiServer;
struct SimContext;

// One resource's cacher in one apiserver: its reflector (list + watch of etcd with prev_kv and
// progress notifications, the 1.25+ internal-error retry), the watch cache, and the dispatch of
// cache events to client watches with the shared time budget that closes unresponsive ones.
class Cacher : public EtcdWatchReceiver {
public:
    Cacher(SimContext& ctx, ApiServer& server, int resource);
    ~Cacher() override;

    void start();
    void stop(); // the apiserver went down: watches break, the cache forgets
    void tick();
    // How long the cacher's LIST takes from reading etcd until the cache holds it (decoding,
    // CRD conversion): its watch starts from the list RV only then. 0: at once.
    void setListDuration(TimeUs d) { m_listDuration = d; }

    // The cacher's `ready` condition (cacher/ready.go): false from the start of the apiserver
    // and whenever ListAndWatch ended, true from the moment a list was replaced into the cache
    // until its ListAndWatch ends. A not-ready cache serves nothing.
    bool ready() const { return m_ready; }
    // Time since ready last changed (ready.go lastStateChangeTime): the "downtime" the 1.33+
    // Retry-After grows with.
    TimeUs sinceReadyChanged() const;
    // The 429 a request that needs this not-ready cache gets (ResilientWatchCacheInitialization).
    ApiStatus notReadyStatus() const;
    std::int64_t initializations() const { return m_initializations; }
    bool initializedSinceStart() const { return m_initializedSinceStart; }
    // The cacher's current etcd watch (-1: none), and the lists its reflector started.
    int etcdWatchId() const { return m_etcdWatch; }
    std::int64_t listsStarted() const { return m_listsStarted; }

    WatchCache& cache() { return m_cache; }
    const WatchCache& cache() const { return m_cache; }
    int resource() const { return m_resource; }
    WatcherId hubId() const { return m_hubId; }
    QString stateName() const;
    // Watchers the dispatcher closed for unresponsiveness (apiserver_terminated_watchers_total):
    // only the budget cut-off counts, not the closing of every watcher on a re-initialization.
    std::int64_t terminatedWatchers() const { return m_terminated; }
    // The dispatcher waits on a full watcher: every watcher of the resource waits with it.
    bool dispatchBlocked() const { return m_blocked; }
    std::size_t pendingEvents() const { return m_pending.size(); } // waiting behind the block
    TimeUs lag() const; // age of the oldest etcd change the cache has not seen
    // DetectCacheInconsistency's checker (1.34+), or null when the gate is off.
    const CacheConsistencyChecker* consistencyChecker() const { return m_checker.get(); }

    // Serves a watch from the cache (RV "0"/"" → initial state, N → from the ring or 410).
    void addWatch(const std::shared_ptr<ServerWatch>& watch, ResourceVersion rv, bool initialState,
                  bool initialEventsEnd);
    // A watch that arrived while the cache was not ready and waits in ready.wait(): `admit`
    // runs once the cache is ready; before that, from 1.27 its deadline (the watch's context)
    // ends it with 503 (w->reject). The apiserver going down breaks it.
    void waitUntilReady(const std::shared_ptr<ServerWatch>& w, std::function<void()> admit);
    // Runs `ready` once the cache RV reaches rv, or `timedOut` after the block timeout (3 s).
    void waitForResourceVersion(ResourceVersion rv, std::function<void()> ready,
                                std::function<void(bool serverDown)> timedOut);

    void onEtcdWatchResponse(const EtcdWatchResponse& response) override;

private:
    enum class State { Stopped, Backoff, Listing, Watching };
    void list();
    void finishList();
    void setReady(bool ready);
    // ListAndWatch returned: the cache is not ready until the next list, which wait.Until
    // starts kRelistPeriod later. lastError: what it returned (empty for a watch that ended
    // with "too old", which the reflector treats as a normal end).
    void listAndWatchEnded(const QString& lastError);
    void serviceReadyWaiters();
    void watchFrom(ResourceVersion rv);
    void cancelEtcdWatch();
    void handleInternalError(const ApiStatus& status);
    void dispatch(const CacheEvent& event);
    bool deliver(const CacheEvent& event);
    bool unblockWatchers();
    bool drainPending();
    void serviceWatches();
    void serviceWaits();
    TimeUs nextBookmarkTime(const ServerWatch& w) const;

    SimContext& m_ctx;
    ApiServer& m_server;
    int m_resource;
    WatchCache m_cache;
    WatcherId m_hubId = -1;
    State m_state = State::Stopped;
    int m_etcdWatch = -1;
    TimeUs m_retryAt = 0;
    TimeUs m_listDuration = 0;
    TimeUs m_listDoneAt = 0;
    std::vector<KeyValuePtr> m_listed; // the list in progress (read from etcd at its start)
    ResourceVersion m_listedRv = 0;
    bool m_ready = false;
    TimeUs m_readyChangedAt = 0;
    QString m_lastError;
    std::int64_t m_initializations = 0;
    bool m_initializedSinceStart = false;
    std::int64_t m_listsStarted = 0;
    TimeUs m_firstInternalError = 0;
    TimeUs m_lastInternalError = 0;
    std::vector<std::shared_ptr<ServerWatch>> m_watches;
    cacher::DispatchBudget m_budget;
    // Events the dispatcher has not handed out yet because it is blocked (the `incoming` channel
    // behind dispatchEvent), in order.
    RingQueue<CacheEvent> m_pending;
    bool m_blocked = false;
    std::int64_t m_terminated = 0;
    TimeUs m_nextBookmarkTick = 0;

    struct Wait {
        ResourceVersion rv;
        TimeUs deadline;
        std::function<void()> ready;
        std::function<void(bool serverDown)> timedOut;
    };
    std::vector<Wait> m_waits;
    // Watches that arrived while the cache was not ready (ready.wait()).
    struct ReadyWaiter {
        std::shared_ptr<ServerWatch> watch;
        std::function<void()> admit;
    };
    std::vector<ReadyWaiter> m_readyWaiters;
    std::vector<ObservedEvent> m_observed;
    std::unique_ptr<CacheConsistencyChecker> m_checker;
};

} // namespace ws

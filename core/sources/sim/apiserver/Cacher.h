#pragma once

#include "CacheConsistencyChecker.h"
#include "ServerWatch.h"
#include "kube/Backoff.h"
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
    // Runs `ready` once the cache RV reaches rv, or `timedOut` after the block timeout (3 s).
    void waitForResourceVersion(ResourceVersion rv, std::function<void()> ready,
                                std::function<void(bool serverDown)> timedOut);

    void onEtcdWatchResponse(const EtcdWatchResponse& response) override;

private:
    enum class State { Stopped, Backoff, Watching };
    void list();
    void watchFrom(ResourceVersion rv);
    void cancelEtcdWatch();
    void relistAfterBackoff();
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
    Backoff m_backoff;
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
    std::vector<ObservedEvent> m_observed;
    std::unique_ptr<CacheConsistencyChecker> m_checker;
};

} // namespace ws

#pragma once

#include "Cacher.h"
#include "ListPage.h"
#include "ListPressure.h"
#include "PriorityLevel.h"
#include "ServerWatch.h"
#include "kube/ApiStatus.h"
#include "kube/ContinueToken.h"
#include "kube/EtcdFacts.h"
#include "kube/ServerProfile.h"

#include <functional>
#include <memory>
#include <vector>

namespace ws {

struct SimContext;
class EtcdBackedWatch;

struct ApiServerConfig {
    QString name = QStringLiteral("apiserver-0");
    ServerProfile profile;
    double etcdStreamEventsPerSecond = 0; // how fast one gRPC watch stream drains (0: no limit)
    bool behindLoadBalancer = false;      // requests to it while down: reset by the LB, not refused
    // Per resource (in the order of the constructor's resources): how long each cacher's LIST
    // takes to land in the cache (Cacher::setListDuration). Missing: 0.
    std::vector<TimeUs> cacherListDurations;
    // The etcd it talks to: whether consistent reads may be served from the cache (1.31+).
    EtcdFacts etcd;
    ListMemoryConfig memory; // the memory its lists hold, and its limit
};

// One simulated kube-apiserver: a cacher per resource over the shared simulated etcd, and the
// list/watch request paths of reference/kubernetes-watch.md §1-§3 for its version.
class ApiServer {
public:
    ApiServer(SimContext& ctx, ApiServerConfig config, const std::vector<int>& resources);
    ~ApiServer();

    const QString& name() const { return m_config.name; }
    const ServerProfile& profile() const { return m_config.profile; }
    bool up() const { return m_up; }
    bool partitioned() const { return m_partitioned; }
    // The etcd watch streams of one resource: each resource's storage has its own etcd client
    // (storagebackend/factory/etcd3.go newETCD3Storage), so watches share a gRPC stream only
    // with watches of the same resource. -1 while down or for a resource it does not serve.
    int cacheStream(int resource) const;
    int clientStream(int resource) const;
    // A stall-stream fault: the cacher's etcd watch stream of one resource, or of every
    // resource (resource < 0), stops draining (a congested connection, a stuck receiver).
    void setCacheStreamStalled(int resource, bool stalled);
    // LIST and WATCH requests it has been sent (answered or not), since it was created.
    std::int64_t listRequests() const { return m_listRequests; }
    std::int64_t watchRequests() const { return m_watchRequests; }

    void start();
    void tick();
    void restart(TimeUs downtime);         // goes down now, comes back after downtime
    void setPartitioned(bool partitioned); // cut off from etcd (its watch streams stall)

    Cacher* cacher(int resource);
    // Every cache has been initialized at least once since this apiserver (re)started (what
    // the storage-readiness post-start hook of 1.36 waits for).
    bool cachesInitializedSinceStart() const;
    const std::vector<std::unique_ptr<Cacher>>& cachers() const { return m_cachers; }

    enum class ListServedFrom { Etcd, Cache, CacheSnapshot };
    struct ListOptions {
        int resource = -1;
        ResourceVersion rv = 0;
        bool rvEmpty = false;
        std::int64_t limit = 0;
        int selectorGroup = -1;
        bool exact = false;        // resourceVersionMatch=Exact
        bool notOlderThan = false; // resourceVersionMatch=NotOlderThan (a limit stays legacy-free)
        QString continueToken;     // the next page of a paged list (RV unset)
        QString ns;                // a namespaced list
        bool protobuf = false; // the wire it asks for (Accept: application/vnd.kubernetes.protobuf)
        // Who sends it (API Priority and Fairness's flow: the user, a service account).
        QString flow;
        // Label and further field selectors, applied where the store filters (null: none).
        std::function<bool(const KeyValue&)> matches;
    };
    struct ListResult {
        bool ok = false;
        ApiStatus status;
        ResourceVersion rv = 0;
        bool fromCache = false;
        ListServedFrom servedFrom = ListServedFrom::Etcd; // which store answered (memory, metrics)
        std::vector<KeyValuePtr> items;
        QString continueToken;                // more to list: the next page's token
        std::int64_t remainingItemCount = -1; // with the token, when no selector filters
        std::int64_t scannedBytes = -1;       // etcd: what this page read (ListPage); -1: unknown
        std::int64_t largestReadBytes = -1;   // etcd: its largest single read; -1: all at once
    };
    // A LIST by the delegator rules of the version (kube/ListRouting.h): RV="" consistent reads
    // from the cache after the progress wait (1.31+, etcd 3.4.31+/3.5.13+) or etcd; Exact and
    // continue lists from cache snapshots (ListFromCacheSnapshot) or etcd at that revision,
    // paged by limit with continue tokens, 410 when etcd compacted it.
    void list(const ListOptions& options, std::function<void(ListResult)> done);

    struct WatchOptions {
        int resource = -1;
        ResourceVersion rv = 0;
        bool rvEmpty = false;
        bool sendInitialEvents = false;
        // The request named sendInitialEvents or resourceVersionMatch itself (even false), so the
        // handler's watch-list defaulting leaves it alone (defaultWatchQuery).
        bool explicitInitialEvents = false;
        bool allowBookmarks = false;
        int selectorGroup = -1;    // fieldSelector spec.nodeName=node-<group>
        bool nameSelector = false; // fieldSelector metadata.name=<name> (filtered by the caller)
        TimeUs timeout = seconds(300);
    };
    // A watch, or null with *error set when the request itself fails (connection refused,
    // 429 while the cache is not ready). Errors of an opened watch come as its ERROR event.
    // Up to 1.30 a watch that arrives while the cache is not ready comes back `pending`: it
    // waits for the cache, and from 1.27 may end `rejected` with 503 (ServerWatch).
    std::shared_ptr<ServerWatch> watch(const WatchOptions& options, ApiStatus* error);

    // The lists it is serving, the memory they hold, the requests per resource.
    const ListPressure& listPressure() const { return m_pressure; }
    // The APF level its clients' lists go through (workload-low: service accounts).
    const PriorityLevel& priorityLevel() const { return m_apf; }
    // The seats APF charges for this list (kube/ApfRules.h); 1 before 1.20.
    int listSeats(const ListOptions& options);
    // OOM kills since it was created, and what its lists held at the last one.
    int oomKills() const { return m_oomKills; }
    struct OomKill {
        std::int64_t memoryBytes = 0, listBytes = 0;
        int lists = 0;
        int heaviestResource = -1;
    };
    const OomKill& lastOomKill() const { return m_lastOom; }

private:
    ApiStatus downError() const;
    // Accounts a watch-list's initial state while the cache streams it (server.memory).
    void streamInitialState(const Cacher& cacher, const ServerWatch& w);
    // A plain watch at RV ""/"0" that the handler turns into a watch-list (WatchList on).
    bool defaultsToWatchList(const WatchOptions& options) const;
    bool waitsRequestProgress() const;
    void serveWatch(Cacher& cache, const std::shared_ptr<ServerWatch>& w,
                    const WatchOptions& options, bool watchList);
    void openStreams();
    void closeStreams();
    // The list once APF let it run.
    void serveList(const ListOptions& options, std::function<void(ListResult)> done);
    void goDown(TimeUs downtime);
    // Wraps a list's answer so it is held (and accounted) while it is served.
    std::function<void(ListResult)> accounted(const ListOptions& options,
                                              std::function<void(ListResult)> done);
    // What a request asks of the store, decoded once.
    struct ListQuery {
        ListOptions options;
        bool hasContinue = false;
        ContinueToken token;
        ResourceVersion exactRv = 0; // Exact, legacy exact (limit with RV=N) or continue rv > 0
        bool consistent = false;     // RV="" or a continue with rv -1
    };
    ListPage::Selection selection(const ListOptions& options) const;
    bool listRoutedToEtcd(const Cacher* c, const ListQuery& q) const;
    void listFromEtcd(const ListQuery& q, const std::function<void(ListResult)>& done);
    void listFromCache(Cacher& cacher, const ListQuery& q,
                       const std::function<void(ListResult)>& done);
    void listConsistent(Cacher& cacher, const ListQuery& q,
                        const std::function<void(ListResult)>& done);
    void listExact(Cacher& cacher, const ListQuery& q, const std::function<void(ListResult)>& done);
    // The list at the newest snapshot at or below q.exactRv; false when there is none (the
    // cacher's 410, which the delegator turns into an etcd list with the gate on).
    bool listFromSnapshot(Cacher& cacher, const ListQuery& q,
                          const std::function<void(ListResult)>& done);

    SimContext& m_ctx;
    ApiServerConfig m_config;
    std::vector<std::unique_ptr<Cacher>> m_cachers;
    std::vector<std::unique_ptr<EtcdBackedWatch>> m_etcdWatches;
    bool m_up = false;
    bool m_partitioned = false;
    TimeUs m_upAt = 0;
    // Per resource it serves: the cacher's stream, and the one etcd-served watches use (the
    // same stream without SeparateCacheWatchRPC: one client, the same gRPC metadata).
    struct ResourceStreams {
        int resource = -1;
        int cache = -1;
        int client = -1;
    };
    const ResourceStreams* streamsOf(int resource) const;
    std::vector<int> m_resources;
    std::vector<ResourceStreams> m_streams;
    int m_nextWatchId = 0;
    std::int64_t m_listRequests = 0;
    std::int64_t m_watchRequests = 0;
    ListPressure m_pressure;
    PriorityLevel m_apf;
    int m_generation = 0; // bumped when it goes down: seats of lists from before are gone
    int m_oomKills = 0;
    OomKill m_lastOom;
};

} // namespace ws

#pragma once

#include "Cacher.h"
#include "ServerWatch.h"
#include "kube/ApiStatus.h"
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
    int cacheStream() const { return m_cacheStream; }
    int clientStream() const { return m_clientStream; }
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

    struct ListOptions {
        int resource = -1;
        ResourceVersion rv = 0;
        bool rvEmpty = false;
        std::int64_t limit = 0;
        int selectorGroup = -1;
    };
    struct ListResult {
        bool ok = false;
        ApiStatus status;
        ResourceVersion rv = 0;
        bool fromCache = false;
        std::vector<KeyValuePtr> items;
    };
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

private:
    ApiStatus downError() const;
    // A plain watch at RV ""/"0" that the handler turns into a watch-list (WatchList on).
    bool defaultsToWatchList(const WatchOptions& options) const;
    void serveWatch(Cacher& cache, const std::shared_ptr<ServerWatch>& w,
                    const WatchOptions& options, bool watchList);
    void openStreams();
    void listFromEtcd(const ListOptions& options, const std::function<void(ListResult)>& done);
    void listFromCache(Cacher& cacher, const ListOptions& options,
                       const std::function<void(ListResult)>& done);

    SimContext& m_ctx;
    ApiServerConfig m_config;
    std::vector<std::unique_ptr<Cacher>> m_cachers;
    std::vector<std::unique_ptr<EtcdBackedWatch>> m_etcdWatches;
    bool m_up = false;
    bool m_partitioned = false;
    TimeUs m_upAt = 0;
    int m_cacheStream = -1;
    int m_clientStream = -1;
    int m_nextWatchId = 0;
    std::int64_t m_listRequests = 0;
    std::int64_t m_watchRequests = 0;
};

} // namespace ws

#include "ApiServer.h"
#include "kube/CacherRules.h"
#include "kube/ListOptionsValidation.h"

#include "EtcdBackedWatch.h"
#include "sources/sim/SimContext.h"
#include "sources/sim/etcd/SimEtcd.h"

#include <algorithm>

namespace ws {

ApiServer::ApiServer(SimContext& ctx, ApiServerConfig config, const std::vector<int>& resources)
    : m_ctx(ctx), m_config(std::move(config)) {
    // A resource without a watch cache (events) is served from etcd (ServerProfile).
    for (std::size_t i = 0; i < resources.size(); ++i) {
        if (m_config.profile.watchCacheSize(ctx.keyspace.resourceName(resources[i])) == 0)
            continue;
        m_cachers.push_back(std::make_unique<Cacher>(ctx, *this, resources[i]));
        if (i < m_config.cacherListDurations.size())
            m_cachers.back()->setListDuration(m_config.cacherListDurations[i]);
    }
}

ApiServer::~ApiServer() {
    m_etcdWatches.clear();
    m_cachers.clear();
}

Cacher* ApiServer::cacher(int resource) {
    for (auto& c : m_cachers)
        if (c->resource() == resource)
            return c.get();
    return nullptr;
}

bool ApiServer::cachesInitializedSinceStart() const {
    return m_up && std::all_of(m_cachers.begin(), m_cachers.end(),
                               [](const auto& c) { return c->initializedSinceStart(); });
}

ApiStatus ApiServer::downError() const {
    return m_config.behindLoadBalancer ? ApiStatus::connectionReset(m_config.name)
                                       : ApiStatus::connectionRefused(m_config.name);
}

void ApiServer::openStreams() {
    auto& hub = m_ctx.etcd.watches();
    m_cacheStream = hub.openStream(m_config.etcdStreamEventsPerSecond);
    // Without SeparateCacheWatchRPC the cacher's watch and clients' RV="" watches carry the same
    // gRPC metadata, so clientv3 multiplexes them on one stream (reference §5, PR #123532).
    m_clientStream = m_config.profile.separateCacheWatchRpc
                         ? hub.openStream(m_config.etcdStreamEventsPerSecond)
                         : m_cacheStream;
    hub.setStreamStalled(m_cacheStream, m_partitioned);
    hub.setStreamStalled(m_clientStream, m_partitioned);
}

void ApiServer::start() {
    m_up = true;
    openStreams();
    for (auto& c : m_cachers)
        c->start();
}

void ApiServer::restart(TimeUs downtime) {
    if (!m_up)
        return;
    m_up = false;
    m_upAt = m_ctx.now + downtime;
    for (auto& w : m_etcdWatches)
        w->breakConnection();
    m_etcdWatches.clear();
    for (auto& c : m_cachers)
        c->stop();
    auto& hub = m_ctx.etcd.watches();
    hub.closeStream(m_cacheStream);
    if (m_clientStream != m_cacheStream)
        hub.closeStream(m_clientStream);
}

void ApiServer::setPartitioned(bool partitioned) {
    m_partitioned = partitioned;
    if (!m_up)
        return;
    auto& hub = m_ctx.etcd.watches();
    hub.setStreamStalled(m_cacheStream, partitioned);
    hub.setStreamStalled(m_clientStream, partitioned);
}

void ApiServer::tick() {
    if (!m_up) {
        if (m_ctx.now >= m_upAt)
            start();
        return;
    }
    for (auto& c : m_cachers)
        c->tick();
    for (auto& w : m_etcdWatches)
        w->tick();
    std::erase_if(m_etcdWatches, [](const auto& w) { return w->done(); });
}

void ApiServer::listFromEtcd(const ListOptions& options,
                             const std::function<void(ListResult)>& done) {
    ListResult result;
    if (m_partitioned) {
        result.status = ApiStatus::etcdUnavailable();
        done(std::move(result));
        return;
    }
    if (!options.rvEmpty && options.rv > m_ctx.etcd.currentRevision()) {
        // etcd: "required revision is a future revision"
        result.status =
            ApiStatus::tooLargeFromEtcd(m_config.profile, options.rv, m_ctx.etcd.currentRevision());
        done(std::move(result));
        return;
    }
    for (KeyId k : m_ctx.etcd.liveKeys(options.resource))
        if (options.selectorGroup < 0 || m_ctx.keyspace.selectorGroupOf(k) == options.selectorGroup)
            result.items.push_back(m_ctx.etcd.get(k));
    result.ok = true;
    result.rv = m_ctx.etcd.currentRevision();
    done(std::move(result));
}

void ApiServer::listFromCache(Cacher& cacher, const ListOptions& options,
                              const std::function<void(ListResult)>& done) {
    ListResult result;
    const WatchCache& cache = cacher.cache();
    for (KeyId k : cache.store().keys())
        if (options.selectorGroup < 0 || m_ctx.keyspace.selectorGroupOf(k) == options.selectorGroup)
            result.items.push_back(cache.object(k));
    result.ok = true;
    result.fromCache = true;
    result.rv = cache.resourceVersion();
    done(std::move(result));
}

void ApiServer::list(const ListOptions& options, std::function<void(ListResult)> done) {
    ++m_listRequests;
    if (!m_up) {
        ListResult r;
        r.status = downError();
        done(std::move(r));
        return;
    }
    Cacher* c = cacher(options.resource);
    // shouldDelegateList: RV="" (unless consistent reads from cache), or a limit with RV != "0".
    const bool rvZero = !options.rvEmpty && options.rv == 0;
    const bool consistent = options.rvEmpty && m_config.profile.consistentListFromCache;
    if (!c || (options.rvEmpty && !consistent) ||
        (options.limit > 0 && !rvZero && !options.rvEmpty)) {
        listFromEtcd(options, done);
        return;
    }
    if (!c->ready()) {
        if (m_config.profile.resilientWatchCacheInitialization) {
            // KEP-4568 (1.31+): a list with a limit and no selector goes to etcd
            // (shouldDelegateListOnNotReadyCache); any other gets the 429 at once.
            if (options.limit > 0 && options.selectorGroup < 0) {
                listFromEtcd(options, done);
            } else {
                ListResult r;
                r.status = c->notReadyStatus();
                done(std::move(r));
            }
            return;
        }
        if (rvZero || consistent) {
            // Before: RV="0" needs no particular state, so etcd answers it.
            listFromEtcd(options, done);
            return;
        }
    }
    if (consistent) {
        // From the cache once it has caught up with etcd; else the fallback to etcd.
        if (c->cache().resourceVersion() >= m_ctx.etcd.currentRevision())
            listFromCache(*c, options, done);
        else
            listFromEtcd(options, done);
        return;
    }
    if (rvZero) {
        // Any state, from the cache, no wait.
        listFromCache(*c, options, done);
        return;
    }
    // RV=N NotOlderThan: wait up to 3 s for the cache to reach N, else 504.
    const ListOptions opts = options;
    c->waitForResourceVersion(
        options.rv, [this, c, opts, done] { listFromCache(*c, opts, done); },
        [this, c, opts, done](bool serverDown) {
            ListResult r;
            r.status = serverDown ? downError()
                                  : ApiStatus::tooLarge(m_config.profile, opts.rv,
                                                        c->cache().resourceVersion());
            done(std::move(r));
        });
}

std::shared_ptr<ServerWatch> ApiServer::watch(const WatchOptions& options, ApiStatus* error) {
    ++m_watchRequests;
    if (!m_up) {
        *error = downError();
        return nullptr;
    }
    if (options.sendInitialEvents) {
        // What client-go's watch-list sends; a server without WatchList rejects it with 422
        // (1.19+), one that predates resourceVersionMatch serves a plain watch (1.16-1.18).
        const WatchQuery query =
            WatchQuery::watchList(options.rvEmpty ? QString() : QString::number(options.rv));
        if (auto invalid = invalidWatchOptions(m_config.profile, query)) {
            *error = std::move(*invalid);
            return nullptr;
        }
    }
    auto w = std::make_shared<ServerWatch>();
    w->id = m_nextWatchId++;
    w->resource = options.resource;
    w->selectorGroup = options.selectorGroup;
    w->bookmarks = options.allowBookmarks;
    w->openedAt = m_ctx.now;
    w->deadline = m_ctx.now + options.timeout;
    const bool watchList = m_config.profile.servesWatchList() &&
                           (options.sendInitialEvents || defaultsToWatchList(options));
    Cacher* c = cacher(options.resource);
    const bool uncached =
        !c && m_config.profile.watchCacheSize(m_ctx.keyspace.resourceName(options.resource)) == 0;
    // The etcd3 store serves RV="" in 1.27.0-1.27.12 / 1.28.0-1.28.8 / 1.29.0-1.29.3 (and with
    // WatchFromStorageWithoutResourceVersion; not a watch-list: cacher.go Watch / CacheDelegator
    // check SendInitialEvents == nil), and every watch of a resource without a watch cache.
    if (uncached || (options.rvEmpty && !watchList && m_config.profile.watchWithoutRvFromEtcd())) {
        // "" and "0" parse to revision 0, and a watch from revision 0 first reads the whole
        // resource and sends an ADDED per object (etcd3/watcher.go startWatching: initialRev == 0
        // -> sync(), v1.16-v1.36), then streams from the revision of that read; RV=N from N+1.
        w->fromEtcd = true;
        const bool initialState = options.rvEmpty || options.rv == 0;
        m_etcdWatches.push_back(std::make_unique<EtcdBackedWatch>(
            m_ctx, m_config.profile, w, m_clientStream,
            EtcdBackedWatch::Start{initialState ? 0 : options.rv, initialState}));
        return w;
    }
    if (!c) {
        error->code = 429;
        error->reason = QStringLiteral("TooManyRequests");
        error->message = QStringLiteral("Too many requests, please try again later.");
        error->retryAfterSeconds = 1;
        return nullptr;
    }
    if (!c->ready()) {
        // 1.31+: the 429 at once (checkAndReadGeneration). Before: the request waits in
        // ready.wait() for the cache (until its deadline from 1.27, then 503).
        if (m_config.profile.resilientWatchCacheInitialization) {
            *error = c->notReadyStatus();
            return nullptr;
        }
        const WatchOptions opts = options;
        c->waitUntilReady(w, [this, c, w, opts, watchList] { serveWatch(*c, w, opts, watchList); });
        return w;
    }
    serveWatch(*c, w, options, watchList);
    return w;
}

void ApiServer::serveWatch(Cacher& cache, const std::shared_ptr<ServerWatch>& w,
                           const WatchOptions& options, bool watchList) {
    Cacher* c = &cache;
    // Input and result channels, sized by the watcher's use of the resource's trigger index.
    QStringList pinned;
    if (options.selectorGroup >= 0)
        pinned << QStringLiteral("spec.nodeName");
    if (options.nameSelector)
        pinned << QStringLiteral("metadata.name");
    const cacher::WatcherIndex index =
        cacher::watcherIndex(m_ctx.keyspace.resourceName(options.resource), pinned);
    w->capacity = 2 * cacher::watcherChannelSize(m_config.profile.adjustableWatchChannelSize(),
                                                 index, c->cache().ring().capacity(),
                                                 m_config.profile.eventFreshDuration);
    if (watchList) {
        const ResourceVersion target = options.rvEmpty ? m_ctx.etcd.currentRevision() : options.rv;
        c->waitForResourceVersion(
            // The initial-events-end bookmark only with allowWatchBookmarks
            // (getBookmarkAfterResourceVersionLockedFunc returns 0 without it).
            target, [c, w] { c->addWatch(w, 0, true, w->bookmarks); },
            [this, c, w, target](bool serverDown) {
                if (serverDown)
                    w->close(WatchCloseReason::Broken);
                else
                    w->fail(ApiStatus::tooLarge(m_config.profile, target,
                                                c->cache().resourceVersion()));
            });
        return;
    }
    const bool initialState = options.rvEmpty || options.rv == 0;
    c->addWatch(w, options.rv, initialState, false);
}

bool ApiServer::defaultsToWatchList(const WatchOptions& options) const {
    if (options.explicitInitialEvents)
        return false;
    WatchQuery plain;
    plain.resourceVersion = options.rvEmpty ? QString() : QString::number(options.rv);
    return defaultWatchQuery(m_config.profile, plain).sendInitialEvents.value_or(false);
}

} // namespace ws

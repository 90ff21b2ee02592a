#include "ApiServer.h"
#include "kube/ApfRules.h"
#include "kube/CacherRules.h"
#include "kube/ListOptionsValidation.h"
#include "kube/ListRouting.h"

#include "EtcdBackedWatch.h"
#include "sources/sim/SimContext.h"
#include "sources/sim/etcd/SimEtcd.h"

#include <algorithm>

namespace ws {

ApiServer::ApiServer(SimContext& ctx, ApiServerConfig config, const std::vector<int>& resources)
    : m_ctx(ctx), m_config(std::move(config)), m_resources(resources),
      m_pressure(ctx, m_config.profile, m_config.memory) {
    // Before 1.20 the max-in-flight filter: 400 read-only requests, the rest 429 at once.
    m_apf = m_config.profile.priorityAndFairness()
                ? PriorityLevel({apf::workloadLowSeats(), apf::kHandSize * apf::kQueueLengthLimit,
                                 m_config.profile.requestTimeout / 4})
                : PriorityLevel({apf::kMaxRequestsInflight, 0, 0});
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
    m_streams.clear();
    for (int resource : m_resources) {
        ResourceStreams r;
        r.resource = resource;
        r.cache = hub.openStream(m_config.etcdStreamEventsPerSecond);
        // Without SeparateCacheWatchRPC the cacher's watch and the etcd-served watches of its
        // resource carry the same gRPC metadata, so clientv3 multiplexes them on one stream
        // (PR #123532).
        // A resource without a watch cache has only the store's own client (UndecoratedStorage).
        const bool separate = m_config.profile.separateCacheWatchRpc && cacher(resource) != nullptr;
        r.client = separate ? hub.openStream(m_config.etcdStreamEventsPerSecond) : r.cache;
        hub.setStreamStalled(r.cache, m_partitioned);
        hub.setStreamStalled(r.client, m_partitioned);
        m_streams.push_back(r);
    }
}

void ApiServer::closeStreams() {
    auto& hub = m_ctx.etcd.watches();
    for (const ResourceStreams& r : m_streams) {
        hub.closeStream(r.cache);
        if (r.client != r.cache)
            hub.closeStream(r.client);
    }
    m_streams.clear();
}

const ApiServer::ResourceStreams* ApiServer::streamsOf(int resource) const {
    for (const ResourceStreams& r : m_streams)
        if (r.resource == resource)
            return &r;
    return nullptr;
}

int ApiServer::cacheStream(int resource) const {
    const ResourceStreams* r = streamsOf(resource);
    return r ? r->cache : -1;
}

int ApiServer::clientStream(int resource) const {
    const ResourceStreams* r = streamsOf(resource);
    return r ? r->client : -1;
}

void ApiServer::setCacheStreamStalled(int resource, bool stalled) {
    auto& hub = m_ctx.etcd.watches();
    for (const ResourceStreams& r : m_streams)
        if (resource < 0 || r.resource == resource)
            hub.setStreamStalled(r.cache, stalled);
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
    goDown(downtime);
}

void ApiServer::goDown(TimeUs downtime) {
    m_up = false;
    // Lists being served die with the process: their connections break.
    m_pressure.abortAll(ApiStatus::connectionReset(m_config.name));
    ++m_generation;
    m_apf.abortAll(ApiStatus::connectionReset(m_config.name));
    m_upAt = m_ctx.now + downtime;
    for (auto& w : m_etcdWatches)
        w->breakConnection();
    m_etcdWatches.clear();
    for (auto& c : m_cachers)
        c->stop();
    closeStreams();
}

void ApiServer::setPartitioned(bool partitioned) {
    m_partitioned = partitioned;
    if (!m_up)
        return;
    auto& hub = m_ctx.etcd.watches();
    for (const ResourceStreams& r : m_streams) {
        hub.setStreamStalled(r.cache, partitioned);
        hub.setStreamStalled(r.client, partitioned);
    }
}

void ApiServer::tick() {
    if (!m_up) {
        if (m_ctx.now >= m_upAt)
            start();
        return;
    }
    if (m_pressure.tick()) {
        // Above its memory limit: the kernel's OOM killer ends the process; it is restarted.
        ++m_oomKills;
        m_lastOom = {m_pressure.memoryBytes(), m_pressure.heldBytes(), m_pressure.inflight(),
                     m_pressure.heaviestResource()};
        goDown(m_pressure.config().restartAfter);
        return;
    }
    m_apf.tick(m_ctx.now);
    for (auto& c : m_cachers)
        c->tick();
    for (auto& w : m_etcdWatches)
        w->tick();
    std::erase_if(m_etcdWatches, [](const auto& w) { return w->done(); });
}

ListPage::Selection ApiServer::selection(const ListOptions& o) const {
    return ListPage::Selection{o.resource, o.selectorGroup, o.ns, o.matches};
}

void ApiServer::listFromEtcd(const ListQuery& q, const std::function<void(ListResult)>& done) {
    ListResult result;
    const ListOptions& o = q.options;
    if (m_partitioned) {
        result.status = ApiStatus::etcdUnavailable();
        done(std::move(result));
        return;
    }
    // etcd3 store GetList: an exact or continue list reads at its revision (WithRev), the rest
    // at the head; an RV=N beyond the head is "Too large resource version" (the etcd path's
    // shape: no Retry-After from 1.19, validateMinimumResourceVersion).
    const ResourceVersion head = m_ctx.etcd.currentRevision();
    const ResourceVersion rev = q.exactRv > 0 ? q.exactRv : head;
    const ResourceVersion minimum = q.exactRv > 0 ? q.exactRv : (o.rvEmpty ? 0 : o.rv);
    if (minimum > head) {
        result.status = ApiStatus::tooLargeFromEtcd(m_config.profile, minimum, head);
        done(std::move(result));
        return;
    }
    std::vector<KeyValuePtr> objects;
    if (!m_ctx.etcd.rangeAt(o.resource, rev, &objects)) {
        // ErrCompacted: interpretListError, with a fresh token at rv -1 for a continue.
        result.status = q.hasContinue
                            ? ApiStatus::continueTooOld(ContinueToken{-1, q.token.start}.encode())
                            : ApiStatus::listTooOld();
        done(std::move(result));
        return;
    }
    ListPage page = ListPage::cut(m_ctx.keyspace, std::move(objects), selection(o), q.token.start,
                                  o.limit, rev);
    result.ok = true;
    result.rv = rev;
    result.servedFrom = ListServedFrom::Etcd;
    result.items = std::move(page.items);
    result.continueToken = std::move(page.continueToken);
    result.remainingItemCount = page.remainingItemCount;
    result.scannedBytes = page.scannedBytes;
    result.largestReadBytes = page.largestReadBytes;
    done(std::move(result));
}

void ApiServer::listFromCache(Cacher& cacher, const ListQuery& q,
                              const std::function<void(ListResult)>& done) {
    const WatchCache& cache = cacher.cache();
    std::vector<KeyValuePtr> objects;
    objects.reserve(cache.objectCount());
    for (KeyId k : cache.store().keys())
        objects.push_back(cache.object(k));
    // The watch cache ignores limit for RV "0" and NotOlderThan lists; a consistent read it
    // pages like etcd, at its RV (1.31+, PR #125405: such lists reach the cache only from 1.31),
    // the continue going to etcd, or to the snapshots with ListFromCacheSnapshot.
    const bool pages = q.consistent;
    ListPage page =
        ListPage::cut(m_ctx.keyspace, std::move(objects), selection(q.options), q.token.start,
                      pages ? q.options.limit : 0, cache.resourceVersion());
    ListResult result;
    result.ok = true;
    result.fromCache = true;
    result.servedFrom = ListServedFrom::Cache;
    result.rv = cache.resourceVersion();
    result.items = std::move(page.items);
    result.continueToken = std::move(page.continueToken);
    result.remainingItemCount = page.remainingItemCount;
    done(std::move(result));
}

bool ApiServer::listFromSnapshot(Cacher& cacher, const ListQuery& q,
                                 const std::function<void(ListResult)>& done) {
    const WatchCache& cache = cacher.cache();
    const ResourceVersion snapshot = cache.snapshotAtOrBelow(q.exactRv);
    if (snapshot == 0)
        return false;
    // waitAndListExactRV: the snapshot's objects, answered at the requested RV.
    ListPage page = ListPage::cut(m_ctx.keyspace, cache.snapshotObjects(snapshot),
                                  selection(q.options), q.token.start, q.options.limit, q.exactRv);
    ListResult result;
    result.ok = true;
    result.fromCache = true;
    result.servedFrom = ListServedFrom::CacheSnapshot;
    result.rv = q.exactRv;
    result.items = std::move(page.items);
    result.continueToken = std::move(page.continueToken);
    result.remainingItemCount = page.remainingItemCount;
    done(std::move(result));
    return true;
}

void ApiServer::listConsistent(Cacher& cacher, const ListQuery& q,
                               const std::function<void(ListResult)>& done) {
    // KEP-2340: etcd's current revision, then the cache once it has reached it (the progress
    // requester asking etcd every 100 ms), else after 3 s the fallback to etcd; both counted
    // in apiserver_watch_cache_consistent_read_total{success,fallback}.
    Cacher* c = &cacher;
    const ResourceVersion target = m_ctx.etcd.currentRevision();
    c->waitForResourceVersion(
        target,
        [this, c, q, done] {
            c->countConsistentRead(true, false);
            listFromCache(*c, q, done);
        },
        [this, c, q, done, target](bool serverDown) {
            if (serverDown) {
                ListResult r;
                r.status = downError();
                done(std::move(r));
                return;
            }
            // The alpha of 1.28-1.30 has no fallback: the wait's error reaches the client
            // (cacher.go@v0.30.0 GetList); the delegator's fallback to etcd came with 1.31.
            if (m_config.profile.minor < 31) {
                ListResult r;
                r.status =
                    ApiStatus::tooLarge(m_config.profile, target, c->cache().resourceVersion());
                done(std::move(r));
                return;
            }
            listFromEtcd(q, [c, done](ListResult r) {
                c->countConsistentRead(r.ok, true);
                done(std::move(r));
            });
        },
        true);
}

void ApiServer::listExact(Cacher& cacher, const ListQuery& q,
                          const std::function<void(ListResult)>& done) {
    // A future exact RV waits for the cache like any read (the progress requester helps only
    // where consistent reads are supported); a timeout is the 504 (no fallback: not a
    // consistent read). The cacher's 410 for a missing snapshot sends the list to etcd.
    Cacher* c = &cacher;
    c->waitForResourceVersion(
        q.exactRv,
        [this, c, q, done] {
            if (!listFromSnapshot(*c, q, done))
                listFromEtcd(q, done);
        },
        [this, c, q, done](bool serverDown) {
            ListResult r;
            r.status = serverDown ? downError()
                                  : ApiStatus::tooLarge(m_config.profile, q.exactRv,
                                                        c->cache().resourceVersion());
            done(std::move(r));
        },
        cacher::consistentReadSupported(m_config.profile, m_config.etcd));
}

bool ApiServer::listRoutedToEtcd(const Cacher* c, const ListQuery& q) const {
    if (!c)
        return true; // no watch cache (events)
    const ServerProfile& p = m_config.profile;
    const bool consistentReads = cacher::consistentReadSupported(p, m_config.etcd);
    const ListOptions& o = q.options;
    if (q.exactRv > 0 || q.hasContinue) {
        // ShouldDelegateExactRV / ShouldDelegateContinue (v1.34.0): only with snapshots; a
        // future RV needs consistent-read support, a past one a snapshot at or below it.
        if (!c->snapshotsUsable())
            return true;
        if (q.consistent)
            return !consistentReads;
        if (q.exactRv > c->cache().resourceVersion())
            return !consistentReads;
        return c->cache().snapshotAtOrBelow(q.exactRv) == 0;
    }
    if (q.consistent) {
        // Before 1.31 a limit with any RV but "0" went to etcd, RV="" included (cacher.go
        // shouldDelegateList hasLimit); from 1.31 the cache pages consistent reads itself (PR
        // #125405) and only the legacy exact match (a limit with RV=N) is delegated.
        if (o.limit > 0 && p.minor < 31)
            return true;
        return !consistentReads;
    }
    return false;
}

std::function<void(ApiServer::ListResult)>
ApiServer::accounted(const ListOptions& options, std::function<void(ListResult)> done) {
    const bool streaming = m_config.profile.streamingListEncoding(options.protobuf);
    return [this, resource = options.resource, streaming,
            done = std::move(done)](ListResult result) mutable {
        if (!result.ok) {
            done(std::move(result));
            return;
        }
        const listmemory::Path path = result.servedFrom == ListServedFrom::Etcd
                                          ? listmemory::Path::Etcd
                                          : listmemory::Path::Cache;
        // A page of a paged list is a response of its own: it holds what its read covered.
        const bool etcd = path == listmemory::Path::Etcd;
        const std::int64_t scanned = etcd ? result.scannedBytes : -1;
        const std::int64_t largestRead = etcd ? result.largestReadBytes : -1;
        auto held = std::make_shared<ListResult>(std::move(result));
        m_pressure.serve(resource, path, held->items, scanned, largestRead, streaming,
                         [held, done](bool ok, ApiStatus status) {
                             if (!ok) {
                                 ListResult failed;
                                 failed.status = std::move(status);
                                 done(std::move(failed));
                                 return;
                             }
                             done(std::move(*held));
                         });
    };
}

int ApiServer::listSeats(const ListOptions& o) {
    if (!m_config.profile.priorityAndFairness())
        return 1;
    const auto stored = static_cast<std::int64_t>(m_ctx.etcd.objectCount(o.resource));
    const bool rvZero = !o.rvEmpty && o.rv == 0 && o.continueToken.isEmpty();
    const bool fromStorage = apf::listFromStorage(o.rvEmpty && o.continueToken.isEmpty(), rvZero,
                                                  !o.continueToken.isEmpty(), o.limit > 0, o.exact);
    const bool selector = o.selectorGroup >= 0 || static_cast<bool>(o.matches);
    if (m_config.profile.sizeBasedListCostEstimate()) {
        const std::int64_t bytes = m_pressure.storedBytes(o.resource);
        return apf::listSeatsBySize(stored, stored > 0 ? bytes / stored : 0, o.limit, fromStorage,
                                    selector);
    }
    return apf::listSeats(stored, o.limit, fromStorage, selector);
}

void ApiServer::list(const ListOptions& options, std::function<void(ListResult)> done) {
    ++m_listRequests;
    m_pressure.countList(options.resource);
    if (!m_up) {
        ListResult r;
        r.status = downError();
        done(std::move(r));
        return;
    }
    // API Priority and Fairness first: the list runs once its seats are free, holding them
    // until it is answered; a full queue or a wait past the limit is a 429 (kube/ApfRules.h).
    const int seats = listSeats(options);
    auto answer = std::make_shared<std::function<void(ListResult)>>(std::move(done));
    m_apf.admit(
        m_ctx.now, options.flow, seats,
        [this, options, answer, seats, generation = m_generation] {
            // The seats are held until the answer is written (accounted: the time its bytes
            // take to move).
            serveList(options, accounted(options, [this, answer, seats, generation](ListResult r) {
                          if (generation == m_generation)
                              m_apf.release(seats);
                          (*answer)(std::move(r));
                      }));
        },
        [answer](const ApiStatus& status) {
            ListResult r;
            r.status = status;
            (*answer)(std::move(r));
        });
}

void ApiServer::serveList(const ListOptions& options, std::function<void(ListResult)> done) {
    ListQuery q;
    q.options = options;
    if (!options.continueToken.isEmpty()) {
        QString why;
        const auto token = ContinueToken::decode(options.continueToken, &why);
        if (!token) {
            ListResult r;
            r.status = ApiStatus::invalidContinue(why);
            done(std::move(r));
            return;
        }
        q.hasContinue = true;
        q.token = *token;
        q.options.rvEmpty = true; // the token carries the revision
        q.options.rv = 0;
    }
    const bool rvZero = !q.options.rvEmpty && q.options.rv == 0;
    // Exact: resourceVersionMatch=Exact, the legacy exact match (a limit with RV=N), or a
    // continue at its token's revision; a continue at rv -1 is a consistent read.
    if (q.hasContinue)
        q.exactRv = q.token.rv > 0 ? q.token.rv : 0;
    else if (!q.options.rvEmpty && !rvZero &&
             (q.options.exact || (q.options.limit > 0 && !q.options.notOlderThan)))
        q.exactRv = q.options.rv;
    q.consistent = q.hasContinue ? q.token.rv < 0 : q.options.rvEmpty;
    Cacher* c = cacher(options.resource);
    if (listRoutedToEtcd(c, q)) {
        listFromEtcd(q, done);
        return;
    }
    if (!c->ready()) {
        if (m_config.profile.resilientWatchCacheInitialization) {
            // KEP-4568 (1.31+): a list with a limit and no selector goes to etcd
            // (shouldDelegateListOnNotReadyCache); any other gets the 429 at once.
            if (options.limit > 0 && options.selectorGroup < 0 && !options.matches) {
                listFromEtcd(q, done);
            } else {
                ListResult r;
                r.status = c->notReadyStatus();
                done(std::move(r));
            }
            return;
        }
        if (rvZero || q.consistent) {
            // Before: RV="0" needs no particular state, so etcd answers it.
            listFromEtcd(q, done);
            return;
        }
    }
    if (q.consistent) {
        listConsistent(*c, q, done);
        return;
    }
    if (q.exactRv > 0) {
        listExact(*c, q, done);
        return;
    }
    if (rvZero) {
        // Any state, from the cache, no wait.
        listFromCache(*c, q, done);
        return;
    }
    // RV=N NotOlderThan: wait up to 3 s for the cache to reach N, else 504.
    c->waitForResourceVersion(
        options.rv, [this, c, q, done] { listFromCache(*c, q, done); },
        [this, c, q, done](bool serverDown) {
            ListResult r;
            r.status = serverDown ? downError()
                                  : ApiStatus::tooLarge(m_config.profile, q.options.rv,
                                                        c->cache().resourceVersion());
            done(std::move(r));
        },
        waitsRequestProgress());
}

std::shared_ptr<ServerWatch> ApiServer::watch(const WatchOptions& options, ApiStatus* error) {
    ++m_watchRequests;
    m_pressure.countWatch(options.resource);
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
        // A watch-list of an uncached resource is served by the etcd3 watcher itself, with the
        // initial state and, asked for bookmarks, the initial-events-end one from 1.29
        // (etcd3/watcher.go@v0.29.0 areInitialEventsRequired; 1.27-1.28 ignore
        // sendInitialEvents there).
        w->fromEtcd = true;
        const bool etcdWatchList = uncached && watchList && m_config.profile.minor >= 29;
        const bool initialState = options.rvEmpty || options.rv == 0 || etcdWatchList;
        m_etcdWatches.push_back(std::make_unique<EtcdBackedWatch>(
            m_ctx, m_config.profile, w, clientStream(options.resource),
            EtcdBackedWatch::Start{initialState ? 0 : options.rv, initialState,
                                   etcdWatchList && options.allowBookmarks}));
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
    if (watchList && w->bookmarks && m_config.profile.checksRequestWatchProgress() &&
        m_config.etcd.supportsRequestWatchProgress() != Tri::Yes) {
        w->fail(ApiStatus::watchListStorageUnsupported());
        return;
    }
    if (watchList) {
        const ResourceVersion target = options.rvEmpty ? m_ctx.etcd.currentRevision() : options.rv;
        c->waitForResourceVersion(
            // The initial-events-end bookmark only with allowWatchBookmarks
            // (getBookmarkAfterResourceVersionLockedFunc returns 0 without it).
            target,
            [this, c, w] {
                streamInitialState(*c, *w);
                c->addWatch(w, 0, true, w->bookmarks);
            },
            [this, c, w, target](bool serverDown) {
                if (serverDown)
                    w->close(WatchCloseReason::Broken);
                else
                    w->fail(ApiStatus::tooLarge(m_config.profile, target,
                                                c->cache().resourceVersion()));
            },
            waitsRequestProgress());
        return;
    }
    const bool initialState = options.rvEmpty || options.rv == 0;
    c->addWatch(w, options.rv, initialState, false);
}

void ApiServer::streamInitialState(const Cacher& cacher, const ServerWatch& w) {
    // The watch-list's initial state is streamed from the cache one object at a time: it holds
    // one object while its selection's bytes move through the apiserver (ListMemoryRules.h), and
    // counts as a list in flight meanwhile. The watch itself is no list (no deliver).
    if (!m_pressure.config().enabled)
        return;
    const WatchCache& cache = cacher.cache();
    std::vector<KeyValuePtr> selection;
    for (KeyId k : cache.store().keys())
        if (w.matches(m_ctx.keyspace.selectorGroupOf(k)))
            selection.push_back(cache.object(k));
    m_pressure.serve(w.resource, listmemory::Path::WatchList, selection, -1, -1, false,
                     [](bool, const ApiStatus&) {});
}

bool ApiServer::waitsRequestProgress() const {
    // 1.31+: every wait for a fresher cache (RV=N lists and gets, watch-lists) registers with
    // the progress requester when consistent reads are supported (watch_cache.go@v1.31.0
    // waitUntilFreshAndListItems, cacher.go Watch); before, only consistent reads did.
    return m_config.profile.checksRequestWatchProgress() &&
           cacher::consistentReadSupported(m_config.profile, m_config.etcd);
}

bool ApiServer::defaultsToWatchList(const WatchOptions& options) const {
    if (options.explicitInitialEvents)
        return false;
    WatchQuery plain;
    plain.resourceVersion = options.rvEmpty ? QString() : QString::number(options.rv);
    return defaultWatchQuery(m_config.profile, plain).sendInitialEvents.value_or(false);
}

} // namespace ws

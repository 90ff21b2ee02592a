#include "Cacher.h"

#include "ApiServer.h"
#include "detect/DetectorHub.h"
#include "kube/ListRouting.h"
#include "sources/sim/SimContext.h"
#include "sources/sim/etcd/SimEtcd.h"

#include <algorithm>
#include <functional>
#include <string>

namespace ws {

Cacher::Cacher(SimContext& ctx, ApiServer& server, int resource)
    : m_ctx(ctx), m_server(server), m_resource(resource), m_cache([&] {
          const ServerProfile& p = server.profile();
          if (p.dynamicWatchCacheSize())
              return WatchCacheLimits{100, p.ringUpperBound(), 100, p.eventHistoryWindow()};
          // Up to 1.18 a fixed ring per resource (ServerProfile::watchCacheSize).
          const std::size_t size = p.watchCacheSize(ctx.keyspace.resourceName(resource));
          return WatchCacheLimits{size, size, size, p.eventFreshDuration};
      }()) {
    WatcherInfo info;
    info.resource = ctx.keyspace.resourceName(resource);
    info.id = QStringLiteral("cacher/%1@%2").arg(info.resource, server.name());
    info.layer = WatchLayer::Etcd;
    info.history = &ctx.etcd;
    m_hubId = ctx.hub.registerWatcher(info);
    if (server.profile().detectCacheInconsistency)
        // Seeded from the cacher's name, the same in every process: Qt's qHash(QString, seed)
        // mixes in a per-process random seed, which made the checks' times vary run to run.
        m_checker = std::make_unique<CacheConsistencyChecker>(
            ctx, *this, std::hash<std::string>{}(info.id.toStdString()));
}

Cacher::~Cacher() {
    cancelEtcdWatch();
}

QString Cacher::stateName() const {
    switch (m_state) {
    case State::Stopped:
        return QStringLiteral("stopped");
    case State::Backoff:
        return QStringLiteral("backoff");
    case State::Listing:
        return QStringLiteral("listing");
    case State::Watching:
        return QStringLiteral("watching");
    }
    return {};
}

void Cacher::start() {
    if (m_checker)
        m_checker->start();
    // A new cacher: ready starts Pending, its state change time is now (ready.go newReady).
    m_ready = false;
    m_initializedSinceStart = false;
    m_readyChangedAt = m_ctx.now;
    m_lastError.clear();
    m_state = State::Backoff;
    m_retryAt = m_ctx.now;
    m_nextCompaction = m_ctx.now + cacher::kCompactorPollPeriod;
    m_compactorRevision = 0;
    list();
}

void Cacher::stop() {
    if (m_checker)
        m_checker->stop();
    cancelEtcdWatch();
    m_state = State::Stopped;
    m_ready = false;
    m_listed.clear();
    auto waiters = std::move(m_readyWaiters);
    m_readyWaiters.clear();
    for (auto& p : waiters) // the waiting requests' connections are reset
        p.watch->reject(ApiStatus::connectionReset(m_server.name()));
    // Events the blocked dispatcher still held die with the cache.
    m_pending.clear();
    m_blocked = false;
    m_ctx.hub.watcherStopped(m_hubId, m_ctx.now);
    for (auto& w : m_watches) {
        w->buffer.clear();
        w->overflow.clear();
        w->close(WatchCloseReason::Broken);
    }
    m_watches.clear();
    auto waits = std::move(m_waits);
    m_waits.clear();
    for (auto& wait : waits)
        wait.timedOut(true);
    m_cache.reset();
}

void Cacher::cancelEtcdWatch() {
    if (m_etcdWatch >= 0)
        m_ctx.etcd.watches().cancel(m_etcdWatch);
    m_etcdWatch = -1;
}

TimeUs Cacher::sinceReadyChanged() const {
    return m_ctx.now - m_readyChangedAt;
}

ApiStatus Cacher::notReadyStatus() const {
    const bool grows = m_server.profile().retryAfterGrowsWithDowntime();
    // 1.33+ (PR #130899): the message names the error the last ListAndWatch returned.
    return ApiStatus::storageInitializing(
        cacher::retryAfterForUnreadyCache(sinceReadyChanged(), grows),
        grows ? m_lastError : QString());
}

void Cacher::setReady(bool ready) {
    if (ready == m_ready)
        return; // ready.set: Pending -> Pending keeps its change time
    m_ready = ready;
    m_readyChangedAt = m_ctx.now;
}

void Cacher::list() {
    ListRequest request;
    request.rvEmpty = true;
    request.isRelist = m_cache.ready() || m_cache.listResourceVersion() != 0;
    // startCaching(): every (re)start of ListAndWatch terminates the cache's watchers first.
    // This is a re-initialization, not the slow-watcher cut-off: it is not counted in
    // apiserver_terminated_watchers_total (terminateAllWatchers vs. the dispatch timeout).
    for (auto& w : m_watches) {
        w->overflow.clear();
        w->close(WatchCloseReason::CacheReinitialized);
    }
    m_watches.clear();
    ++m_listsStarted;
    m_ctx.hub.listStarted(m_hubId, m_ctx.now, request);
    if (m_server.partitioned()) {
        const ApiStatus error = ApiStatus::etcdUnavailable();
        m_ctx.hub.listFailed(m_hubId, m_ctx.now, error.toObserved());
        listAndWatchEnded(error.message);
        return;
    }
    // The list reads etcd now; the cache holds it (and the watch starts from its RV) only when
    // decoding and conversion are done, m_listDuration later.
    m_listed.clear();
    const auto& keys = m_ctx.etcd.liveKeys(m_resource);
    m_listed.reserve(keys.size());
    for (KeyId k : keys)
        m_listed.push_back(m_ctx.etcd.get(k));
    m_listedRv = m_ctx.etcd.currentRevision();
    m_state = State::Listing;
    m_listDoneAt = m_ctx.now + m_listDuration;
    if (m_listDuration <= 0)
        finishList();
}

void Cacher::finishList() {
    std::vector<KeyValuePtr> objects = std::move(m_listed);
    m_listed.clear();
    const ResourceVersion rv = m_listedRv;
    m_cache.replace(objects, rv, m_ctx.now);
    // OnReplace: the cache is ready from here (apiserver_watch_cache_initializations_total).
    setReady(true);
    ++m_initializations;
    m_initializedSinceStart = true;
    m_lastError.clear();
    m_ctx.hub.listCompleted(m_hubId, m_ctx.now, rv, static_cast<std::int64_t>(objects.size()));
    watchFrom(rv);
}

void Cacher::watchFrom(ResourceVersion rv) {
    cancelEtcdWatch();
    EtcdWatchOptions options;
    options.resource = m_resource;
    options.startRevision = rv + 1;
    options.prevKv = true;
    options.progressNotify = m_server.profile().cacherProgressNotify();
    m_etcdWatch = m_ctx.etcd.watches().watch(m_server.cacheStream(m_resource), options, this);
    WatchRequest request;
    request.rv = rv;
    m_ctx.hub.watchOpened(m_hubId, m_ctx.now, request);
    m_state = State::Watching;
}

void Cacher::listAndWatchEnded(const QString& lastError) {
    cancelEtcdWatch();
    // startCaching's defer: ready.set(false) (with the error from 1.33, ready.setError).
    setReady(false);
    m_lastError = lastError;
    m_state = State::Backoff;
    m_retryAt = m_ctx.now + cacher::kRelistPeriod;
}

void Cacher::handleInternalError(const ApiStatus& status) {
    (void)status;
    cancelEtcdWatch();
    if (m_server.profile().retriesInternalErrors()) {
        // PR #111387: within MaxInternalErrorRetryDuration (30 s, window reset after a minute
        // without errors) the reflector re-watches from its last RV instead of relisting.
        if (m_firstInternalError == 0 || m_ctx.now - m_lastInternalError > seconds(60))
            m_firstInternalError = m_ctx.now;
        m_lastInternalError = m_ctx.now;
        if (m_ctx.now - m_firstInternalError < m_server.profile().internalErrorRetryWindow) {
            watchFrom(m_cache.resourceVersion());
            return;
        }
    }
    // Past the window the reflector's watchHandler returns the error and ListAndWatch ends.
    listAndWatchEnded(status.message);
}

void Cacher::onEtcdWatchResponse(const EtcdWatchResponse& response) {
    if (response.watchId != m_etcdWatch)
        return;
    auto& hub = m_ctx.hub;
    if (response.canceled) {
        ObservedStatus status;
        status.code = 410;
        status.reason = QStringLiteral("Compacted");
        status.message = QStringLiteral("etcdserver: mvcc: required revision has been compacted");
        status.requestedRv = m_cache.resourceVersion() + 1;
        status.compactRevision = response.compactRevision;
        hub.watchError(m_hubId, m_ctx.now, status);
        m_etcdWatch = -1;
        // A "too old" watch ends ListAndWatch without an error (reflector isExpiredError).
        listAndWatchEnded(QString());
        return;
    }
    if (response.isProgress()) {
        hub.watchProgress(m_hubId, m_ctx.now, response.headerRevision, false);
        m_cache.updateResourceVersion(response.headerRevision);
        return;
    }
    m_observed.clear();
    for (const SentEvent& s : response.events) {
        const MvccEvent& ev = *s.event;
        ObservedEvent o;
        o.type = ev.type == MvccEventType::Delete ? WatchEventType::Deleted
                 : ev.isCreate()                  ? WatchEventType::Added
                                                  : WatchEventType::Modified;
        o.key = ev.key;
        o.rv = ev.rev;
        o.createRv = ev.kv ? ev.kv->createRev : 0;
        o.hasPrevKv = s.prevKv != nullptr;
        o.prevRv = s.prevKv ? ev.prevModRev : 0;
        m_observed.push_back(o);
    }
    hub.watchResponse(m_hubId, m_ctx.now, m_observed);
    for (size_t i = 0; i < response.events.size(); ++i) {
        const SentEvent& s = response.events[i];
        const MvccEvent& ev = *s.event;
        if (!ev.isCreate() && !s.prevKv) {
            // etcd3/watcher.go parseEvent: a non-create event without prev_kv is an error.
            handleInternalError(ApiStatus::prevKvNil(m_ctx.keyspace.keys().qkey(ev.key), ev.rev,
                                                     ev.type == MvccEventType::Delete));
            return;
        }
        const WatchEventType type = m_observed[i].type;
        // A DELETED event carries the object's last state (from prev_kv).
        KeyValuePtr object = ev.type == MvccEventType::Delete ? *s.prevKv : ev.kv;
        dispatch(m_cache.add(type, ev.key, ev.rev, std::move(object), m_ctx.now, ev.commitTime));
    }
}

void Cacher::dispatch(const CacheEvent& event) {
    // One dispatcher per resource takes events in order: while it waits on a full watcher, the
    // events behind it wait for every watcher (cacher.go dispatchEvents / dispatchEvent).
    if (m_blocked || !m_pending.empty()) {
        m_pending.push_back(event);
        return;
    }
    deliver(event);
}

bool Cacher::deliver(const CacheEvent& event) {
    // dispatchEvent: a non-blocking add to every watcher first, so the fast ones get the event
    // at once (PR #75547, 1.15); the dispatcher then blocks on the full ones.
    const int group = m_ctx.keyspace.selectorGroupOf(event.key);
    bool blocked = false;
    for (auto& w : m_watches) {
        if (w->closed || event.rv <= w->lastRv || !w->matches(group))
            continue;
        WatchDelivery d;
        d.type = event.type;
        d.key = event.key;
        d.rv = event.rv;
        d.object = event.object;
        d.commitTime = event.commitTime;
        if (!w->offer(std::move(d)))
            blocked = true;
        w->lastRv = event.rv;
    }
    m_blocked = blocked;
    return blocked;
}

bool Cacher::unblockWatchers() {
    // cacheWatcher.add: the blocked send completes as soon as the client made room.
    bool blocked = false;
    for (auto& w : m_watches) {
        if (w->closed) {
            w->overflow.clear();
            continue;
        }
        if (!w->overflow.empty() && w->hasRoom()) {
            w->buffer.push_back(std::move(w->overflow.front()));
            w->overflow.pop_front();
        }
        blocked = blocked || w->blocked();
    }
    m_blocked = blocked;
    return blocked;
}

bool Cacher::drainPending() {
    while (!m_blocked && !m_pending.empty()) {
        const CacheEvent event = std::move(m_pending.front());
        m_pending.pop_front();
        deliver(event);
    }
    return m_blocked;
}

void Cacher::addWatch(const std::shared_ptr<ServerWatch>& w, ResourceVersion rv, bool initialState,
                      bool initialEventsEnd) {
    ResourceVersion maxInitialRv = 0;
    if (initialState) {
        // RV "0"/"" or watch-list: the current state as synthetic ADDED events first.
        for (KeyId key : m_cache.store().keys()) {
            if (!w->matches(m_ctx.keyspace.selectorGroupOf(key)))
                continue;
            const KeyValuePtr& o = m_cache.object(key);
            WatchDelivery d;
            d.type = WatchEventType::Added;
            d.initial = true;
            d.key = key;
            d.rv = o->modRev;
            d.object = o;
            maxInitialRv = std::max(maxInitialRv, d.rv);
            w->buffer.push_back(std::move(d));
        }
        w->lastRv = m_cache.resourceVersion();
        // processInterval raises the RV it forwards above to its last initial event's (PR
        // #73845, every modelled version), and to the interval's own RV from 1.32.
        w->startRv = m_server.profile().minor >= 32 ? w->lastRv : maxInitialRv;
        if (initialEventsEnd) {
            WatchDelivery d;
            d.type = WatchEventType::Bookmark;
            d.initialEventsEnd = true;
            d.rv = m_cache.resourceVersion();
            w->buffer.push_back(std::move(d));
        }
    } else {
        const WatchCache::Start start = m_cache.startFrom(rv);
        if (start.tooOld) {
            w->fail(ApiStatus::tooOld(m_server.profile(), rv, start.oldestMinusOne));
            return;
        }
        w->lastRv = rv;
        const EventRing& ring = m_cache.ring();
        for (std::size_t i = start.index; i < ring.endIndex(); ++i) {
            const CacheEvent& e = ring.at(i);
            if (!w->matches(m_ctx.keyspace.selectorGroupOf(e.key)))
                continue;
            WatchDelivery d;
            d.type = e.type;
            d.key = e.key;
            d.rv = e.rv;
            d.object = e.object;
            d.commitTime = e.commitTime;
            w->buffer.push_back(std::move(d));
            w->lastRv = e.rv;
        }
        w->startRv = w->lastRv;
    }
    w->nextBookmark = nextBookmarkTime(*w);
    m_watches.push_back(w);
}

TimeUs Cacher::nextBookmarkTime(const ServerWatch& w) const {
    return cacher::nextBookmarkTime(m_ctx.now, w.deadline, m_server.profile().periodicBookmarks(),
                                    m_server.profile().bookmarkInterval);
}

void Cacher::waitUntilReady(const std::shared_ptr<ServerWatch>& w, std::function<void()> admit) {
    w->pending = true;
    m_readyWaiters.push_back(ReadyWaiter{w, std::move(admit)});
}

void Cacher::serviceReadyWaiters() {
    if (m_readyWaiters.empty())
        return;
    auto waiters = std::move(m_readyWaiters);
    m_readyWaiters.clear();
    for (auto& p : waiters) {
        if (p.watch->closed)
            continue; // the client gave up
        if (m_ready) {
            p.watch->pending = false;
            p.admit();
        } else if (m_server.profile().notReadyWaitHasDeadline() && m_ctx.now >= p.watch->deadline) {
            // ready.waitAndReadGeneration(ctx) returned ctx.Err(): from v1.27.0 cacher.Watch
            // waits with the watch's context (v1.26.0: ready.wait() without one; issue #109603),
            // and the handler turns it into errors.NewServiceUnavailable.
            p.watch->reject(ApiStatus::cacheWaitDeadlineExceeded());
        } else {
            m_readyWaiters.push_back(std::move(p));
        }
    }
}

void Cacher::waitForResourceVersion(ResourceVersion rv, std::function<void()> ready,
                                    std::function<void(bool)> timedOut, bool requestProgress) {
    if (m_ready && m_cache.resourceVersion() >= rv) {
        ready();
        return;
    }
    if (requestProgress && std::none_of(m_waits.begin(), m_waits.end(),
                                        [](const Wait& w) { return w.requestProgress; }))
        m_nextProgressRequest = m_ctx.now; // the requester wakes on its first waiter
    m_waits.push_back(Wait{rv, m_ctx.now + m_server.profile().blockTimeout, std::move(ready),
                           std::move(timedOut), requestProgress});
}

bool Cacher::snapshotsUsable() const {
    return cacher::listsFromSnapshots(m_server.profile()) &&
           (!m_checker || m_checker->markedConsistent());
}

void Cacher::serviceCompactor() {
    // compactor.Run: every 15 s the storage's compaction revision; snapshots below it go.
    if (!cacher::listsFromSnapshots(m_server.profile()) || m_ctx.now < m_nextCompaction)
        return;
    m_nextCompaction = m_ctx.now + cacher::kCompactorPollPeriod;
    const ResourceVersion rev = m_ctx.etcd.compactRevision();
    if (rev <= m_compactorRevision)
        return;
    m_compactorRevision = rev;
    m_cache.compactSnapshots(rev);
}

void Cacher::serviceWaits() {
    if (m_waits.empty())
        return;
    // ConditionalProgressRequester: RequestWatchProgress on the cacher's stream every 100 ms
    // while a consistent read waits for the cache.
    if (m_ready && m_ctx.now >= m_nextProgressRequest &&
        std::any_of(m_waits.begin(), m_waits.end(),
                    [](const Wait& w) { return w.requestProgress; })) {
        m_ctx.etcd.watches().requestProgress(m_server.cacheStream(m_resource));
        m_nextProgressRequest = m_ctx.now + cacher::kProgressRequestPeriod;
    }
    auto waits = std::move(m_waits);
    m_waits.clear();
    for (auto& wait : waits) {
        if (!m_ready) {
            // Before 1.31 a LIST that needs the cache first waits in ready.wait() (1.31+ answer
            // 429 before getting here); the 3 s freshness wait starts once it is ready.
            wait.deadline = std::max(wait.deadline, m_ctx.now + m_server.profile().blockTimeout);
            m_waits.push_back(std::move(wait));
        } else if (m_cache.resourceVersion() >= wait.rv)
            wait.ready();
        else if (m_ctx.now >= wait.deadline)
            wait.timedOut(false);
        else
            m_waits.push_back(std::move(wait));
    }
}

void Cacher::serviceWatches() {
    const double dtSeconds = static_cast<double>(m_ctx.dt) / kUsPerSecond;
    bool blocked = unblockWatchers() || drainPending();
    // The dispatcher waits on a full watcher out of one budget shared by the resource's watchers
    // (time_budget.go: 100 ms, refilled 50 ms a second); when the timer fires, every watcher it
    // is still blocked on is closed without an ERROR event ("Forcing watcher close due to
    // unresponsiveness", apiserver_terminated_watchers_total) and the waiting events go out.
    bool ranOut = m_budget.tick(dtSeconds, blocked);
    while (blocked && ranOut) {
        for (auto& w : m_watches) {
            if (!w->blocked())
                continue;
            w->overflow.clear();
            w->close(WatchCloseReason::ServerClosed);
            ++m_terminated;
        }
        m_blocked = false;
        blocked = drainPending();
        ranOut = m_budget.seconds() <= 0; // with the budget spent the timer fires at once
    }
    // The bookmark ticker shares the dispatcher's loop: it cannot fire while the dispatcher
    // waits. A bookmark carries the RV last processed, which is the cache's once nothing waits.
    const bool bookmarkTick = !blocked && m_ctx.now >= m_nextBookmarkTick;
    if (bookmarkTick)
        m_nextBookmarkTick = m_ctx.now + cacher::kBookmarkTickPeriod;
    for (auto& w : m_watches) {
        if (w->closed)
            continue;
        if (m_ctx.now >= w->deadline) {
            w->overflow.clear();
            w->close(WatchCloseReason::ClientTimeout);
            continue;
        }
        if (bookmarkTick && w->bookmarks && m_ctx.now >= w->nextBookmark && w->hasRoom()) {
            const ResourceVersion rv = m_cache.resourceVersion();
            // The watcher's process loop drops a bookmark that is not above the RV it started
            // from; either way it waits for its next bookmark time.
            if (cacher::bookmarkReaches(rv, w->startRv)) {
                WatchDelivery d;
                d.type = WatchEventType::Bookmark;
                d.rv = rv;
                w->buffer.push_back(std::move(d));
                w->lastRv = std::max(w->lastRv, rv);
            }
            // Before 1.19 the one bookmark is the pre-timeout one: none after it.
            w->nextBookmark =
                m_server.profile().periodicBookmarks() ? nextBookmarkTime(*w) : w->deadline;
        }
    }
    std::erase_if(m_watches, [](const auto& w) { return w->closed; });
}

void Cacher::tick() {
    if (m_state == State::Stopped)
        return;
    if (m_state == State::Backoff && m_ctx.now >= m_retryAt)
        list();
    if (m_state == State::Listing && m_ctx.now >= m_listDoneAt)
        finishList();
    serviceReadyWaiters();
    serviceWaits();
    serviceCompactor();
    serviceWatches();
    if (m_checker) {
        m_checker->tick();
        // MarkConsistent(false): snapshots reset, none taken until a check passes again.
        if (!m_checker->markedConsistent())
            m_cache.compactSnapshots(m_cache.resourceVersion() + 1);
    }
}

TimeUs Cacher::lag() const {
    const TimeUs t = m_ctx.etcd.firstChangeTimeAfter(m_resource, m_cache.resourceVersion());
    return t < 0 ? 0 : m_ctx.now - t;
}

} // namespace ws

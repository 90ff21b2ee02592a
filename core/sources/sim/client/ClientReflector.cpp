#include "ClientReflector.h"

#include "detect/DetectorHub.h"
#include "sources/sim/SimContext.h"
#include "sources/sim/apiserver/InitialEventsProxy.h"
#include "sources/sim/etcd/SimEtcd.h"

namespace ws {

ClientReflector::ClientReflector(SimContext& ctx, std::vector<ApiServer*> servers,
                                 ClientConfig config)
    : m_ctx(ctx), m_servers(std::move(servers)), m_config(std::move(config)),
      m_backoff(m_config.profile.relistBackoff()),
      m_rewatchBackoff(m_config.profile.rewatchBackoff()),
      m_store(m_config.storeTable ? InformerStore(m_config.storeTable) : InformerStore()) {
    m_apiserver = std::clamp(m_config.apiserver, 0, static_cast<int>(m_servers.size()) - 1);
    WatcherInfo info;
    info.id = m_config.id;
    info.resource = ctx.keyspace.resourceName(m_config.resource);
    info.layer = WatchLayer::Apiserver;
    info.history = &ctx.etcd;
    m_hubId = ctx.hub.registerWatcher(info);
    m_state = State::Backoff;
    m_next = Next::List;
    m_retryAt = m_config.startAt;
}

ClientReflector::~ClientReflector() = default;

QString ClientReflector::stateName() const {
    switch (m_state) {
    case State::Idle:
        return QStringLiteral("idle");
    case State::Listing:
        return QStringLiteral("listing");
    case State::Watching:
        return m_awaitingInitialEnd ? QStringLiteral("initial events") : QStringLiteral("watching");
    case State::Backoff:
        return m_next == Next::List ? QStringLiteral("backoff (relist)")
                                    : QStringLiteral("backoff (rewatch)");
    case State::Resending:
        return QStringLiteral("retrying the watch request");
    }
    return {};
}

QString ClientReflector::apiserverName() const {
    return m_servers[static_cast<size_t>(m_apiserver)]->name();
}

void ClientReflector::restart(int apiserver) {
    ++m_generation;
    // A node agent that lists on start relists, as the apiserver sees it, when it restarts.
    m_listsAgain = m_config.consistentFirstList && (m_everSynced || m_listsAgain);
    dropWatch();
    m_store.clear();
    m_initialStore.clear();
    m_awaitingInitialEnd = false;
    m_lastSyncRv = 0;
    m_everSynced = false;
    m_rvUnavailable = false;
    m_fallbackToList = false;
    m_paginatedResult = false;
    m_pages.clear();
    m_onContinuePage = false;
    m_nextPage.reset();
    m_nextPageIsRetry = false;
    m_backoff.reset();
    m_rewatchBackoff.reset();
    m_apiserver = std::clamp(apiserver, 0, static_cast<int>(m_servers.size()) - 1);
    m_state = State::Backoff;
    m_next = Next::List;
    m_retryAt = m_ctx.now;
}

void ClientReflector::switchApiserver() {
    // Behind a load balancer a new connection may land on another apiserver.
    m_apiserver = (m_apiserver + 1) % static_cast<int>(m_servers.size());
}

void ClientReflector::dropWatch() {
    // The client hangs up: the server stops the watcher, so a buffer nobody reads any more
    // does not hold the dispatcher of its resource.
    if (m_watch)
        m_watch->close(WatchCloseReason::ClientCancelled);
    m_watch.reset();
}

void ClientReflector::backoffThen(Next next) {
    dropWatch();
    m_state = State::Backoff;
    m_next = next;
    // wait.BackoffUntil / wait.Until around ListAndWatch; a re-watch waits on its own (the 1 s
    // sleep of 0.16-0.19, initConnBackoffManager from 0.20).
    m_retryAt =
        m_ctx.now + (next == Next::Watch ? m_rewatchBackoff : m_backoff).next(m_ctx.now, m_ctx.rng);
}

void ClientReflector::startList() {
    // Every ListAndWatch of a watch-list client starts with a watch-list instead of the LIST
    // (KEP-3157), unless this one fell back to LIST + WATCH. A client that lists with a plain
    // List() is no reflector: client-go's typed List() stays a LIST in every release
    // (gentype/type.go@v0.35.0; the conversion existed only in 0.31-0.33, behind the
    // off-by-default WatchListClient gate).
    const bool fallback = std::exchange(m_fallbackToList, false);
    if (m_config.watchOnly ||
        (m_config.profile.watchList && !fallback && !m_config.consistentFirstList)) {
        startWatch(!m_config.watchOnly);
        return;
    }
    ApiServer::ListOptions options;
    options.resource = m_config.resource;
    options.selectorGroup = m_config.selectorGroup;
    options.protobuf = m_config.profile.protobufWire;
    options.flow = m_config.flow.isEmpty() ? m_config.id : m_config.flow;
    const auto listRv =
        m_config.profile.relistResourceVersion(m_lastSyncRv, m_rvUnavailable, m_paginatedResult);
    options.rv = listRv.rv;
    options.rvEmpty = listRv.empty;
    options.limit = listRv.limit;
    if (m_config.consistentFirstList && !m_everSynced) {
        // List(ctx, metav1.ListOptions{FieldSelector: ...}): RV="" and no limit.
        options.rvEmpty = true;
        options.rv = 0;
        options.limit = 0;
    }
    m_requestedRv = options.rvEmpty ? 0 : options.rv;
    ListRequest request;
    request.rv = options.rv;
    request.rvEmpty = options.rvEmpty;
    request.isRelist = m_everSynced || m_listsAgain;
    request.limit = options.limit;
    if (m_everSynced)
        ++m_relists;
    m_ctx.hub.listStarted(m_hubId, m_ctx.now, request);
    m_state = State::Listing;
    m_listRequest = options;
    m_pages.clear();
    m_onContinuePage = false;
    m_nextPage.reset();
    requestPage(options);
}

void ClientReflector::requestPage(const ApiServer::ListOptions& options, bool retry) {
    if (!retry)
        m_rest.start(m_config.profile, RestRetries::Call::ListPage);
    m_pageSent = options;
    const std::uint64_t generation = m_generation;
    server().list(
        options, [this, generation](ApiServer::ListResult r) { onList(generation, std::move(r)); });
}

void ClientReflector::onList(std::uint64_t generation, ApiServer::ListResult result) {
    if (generation != m_generation || m_state != State::Listing)
        return;
    if (!result.ok) {
        const ResourceVersion asked = m_pageSent.rvEmpty ? 0 : m_pageSent.rv;
        if (const auto wait = restRetry(result.status, asked)) {
            m_nextPage = m_pageSent;
            m_nextPageAt = m_ctx.now + *wait;
            m_nextPageIsRetry = true;
            return;
        }
    }
    if (!result.ok && ClientProfile::pagerFallsBackToFullList(result.status, m_onContinuePage)) {
        // The pager's own recovery: one full list at the requested RV, no limit, no continue.
        ApiServer::ListOptions full = m_listRequest;
        full.limit = 0;
        m_pages.clear();
        m_onContinuePage = false;
        m_paginatedResult = m_paginatedResult || (!full.rvEmpty && full.rv == 0);
        requestPage(full);
        return;
    }
    if (!result.ok) {
        m_ctx.hub.listFailed(m_hubId, m_ctx.now,
                             result.status.toObserved(m_lastSyncRv, apiserverName()));
        const ClientProfile& p = m_config.profile;
        if (p.relistsAtOnceWithEmptyRv(result.status, m_rvUnavailable)) {
            m_rvUnavailable = true;
            startList();
            return;
        }
        if (result.status.code == 0)
            switchApiserver();
        backoffThen(Next::List);
        return;
    }
    if (!result.continueToken.isEmpty() || m_onContinuePage) {
        // A paged list: the pages' items under the first page's RV.
        if (!m_onContinuePage)
            m_pagesRv = result.rv;
        m_pages.insert(m_pages.end(), result.items.begin(), result.items.end());
        if (!result.continueToken.isEmpty()) {
            ApiServer::ListOptions next = m_listRequest;
            next.continueToken = result.continueToken;
            next.rvEmpty = true; // the RV is cleared on continue pages (issue #85221)
            next.rv = 0;
            next.exact = false;
            m_onContinuePage = true;
            m_nextPage = std::move(next);
            m_nextPageAt = m_ctx.now;
            m_nextPageIsRetry = false;
            return;
        }
        if (!m_listRequest.rvEmpty && m_listRequest.rv == 0)
            m_paginatedResult = true;
        const std::vector<KeyValuePtr> items = std::move(m_pages);
        m_pages.clear();
        m_onContinuePage = false;
        listSynced(m_pagesRv, items);
        return;
    }
    listSynced(result.rv, result.items);
}

void ClientReflector::listSynced(ResourceVersion rv, const std::vector<KeyValuePtr>& items) {
    m_store.clear();
    for (const auto& o : items)
        m_store.set(o->key, o);
    m_lastSyncRv = rv;
    m_everSynced = true;
    m_rvUnavailable = false;
    m_ctx.hub.listCompleted(m_hubId, m_ctx.now, rv, static_cast<std::int64_t>(items.size()));
    startWatch(false);
}

void ClientReflector::startWatch(bool watchList) {
    ApiServer::WatchOptions options;
    options.resource = m_config.resource;
    options.selectorGroup = m_config.selectorGroup;
    options.allowBookmarks = true;
    // client-go picks timeoutSeconds at random in [300, 600).
    options.timeout = seconds(ClientProfile::watchTimeoutSeconds(m_ctx.rng.uniform()));
    if (m_config.watchOnly) {
        options.rvEmpty = true; // "most recent": from the cache, or from etcd in 1.27.0
        options.rv = 0;
    } else if (watchList) {
        // reflector.rewatchResourceVersion: "" when never synced or the RV is unavailable.
        options.sendInitialEvents = true;
        options.rvEmpty = m_rvUnavailable || m_lastSyncRv == 0;
        options.rv = options.rvEmpty ? 0 : m_lastSyncRv;
    } else {
        options.rv = m_lastSyncRv;
    }
    WatchRequest request;
    request.rv = options.rv;
    request.rvEmpty = options.rvEmpty;
    request.sendInitialEvents = options.sendInitialEvents;
    request.allowBookmarks = true;
    request.selector = m_config.selectorGroup >= 0
                           ? QStringLiteral("spec.nodeName=node-%1").arg(m_config.selectorGroup)
                           : QString();
    request.timeoutSeconds = options.timeout / kUsPerSecond;
    m_watchOptions = options;
    m_watchRequest = request;
    m_watchIsWatchList = watchList;
    m_rest.start(m_config.profile, RestRetries::Call::Watch);
    sendWatch(watchList);
}

void ClientReflector::sendWatch(bool watchList) {
    const ApiServer::WatchOptions& options = m_watchOptions;
    m_requestedRv = options.rvEmpty ? 0 : options.rv;
    ApiStatus error;
    auto w = server().watch(
        m_config.viaInitialEventsProxy ? InitialEventsProxy::forward(options) : options, &error);
    if (!w)
        return watchRequestFailed(error, watchList, options.rv);
    m_watch = std::move(w);
    m_watchAnswered = false;
    m_watchEvents = 0;
    m_awaitingInitialEnd = watchList;
    m_initialStore.clear();
    m_state = State::Watching;
    watchAnswered();
}

std::optional<TimeUs> ClientReflector::restRetry(const ApiStatus& status,
                                                 ResourceVersion requested) {
    const auto wait =
        status.code == 0
            ? m_rest.afterFailure(status.reason == QLatin1String("ConnectionReset")
                                      ? RestRetries::Failure::ConnectionClosed
                                      : RestRetries::Failure::Other)
            : m_rest.afterAnswer(status.code, status.retryAfterSeconds > 0
                                                  ? std::optional(status.retryAfterSeconds)
                                                  : std::nullopt);
    if (!wait)
        return std::nullopt;
    m_ctx.hub.requestRetried(m_hubId, m_ctx.now, status.toObserved(requested, apiserverName()));
    if (status.code == 0)
        switchApiserver(); // sent again on a new connection, behind the load balancer
    return wait;
}

void ClientReflector::watchRequestFailed(const ApiStatus& error, bool watchList,
                                         ResourceVersion rv) {
    m_watch.reset();
    if (const auto wait = restRetry(error, rv)) {
        m_awaitingInitialEnd = false;
        m_state = State::Resending;
        m_resendAt = m_ctx.now + *wait;
        return;
    }
    m_ctx.hub.watchError(m_hubId, m_ctx.now, error.toObserved(rv, apiserverName()));
    if (error.code == 0)
        switchApiserver(); // the next connection lands on another apiserver
    if (watchList) {
        m_awaitingInitialEnd = false;
        return watchListFailed(error);
    }
    backoffThen(m_config.profile.rewatchesAfterWatchRequestError(error, m_everSynced) ? Next::Watch
                                                                                      : Next::List);
}

bool ClientReflector::watchAnswered() {
    if (m_watchAnswered)
        return true;
    if (m_watch->pending)
        return false; // blocked in the apiserver's ready.wait()
    if (m_watch->rejection) {
        const ApiStatus status = *m_watch->rejection;
        watchRequestFailed(status, m_awaitingInitialEnd, m_watchRequest.rv);
        return false;
    }
    m_watchAnswered = true;
    m_ctx.hub.watchOpened(m_hubId, m_ctx.now, m_watchRequest);
    return true;
}

void ClientReflector::watchListFailed(const ApiStatus& status) {
    // reflector.watchList retries some errors itself; the rest end the watch-list, and
    // ListAndWatch either falls back to LIST + WATCH (0.29+: any error; 0.27-0.28: a 422) or
    // returns the error, to back off and try the watch-list again. A fallback is no anomaly.
    const ClientProfile& p = m_config.profile;
    dropWatch();
    m_awaitingInitialEnd = false;
    m_initialStore.clear();
    switch (p.watchListRetries(status)) {
    case ClientProfile::WatchListRetry::AfterBackoff:
        backoffThen(Next::List);
        return;
    case ClientProfile::WatchListRetry::AtOnceWithEmptyRv:
        if (!m_rvUnavailable) {
            m_rvUnavailable = true;
            startWatch(true);
            return;
        }
        backoffThen(Next::List);
        return;
    case ClientProfile::WatchListRetry::No:
        break;
    }
    if (p.watchListFallsBackToList(status)) {
        m_fallbackToList = true;
        startList();
        return;
    }
    backoffThen(Next::List);
}

void ClientReflector::handle(const WatchDelivery& d) {
    auto& hub = m_ctx.hub;
    switch (d.type) {
    case WatchEventType::Error:
        break; // handled by readWatch
    case WatchEventType::Bookmark:
        flushObserved();
        if (d.initialEventsEnd && m_awaitingInitialEnd) {
            m_store.clear();
            for (KeyId k : m_initialStore.keys())
                m_store.set(k, m_initialStore.get(k));
            m_initialStore.clear();
            m_awaitingInitialEnd = false;
            m_everSynced = true;
            m_rvUnavailable = false;
        }
        m_lastSyncRv = d.rv;
        hub.watchProgress(m_hubId, m_ctx.now, d.rv, d.initialEventsEnd);
        break;
    case WatchEventType::Added:
    case WatchEventType::Modified:
    case WatchEventType::Deleted: {
        ObservedEvent& o = m_observed.emplace_back();
        o.type = d.type;
        o.key = d.key;
        o.rv = d.rv;
        o.initial = d.initial || m_awaitingInitialEnd;
        if (m_awaitingInitialEnd) {
            if (d.type == WatchEventType::Deleted)
                m_initialStore.erase(d.key);
            else
                m_initialStore.set(d.key, d.object);
        } else if (d.type == WatchEventType::Deleted) {
            m_store.erase(d.key);
        } else {
            m_store.set(d.key, d.object);
        }
        if (!o.initial)
            m_lastSyncRv = d.rv;
        ++m_events;
        ++m_watchEvents;
        break;
    }
    }
}

void ClientReflector::flushObserved() {
    if (m_observed.empty())
        return;
    m_ctx.hub.watchResponse(m_hubId, m_ctx.now, m_observed);
    m_observed.clear();
}

std::size_t ClientReflector::readSome(std::size_t max) {
    const bool unlimited = m_config.readEventsPerSecond <= 0;
    std::size_t read = 0;
    if (m_state == State::Watching && m_watch && !watchAnswered())
        return 0;
    while (read < max && m_state == State::Watching && m_watch && !m_watch->buffer.empty()) {
        if (!unlimited && m_readCredit < 1.0)
            break;
        WatchDelivery d = std::move(m_watch->buffer.front());
        m_watch->buffer.pop_front();
        // A batch ahead for the object, two for the row: the other informers read the same
        // batch in between, so the memory has time to arrive.
        constexpr std::size_t kFar = 2 * kReadBatch, kNear = kReadBatch;
        if (m_watch->buffer.size() > kFar)
            m_store.prefetch(m_watch->buffer[kFar].key, m_watch->buffer[kNear].key);
        if (!unlimited)
            m_readCredit -= 1.0;
        if (d.type == WatchEventType::Bookmark && m_config.viaBookmarkDroppingProxy)
            continue; // never reaches the client
        if (d.type == WatchEventType::Error) {
            flushObserved();
            const ApiStatus status = m_watch->error.value_or(ApiStatus{});
            m_ctx.hub.watchError(m_hubId, m_ctx.now,
                                 status.toObserved(m_lastSyncRv, apiserverName()));
            m_ctx.hub.watchClosed(m_hubId, m_ctx.now, WatchCloseReason::AfterError);
            if (m_awaitingInitialEnd) {
                watchListFailed(status); // still in reflector.watchList
                break;
            }
            if (m_config.profile.rewatchesAfterWatchErrorEvent(status)) {
                backoffThen(Next::Watch); // a 429: back off, watch again from the last RV
                break;
            }
            if (m_config.profile.watchExpiredRelistsFromEmpty && m_config.profile.isExpired(status))
                m_rvUnavailable = true;
            // A watch error ends ListAndWatch: back off, then relist from the last synced RV
            // (a watch 410 does not set the unavailable flag).
            backoffThen(Next::List);
            break;
        }
        handle(d);
        ++read;
    }
    flushObserved();
    return read;
}

void ClientReflector::endTick() {
    if (m_state != State::Watching || !m_watch || !watchAnswered())
        return;
    if (m_watch->buffer.empty() && m_watch->closed) {
        watchEnded();
        return;
    }
    const bool unlimited = m_config.readEventsPerSecond <= 0;
    const double next =
        m_readCredit + m_config.readEventsPerSecond * static_cast<double>(m_ctx.dt) / kUsPerSecond;
    m_watch->readAllowance = unlimited ? std::size_t(1) << 40 : static_cast<std::size_t>(next);
}

void ClientReflector::watchEnded() {
    const WatchCloseReason reason = m_watch->closeReason;
    const TimeUs lasted = m_ctx.now - m_watch->openedAt;
    const bool watchListUnfinished = m_awaitingInitialEnd; // closed before initial-events-end
    m_ctx.hub.watchClosed(m_hubId, m_ctx.now, reason);
    m_watch.reset();
    if (ClientProfile::isVeryShortWatch(lasted, m_watchEvents)) {
        // "very short watch": treated as an error, ListAndWatch returns and relists (a
        // watch-list's own rule decides whether it falls back to LIST).
        if (watchListUnfinished)
            return watchListFailed(ApiStatus{});
        backoffThen(Next::List);
        return;
    }
    if (!m_everSynced || watchListUnfinished) {
        // Not synced yet: a watch-list opens a new one with a fresh temporary store.
        startList();
        return;
    }
    // A clean close, or a broken stream that delivered events, re-watches at once from the last
    // synced RV, on the same connection target; a dead apiserver answers that request.
    startWatch(false);
}

void ClientReflector::beginTick() {
    if (m_state == State::Listing && m_nextPage && m_ctx.now >= m_nextPageAt) {
        const ApiServer::ListOptions page = std::move(*m_nextPage);
        m_nextPage.reset();
        requestPage(page, std::exchange(m_nextPageIsRetry, false));
    }
    if (m_state == State::Resending && m_ctx.now >= m_resendAt)
        sendWatch(m_watchIsWatchList);
    if (m_state == State::Backoff && m_ctx.now >= m_retryAt) {
        if (m_next == Next::List || !m_everSynced)
            startList();
        else
            startWatch(false);
    }
    if (m_state == State::Watching && m_watch && m_config.readEventsPerSecond > 0)
        m_readCredit = std::min(m_readCredit + m_config.readEventsPerSecond *
                                                   static_cast<double>(m_ctx.dt) / kUsPerSecond,
                                std::max(1.0, m_config.readEventsPerSecond));
}

void ClientReflector::tick() {
    beginTick();
    while (readSome(kReadBatch) > 0) {
    }
    endTick();
}

double ClientReflector::lagSeconds() const {
    if (m_config.selectorGroup >= 0) {
        // A filtered watcher only owes the events that match it: the age of the oldest one
        // waiting for it on the server.
        if (!m_watch)
            return 0;
        for (const auto* q : {&m_watch->buffer, &m_watch->overflow})
            for (const auto& d : *q)
                if (d.commitTime > 0)
                    return static_cast<double>(m_ctx.now - d.commitTime) / kUsPerSecond;
        return 0;
    }
    const TimeUs t = m_ctx.etcd.firstChangeTimeAfter(m_config.resource, m_lastSyncRv);
    return t < 0 ? 0 : static_cast<double>(m_ctx.now - t) / kUsPerSecond;
}

} // namespace ws

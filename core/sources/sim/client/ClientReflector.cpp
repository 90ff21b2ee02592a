#include "ClientReflector.h"

#include "detect/DetectorHub.h"
#include "sources/sim/SimContext.h"
#include "sources/sim/apiserver/InitialEventsProxy.h"
#include "sources/sim/etcd/SimEtcd.h"

namespace ws {

namespace {
Reflector::Options reflectorOptions(const ClientConfig& config) {
    Reflector::Options o;
    o.profile = config.profile;
    o.watchOnly = config.watchOnly;
    o.plainFirstList = config.consistentFirstList;
    return o;
}
} // namespace

ClientReflector::ClientReflector(SimContext& ctx, std::vector<ApiServer*> servers,
                                 ClientConfig config)
    : m_ctx(ctx), m_servers(std::move(servers)), m_config(std::move(config)),
      m_reflector(reflectorOptions(m_config), *this, ctx.rng),
      m_store(m_config.storeTable ? InformerStore(m_config.storeTable) : InformerStore()) {
    m_apiserver = std::clamp(m_config.apiserver, 0, static_cast<int>(m_servers.size()) - 1);
    WatcherInfo info;
    info.id = m_config.id;
    info.resource = ctx.keyspace.resourceName(m_config.resource);
    info.layer = WatchLayer::Apiserver;
    info.history = &ctx.etcd;
    m_hubId = ctx.hub.registerWatcher(info);
    m_reflector.startAt(m_config.startAt);
}

ClientReflector::~ClientReflector() = default;

QString ClientReflector::apiserverName() const {
    return m_servers[static_cast<size_t>(m_apiserver)]->name();
}

void ClientReflector::restart(int apiserver) {
    ++m_generation;
    // A node agent that lists on start relists, as the apiserver sees it, when it restarts.
    m_listsAgain = m_config.consistentFirstList && (m_reflector.everSynced() || m_listsAgain);
    dropWatch();
    m_store.clear();
    m_initialStore.clear();
    m_pages.clear();
    m_nextPage.reset();
    m_apiserver = std::clamp(apiserver, 0, static_cast<int>(m_servers.size()) - 1);
    m_reflector.restart(m_ctx.now);
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

void ClientReflector::abandon() {
    dropWatch();
    m_nextPage.reset();
}

void ClientReflector::listStarted(const ListRequest& list) {
    ListRequest request = list;
    request.isRelist = list.isRelist || m_listsAgain;
    m_ctx.hub.listStarted(m_hubId, m_ctx.now, request);
}

void ClientReflector::sendListPage(const ListPageRequest& page) {
    dropWatch(); // a watch-list that fell back to LIST
    ApiServer::ListOptions options;
    options.resource = m_config.resource;
    options.selectorGroup = m_config.selectorGroup;
    options.protobuf = m_config.profile.protobufWire;
    options.flow = m_config.flow.isEmpty() ? m_config.id : m_config.flow;
    options.rv = page.rv;
    options.rvEmpty = page.rvEmpty;
    options.limit = page.limit;
    if (page.isContinuePage()) {
        // The next page goes out a round trip later: on the next tick.
        options.continueToken = QString::fromStdString(page.continueToken);
        m_nextPage = std::move(options);
        return;
    }
    m_pages.clear(); // a new list, or the pager's full list after a 410 on a continue page
    requestPage(options);
}

void ClientReflector::requestPage(const ApiServer::ListOptions& options) {
    m_pageSent = options;
    const std::uint64_t generation = m_generation;
    server().list(
        options, [this, generation](ApiServer::ListResult r) { onList(generation, std::move(r)); });
}

void ClientReflector::onList(std::uint64_t generation, ApiServer::ListResult result) {
    if (generation != m_generation || !m_reflector.listing())
        return;
    if (!result.ok) {
        const ResourceVersion asked = m_pageSent.rvEmpty ? 0 : m_pageSent.rv;
        if (const auto wait = restRetry(result.status, asked)) {
            m_reflector.resendAfter(*wait, m_ctx.now);
            return;
        }
        if (m_reflector.pagerRecovers(result.status, m_ctx.now))
            return;
        m_ctx.hub.listFailed(m_hubId, m_ctx.now,
                             result.status.toObserved(m_reflector.lastSyncRv(), apiserverName()));
        if (result.status.code == 0)
            switchApiserver();
        m_reflector.listFailed(result.status, m_ctx.now);
        return;
    }
    if (m_pages.empty())
        m_pages = std::move(result.items);
    else
        m_pages.insert(m_pages.end(), result.items.begin(), result.items.end());
    m_reflector.pageReceived(result.rv, result.continueToken.toStdString(), m_ctx.now);
}

void ClientReflector::listed(ResourceVersion rv) {
    m_store.clear();
    for (const auto& o : m_pages)
        m_store.set(o->key, o);
    const auto items = static_cast<std::int64_t>(m_pages.size());
    m_pages.clear();
    m_ctx.hub.listCompleted(m_hubId, m_ctx.now, rv, items);
}

void ClientReflector::sendWatch(const WatchRequest& watch) {
    dropWatch();
    ApiServer::WatchOptions options;
    options.resource = m_config.resource;
    options.selectorGroup = m_config.selectorGroup;
    options.allowBookmarks = watch.allowBookmarks;
    options.timeout = seconds(static_cast<double>(watch.timeoutSeconds));
    options.sendInitialEvents = watch.sendInitialEvents;
    options.rvEmpty = watch.rvEmpty;
    options.rv = watch.rv;
    m_watchRequest = watch;
    m_watchRequest.selector =
        m_config.selectorGroup >= 0
            ? QStringLiteral("spec.nodeName=node-%1").arg(m_config.selectorGroup)
            : QString();
    m_watchOptions = options;
    sendWatchRequest();
}

void ClientReflector::resend() {
    if (m_reflector.listing())
        requestPage(m_pageSent);
    else
        sendWatchRequest();
}

void ClientReflector::sendWatchRequest() {
    ApiStatus error;
    auto w =
        server().watch(m_config.viaInitialEventsProxy ? InitialEventsProxy::forward(m_watchOptions)
                                                      : m_watchOptions,
                       &error);
    m_initialStore.clear();
    if (!w)
        return watchRequestFailed(error);
    m_watch = std::move(w);
    m_watchAnswered = false;
    watchAnswered();
}

std::optional<TimeUs> ClientReflector::restRetry(const ApiStatus& status,
                                                 ResourceVersion requested) {
    const auto wait =
        status.code == 0
            ? m_reflector.retryAfterFailure(status.reason == QLatin1String("ConnectionReset")
                                                ? RestRetries::Failure::ConnectionClosed
                                                : RestRetries::Failure::Other)
            : m_reflector.retryAfterAnswer(status.code,
                                           status.retryAfterSeconds > 0
                                               ? std::optional(status.retryAfterSeconds)
                                               : std::nullopt);
    if (!wait)
        return std::nullopt;
    m_ctx.hub.requestRetried(m_hubId, m_ctx.now, status.toObserved(requested, apiserverName()));
    if (status.code == 0)
        switchApiserver(); // sent again on a new connection, behind the load balancer
    return wait;
}

void ClientReflector::watchRequestFailed(const ApiStatus& error) {
    m_watch.reset();
    if (const auto wait = restRetry(error, m_watchRequest.rv)) {
        m_reflector.resendAfter(*wait, m_ctx.now);
        return;
    }
    m_ctx.hub.watchError(m_hubId, m_ctx.now, error.toObserved(m_watchRequest.rv, apiserverName()));
    if (error.code == 0)
        switchApiserver(); // the next connection lands on another apiserver
    m_reflector.watchRequestFailed(error, m_ctx.now);
}

bool ClientReflector::watchAnswered() {
    if (m_watchAnswered)
        return true;
    if (m_watch->pending)
        return false; // blocked in the apiserver's ready.wait()
    if (m_watch->rejection) {
        const ApiStatus status = *m_watch->rejection;
        watchRequestFailed(status);
        return false;
    }
    m_watchAnswered = true;
    m_ctx.hub.watchOpened(m_hubId, m_ctx.now, m_watchRequest);
    return true;
}

void ClientReflector::handle(const WatchDelivery& d) {
    auto& hub = m_ctx.hub;
    switch (d.type) {
    case WatchEventType::Error:
        break; // handled by readSome
    case WatchEventType::Bookmark:
        flushObserved();
        if (m_reflector.bookmark(d.rv, d.initialEventsEnd)) {
            // The watch-list's initial events are the store now.
            m_store.clear();
            for (KeyId k : m_initialStore.keys())
                m_store.set(k, m_initialStore.get(k));
            m_initialStore.clear();
        }
        hub.watchProgress(m_hubId, m_ctx.now, d.rv, d.initialEventsEnd);
        break;
    case WatchEventType::Added:
    case WatchEventType::Modified:
    case WatchEventType::Deleted: {
        const bool awaiting = m_reflector.awaitingInitialEnd();
        ObservedEvent& o = m_observed.emplace_back();
        o.type = d.type;
        o.key = d.key;
        o.rv = d.rv;
        o.initial = d.initial || awaiting;
        if (awaiting) {
            if (d.type == WatchEventType::Deleted)
                m_initialStore.erase(d.key);
            else
                m_initialStore.set(d.key, d.object);
        } else if (d.type == WatchEventType::Deleted) {
            m_store.erase(d.key);
        } else {
            m_store.set(d.key, d.object);
        }
        m_reflector.event(d.rv, o.initial);
        ++m_events;
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
    if (m_reflector.watching() && m_watch && !watchAnswered())
        return 0;
    while (read < max && m_reflector.watching() && m_watch && !m_watch->buffer.empty()) {
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
                                 status.toObserved(m_reflector.lastSyncRv(), apiserverName()));
            m_ctx.hub.watchClosed(m_hubId, m_ctx.now, WatchCloseReason::AfterError);
            dropWatch();
            m_initialStore.clear();
            m_reflector.watchErrorEvent(status, m_ctx.now);
            break;
        }
        handle(d);
        ++read;
    }
    flushObserved();
    return read;
}

void ClientReflector::endTick() {
    if (!m_reflector.watching() || !m_watch || !watchAnswered())
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
    m_ctx.hub.watchClosed(m_hubId, m_ctx.now, m_watch->closeReason);
    m_watch.reset();
    m_reflector.watchEnded(m_ctx.now);
}

void ClientReflector::beginTick() {
    if (m_nextPage && m_reflector.listing()) {
        const ApiServer::ListOptions page = std::move(*m_nextPage);
        m_nextPage.reset();
        requestPage(page);
    }
    m_reflector.tick(m_ctx.now);
    if (m_reflector.watching() && m_watch && m_config.readEventsPerSecond > 0)
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
    const TimeUs t = m_ctx.etcd.firstChangeTimeAfter(m_config.resource, m_reflector.lastSyncRv());
    return t < 0 ? 0 : static_cast<double>(m_ctx.now - t) / kUsPerSecond;
}

} // namespace ws

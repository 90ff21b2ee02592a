#pragma once

#include "InformerStoreTable.h"
#include "kube/Backoff.h"
#include "kube/ClientProfile.h"
#include "kube/ObjectStore.h"
#include "kube/RestRetries.h"
#include "model/Observation.h"
#include "sources/sim/apiserver/ApiServer.h"

#include <memory>
#include <optional>
#include <vector>

namespace ws {

struct SimContext;

struct ClientConfig {
    QString id;
    // Who it authenticates as: API Priority and Fairness's flow (the instances of one client
    // group share a service account). Empty: its id.
    QString flow;
    int resource = -1;
    ClientProfile profile;
    int selectorGroup = -1;         // -1: no selector
    double readEventsPerSecond = 0; // how fast it reads its watch (0: as fast as they come)
    int apiserver = 0;              // the apiserver it talks to first
    TimeUs startAt = 0;
    bool watchOnly = false; // watches with RV="" and never lists (kubectl get -w, falco)
    // Lists with a plain List() - RV="", no limit, never a watch-list - when it starts or
    // restarts, then watches from that list's RV.
    bool consistentFirstList = false;
    // Its watches go through a proxy / aggregated API server that accepts sendInitialEvents
    // but never sends the initial-events-end bookmark (InitialEventsProxy.h).
    bool viaInitialEventsProxy = false;
    // ... or through one that drops every BOOKMARK event (Teleport's kube agent, #64188).
    bool viaBookmarkDroppingProxy = false;
    InformerStoreTable* storeTable = nullptr; // shared by the resource's informers; null: own
};

// An informer's reflector with client-go semantics: ListAndWatch, the relist RV choice, backoff,
// bookmarks, watch-list, and an indexer store; it reports everything it sees to the detectors.
class ClientReflector {
public:
    ClientReflector(SimContext& ctx, std::vector<ApiServer*> servers, ClientConfig config);
    ~ClientReflector();

    void tick(); // beginTick(), readSome() until nothing is left, endTick()
    // The same in phases, so that a simulation can let many informers read round-robin: a small
    // batch of events applied by all of them in turn stays in cache.
    // The events of a batch reach the detectors as one span (as a client decoding a stream's
    // buffered bytes sees them): one call per batch instead of one per event.
    static constexpr std::size_t kReadBatch = 16;
    void beginTick();
    std::size_t readSome(std::size_t max); // how many were read; 0: nothing more this tick
    void endTick();
    void restart(int apiserver); // the client process restarts: it forgets everything
    void setReadRate(double eventsPerSecond) { m_config.readEventsPerSecond = eventsPerSecond; }

    const QString& id() const { return m_config.id; }
    const ClientConfig& config() const { return m_config; }
    WatcherId hubId() const { return m_hubId; }
    ResourceVersion resourceVersion() const { return m_lastSyncRv; }
    // The RV its last list or watch asked for (0: "" or "0").
    ResourceVersion requestedRv() const { return m_requestedRv; }
    const InformerStore& store() const { return m_store; }
    QString stateName() const;
    QString apiserverName() const;
    std::int64_t eventsReceived() const { return m_events; }
    int relists() const { return m_relists; }
    double lagSeconds() const;

private:
    // Resending: the REST layer sends the watch request again after a Retry-After.
    enum class State { Idle, Listing, Watching, Backoff, Resending };
    bool m_listsAgain = false; // consistentFirstList: restarted after having synced
    ResourceVersion m_requestedRv = 0;
    enum class Next { List, Watch };

    void startList();
    // retry: the REST layer sends the page again (its retries go on).
    void requestPage(const ApiServer::ListOptions& options, bool retry = false);
    void onList(std::uint64_t generation, ApiServer::ListResult result);
    void listSynced(ResourceVersion rv, const std::vector<KeyValuePtr>& items);
    void startWatch(bool watchList);
    // The watch request as sent (again, by the REST layer, after a retry).
    void sendWatch(bool watchList);
    // rest.Request's retry of the request in flight after this answer: the wait before it is sent
    // again, reported to the detectors; nullopt: the reflector gets the answer.
    std::optional<TimeUs> restRetry(const ApiStatus& status, ResourceVersion requested);
    void watchListFailed(const ApiStatus& status);
    void handle(const WatchDelivery& d);
    void flushObserved();
    void watchEnded();
    void dropWatch();
    // A watch request still waiting for a not-ready cache has no response yet: false until it
    // has one; then reports it opened (or handles its 503) once.
    bool watchAnswered();
    void watchRequestFailed(const ApiStatus& error, bool watchList, ResourceVersion rv);
    void backoffThen(Next next);
    void switchApiserver();
    ApiServer& server() { return *m_servers[static_cast<size_t>(m_apiserver)]; }

    SimContext& m_ctx;
    std::vector<ApiServer*> m_servers;
    ClientConfig m_config;
    WatcherId m_hubId = -1;
    int m_apiserver = 0;
    State m_state = State::Idle;
    Next m_next = Next::List;
    TimeUs m_retryAt = 0;
    Backoff m_backoff;        // after ListAndWatch returned (ClientProfile::relistBackoff)
    Backoff m_rewatchBackoff; // before a re-watch after a refused watch request
    std::uint64_t m_generation = 0;

    InformerStore m_store;
    ObjectStore m_initialStore; // watch-list: objects until the initial-events-end bookmark
    bool m_awaitingInitialEnd = false;
    ResourceVersion m_lastSyncRv = 0;
    bool m_everSynced = false;
    bool m_rvUnavailable = false;  // the last list got Expired / TooLarge: relist with RV=""
    bool m_fallbackToList = false; // this ListAndWatch's watch-list failed: LIST instead
    // The pager (tools/pager): the first page's request, the pages so far and their RV.
    ApiServer::ListOptions m_listRequest;
    std::vector<KeyValuePtr> m_pages;
    ResourceVersion m_pagesRv = 0;
    bool m_onContinuePage = false;
    std::optional<ApiServer::ListOptions> m_nextPage; // asked for on the next tick (a round trip)
    TimeUs m_nextPageAt = 0;                          // ... or after a Retry-After
    bool m_nextPageIsRetry = false;
    ApiServer::ListOptions m_pageSent;      // the page in flight
    RestRetries m_rest;                     // rest.Request's retries of the request in flight
    TimeUs m_resendAt = 0;                  // State::Resending: the watch goes out again then
    ApiServer::WatchOptions m_watchOptions; // the watch request in flight
    bool m_paginatedResult = false; // an RV="0" list came back paged (reflector.paginatedResult)

    std::shared_ptr<ServerWatch> m_watch;
    bool m_watchAnswered = true;           // the current watch request got its response headers
    WatchRequest m_watchRequest;           // what the current watch asked for
    bool m_watchIsWatchList = false;       // the watch request in flight has sendInitialEvents
    std::vector<ObservedEvent> m_observed; // read, not yet reported to the detectors
    std::int64_t m_watchEvents = 0;
    double m_readCredit = 0;
    std::int64_t m_events = 0;
    int m_relists = 0;
};

} // namespace ws

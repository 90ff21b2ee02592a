#pragma once

#include "InformerStoreTable.h"
#include "kube/ClientProfile.h"
#include "kube/ObjectStore.h"
#include "kube/Reflector.h"
#include "kube/ReflectorDriver.h"
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

// An informer with client-go semantics against simulated apiservers: the shared Reflector decides
// what it asks for (ListAndWatch, the relist RV, backoff, watch-list, rest.Request's retries);
// this drives it with requests to the apiservers, keeps the indexer store, reads its watch at its
// own pace and reports everything it sees to the detectors.
class ClientReflector : private ReflectorDriver {
public:
    ClientReflector(SimContext& ctx, std::vector<ApiServer*> servers, ClientConfig config);
    ~ClientReflector() override;

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
    ResourceVersion resourceVersion() const { return m_reflector.lastSyncRv(); }
    // The RV its last list or watch asked for (0: "" or "0").
    ResourceVersion requestedRv() const { return m_reflector.requestedRv(); }
    const InformerStore& store() const { return m_store; }
    QString stateName() const { return m_reflector.stateName(); }
    QString apiserverName() const;
    std::int64_t eventsReceived() const { return m_events; }
    int relists() const { return m_reflector.relists(); }
    double lagSeconds() const;

private:
    // ReflectorDriver
    void listStarted(const ListRequest& list) override;
    void sendListPage(const ListPageRequest& page) override;
    void listed(ResourceVersion rv) override;
    void sendWatch(const WatchRequest& watch) override;
    void resend() override;
    void abandon() override;

    void requestPage(const ApiServer::ListOptions& options);
    void onList(std::uint64_t generation, ApiServer::ListResult result);
    // The watch request in m_watchOptions, sent (again, by the REST layer, after a retry).
    void sendWatchRequest();
    // rest.Request's retry of the request in flight after this answer: the wait before it is sent
    // again, reported to the detectors; nullopt: the reflector gets the answer.
    std::optional<TimeUs> restRetry(const ApiStatus& status, ResourceVersion requested);
    void handle(const WatchDelivery& d);
    void flushObserved();
    void watchEnded();
    void dropWatch();
    // A watch request still waiting for a not-ready cache has no response yet: false until it
    // has one; then reports it opened (or handles its refusal) once.
    bool watchAnswered();
    void watchRequestFailed(const ApiStatus& error);
    void switchApiserver();
    ApiServer& server() { return *m_servers[static_cast<size_t>(m_apiserver)]; }

    SimContext& m_ctx;
    std::vector<ApiServer*> m_servers;
    ClientConfig m_config;
    Reflector m_reflector;
    WatcherId m_hubId = -1;
    int m_apiserver = 0;
    std::uint64_t m_generation = 0;
    bool m_listsAgain = false; // consistentFirstList: restarted after having synced

    InformerStore m_store;
    ObjectStore m_initialStore; // watch-list: objects until the initial-events-end bookmark
    // The pager's pages so far (the first page's RV is the Reflector's).
    std::vector<KeyValuePtr> m_pages;
    std::optional<ApiServer::ListOptions> m_nextPage; // a continue page: asked for on the next tick
    ApiServer::ListOptions m_pageSent;                // the page in flight
    ApiServer::WatchOptions m_watchOptions;           // the watch request in flight

    std::shared_ptr<ServerWatch> m_watch;
    bool m_watchAnswered = true;           // the current watch request got its response headers
    WatchRequest m_watchRequest;           // what the current watch asked for
    std::vector<ObservedEvent> m_observed; // read, not yet reported to the detectors
    double m_readCredit = 0;
    std::int64_t m_events = 0;
};

} // namespace ws

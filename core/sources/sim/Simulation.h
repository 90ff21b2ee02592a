#pragma once

#include "SimContext.h"
#include "detect/DetectorHub.h"
#include "engine/EngineUpdate.h"
#include "engine/Pipeline.h"
#include "scenario/Scenario.h"
#include "sources/sim/etcd/SimEtcd.h"
#include "sources/sim/etcd/SimKeyspace.h"
#include "timeline/TimelineStore.h"
#include "util/SeededRandom.h"

#include <memory>
#include <vector>

namespace ws {

class ApiServer;
class ClientReflector;
class ObjectWriter;
class ScriptedWriter;
class InformerStoreTable;

// A whole simulated cluster driven by a scenario on a virtual clock: etcd, the apiservers with
// their caches, the informers, the workload and the faults. step() advances one tick; the same
// scenario and seed always give the same run.
class Simulation {
public:
    static constexpr TimeUs kTick = milliseconds(10);
    static constexpr TimeUs kSampleInterval = milliseconds(100);
    static constexpr TimeUs kConsistencyInterval = seconds(5);

    // Throws nothing; a scenario that cannot be built returns an error from create(). The
    // simulation feeds `pipeline` (its keys, detectors and timeline), which must outlive it.
    // `restore`, when set, fills etcd instead of the workload's initial objects (its resources
    // are in the keyspace by then); the workload then goes on from what it wrote.
    using Restore = std::function<bool(SimKeyspace&, SimEtcd&, QString* error)>;
    static std::unique_ptr<Simulation> create(const Scenario& scenario, std::uint64_t seed,
                                              Pipeline& pipeline, QString* error,
                                              const Restore& restore = {});
    ~Simulation();

    void step();
    bool finished() const { return m_ctx.now >= m_duration; }
    TimeUs now() const { return m_ctx.now; }
    TimeUs duration() const { return m_duration; }
    void setDuration(TimeUs duration) { m_duration = duration; }

    DetectorHub& hub() { return m_hub; }
    TimelineStore& timeline() { return m_timeline; }
    SimEtcd& etcd() { return m_etcd; }
    SimKeyspace& keyspace() { return m_keyspace; }
    const Scenario& scenario() const { return m_scenario; }
    std::int64_t totalWrites() const;
    std::int64_t watcherDeliveries() const;

    QVector<CacheSnapshot> cacheSnapshots() const;
    QVector<WatcherSnapshot> watcherSnapshots() const;
    QVector<ResourceSnapshot> resourceSnapshots() const; // the scenario's resources' writes
    const std::vector<std::unique_ptr<ApiServer>>& apiservers() const { return m_apiservers; }
    const std::vector<std::unique_ptr<ClientReflector>>& clients() const { return m_clients; }

private:
    Simulation(const Scenario& scenario, std::uint64_t seed, Pipeline& pipeline);
    bool build(QString* error, const Restore& restore);
    void applyFaults();
    void sample();
    void sampleListPressure(); // scenarios with server.memory
    void checkConsistency();

    Scenario m_scenario;
    TimeUs m_duration;
    SeededRandom m_rng;
    SimKeyspace m_keyspace;
    SimEtcd m_etcd;
    DetectorHub& m_hub;
    TimelineStore& m_timeline;
    SimContext m_ctx;
    std::vector<std::unique_ptr<ObjectWriter>> m_writers;
    std::unique_ptr<ScriptedWriter> m_scripted; // a what-if's recorded workload instead
    std::vector<std::unique_ptr<ApiServer>> m_apiservers;
    std::vector<std::unique_ptr<InformerStoreTable>> m_storeTables; // per resource
    std::vector<std::unique_ptr<ClientReflector>> m_clients;
    std::vector<int> m_clientSpecIndex;
    std::vector<ClientReflector*> m_reading; // informers still reading in this tick // per client:
                                             // index into scenario.clients

    struct PendingAction {
        TimeUs at;
        std::function<void()> run;
    };
    std::vector<PendingAction> m_actions; // fault steps, in time order
    std::size_t m_nextAction = 0;

    TimeUs m_nextSample = 0;
    TimeUs m_nextConsistency = 0;
    TimeUs m_nextCompaction = 0;
    ResourceVersion m_compactTarget = 0;

    struct WatcherSeries {
        SeriesId rv, lag, lagSeconds;
    };
    struct ResourceSeries {
        SeriesId head;
        std::vector<std::array<SeriesId, 4>> perApiserver; // cache_rv, used, capacity, oldest
        // requests_list, requests_watch, list_inflight, list_bytes_inflight (server.memory)
        std::array<SeriesId, 4> lists{};
        std::vector<SeriesId> memory; // apiserver_memory_bytes per apiserver
    };
    std::vector<ResourceSeries> m_resourceSeries;
    std::vector<WatcherSeries> m_cacherSeries; // apiserver-major, resource-minor
    std::vector<WatcherSeries> m_clientSeries;
    std::vector<SeriesId> m_requestedRvSeries; // per client, with server.memory
    std::vector<ResourceVersion> m_lastRequestedRv;
    std::vector<StoreEntry> m_entries;
    std::vector<int> m_oomKillsSeen;           // per apiserver
    std::vector<ApiserverMemory> m_lastMemory; // per apiserver, the previous sample
};

} // namespace ws

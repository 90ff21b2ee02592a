#pragma once

#include "ServeOptions.h"
#include "StoreJournal.h"
#include "engine/Pipeline.h"
#include "kube/ApiStatus.h"
#include "kube/ResourceCatalog.h"
#include "scenario/Scenario.h"
#include "sources/sim/Simulation.h"
#include "sources/sim/apiserver/ApiServer.h"

#include <QString>
#include <memory>
#include <optional>

namespace ws {

// The simulated cluster behind `serve`: a scenario's Simulation run in real time, one of its
// apiservers exposed to HTTP clients, and the writes those clients make (create/update/delete),
// which go through the same simulated etcd and watch caches as the scenario's own. Not
// thread-safe: lives on the serve thread with the HTTP sessions.
class ServedCluster {
public:
    static std::unique_ptr<ServedCluster> create(const ServeOptions& options, QString* error);
    ~ServedCluster();

    // Advances virtual time towards `wallElapsed` × speed, a few simulation ticks at most;
    // after each tick `afterTick` runs (the watch streams take what the tick dispatched). True
    // while still behind: the caller lets the sockets write, then calls again at once.
    bool advanceTo(TimeUs wallElapsed, const std::function<void()>& afterTick);
    TimeUs now() const { return m_sim->now(); }
    bool finished() const { return m_finished; }
    // Set when the store could not be kept in --state-dir any more: serve stops with it.
    const QString& failure() const { return m_failure; }
    // A line to show at start (a journal line dropped on restore), else empty.
    const QString& warning() const { return m_warning; }
    // Revisions read back from --state-dir at start (0: a new store).
    std::int64_t restoredRevisions() const {
        return m_journal ? m_journal->restoredRevisions() : 0;
    }

    const Scenario& scenario() const { return m_scenario; }
    const ServerProfile& profile() const { return server().profile(); }
    ApiServer& server() const;
    SimEtcd& etcd() { return m_sim->etcd(); }
    SimKeyspace& keyspace() { return m_sim->keyspace(); }
    Simulation& simulation() { return *m_sim; }
    Pipeline& pipeline() { return m_pipeline; }

    // The served resources, in scenario order, with what discovery says about them.
    const std::vector<ResourceInfo>& resources() const { return m_resources; }
    // Index into resources() (== the simulation's resource index), -1 if not served.
    int resourceIndex(const QString& plural, const QString& group) const;

    struct WriteResult {
        int httpStatus = 0; // 200, 201, or the Status code
        ApiStatus status;   // when it failed
        KeyId key = kNoKey;
        ResourceVersion rv = 0;
        KeyValuePtr object;
    };
    // body: the client's JSON object. create: POST; update: PUT (resourceVersion precondition).
    WriteResult create(int resource, const QString& ns, const QByteArray& body);
    WriteResult update(int resource, const QString& ns, const QString& name,
                       const QByteArray& body);
    WriteResult remove(int resource, const QString& ns, const QString& name);

    static ApiStatus notFound(const ResourceInfo& info, const QString& name);

private:
    ServedCluster() = default;
    WriteResult write(int resource, const QString& ns, const QString& name, const QByteArray& body,
                      bool create);
    // Keeps what the store wrote in --state-dir before anyone is told about it.
    void keep();

    Scenario m_scenario;
    Pipeline m_pipeline;
    std::unique_ptr<Simulation> m_sim;
    std::vector<ResourceInfo> m_resources;
    int m_apiserver = 0;
    double m_speed = 1.0;
    std::optional<TimeUs> m_stopAt;
    bool m_finished = false;
    std::uint64_t m_nextUid = 1;
    std::unique_ptr<StoreJournal> m_journal;
    QString m_failure;
    QString m_warning;
};

} // namespace ws

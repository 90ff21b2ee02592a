#pragma once

#include "EngineUpdate.h"
#include "SessionOutputs.h"
#include "SessionRecorder.h"

#include <QDateTime>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace ws {

class Simulation;

struct SimulationOptions {
    QString scenario = QStringLiteral("healthy"); // built-in name or path to a .yaml file
    double speed = 1.0;                           // virtual seconds per wall second; 0: max
    std::optional<std::uint64_t> seed;            // default: the scenario's
    std::optional<TimeUs> duration;               // default: the scenario's
    SessionOutputs outputs;
};

// Runs a simulation on the calling thread, paced to the requested speed, streaming outputs and
// handing batched EngineUpdates to `publish` at most every publishInterval of wall time. The
// GUI's SimulationSession runs it on a worker thread; watchscope-cli record runs it directly.
class SimulationRunner {
public:
    SimulationRunner();
    ~SimulationRunner();

    bool prepare(const SimulationOptions& options, QString* error);
    using Publish = std::function<void(EngineUpdate&&)>;
    bool run(const std::atomic<bool>& stop, const Publish& publish, QString* error,
             TimeUs publishIntervalWall = milliseconds(33));

    Simulation& simulation() { return *m_sim; }
    const AnomalyList& anomalies() const { return m_all; }
    QString description() const;
    QStringList resources() const;

private:
    EngineUpdate makeUpdate(bool finished, double eventsPerSecond);

    SimulationOptions m_options;
    std::unique_ptr<Simulation> m_sim;
    SessionRecorder m_recorder;
    QDateTime m_wallStart;
    AnomalyList m_all;
    AnomalyList m_pending;
    struct PendingSeries {
        QVector<QPointF> points;
    };
    std::vector<PendingSeries> m_pendingSeries; // by SeriesId
};

} // namespace ws

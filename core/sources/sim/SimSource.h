#pragma once

#include "engine/ReplayControl.h"
#include "engine/Source.h"
#include "engine/SourceSpec.h"
#include "scenario/Scenario.h"

#include <memory>
#include <optional>

namespace ws {

class Simulation;

// The simulator as a source: a scenario's simulated cluster feeding the pipeline, paced so that
// virtual time runs `speed` times as fast as the wall clock (or as fast as the machine can).
class SimSource : public Source {
public:
    SimSource(ScenarioSourceSpec spec, std::optional<TimeUs> duration);
    // A scenario held in memory (an edited profile, a benchmark's cluster); spec.scenario is
    // not read.
    SimSource(Scenario scenario, ScenarioSourceSpec spec, std::optional<TimeUs> duration);
    ~SimSource() override;

    QString description() const override;
    QString explanation() const override;
    QString kind() const override { return QStringLiteral("simulator"); }
    // The scenario's YAML and seed: the simulator is deterministic, so they are the capture.
    QJsonObject replayInfo() const override;
    QDateTime wallStart() const override { return m_wallStart; }
    // A replay of a capture starts when the capture did.
    void setWallStart(const QDateTime& start) { m_wallStart = start; }
    // A replay of a capture is paced (speed, pause, seek) by `control` instead of the spec's
    // speed. Before open().
    void setReplayControl(std::shared_ptr<ReplayControl> control) {
        m_pacer.setControl(std::move(control));
    }
    bool prepare(QString* error) override; // loads the scenario
    bool open(Pipeline& pipeline, QString* error) override;
    TimeUs poll(Pipeline& pipeline) override;
    bool finished() const override;
    void close(Pipeline& pipeline) override;
    QStringList resources() const override;
    TimeUs now() const override;
    qint64 totalEvents() const override;
    void snapshot(QVector<CacheSnapshot>& caches,
                  QVector<WatcherSnapshot>& watchers) const override;
    // The scenario's kube-apiserver, etcd and clients' client-go, and the gates it sets. Known
    // from prepare() on; the scenario does not change after it.
    VersionContext versions() const override;

    // After open(); for tests and benchmarks.
    Simulation& simulation() { return *m_sim; }
    const Scenario& scenario() const { return *m_scenario; }
    std::uint64_t seed() const;

private:
    ScenarioSourceSpec m_spec;
    std::optional<TimeUs> m_duration;
    std::optional<Scenario> m_scenario;
    std::unique_ptr<Simulation> m_sim;
    ReplayPacer m_pacer; // virtual time against the wall clock, from the first poll
    QDateTime m_wallStart;
};

} // namespace ws

#pragma once

#include "engine/Session.h"
#include "sources/sim/SimSource.h"
#include "sources/sim/Simulation.h"

#include <QtGlobal>
#include <memory>
#include <optional>

namespace ws::test {

// A scenario run to its end at --speed max through the one pipeline and session loop the
// programs use; the session stays for inspection.
struct ScenarioRun {
    std::unique_ptr<Session> session;
    AnomalyList anomalies;
    Simulation& simulation() { return static_cast<SimSource*>(session->source(0))->simulation(); }
};

inline ScenarioRun runScenarioToEnd(const QString& scenario, std::optional<std::uint64_t> seed,
                                    std::optional<TimeUs> duration = {},
                                    PipelineOptions options = {}) {
    ScenarioSourceSpec spec;
    spec.scenario = scenario;
    spec.speed = 0;
    spec.seed = seed;
    std::vector<std::unique_ptr<Source>> sources;
    sources.push_back(std::make_unique<SimSource>(spec, duration));
    ScenarioRun run;
    run.session = std::make_unique<Session>(std::move(sources), std::move(options));
    QString error;
    if (!run.session->runHere({}, &error))
        qFatal("%s", qPrintable(error));
    run.anomalies = run.session->anomalies();
    return run;
}

} // namespace ws::test

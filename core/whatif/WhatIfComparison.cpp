#include "WhatIfComparison.h"

#include "engine/Session.h"
#include "model/AnomalyKind.h"
#include "sources/SourceFactory.h"

#include <array>
#include <map>

namespace ws {

QString WhatIfKindCount::change() const {
    if (whatIf == 0 && recorded > 0)
        return QStringLiteral("gone");
    if (recorded == 0 && whatIf > 0)
        return QStringLiteral("new");
    return {};
}

namespace {

// What one run leaves: the anomalies memory kept, and the count of each kind over all of them.
struct WhatIfRun {
    AnomalyList anomalies;
    std::array<qint64, kAnomalyKindCount> counts{};
    qint64 notKept = 0;
};

std::unique_ptr<Session> prepare(const SourceSpec& spec, const SessionOutputs& outputs,
                                 QString* error) {
    return Session::prepared(SourceFactory::create(spec, error), spec, outputs, error);
}

std::optional<WhatIfRun> runToEnd(Session& session, int index,
                                  const WhatIfComparison::Progress& progress,
                                  const std::atomic<bool>* cancel, QString* error) {
    Session* raw = &session;
    const bool ok = session.runHere(
        [&](const EngineUpdate& u) {
            if (cancel && cancel->load()) {
                // The loop may still deliver an update or two (the final flush) before it
                // ends; once cancelled, nobody wants more progress.
                raw->stop();
                return;
            }
            if (progress)
                progress(index, u.now);
        },
        error);
    if (!ok)
        return std::nullopt;
    if (cancel && cancel->load()) {
        *error = QStringLiteral("cancelled");
        return std::nullopt;
    }
    WhatIfRun run;
    run.anomalies = session.anomalies();
    const std::shared_ptr<const AnomalyStore> store = session.anomalyStore();
    run.notKept = store->evicted();
    for (const AnomalyKind kind : allAnomalyKinds())
        run.counts[static_cast<std::size_t>(kind)] = store->count(kind);
    return run;
}

} // namespace

std::optional<WhatIfResult> WhatIfComparison::run(const SourceSpec& spec,
                                                  const SessionOutputs& whatIfOutputs,
                                                  const Progress& progress,
                                                  const std::atomic<bool>* cancel, QString* error) {
    if (spec.kind != SourceSpec::Kind::Capture || !spec.whatIf.any()) {
        *error = QStringLiteral("what if what? (give a server version, a client-go version or "
                                "feature gates)");
        return std::nullopt;
    }
    SourceSpec recordedSpec = spec;
    recordedSpec.whatIf = {};
    recordedSpec.replayControl = nullptr;
    recordedSpec.captureSpeed = 0;
    SourceSpec whatIfSpec = spec;
    whatIfSpec.replayControl = nullptr; // both run flat out, never paced
    whatIfSpec.captureSpeed = 0;
    WhatIfResult result;
    result.whatIfLabel = spec.whatIf.describe();
    // Both are prepared before either runs: a version the profiles do not model, a gate or a
    // capture what-if cannot replay is said at once, not after the recorded run.
    auto recordedSession = prepare(recordedSpec, {}, error);
    if (!recordedSession)
        return std::nullopt;
    auto whatIfSession = prepare(whatIfSpec, whatIfOutputs, error);
    if (!whatIfSession)
        return std::nullopt;
    auto recorded = runToEnd(*recordedSession, 0, progress, cancel, error);
    recordedSession.reset();
    if (!recorded)
        return std::nullopt;
    auto whatIf = runToEnd(*whatIfSession, 1, progress, cancel, error);
    if (!whatIf)
        return std::nullopt;
    result.recorded = std::move(recorded->anomalies);
    result.whatIf = std::move(whatIf->anomalies);
    result.recordedNotKept = recorded->notKept;
    result.whatIfNotKept = whatIf->notKept;
    // Counted over every anomaly, those memory let go included.
    std::map<QString, WhatIfKindCount> kinds;
    for (const AnomalyKind kind : allAnomalyKinds()) {
        const auto i = static_cast<std::size_t>(kind);
        if (recorded->counts[i] + whatIf->counts[i] == 0)
            continue;
        kinds[kindName(kind)].recorded = recorded->counts[i];
        kinds[kindName(kind)].whatIf = whatIf->counts[i];
    }
    for (auto& [name, count] : kinds) {
        count.kind = name;
        result.kinds.push_back(count);
    }
    return result;
}

} // namespace ws

#include "WhatIfComparison.h"

#include "engine/Session.h"
#include "model/AnomalyKind.h"
#include "sources/SourceFactory.h"

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

std::optional<AnomalyList> runToEnd(const SourceSpec& spec, const SessionOutputs& outputs,
                                    int index, const WhatIfComparison::Progress& progress,
                                    const std::atomic<bool>* cancel, QString* error) {
    auto session = Session::prepared(SourceFactory::create(spec, error), spec, outputs, error);
    if (!session)
        return std::nullopt;
    Session* raw = session.get();
    const bool ok = session->runHere(
        [&](const EngineUpdate& u) {
            if (cancel && cancel->load())
                raw->stop(); // the loop ends after this update
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
    return session->anomalies();
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
    auto recorded = runToEnd(recordedSpec, {}, 0, progress, cancel, error);
    if (!recorded)
        return std::nullopt;
    auto whatIf = runToEnd(whatIfSpec, whatIfOutputs, 1, progress, cancel, error);
    if (!whatIf)
        return std::nullopt;
    result.recorded = std::move(*recorded);
    result.whatIf = std::move(*whatIf);
    std::map<QString, WhatIfKindCount> kinds;
    for (const Anomaly& a : result.recorded)
        ++kinds[kindName(a.kind)].recorded;
    for (const Anomaly& a : result.whatIf)
        ++kinds[kindName(a.kind)].whatIf;
    for (auto& [name, count] : kinds) {
        count.kind = name;
        result.kinds.push_back(count);
    }
    return result;
}

} // namespace ws

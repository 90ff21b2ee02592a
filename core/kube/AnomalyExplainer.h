#pragma once

#include "AnomalyExplanation.h"
#include "model/Anomaly.h"
#include "model/VersionContext.h"

namespace ws {

// Explains one anomaly under the session's versions: what happened (from its fields and
// message), why (the mechanism, with the versions it depends on) and what fixes it, from the
// facts of reference/kubernetes-watch.md and etcd-watch.md and the version profiles
// (ServerProfile, ClientProfile). Where a version is unknown the text says what depends on it
// ("before 1.25 ...; from 1.25 ..."). Pure: no state, any thread.
class AnomalyExplainer {
public:
    static AnomalyExplanation explain(const Anomaly& anomaly, const VersionContext& versions);
};

} // namespace ws

#pragma once

#include "engine/SessionOutputs.h"
#include "engine/SourceSpec.h"
#include "model/Anomaly.h"

#include <atomic>
#include <functional>
#include <optional>
#include <vector>

namespace ws {

// One anomaly kind's count in the run as recorded and in the run under other versions.
struct WhatIfKindCount {
    QString kind;
    qint64 recorded = 0;
    qint64 whatIf = 0;
    // "gone", "new" or empty: whether the kind depends on the versions that were changed.
    QString change() const;
};

struct WhatIfResult {
    QString whatIfLabel; // "kube-apiserver 1.24, client-go 0.35"
    // The anomalies of each run that the session kept in memory (AnomalyStoreLimits), and how
    // many older ones it did not; `kinds` counts them all.
    AnomalyList recorded; // the capture replayed as it was recorded
    AnomalyList whatIf;   // the same stream under the chosen versions
    qint64 recordedNotKept = 0;
    qint64 whatIfNotKept = 0;
    std::vector<WhatIfKindCount> kinds; // by kind name, every kind either run found
};

// `watchscope-cli whatif` and the window's What If: replays a capture twice to its end, once as
// recorded and once under spec.whatIf (a scenario run again under other versions; an etcd
// stream put through simulated apiservers and clients of those versions), and lines up the
// anomalies of both runs by kind. Runs on the calling thread; the window calls it off the GUI
// thread.
class WhatIfComparison {
public:
    // `run` 0 is the recorded replay, 1 the what-if; `now` how far it has got.
    using Progress = std::function<void(int run, TimeUs now)>;

    // `spec`: a capture spec with whatIf set. `whatIfOutputs`: files the what-if run writes
    // (anomalies, timeline). Empty and one line in *error on bad input, a failed run or when
    // *cancel turned true.
    static std::optional<WhatIfResult> run(const SourceSpec& spec,
                                           const SessionOutputs& whatIfOutputs,
                                           const Progress& progress,
                                           const std::atomic<bool>* cancel, QString* error);
};

} // namespace ws

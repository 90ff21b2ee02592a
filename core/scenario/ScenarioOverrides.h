#pragma once

#include "Scenario.h"

#include <QStringList>
#include <optional>

namespace ws {

// Versions to run a scenario under instead of its own: what `serve --server-version` and
// `whatif` change. Empty fields leave the scenario's own.
struct ScenarioOverrides {
    QString serverVersion;    // "1.24": every apiserver
    QString clientGo;         // "0.35": every client
    QStringList featureGates; // "WatchList=true", ... (the gates the server profile models)
    QString etcdVersion;      // "3.5.13"
    std::optional<TimeUs> compactionInterval; // kube-apiserver --etcd-compaction-interval; 0: never
    // What-if of an etcd capture only: a scenario (built-in name or .yaml path) whose apiservers,
    // clients and faults receive the recorded writes in place of the default cluster (one
    // apiserver, one informer per resource).
    QString cluster;

    bool any() const {
        return !serverVersion.isEmpty() || !clientGo.isEmpty() || !featureGates.isEmpty() ||
               !etcdVersion.isEmpty() || compactionInterval.has_value() || !cluster.isEmpty();
    }
    // False and one line on a gate that is not modelled or not true/false.
    bool apply(Scenario& scenario, QString* error) const;
    // "server 1.24, client-go 0.35, WatchList=true": what was changed, for titles.
    QString describe() const;
};

} // namespace ws

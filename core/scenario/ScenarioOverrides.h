#pragma once

#include "Scenario.h"

#include <QStringList>

namespace ws {

// Versions to run a scenario under instead of its own: what `serve --server-version` and
// `whatif` change. Empty fields leave the scenario's own.
struct ScenarioOverrides {
    QString serverVersion;    // "1.24": every apiserver
    QString clientGo;         // "0.35": every client
    QStringList featureGates; // "WatchList=true", ... (the gates the server profile models)

    bool any() const {
        return !serverVersion.isEmpty() || !clientGo.isEmpty() || !featureGates.isEmpty();
    }
    // False and one line on a gate that is not modelled or not true/false.
    bool apply(Scenario& scenario, QString* error) const;
    // "server 1.24, client-go 0.35, WatchList=true": what was changed, for titles.
    QString describe() const;
};

} // namespace ws

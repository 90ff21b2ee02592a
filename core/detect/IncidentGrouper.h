#pragma once

#include "model/Anomaly.h"
#include "model/Incident.h"

#include <QHash>
#include <QSet>
#include <map>
#include <tuple>
#include <vector>

namespace ws {

// Groups anomalies into incidents as they are raised: one per kind, resource and scope, for as
// long as anomalies of that group keep coming (an episode ends after kEpisodeGap without one; the
// next opens a new incident). The scope is the watcher for the kinds that are one client's own
// failure (a retry loop, time travel, a broken stream); the other kinds (a lost DELETE kept by a
// cache and its informers, twenty watchers lagging behind one starved stream, a relist storm) are
// one incident across the resource's watchers, which it lists. An anomaly that names the apiserver
// whose failure it is (Anomaly::apiserver: 2,000 agents retrying a dead apiserver) is that
// apiserver's incident, with the clients it touches as evidence, not one incident per client.
// Deterministic: the same anomalies give the same incidents, live and replayed.
class IncidentGrouper {
public:
    static constexpr TimeUs kEpisodeGap = seconds(60);

    // Sets anomaly.incident and returns the incident, updated.
    const Incident& assign(Anomaly& anomaly);
    const Incident* incident(std::int64_t id) const;
    std::size_t size() const { return m_incidents.size(); }

    // Whether a kind's incidents are per watcher (true) or resource-wide.
    static bool perWatcher(AnomalyKind kind);
    // The watcher an anomaly's incident is scoped to (Incident::scope); empty: resource-wide or
    // the apiserver's.
    static QString scopeOf(const Anomaly& anomaly);

private:
    struct State {
        Incident incident;
        QSet<QString> keys; // distinct so far; emptied when a newer episode of its group opens
        QSet<QString> watchers;
    };
    using GroupKey = std::tuple<int, QString, QString, QString>; // kind, resource, scope, apiserver

    std::vector<State> m_incidents;         // by id - 1
    std::map<GroupKey, std::size_t> m_open; // the group's latest incident
};

} // namespace ws

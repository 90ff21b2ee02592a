#include "EngineUpdate.h"

#include <algorithm>

#include <QHash>

namespace ws {

void mergeUpdate(EngineUpdate& older, EngineUpdate&& newer) {
    older.now = newer.now;
    older.finished = older.finished || newer.finished;
    older.totalEvents = newer.totalEvents;
    older.eventsPerSecond = newer.eventsPerSecond;
    older.sourceState = std::move(newer.sourceState);
    older.caches = std::move(newer.caches);
    older.watchers = std::move(newer.watchers);
    older.versions = std::move(newer.versions);
    older.anomalies += newer.anomalies;
    for (Incident& i : newer.incidents) {
        auto same = std::find_if(older.incidents.begin(), older.incidents.end(),
                                 [&](const Incident& o) { return o.id == i.id; });
        if (same != older.incidents.end())
            *same = std::move(i);
        else
            older.incidents.push_back(std::move(i));
    }
    // Samples append to the same series' delta, so a chart sees one run of points per series.
    QHash<QPair<QString, QString>, qsizetype> index;
    for (qsizetype i = 0; i < older.series.size(); ++i)
        index.insert({older.series[i].resource, older.series[i].series}, i);
    for (SeriesDelta& d : newer.series) {
        const auto it = index.constFind({d.resource, d.series});
        if (it == index.constEnd()) {
            index.insert({d.resource, d.series}, older.series.size());
            older.series.push_back(std::move(d));
        } else {
            older.series[*it].points += d.points;
        }
    }
}

} // namespace ws

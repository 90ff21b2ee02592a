#include "EngineUpdate.h"

#include <algorithm>

#include <QHash>
#include <QStringList>

namespace ws {

MergeDrops mergeUpdate(EngineUpdate& older, EngineUpdate&& newer, const MergeLimits& limits) {
    MergeDrops drops;
    older.now = newer.now;
    older.flow = std::move(newer.flow);
    older.finished = older.finished || newer.finished;
    older.totalEvents = newer.totalEvents;
    older.eventsPerSecond = newer.eventsPerSecond;
    older.sourceState = std::move(newer.sourceState);
    older.caches = std::move(newer.caches);
    older.watchers = std::move(newer.watchers);
    older.resources = std::move(newer.resources);
    older.versions = std::move(newer.versions);
    older.accounts = std::move(newer.accounts);
    older.warnings = std::move(newer.warnings);
    // Anomalies dropped before newer's first come after older's: all of older's before them
    // are gone too, as far as the consumer can tell they are "missing before the batch".
    if (newer.missingAnomalies > 0) {
        older.missingAnomalies += older.anomalies.size() + newer.missingAnomalies;
        drops.anomalies += older.anomalies.size();
        older.anomalies.clear();
    }
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
    const MergeDrops capped = capUpdate(older, limits);
    drops.anomalies += capped.anomalies;
    drops.points += capped.points;
    return drops;
}

MergeDrops capUpdate(EngineUpdate& update, const MergeLimits& limits) {
    MergeDrops drops;
    if (const qsizetype excess = update.anomalies.size() - std::max<qsizetype>(1, limits.anomalies);
        excess > 0) {
        update.anomalies.remove(0, excess);
        update.missingAnomalies += excess;
        drops.anomalies += excess;
    }
    qsizetype points = 0;
    for (const SeriesDelta& d : update.series)
        points += d.points.size();
    if (points > limits.points && !update.series.isEmpty()) {
        const qsizetype keep =
            std::max(limits.minPointsPerSeries,
                     limits.points / std::max<qsizetype>(1, update.series.size()));
        for (SeriesDelta& d : update.series)
            if (const qsizetype excess = d.points.size() - keep; excess > 0) {
                d.points.remove(0, excess);
                drops.points += excess;
            }
    }
    return drops;
}

QString FlowStats::summary() const {
    QStringList parts;
    if (captureFramesDropped > 0)
        parts << QStringLiteral("capture dropped %1 frames (%2 bytes)")
                     .arg(captureFramesDropped)
                     .arg(captureBytesDropped);
    if (exportLinesDropped > 0)
        parts << QStringLiteral("files dropped %1 lines").arg(exportLinesDropped);
    if (anomaliesDropped + pointsDropped > 0)
        parts << QStringLiteral("window behind: dropped %1 anomalies, %2 samples")
                     .arg(anomaliesDropped)
                     .arg(pointsDropped);
    if (transportStalls > 0)
        parts << QStringLiteral("sources waited %1 times (%2 ms) for the engine")
                     .arg(transportStalls)
                     .arg(transportStalledMs);
    if (!fileError.isEmpty())
        parts << fileError;
    return parts.join(QStringLiteral("; "));
}

} // namespace ws

#pragma once

#include "SeriesBuffer.h"
#include "engine/EngineUpdate.h"

#include <QHash>
#include <QStringList>
#include <map>

namespace ws {

// Every series the charts may draw, per resource, fed with the SeriesDelta points of each frame.
// Plain data owned by the GUI thread; charts read it when their replot timer fires.
class ChartData {
public:
    ChartData() = default;
    explicit ChartData(SeriesBuffer::Limits limits) : m_limits(limits) {}

    void apply(const QVector<SeriesDelta>& deltas);
    void clear();

    QStringList resources() const;
    QStringList seriesNames(const QString& resource) const; // sorted by name
    const SeriesBuffer* series(const QString& resource, const QString& name) const;
    double latestTimeMs() const { return m_latestMs; }
    // Bumped whenever the resource receives points, so a chart can skip an idle resource.
    quint64 generation(const QString& resource) const;
    std::size_t retainedPoints() const;

private:
    struct Resource {
        std::map<QString, SeriesBuffer> series;
        quint64 generation = 0;
    };
    SeriesBuffer::Limits m_limits;
    std::map<QString, Resource> m_resources;
    double m_latestMs = 0;
};

} // namespace ws

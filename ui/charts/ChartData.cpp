#include "ChartData.h"

namespace ws {

void ChartData::apply(const QVector<SeriesDelta>& deltas) {
    for (const SeriesDelta& d : deltas) {
        if (d.points.isEmpty())
            continue;
        Resource& r = m_resources[d.resource];
        auto it = r.series.find(d.series);
        if (it == r.series.end())
            it = r.series.emplace(d.series, SeriesBuffer(m_limits)).first;
        it->second.append(d.points);
        ++r.generation;
        if (!it->second.isEmpty())
            m_latestMs = std::max(m_latestMs, it->second.last().x());
    }
}

void ChartData::clear() {
    m_resources.clear();
    m_latestMs = 0;
}

QStringList ChartData::resources() const {
    QStringList out;
    for (const auto& [name, r] : m_resources)
        out.append(name);
    return out;
}

QStringList ChartData::seriesNames(const QString& resource) const {
    QStringList out;
    const auto it = m_resources.find(resource);
    if (it == m_resources.end())
        return out;
    for (const auto& [name, s] : it->second.series)
        out.append(name);
    return out;
}

const SeriesBuffer* ChartData::series(const QString& resource, const QString& name) const {
    const auto it = m_resources.find(resource);
    if (it == m_resources.end())
        return nullptr;
    const auto s = it->second.series.find(name);
    return s == it->second.series.end() ? nullptr : &s->second;
}

quint64 ChartData::generation(const QString& resource) const {
    const auto it = m_resources.find(resource);
    return it == m_resources.end() ? 0 : it->second.generation;
}

std::size_t ChartData::retainedPoints() const {
    std::size_t total = 0;
    for (const auto& [name, r] : m_resources) {
        for (const auto& [series, s] : r.series)
            total += s.size();
    }
    return total;
}

} // namespace ws

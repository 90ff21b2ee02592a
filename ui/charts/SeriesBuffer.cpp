#include "SeriesBuffer.h"

#include <algorithm>

namespace ws {

void SeriesBuffer::append(const QVector<QPointF>& points) {
    for (const QPointF& p : points) {
        if (!m_points.empty() && p.x() < m_points.back().x())
            continue;
        m_points.push_back(p);
    }
    trim();
}

void SeriesBuffer::trim() {
    if (m_points.empty())
        return;
    const double oldestKept = m_points.back().x() - m_limits.spanMs;
    while (!m_points.empty() && m_points.front().x() < oldestKept)
        m_points.pop_front();
    const auto maxPoints = std::size_t(std::max(m_limits.maxPoints, 1));
    while (m_points.size() > maxPoints)
        m_points.pop_front();
}

std::size_t SeriesBuffer::lowerBound(double xMs) const {
    const auto it = std::lower_bound(m_points.begin(), m_points.end(), xMs,
                                     [](const QPointF& p, double x) { return p.x() < x; });
    return std::size_t(it - m_points.begin());
}

bool SeriesBuffer::valueAt(double xMs, double* value) const {
    const auto it = std::upper_bound(m_points.begin(), m_points.end(), xMs,
                                     [](double x, const QPointF& p) { return x < p.x(); });
    if (it == m_points.begin())
        return false;
    *value = std::prev(it)->y();
    return true;
}

} // namespace ws

#pragma once

#include <QPointF>
#include <QVector>
#include <deque>

namespace ws {

// The GUI's copy of one timeline series (x = session time in ms): a sliding window bounded both
// in time span and in point count, so a long or fast session never grows the GUI's memory.
// The engine's TimelineStore keeps the full history; this is only what the charts can show.
class SeriesBuffer {
public:
    struct Limits {
        double spanMs = 15 * 60 * 1000.0; // older than newest - span is dropped
        int maxPoints = 20000;            // ~30 min at 10 samples/s; guards `--speed max`
    };

    SeriesBuffer() = default;
    explicit SeriesBuffer(Limits limits) : m_limits(limits) {}

    // Points must come in time order; a point older than the newest one kept is dropped
    // (a late sample cannot be drawn without re-sorting, and the engine never sends one).
    void append(const QVector<QPointF>& points);
    void clear() { m_points.clear(); }

    const std::deque<QPointF>& points() const { return m_points; }
    std::size_t size() const { return m_points.size(); }
    bool isEmpty() const { return m_points.empty(); }
    const QPointF& last() const { return m_points.back(); }
    const Limits& limits() const { return m_limits; }

    // Index of the first point with x >= xMs (size() if none).
    std::size_t lowerBound(double xMs) const;
    // The value in effect at xMs (the last sample at or before it), or nothing before the first.
    bool valueAt(double xMs, double* value) const;

private:
    void trim();

    Limits m_limits;
    std::deque<QPointF> m_points;
};

} // namespace ws

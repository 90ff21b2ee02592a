#include "Decimation.h"

#include <algorithm>
#include <cmath>

namespace ws {

QList<QPointF> decimateMinMax(const SeriesBuffer& buffer, double fromMs, double toMs, int columns,
                              double xScale) {
    QList<QPointF> out;
    const auto& pts = buffer.points();
    if (pts.empty() || toMs < fromMs)
        return out;
    columns = std::max(columns, 1);
    const auto scaled = [xScale](const QPointF& p) { return QPointF(p.x() / xScale, p.y()); };

    std::size_t i = buffer.lowerBound(fromMs);
    const std::size_t end = buffer.lowerBound(std::nextafter(toMs, toMs + 1));
    out.reserve(int(std::min<std::size_t>(end - i, std::size_t(columns) * 2)) + 3);
    if (i > 0)
        out.append(scaled(pts[i - 1]));

    const double width = std::max(toMs - fromMs, 1e-9);
    while (i < end) {
        const int column =
            std::min(columns - 1, int((pts[i].x() - fromMs) / width * double(columns)));
        std::size_t minIdx = i;
        std::size_t maxIdx = i;
        std::size_t j = i + 1;
        for (; j < end; ++j) {
            const int c =
                std::min(columns - 1, int((pts[j].x() - fromMs) / width * double(columns)));
            if (c != column)
                break;
            if (pts[j].y() < pts[minIdx].y())
                minIdx = j;
            if (pts[j].y() > pts[maxIdx].y())
                maxIdx = j;
        }
        const std::size_t a = std::min(minIdx, maxIdx);
        const std::size_t b = std::max(minIdx, maxIdx);
        out.append(scaled(pts[a]));
        if (b != a)
            out.append(scaled(pts[b]));
        i = j;
    }
    // Flat stretches keep only a column's first point; the newest point must still be drawn so
    // the line reaches the live edge.
    if (end > 0 && pts[end - 1].x() >= fromMs && out.last() != scaled(pts[end - 1]))
        out.append(scaled(pts[end - 1]));
    if (end < pts.size())
        out.append(scaled(pts[end]));
    return out;
}

} // namespace ws

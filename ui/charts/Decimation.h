#pragma once

#include "SeriesBuffer.h"

#include <QList>
#include <QPointF>

namespace ws {

// Min/max decimation per pixel column: the points of `buffer` with x in [fromMs, toMs] are
// split into `columns` equal slices and each slice contributes its minimum and maximum, in time
// order, so spikes survive while a chart never draws more than ~2 points per pixel. The last
// point before the range and the first after it are kept too, so lines reach the plot edges,
// as is the last point inside it: at most 2 * columns + 3 points.
// x is divided by `xScale` on the way out (ms -> s for the charts).
QList<QPointF> decimateMinMax(const SeriesBuffer& buffer, double fromMs, double toMs, int columns,
                              double xScale = 1.0);

} // namespace ws

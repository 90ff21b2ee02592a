#include "LiveChartView.h"

#include "ChartInteraction.h"
#include "charts/ChartData.h"
#include "charts/Decimation.h"

#include <QChart>
#include <QEvent>
#include <QLegend>
#include <QValueAxis>
#include <QXYSeries>
#include <algorithm>
#include <cmath>

namespace ws {

namespace {

// 1, 2 or 5 times a power of ten, so that `range` gets about `ticks` intervals.
double niceStep(double range, int ticks) {
    const double raw = std::max(range, 1e-9) / std::max(ticks, 1);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double fraction = raw / magnitude;
    const double nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
    return nice * magnitude;
}

} // namespace

LiveChartView::LiveChartView(QWidget* parent)
    : QChartView(new QChart, parent), m_axisX(new QValueAxis(this)), m_axisY(new QValueAxis(this)) {
    QChart* c = chart();
    c->setAnimationOptions(QChart::NoAnimation); // animations fight 30 Hz replots
    c->setMargins(QMargins(4, 4, 4, 4));
    c->setBackgroundRoundness(0);
    c->legend()->setAlignment(Qt::AlignBottom);
    m_axisX->setTitleText(tr("session time (s)"));
    // Ticks anchored at multiples of a round step: while the view follows the live edge the
    // labels stay put and scroll with the data instead of being renumbered every frame.
    for (QValueAxis* axis : {m_axisX, m_axisY}) {
        axis->setLabelFormat(QStringLiteral("%.0f"));
        axis->setTickType(QValueAxis::TicksDynamic);
        axis->setTickAnchor(0);
        axis->setMinorTickCount(0);
    }
    m_axisX->setTickInterval(10);
    m_axisY->setTickInterval(1);
    c->addAxis(m_axisX, Qt::AlignBottom);
    c->addAxis(m_axisY, Qt::AlignLeft);
    m_axisX->setRange(0, m_spanMs / 1000.0);
    m_axisY->setRange(0, 1);
    setRenderHint(QPainter::Antialiasing, false);
    setMinimumSize(240, 180);
    applyPalette();
    // Keys zoom and pan (ChartInteraction): a click or Tab gives the chart the focus.
    setFocusPolicy(Qt::StrongFocus);
    m_interaction = new ChartInteraction(this);

    m_replotTimer.setSingleShot(true);
    m_replotTimer.setInterval(kReplotIntervalMs);
    connect(&m_replotTimer, &QTimer::timeout, this, &LiveChartView::replotNow);
    m_settleTimer.setSingleShot(true);
    m_settleTimer.setInterval(kSettleMs);
    connect(&m_settleTimer, &QTimer::timeout, this, &LiveChartView::scheduleReplot);
}

QStringList LiveChartView::largestFirst(QVector<QPair<double, QString>> candidates, int max) {
    if (candidates.size() > max) {
        std::stable_sort(candidates.begin(), candidates.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        candidates.resize(max);
    }
    QStringList names;
    for (const auto& c : std::as_const(candidates))
        names.append(c.second);
    return names;
}

bool LiveChartView::isDark(const QPalette& palette) {
    return palette.color(QPalette::Window).lightness() < 128;
}

void LiveChartView::applyPalette() {
    // The chart's colours follow the widget palette (the system's light or dark scheme) without
    // QChart::setTheme(), which would also reset every series' pen.
    const QPalette p = palette();
    QChart* c = chart();
    c->setBackgroundBrush(p.brush(QPalette::Base));
    c->setBackgroundPen(Qt::NoPen);
    c->setPlotAreaBackgroundVisible(false);
    c->setTitleBrush(p.brush(QPalette::Text));
    c->legend()->setLabelColor(p.color(QPalette::Text));
    QColor grid = p.color(QPalette::Text);
    grid.setAlpha(40);
    for (QValueAxis* axis : {m_axisX, m_axisY}) {
        axis->setLabelsColor(p.color(QPalette::Text));
        axis->setTitleBrush(p.brush(QPalette::Text));
        axis->setLinePenColor(p.color(QPalette::Mid));
        axis->setGridLineColor(grid);
    }
    setBackgroundBrush(p.brush(QPalette::Base));
    paletteApplied(p);
}

void LiveChartView::changeEvent(QEvent* event) {
    QChartView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        scheduleReplot();
    }
}

void LiveChartView::setChartData(const ChartData* data) {
    m_data = data;
    scheduleReplot();
}

void LiveChartView::setResource(const QString& resource) {
    if (resource == m_resource)
        return;
    m_resource = resource;
    scheduleReplot();
}

void LiveChartView::setLiveEdge(double ms) {
    const double before = m_edgeMs;
    m_edgeMs = std::max(m_edgeMs, ms);
    // Redraw only when what is shown changed. Following, the window moves with the edge (or the
    // resource got samples). Parked, new samples of the resource can only show while the data
    // drawn last ended inside the window: samples come in time order.
    const quint64 generation = m_data ? m_data->generation(m_resource) : 0;
    const bool newSamples = generation != m_drawnGeneration;
    if (!m_follow) {
        if (newSamples && (m_replotCount == 0 || before < m_toMs))
            scheduleReplot();
        return;
    }
    if (m_edgeMs == m_drawnEdgeMs && !newSamples)
        return;
    // Following, what changes is the right end: the window slides and new samples appear at
    // the edge. A 1 min window on ~600 columns moves one column every 100 ms, so redrawing at
    // 30 Hz would redraw the same picture three times. Redraw once the edge has moved a few
    // columns; the rest shows when the stream pauses (the settle timer), so nothing stays
    // undrawn.
    const double msPerColumn = m_spanMs / std::max(1, plotColumns());
    if (m_replotCount == 0 || m_edgeMs - m_drawnEdgeMs >= kFollowStepColumns * msPerColumn ||
        m_edgeMs < m_drawnEdgeMs) {
        scheduleReplot();
        return;
    }
    m_settleTimer.start(); // restarted by every update: fires once the updates stop
}

double LiveChartView::viewCentreMs() const {
    return m_follow ? std::max(m_edgeMs, m_spanMs) - m_spanMs / 2 : m_centerMs;
}

double LiveChartView::dataStartMs() const {
    double start = -1;
    if (m_data) {
        for (auto it = m_bound.cbegin(); it != m_bound.cend(); ++it) {
            const SeriesBuffer* b = m_data->series(m_resource, it.key());
            if (b && !b->isEmpty() && (start < 0 || b->points().front().x() < start))
                start = b->points().front().x();
        }
    }
    return std::max(start, 0.0);
}

void LiveChartView::reset() {
    m_edgeMs = 0;
    m_drawnEdgeMs = 0;
    m_centerMs = 0;
    scheduleReplot();
}

void LiveChartView::setSpanSeconds(double seconds) {
    const double ms = std::clamp(seconds, 1.0, 24 * 3600.0) * 1000.0;
    if (ms == m_spanMs)
        return;
    m_spanMs = ms;
    emit spanChanged(seconds);
    scheduleReplot();
}

void LiveChartView::setFollowLive(bool follow) {
    if (follow == m_follow)
        return;
    m_follow = follow;
    emit followLiveChanged(follow);
    scheduleReplot();
}

void LiveChartView::centerOn(double ms) {
    m_centerMs = ms;
    setFollowLive(false);
    scheduleReplot();
}

void LiveChartView::navigateTo(double ms) {
    centerOn(ms);
    emit navigated(ms);
}

void LiveChartView::setFrozen(bool frozen) {
    if (frozen == m_frozen)
        return;
    m_frozen = frozen;
    if (!frozen && m_pendingWhileFrozen) {
        m_pendingWhileFrozen = false;
        scheduleReplot();
    }
}

void LiveChartView::bindSeries(const QString& name, QXYSeries* series) {
    if (m_bound.contains(name))
        return;
    m_bound.insert(name, series);
    if (!series->chart())
        chart()->addSeries(series);
    series->attachAxis(m_axisX);
    series->attachAxis(m_axisY);
}

void LiveChartView::unbindSeries(const QString& name) {
    QXYSeries* s = m_bound.take(name);
    if (!s)
        return;
    chart()->removeSeries(s);
    s->deleteLater();
}

int LiveChartView::plotColumns() const {
    const int w = int(chart()->plotArea().width());
    return w > 10 ? w : std::max(width() - 80, 100);
}

void LiveChartView::scheduleReplot() {
    if (m_frozen) {
        m_pendingWhileFrozen = true;
        return;
    }
    if (!isVisible()) {
        m_pendingWhileHidden = true;
        return;
    }
    // A timer already running will pick this change up: that is the coalescing.
    if (!m_replotTimer.isActive())
        m_replotTimer.start();
}

void LiveChartView::includeY(double y) {
    if (!std::isfinite(y))
        return;
    if (!m_yValid) {
        m_yMin = m_yMax = y;
        m_yValid = true;
        return;
    }
    m_yMin = std::min(m_yMin, y);
    m_yMax = std::max(m_yMax, y);
}

bool LiveChartView::plottedYRange(double* lo, double* hi) const {
    *lo = m_yMin;
    *hi = m_yMax;
    return m_yValid;
}

void LiveChartView::replotNow() {
    m_replotTimer.stop();
    m_settleTimer.stop();
    m_pendingWhileHidden = false;
    ++m_replotCount;
    m_drawnGeneration = m_data ? m_data->generation(m_resource) : 0;
    m_drawnEdgeMs = m_edgeMs;
    prepareReplot();

    if (m_follow) {
        m_toMs = std::max(m_edgeMs, m_spanMs);
        m_fromMs = m_toMs - m_spanMs;
    } else {
        m_fromMs = m_centerMs - m_spanMs / 2;
        m_toMs = m_centerMs + m_spanMs / 2;
    }

    m_yValid = false;
    const int columns = plotColumns();
    m_lastColumns = columns;
    for (auto it = m_bound.cbegin(); it != m_bound.cend(); ++it) {
        const SeriesBuffer* buffer = m_data ? m_data->series(m_resource, it.key()) : nullptr;
        QList<QPointF> points;
        if (buffer)
            points = decimateMinMax(*buffer, m_fromMs, m_toMs, columns, 1000.0);
        if (m_yDivisor != 1.0)
            for (QPointF& p : points)
                p.setY(p.y() / m_yDivisor);
        for (const QPointF& p : std::as_const(points)) {
            // The edge points just outside the range keep lines continuous but must not stretch
            // the y axis to values that are not on screen.
            if (p.x() * 1000.0 >= m_fromMs && p.x() * 1000.0 <= m_toMs &&
                !(m_zeroMeansAbsent && p.y() == 0))
                includeY(p.y());
        }
        // A series whose points did not change (a parked view, an idle watcher) is not handed
        // to QtCharts again: replace() repaints it.
        if (replaceIfChanged(it.value(), points))
            ++m_seriesReplaced;
    }
    finishReplot(m_fromMs, m_toMs);

    double lo = m_yValid ? m_yMin : 0;
    double hi = m_yValid ? m_yMax : 1;
    if (m_yIncludesZero)
        lo = std::min(lo, 0.0);
    const double pad = hi > lo ? (hi - lo) * 0.06 : std::max(1.0, std::abs(hi) * 0.01);
    if (!(m_yIncludesZero && lo == 0))
        lo -= pad;
    hi += pad;
    lo = std::floor(lo);
    hi = std::ceil(hi);
    const double xStep = niceStep((m_toMs - m_fromMs) / 1000.0, 8);
    // Each setter re-lays the chart out even with the value it has: only what changed is set.
    bool axesChanged = false;
    const QString xFormat = xStep < 1 ? QStringLiteral("%.1f") : QStringLiteral("%.0f");
    if (m_axisX->labelFormat() != xFormat) {
        m_axisX->setLabelFormat(xFormat);
        axesChanged = true;
    }
    if (m_axisX->tickInterval() != xStep) {
        m_axisX->setTickInterval(xStep);
        axesChanged = true;
    }
    if (m_axisX->min() != m_fromMs / 1000.0 || m_axisX->max() != m_toMs / 1000.0) {
        m_axisX->setRange(m_fromMs / 1000.0, m_toMs / 1000.0);
        axesChanged = true;
    }
    const double yStep = std::max(1.0, niceStep(hi - lo, 5));
    if (m_axisY->tickInterval() != yStep) {
        m_axisY->setTickInterval(yStep);
        axesChanged = true;
    }
    if (m_axisY->min() != lo || m_axisY->max() != hi) {
        m_axisY->setRange(lo, hi);
        axesChanged = true;
    }
    if (axesChanged)
        ++m_axisChanges;
    axesUpdated();
}

bool LiveChartView::replaceIfChanged(QXYSeries* series, const QList<QPointF>& points) {
    if (series->count() == points.size() && series->points() == points)
        return false;
    series->replace(points);
    return true;
}

void LiveChartView::resizeEvent(QResizeEvent* event) {
    QChartView::resizeEvent(event);
    scheduleReplot(); // the number of pixel columns changed
}

void LiveChartView::showEvent(QShowEvent* event) {
    QChartView::showEvent(event);
    if (m_pendingWhileHidden)
        scheduleReplot();
}

} // namespace ws

#include "RvTimelineChart.h"

#include "charts/ChartData.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>
#include <algorithm>

namespace ws {

namespace {

const QString kHead = QStringLiteral("head_rv");
const QString kCache = QStringLiteral("cache_rv");
const QString kWatcherPrefix = QStringLiteral("watcher_rv:");

QLineSeries* makeLine(const QString& label, const QColor& color, qreal width,
                      Qt::PenStyle style = Qt::SolidLine) {
    auto* s = new QLineSeries;
    s->setName(label);
    QPen pen(color, width, style);
    pen.setCosmetic(true);
    s->setPen(pen);
    return s;
}

} // namespace

RvTimelineChart::RvTimelineChart(QWidget* parent)
    : LiveChartView(parent), m_markers(new AnomalyMarkerLayer(chart(), axisX(), axisY(), this)),
      m_focusLine(new QLineSeries) {
    chart()->setTitle(tr("Resource versions"));
    axisY()->setTitleText(tr("resource version"));
    setZeroMeansAbsent(true);
    // Watcher ids are long ("informer/kube-controller-manager"): a legend beside the plot gives
    // each its own line instead of eliding them side by side.
    chart()->legend()->setAlignment(Qt::AlignRight);
    chart()->legend()->setShowToolTips(true);

    // The head in the text colour: the strongest line of the chart in light and dark alike.
    bindSeries(kHead, makeLine(tr("etcd head"), palette().color(QPalette::Text), 2.0));
    // Dashed: the cache usually sits on the head, and both must stay visible there.
    bindSeries(kCache, makeLine(tr("watch cache"), QColor(0x1f, 0x77, 0xb4), 2.0, Qt::DashLine));

    m_markers->series()->setBorderColor(palette().color(QPalette::Base));
    connect(m_markers, &AnomalyMarkerLayer::clicked, this, &RvTimelineChart::anomalyClicked);

    QPen focusPen(QColor(0xd6, 0x27, 0x28), 1.5, Qt::DashLine);
    focusPen.setCosmetic(true);
    m_focusLine->setPen(focusPen);
    m_focusLine->setName(tr("selected"));
    chart()->addSeries(m_focusLine);
    m_focusLine->attachAxis(axisX());
    m_focusLine->attachAxis(axisY());
    const auto focusMarkers = chart()->legend()->markers(m_focusLine);
    for (QLegendMarker* m : focusMarkers)
        m->setVisible(false);
}

void RvTimelineChart::setWatcherPalette(WatcherPalette* palette) {
    m_palette = palette ? palette : &m_ownPalette;
}

void RvTimelineChart::paletteApplied(const QPalette& palette) {
    if (QXYSeries* head = boundSeries(kHead)) {
        QPen pen = head->pen();
        pen.setColor(palette.color(QPalette::Text));
        head->setPen(pen);
    }
    if (m_markers)
        m_markers->series()->setBorderColor(palette.color(QPalette::Base));
}

void RvTimelineChart::prepareReplot() {
    // Pick the watcher lines for the current resource: all of them, or the most lagging ones.
    QStringList wanted;
    if (m_data) {
        const SeriesBuffer* head = m_data->series(m_resource, kHead);
        const double headRv = head && !head->isEmpty() ? head->last().y() : 0;
        QVector<QPair<double, QString>> candidates;
        const QStringList names = m_data->seriesNames(m_resource);
        for (const QString& name : names) {
            if (!name.startsWith(kWatcherPrefix))
                continue;
            const SeriesBuffer* s = m_data->series(m_resource, name);
            const double lag = s && !s->isEmpty() ? headRv - s->last().y() : 0;
            candidates.append({lag, name});
        }
        wanted.append(largestFirst(std::move(candidates), kMaxWatcherLines));
    }
    bool changed = false;
    const QStringList bound = boundNames();
    for (const QString& name : bound) {
        if (name.startsWith(kWatcherPrefix) && !wanted.contains(name)) {
            unbindSeries(name);
            changed = true;
        }
    }
    std::sort(wanted.begin(), wanted.end());
    for (const QString& name : std::as_const(wanted)) {
        if (isBound(name))
            continue;
        const QString id = name.mid(kWatcherPrefix.size());
        bindSeries(name, makeLine(id, m_palette->color(id), 1.5));
        changed = true;
    }
    if (!changed)
        return;
    // QtCharts draws series in the order they were added. Watchers go below the head and cache
    // lines (a watcher in sync disappears under them; a lagging one shows beneath), and the
    // markers and the focus line on top of everything.
    for (QXYSeries* s :
         {boundSeries(kHead), boundSeries(kCache), static_cast<QXYSeries*>(m_markers->series()),
          static_cast<QXYSeries*>(m_focusLine)}) {
        chart()->removeSeries(s);
        chart()->addSeries(s);
        s->attachAxis(axisX());
        s->attachAxis(axisY());
    }
    const auto focusMarkers = chart()->legend()->markers(m_focusLine);
    for (QLegendMarker* m : focusMarkers)
        m->setVisible(false);
}

void RvTimelineChart::finishReplot(double fromMs, double toMs) {
    const SeriesBuffer* head = m_data ? m_data->series(m_resource, kHead) : nullptr;
    // A marker sits at its anomaly's RV, unless that RV is far off the lines (a 504 for an RV
    // from the future, a regression to 0): then at the head, so one bogus RV cannot squash the
    // whole chart.
    double lo = 0;
    double hi = 0;
    const bool haveRange = plottedYRange(&lo, &hi);
    const double slack = std::max(hi - lo, 10.0);
    m_markers->draw(
        m_resource, fromMs, toMs,
        [&](const AnomalyMarkerLayer::Marker& m, double* y) {
            *y = double(m.rv);
            const bool rvUsable =
                m.rv != 0 && (!haveRange || (*y >= lo - slack && *y <= hi + slack));
            return rvUsable || (head && head->valueAt(m.timeMs, y));
        },
        [this](double y) { includeY(y); });
}

void RvTimelineChart::axesUpdated() {
    QList<QPointF> line;
    if (m_hasFocus && m_focusMs >= visibleFromMs() && m_focusMs <= visibleToMs()) {
        const double t = m_focusMs / 1000.0;
        line = {QPointF(t, axisY()->min()), QPointF(t, axisY()->max())};
    }
    replaceIfChanged(m_focusLine, line);
}

void RvTimelineChart::addAnomalies(const AnomalyList& batch, qint64 firstSerial) {
    // A redraw only for markers it would show: on its resource, and in view (or coming into it,
    // while following).
    if (m_markers->add(batch, firstSerial, m_resource, followsLive(), visibleFromMs(),
                       visibleToMs()))
        scheduleReplot();
}

void RvTimelineChart::clearAnomalies() {
    m_markers->clear();
    scheduleReplot();
}

void RvTimelineChart::reset() {
    m_markers->clear();
    m_hasFocus = false;
    // A new session's watchers get the palette from its start again.
    m_palette->clear();
    const QStringList bound = boundNames();
    for (const QString& name : bound) {
        if (name.startsWith(kWatcherPrefix))
            unbindSeries(name);
    }
    LiveChartView::reset();
}

void RvTimelineChart::focusAnomaly(const Anomaly& anomaly) {
    m_focusMs = double(anomaly.time) / double(kUsPerMs);
    m_hasFocus = true;
    centerOn(m_focusMs);
}

void RvTimelineChart::clearFocus() {
    m_hasFocus = false;
    scheduleReplot();
}

int RvTimelineChart::markerCount() const {
    return m_markers->drawnCount();
}

int RvTimelineChart::markersHeld(const QString& resource) const {
    return m_markers->held(resource);
}

qint64 RvTimelineChart::oldestMarkerSerial(const QString& resource) const {
    return m_markers->oldestSerial(resource);
}

int RvTimelineChart::pointCount(const QString& seriesName) const {
    const QXYSeries* s = boundSeries(seriesName);
    return s ? int(s->count()) : -1;
}

} // namespace ws

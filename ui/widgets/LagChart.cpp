#include "LagChart.h"

#include "charts/ChartData.h"
#include "detect/DetectorThresholds.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>

namespace ws {

namespace {

const QString kRevisionsPrefix = QStringLiteral("watcher_lag:");
const QString kSecondsPrefix = QStringLiteral("watcher_lag_seconds:");

} // namespace

LagChart::LagChart(QWidget* parent)
    : LiveChartView(parent), m_markers(new AnomalyMarkerLayer(chart(), axisX(), axisY(), this)),
      m_threshold(new QLineSeries) {
    setYIncludesZero(true);
    chart()->legend()->setAlignment(Qt::AlignRight);
    chart()->legend()->setShowToolTips(true);
    m_markers->series()->setBorderColor(palette().color(QPalette::Base));
    connect(m_markers, &AnomalyMarkerLayer::clicked, this, &LagChart::anomalyClicked);

    QPen pen(QColor(0xd6, 0x27, 0x28), 1.0, Qt::DashLine);
    pen.setCosmetic(true);
    m_threshold->setPen(pen);
    m_threshold->setName(tr("lag threshold"));
    chart()->addSeries(m_threshold);
    m_threshold->attachAxis(axisX());
    m_threshold->attachAxis(axisY());
    setUnit(Unit::Revisions);
}

void LagChart::paletteApplied(const QPalette& palette) {
    if (m_markers)
        m_markers->series()->setBorderColor(palette.color(QPalette::Base));
}

void LagChart::setWatcherPalette(WatcherPalette* palette) {
    m_palette = palette ? palette : &m_ownPalette;
}

QString LagChart::seriesPrefix() const {
    return m_unit == Unit::Revisions ? kRevisionsPrefix : kSecondsPrefix;
}

QString LagChart::seriesName(const QString& watcherId) const {
    return seriesPrefix() + watcherId;
}

void LagChart::setUnit(Unit unit) {
    const bool changed = unit != m_unit;
    m_unit = unit;
    chart()->setTitle(unit == Unit::Revisions ? tr("Watcher lag: revisions behind the head")
                                              : tr("Watcher lag: seconds behind the head"));
    axisY()->setTitleText(unit == Unit::Revisions ? tr("revisions behind") : tr("seconds behind"));
    const auto markers = chart()->legend()->markers(m_threshold);
    for (QLegendMarker* m : markers)
        m->setVisible(unit == Unit::Seconds);
    if (!changed)
        return scheduleReplot();
    unbindWatchers();
    scheduleReplot();
    emit unitChanged(unit);
}

void LagChart::unbindWatchers() {
    const QStringList bound = boundNames();
    for (const QString& name : bound)
        unbindSeries(name);
}

void LagChart::prepareReplot() {
    // The watchers of the resource, or the most lagging ones: what this chart is for.
    const QString prefix = seriesPrefix();
    QStringList wanted;
    if (m_data) {
        QVector<QPair<double, QString>> candidates;
        const QStringList names = m_data->seriesNames(m_resource);
        for (const QString& name : names) {
            if (!name.startsWith(prefix))
                continue;
            const SeriesBuffer* s = m_data->series(m_resource, name);
            candidates.append({s && !s->isEmpty() ? s->last().y() : 0, name});
        }
        wanted.append(largestFirst(std::move(candidates), kMaxWatcherLines));
    }
    bool changed = false;
    const QStringList bound = boundNames();
    for (const QString& name : bound) {
        if (!wanted.contains(name)) {
            unbindSeries(name);
            changed = true;
        }
    }
    std::sort(wanted.begin(), wanted.end());
    for (const QString& name : std::as_const(wanted)) {
        if (isBound(name))
            continue;
        const QString id = name.mid(prefix.size());
        auto* line = new QLineSeries;
        line->setName(id);
        QPen pen(m_palette->color(id), 1.5);
        pen.setCosmetic(true);
        line->setPen(pen);
        bindSeries(name, line);
        changed = true;
    }
    if (changed)
        restack();
}

void LagChart::restack() {
    // QtCharts draws series in the order they were added: the threshold and the markers on top.
    for (QXYSeries* s :
         {static_cast<QXYSeries*>(m_threshold), static_cast<QXYSeries*>(m_markers->series())}) {
        chart()->removeSeries(s);
        chart()->addSeries(s);
        s->attachAxis(axisX());
        s->attachAxis(axisY());
    }
    const auto markers = chart()->legend()->markers(m_threshold);
    for (QLegendMarker* m : markers)
        m->setVisible(m_unit == Unit::Seconds);
}

void LagChart::finishReplot(double fromMs, double toMs) {
    QList<QPointF> threshold;
    if (m_unit == Unit::Seconds) {
        const double y = DetectorThresholds{}.watcherLagSeconds;
        threshold = {QPointF(fromMs / 1000.0, y), QPointF(toMs / 1000.0, y)};
        includeY(y);
    }
    if (threshold != m_threshold->points())
        m_threshold->replace(threshold);
    // A marker sits on its watcher's line at its time; an anomaly of no drawn watcher (a cache's,
    // a resource's) on the axis.
    m_markers->draw(
        m_resource, fromMs, toMs,
        [this](const AnomalyMarkerLayer::Marker& m, double* y) {
            *y = 0;
            const SeriesBuffer* s = m_data && !m.watcher.isEmpty()
                                        ? m_data->series(m_resource, seriesName(m.watcher))
                                        : nullptr;
            if (s)
                s->valueAt(m.timeMs, y);
            return true;
        },
        [this](double y) { includeY(y); });
}

void LagChart::addAnomalies(const AnomalyList& batch, qint64 firstSerial) {
    if (m_markers->add(batch, firstSerial, m_resource, followsLive(), visibleFromMs(),
                       visibleToMs()))
        scheduleReplot();
}

void LagChart::reset() {
    m_markers->clear();
    unbindWatchers();
    LiveChartView::reset();
}

QStringList LagChart::watcherLines() const {
    QStringList out;
    const QString prefix = seriesPrefix();
    const QStringList bound = boundNames();
    for (const QString& name : bound)
        out << name.mid(prefix.size());
    std::sort(out.begin(), out.end());
    return out;
}

int LagChart::pointCount(const QString& seriesName) const {
    const QXYSeries* s = boundSeries(seriesName);
    return s ? int(s->count()) : -1;
}

double LagChart::drawnMax(const QString& watcherId) const {
    const QXYSeries* s = boundSeries(seriesName(watcherId));
    if (!s)
        return -1;
    double best = 0;
    const QList<QPointF> points = s->points();
    for (const QPointF& p : points)
        if (p.x() * 1000.0 >= visibleFromMs() && p.x() * 1000.0 <= visibleToMs())
            best = std::max(best, p.y());
    return best;
}

} // namespace ws

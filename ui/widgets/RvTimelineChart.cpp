#include "RvTimelineChart.h"

#include "charts/ChartData.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPen>
#include <QScatterSeries>
#include <QSet>
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
    : LiveChartView(parent), m_markers(new QScatterSeries), m_focusLine(new QLineSeries) {
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

    m_markers->setName(tr("anomaly"));
    m_markers->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_markers->setMarkerSize(10);
    m_markers->setColor(QColor(0xd6, 0x27, 0x28));
    m_markers->setBorderColor(palette().color(QPalette::Base));
    chart()->addSeries(m_markers);
    m_markers->attachAxis(axisX());
    m_markers->attachAxis(axisY());
    connect(m_markers, &QScatterSeries::clicked, this, &RvTimelineChart::onMarkerClicked);

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

void RvTimelineChart::paletteApplied(const QPalette& palette) {
    if (QXYSeries* head = boundSeries(kHead)) {
        QPen pen = head->pen();
        pen.setColor(palette.color(QPalette::Text));
        head->setPen(pen);
    }
    if (m_markers)
        m_markers->setBorderColor(palette.color(QPalette::Base));
}

QColor RvTimelineChart::watcherColor(const QString& id) {
    // Colours are handed out once per watcher so a line keeps its colour when others come and go.
    static const QColor palette[] = {
        QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd),
        QColor(0x8c, 0x56, 0x4b), QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf),
        QColor(0xbc, 0xbd, 0x22), QColor(0x7f, 0x7f, 0x7f), QColor(0x39, 0x3b, 0x79),
        QColor(0x63, 0x79, 0x39), QColor(0x84, 0x3c, 0x39), QColor(0x7b, 0x41, 0x73)};
    auto it = m_watcherColors.find(id);
    if (it == m_watcherColors.end()) {
        const auto n = std::size(palette);
        it = m_watcherColors.insert(id, palette[std::size_t(m_watcherColors.size()) % n]);
    }
    return *it;
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
        if (candidates.size() > kMaxWatcherLines) {
            std::stable_sort(candidates.begin(), candidates.end(),
                             [](const auto& a, const auto& b) { return a.first > b.first; });
            candidates.resize(kMaxWatcherLines);
        }
        for (const auto& c : std::as_const(candidates))
            wanted.append(c.second);
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
        bindSeries(name, makeLine(id, watcherColor(id), 1.5));
        changed = true;
    }
    if (!changed)
        return;
    // QtCharts draws series in the order they were added. Watchers go below the head and cache
    // lines (a watcher in sync disappears under them; a lagging one shows beneath), and the
    // markers and the focus line on top of everything.
    for (QXYSeries* s :
         {boundSeries(kHead), boundSeries(kCache), static_cast<QXYSeries*>(m_markers),
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
    m_drawnMarkers.clear();
    QList<QPointF> points;
    const SeriesBuffer* head = m_data ? m_data->series(m_resource, kHead) : nullptr;
    const QVector<Marker>& markers = m_markersByResource[m_resource];
    // Markers are in time order: skip straight to the visible ones.
    auto it = std::lower_bound(markers.cbegin(), markers.cend(), fromMs,
                               [](const Marker& m, double x) { return m.timeMs < x; });
    // A marker sits at its anomaly's RV, unless that RV is far off the lines (a 504 for an RV
    // from the future, a regression to 0): then at the head, so one bogus RV cannot squash the
    // whole chart.
    double lo = 0;
    double hi = 0;
    const bool haveRange = plottedYRange(&lo, &hi);
    const double slack = std::max(hi - lo, 10.0);
    for (; it != markers.cend() && it->timeMs <= toMs; ++it) {
        double y = double(it->rv);
        const bool rvUsable = it->rv != 0 && (!haveRange || (y >= lo - slack && y <= hi + slack));
        if (!rvUsable && !(head && head->valueAt(it->timeMs, &y)))
            continue; // nothing sensible to plot against
        points.append(QPointF(it->timeMs / 1000.0, y));
        m_drawnMarkers.append(*it);
        includeY(y);
    }
    m_markers->replace(points);
}

void RvTimelineChart::axesUpdated() {
    QList<QPointF> line;
    if (m_hasFocus && m_focusMs >= visibleFromMs() && m_focusMs <= visibleToMs()) {
        const double t = m_focusMs / 1000.0;
        line = {QPointF(t, axisY()->min()), QPointF(t, axisY()->max())};
    }
    m_focusLine->replace(line);
}

void RvTimelineChart::addAnomalies(const AnomalyList& batch, qint64 firstSerial) {
    // A batch is usually about one resource: look its list up once. (Only `last` is kept as a
    // pointer: a new key may move the hash's values.)
    QVector<Marker>* last = nullptr;
    QString lastResource;
    QSet<QString> touched;
    for (int i = 0; i < batch.size(); ++i) {
        const Anomaly& a = batch.at(i);
        if (!last || a.resource != lastResource) {
            last = &m_markersByResource[a.resource];
            lastResource = a.resource;
            touched.insert(a.resource);
        }
        const Marker m{double(a.time) / double(kUsPerMs), a.rv, firstSerial + i};
        // Anomalies arrive nearly in time order; insert in place to keep binary search valid.
        auto pos = std::upper_bound(last->begin(), last->end(), m.timeMs,
                                    [](double x, const Marker& mk) { return x < mk.timeMs; });
        last->insert(pos, m);
    }
    // Trimmed once per batch: trimming per marker shifted the whole list for each one, which an
    // anomaly storm turned into most of a frame.
    for (const QString& resource : std::as_const(touched)) {
        QVector<Marker>& markers = m_markersByResource[resource];
        if (markers.size() > kMaxMarkersPerResource)
            markers.remove(0, markers.size() - kMaxMarkersPerResource);
    }
    // A redraw only for markers it would show: on its resource, and in view (or coming into it,
    // while following).
    const auto shown = [this](const Anomaly& a) {
        const double ms = double(a.time) / double(kUsPerMs);
        return a.resource == m_resource &&
               (followsLive() || (ms >= visibleFromMs() && ms <= visibleToMs()));
    };
    if (std::any_of(batch.cbegin(), batch.cend(), shown))
        scheduleReplot();
}

void RvTimelineChart::clearAnomalies() {
    m_markersByResource.clear();
    scheduleReplot();
}

void RvTimelineChart::reset() {
    m_markersByResource.clear();
    m_drawnMarkers.clear();
    m_hasFocus = false;
    // A new session's watchers get the palette from its start again.
    m_watcherColors.clear();
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
    return int(m_drawnMarkers.size());
}

int RvTimelineChart::markersHeld(const QString& resource) const {
    return int(m_markersByResource.value(resource).size());
}

qint64 RvTimelineChart::oldestMarkerSerial(const QString& resource) const {
    const auto it = m_markersByResource.constFind(resource);
    return it == m_markersByResource.cend() || it->isEmpty() ? -1 : it->constFirst().serial;
}

int RvTimelineChart::pointCount(const QString& seriesName) const {
    const QXYSeries* s = boundSeries(seriesName);
    return s ? int(s->count()) : -1;
}

void RvTimelineChart::onMarkerClicked(const QPointF& point) {
    // The click reports the marker's data coordinates; take the nearest drawn marker in time.
    qint64 best = -1;
    double bestDistance = 0;
    for (const Marker& m : std::as_const(m_drawnMarkers)) {
        const double d = std::abs(m.timeMs / 1000.0 - point.x());
        if (best < 0 || d < bestDistance) {
            best = m.serial;
            bestDistance = d;
        }
    }
    if (best >= 0)
        emit anomalyClicked(best);
}

} // namespace ws

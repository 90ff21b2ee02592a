#include "AnomalyMarkerLayer.h"

#include <QChart>
#include <QScatterSeries>
#include <QSet>
#include <QValueAxis>
#include <algorithm>

namespace ws {

AnomalyMarkerLayer::AnomalyMarkerLayer(QChart* chart, QValueAxis* x, QValueAxis* y, QObject* parent)
    : QObject(parent), m_series(new QScatterSeries) {
    m_series->setName(tr("anomaly"));
    m_series->setMarkerShape(QScatterSeries::MarkerShapeCircle);
    m_series->setMarkerSize(10);
    m_series->setColor(QColor(0xd6, 0x27, 0x28));
    m_series->setBorderColor(Qt::white);
    chart->addSeries(m_series);
    m_series->attachAxis(x);
    m_series->attachAxis(y);
    connect(m_series, &QScatterSeries::clicked, this, &AnomalyMarkerLayer::onClicked);
}

bool AnomalyMarkerLayer::add(const AnomalyList& batch, qint64 firstSerial, const QString& resource,
                             bool following, double fromMs, double toMs) {
    // A batch is usually about one resource: look its list up once. (Only `last` is kept as a
    // pointer: a new key may move the hash's values.)
    QVector<Marker>* last = nullptr;
    QString lastResource;
    QSet<QString> touched;
    bool shown = false;
    for (int i = 0; i < batch.size(); ++i) {
        const Anomaly& a = batch.at(i);
        if (!last || a.resource != lastResource) {
            last = &m_byResource[a.resource];
            lastResource = a.resource;
            touched.insert(a.resource);
        }
        const Marker m{double(a.time) / double(kUsPerMs), a.rv, firstSerial + i, a.watcher};
        // Anomalies arrive nearly in time order; insert in place to keep binary search valid.
        auto pos = std::upper_bound(last->begin(), last->end(), m.timeMs,
                                    [](double x, const Marker& mk) { return x < mk.timeMs; });
        last->insert(pos, m);
        shown = shown ||
                (a.resource == resource && (following || (m.timeMs >= fromMs && m.timeMs <= toMs)));
    }
    // Trimmed once per batch: trimming per marker shifted the whole list for each one, which an
    // anomaly storm turned into most of a frame.
    for (const QString& r : std::as_const(touched)) {
        QVector<Marker>& markers = m_byResource[r];
        if (markers.size() > kMaxMarkersPerResource)
            markers.remove(0, markers.size() - kMaxMarkersPerResource);
    }
    return shown;
}

void AnomalyMarkerLayer::clear() {
    m_byResource.clear();
    m_drawn.clear();
    m_series->clear();
}

void AnomalyMarkerLayer::draw(const QString& resource, double fromMs, double toMs,
                              const Place& place, const std::function<void(double)>& drawn) {
    m_drawn.clear();
    QList<QPointF> points;
    const auto found = m_byResource.constFind(resource);
    if (found != m_byResource.cend()) {
        const QVector<Marker>& markers = *found;
        // Markers are in time order: skip straight to the visible ones.
        auto it = std::lower_bound(markers.cbegin(), markers.cend(), fromMs,
                                   [](const Marker& m, double x) { return m.timeMs < x; });
        for (; it != markers.cend() && it->timeMs <= toMs; ++it) {
            double y = 0;
            if (!place(*it, &y))
                continue;
            points.append(QPointF(it->timeMs / 1000.0, y));
            m_drawn.append(*it);
            drawn(y);
        }
    }
    // An unchanged set of markers is not handed to the chart again.
    if (points != m_series->points())
        m_series->replace(points);
}

int AnomalyMarkerLayer::held(const QString& resource) const {
    return int(m_byResource.value(resource).size());
}

qint64 AnomalyMarkerLayer::oldestSerial(const QString& resource) const {
    const auto it = m_byResource.constFind(resource);
    return it == m_byResource.cend() || it->isEmpty() ? -1 : it->constFirst().serial;
}

void AnomalyMarkerLayer::onClicked(const QPointF& point) {
    // The click reports the marker's data coordinates; take the nearest drawn marker in time.
    qint64 best = -1;
    double bestDistance = 0;
    for (const Marker& m : std::as_const(m_drawn)) {
        const double d = std::abs(m.timeMs / 1000.0 - point.x());
        if (best < 0 || d < bestDistance) {
            best = m.serial;
            bestDistance = d;
        }
    }
    if (best >= 0)
        emit clicked(best);
}

} // namespace ws

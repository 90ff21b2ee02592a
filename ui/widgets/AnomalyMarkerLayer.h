#pragma once

#include "model/Anomaly.h"

#include <QHash>
#include <QObject>
#include <QVector>
#include <functional>

class QChart;
class QScatterSeries;
class QValueAxis;

namespace ws {

// The anomaly markers of a time chart, one class for every chart that shows them (the RV
// timeline, the lag chart): the markers of each resource in time order (the newest
// kMaxMarkersPerResource kept), a scatter series with the visible ones, and a click on one
// reported by the anomaly's session-wide number, which opens it in the window.
class AnomalyMarkerLayer : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxMarkersPerResource = 5000;

    struct Marker {
        double timeMs;
        ResourceVersion rv;
        qint64 serial;
        QString watcher;
    };
    // Where a marker goes on the y axis; false: not drawn.
    using Place = std::function<bool(const Marker&, double* y)>;

    AnomalyMarkerLayer(QChart* chart, QValueAxis* x, QValueAxis* y, QObject* parent = nullptr);

    QScatterSeries* series() const { return m_series; }
    // `firstSerial`: the session-wide number of batch[0]. True when a marker of the batch is on
    // `resource` within [fromMs, toMs] (or later, when `following`): a redraw is due.
    bool add(const AnomalyList& batch, qint64 firstSerial, const QString& resource, bool following,
             double fromMs, double toMs);
    void clear();
    // Draws the markers of `resource` within [fromMs, toMs] where `place` puts them; calls
    // `drawn(y)` for each (the chart widens its y axis).
    void draw(const QString& resource, double fromMs, double toMs, const Place& place,
              const std::function<void(double)>& drawn);

    int drawnCount() const { return int(m_drawn.size()); }
    int held(const QString& resource) const;
    qint64 oldestSerial(const QString& resource) const; // -1 when none

signals:
    void clicked(qint64 anomalySerial);

private:
    void onClicked(const QPointF& point);

    QScatterSeries* m_series;
    QHash<QString, QVector<Marker>> m_byResource;
    QVector<Marker> m_drawn;
};

} // namespace ws

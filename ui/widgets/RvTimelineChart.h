#pragma once

#include "LiveChartView.h"
#include "model/Anomaly.h"

#include <QColor>
#include <QHash>
#include <QVector>

class QLineSeries;
class QScatterSeries;

namespace ws {

// Resource versions over time for one resource: etcd head, the watch cache and every watcher
// (the `watcher_rv:<id>` series), so lag reads as the vertical gap between lines. Anomalies on
// the resource are drawn as markers; a clicked marker names its anomaly row, and focusAnomaly()
// parks the view on an anomaly with a vertical line at its time.
class RvTimelineChart : public LiveChartView {
    Q_OBJECT
public:
    static constexpr int kMaxWatcherLines = 12; // beyond that the legend is unreadable
    static constexpr int kMaxMarkersPerResource = 5000;

    explicit RvTimelineChart(QWidget* parent = nullptr);

    // `firstSerial` is the session-wide number of batch[0] (AnomalyListModel::serialOf), so a
    // marker points back at its row even after the list dropped older ones.
    void addAnomalies(const AnomalyList& batch, qint64 firstSerial);
    void clearAnomalies();
    void focusAnomaly(const Anomaly& anomaly);
    void clearFocus();
    // Also forgets the markers, the watcher lines and their colours.
    void reset() override;

    int markerCount() const;                                  // markers drawn by the last replot
    int markersHeld(const QString& resource) const;           // kept for it (the oldest go first)
    qint64 oldestMarkerSerial(const QString& resource) const; // -1 when none
    int pointCount(const QString& seriesName) const; // points in a bound series after decimation

signals:
    void anomalyClicked(qint64 anomalySerial);

protected:
    void prepareReplot() override;
    void finishReplot(double fromMs, double toMs) override;
    void axesUpdated() override;
    void paletteApplied(const QPalette& palette) override;

private:
    struct Marker {
        double timeMs;
        ResourceVersion rv;
        qint64 serial;
    };
    QColor watcherColor(const QString& id);
    void onMarkerClicked(const QPointF& point);

    QScatterSeries* m_markers;
    QLineSeries* m_focusLine;
    QHash<QString, QVector<Marker>> m_markersByResource;
    QVector<Marker> m_drawnMarkers;
    QHash<QString, QColor> m_watcherColors;
    double m_focusMs = -1;
    bool m_hasFocus = false;
};

} // namespace ws

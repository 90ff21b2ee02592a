#pragma once

#include "AnomalyMarkerLayer.h"
#include "LiveChartView.h"
#include "charts/WatcherPalette.h"
#include "model/Anomaly.h"

class QLineSeries;

namespace ws {

// Resource versions over time for one resource: etcd head, the watch cache and every watcher
// (the `watcher_rv:<id>` series), so lag reads as the vertical gap between lines. Anomalies on
// the resource are drawn as markers; a clicked marker names its anomaly row, and focusAnomaly()
// parks the view on an anomaly with a vertical line at its time.
class RvTimelineChart : public LiveChartView {
    Q_OBJECT
public:
    static constexpr int kMaxWatcherLines = 12; // beyond that the legend is unreadable
    static constexpr int kMaxMarkersPerResource = AnomalyMarkerLayer::kMaxMarkersPerResource;

    explicit RvTimelineChart(QWidget* parent = nullptr);

    // Watcher colours shared with the other charts of the pane (its own palette otherwise).
    void setWatcherPalette(WatcherPalette* palette);

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
    AnomalyMarkerLayer* m_markers;
    QLineSeries* m_focusLine;
    WatcherPalette m_ownPalette;
    WatcherPalette* m_palette = &m_ownPalette;
    double m_focusMs = -1;
    bool m_hasFocus = false;
};

} // namespace ws

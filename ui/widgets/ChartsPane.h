#pragma once

#include "engine/EngineUpdate.h"

#include <QWidget>

class QSplitter;

namespace ws {

class BufferOccupancyChart;
class ChartData;
class RvTimelineChart;

// The charts of the resource shown: its resource versions over time (etcd head, watch cache,
// watchers, anomaly markers) and its watch cache's buffer, side by side over one time window.
// Both read the window's ChartData; what they show (resource, span, following or parked) is
// given to both at once.
class ChartsPane : public QWidget {
    Q_OBJECT
public:
    explicit ChartsPane(const ChartData* data, QWidget* parent = nullptr);

    RvTimelineChart* rvChart() const { return m_rvChart; }
    BufferOccupancyChart* bufferChart() const { return m_bufferChart; }

    void setResource(const QString& resource);
    void setSpan(double seconds);
    void setFollowLive(bool follow);
    void setFrozen(bool frozen);
    // Session time of the newest data (ms).
    void setLiveEdge(double ms);
    // `firstSerial`: the session-wide number of batch[0] (a marker names its anomaly by it).
    void addAnomalies(const AnomalyList& batch, qint64 firstSerial);
    void applySnapshots(const QVector<CacheSnapshot>& caches);
    // Parks both charts on the anomaly (the RV chart marks it with a line).
    void focusAnomaly(const Anomaly& anomaly);
    // Forgets the session (markers, watcher lines, time); span and follow mode stay.
    void reset();

signals:
    void anomalyClicked(qint64 anomalySerial); // a marker, by the anomaly's session number
    void spanChanged(double seconds);          // a wheel zoom on either chart
    void followLiveChanged(bool follow);       // parked on an anomaly, or following again

private:
    RvTimelineChart* m_rvChart;
    BufferOccupancyChart* m_bufferChart;
};

} // namespace ws

#pragma once

#include "engine/EngineUpdate.h"

#include <QHash>
#include <QTimer>
#include <QWidget>

class QLabel;
class QProgressBar;

namespace ws {

class LiveChartView;

// The watch cache's ring buffer for one resource: `buffer_used` against `buffer_capacity` over
// time, and a gauge with the current fill. A buffer running full is what pushes slow or
// selector-filtered watchers out of its window (410 Gone), so it sits next to the RV chart.
class BufferOccupancyChart : public QWidget {
    Q_OBJECT
public:
    explicit BufferOccupancyChart(QWidget* parent = nullptr);

    LiveChartView* view() const { return m_view; }
    void setResource(const QString& resource);
    void applySnapshots(const QVector<CacheSnapshot>& caches);
    // Forgets the snapshots and the view's time, for a new session.
    void reset();

    QString gaugeText() const;
    int pointCount(const QString& seriesName) const;

private:
    void updateGauge();

    LiveChartView* m_view;
    QLabel* m_caption;
    QProgressBar* m_gauge;
    QString m_resource;
    QHash<QString, CacheSnapshot> m_latest; // by resource + apiserver
    // The gauge's numbers change with nearly every update: redrawn at most kGaugeIntervalMs
    // apart (a QProgressBar repaint per update was a tenth of the window's CPU).
    static constexpr int kGaugeIntervalMs = 250;
    QTimer m_gaugeTimer;
    bool m_gaugeDirty = false;
};

} // namespace ws

#pragma once

#include "engine/EngineUpdate.h"
#include "viewstate/ThrottledRefresh.h"

#include <QHash>
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
    // The gauge changes with every update; a few redraws a second read the same.
    ThrottledRefresh m_gaugeRefresh{250, [this] { updateGauge(); }};
};

} // namespace ws

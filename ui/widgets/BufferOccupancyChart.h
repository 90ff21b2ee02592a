#pragma once

#include "engine/EngineUpdate.h"
#include "viewstate/ThrottledRefresh.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace ws {

class LiveChartView;
class RingBufferModel;

// The watch cache's ring buffers of one resource, every apiserver's side by side: a table with
// each one's used / capacity, oldest RV, evictions and resizes (RingBufferModel), and over time
// each one's `buffer_used` against its `buffer_capacity` (the first apiserver's series are
// unsuffixed, the others' end in ":apiserver-N"), with the start of each eviction episode and
// each resize marked. A buffer running full is what pushes slow or selector-filtered watchers
// out of its window (410 Gone), so it sits next to the RV chart. The chart redraws only for
// samples or marks it shows; snapshots that change nothing change nothing on screen.
class BufferOccupancyChart : public QWidget {
    Q_OBJECT
public:
    explicit BufferOccupancyChart(QWidget* parent = nullptr);

    LiveChartView* view() const { return m_view; }
    RingBufferModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    void setResource(const QString& resource);
    // `now`: the session time of the snapshots.
    void applySnapshots(const QVector<CacheSnapshot>& caches, TimeUs now = 0);
    // Forgets the snapshots and the view's time, for a new session.
    void reset();

    // The fullest ring of the resource: "used / capacity (fill%)", "unknown / capacity" or
    // "no data".
    QString gaugeText() const;
    int pointCount(const QString& seriesName) const;
    // Eviction and resize marks drawn by the last replot.
    int evictionMarksDrawn() const;
    int resizeMarksDrawn() const;

private:
    void updateCaption();
    void fitTable();
    void applyPending();

    LiveChartView* m_view;
    RingBufferModel* m_model;
    QLabel* m_caption;
    QTableView* m_table;
    // Snapshots come with every update (30 a second); the table is read by eye, so the rings
    // take the newest ones a few times a second (an eviction still shows: the oldest RV moved
    // while full between two of them).
    QVector<CacheSnapshot> m_pending;
    TimeUs m_pendingNow = 0;
    ThrottledRefresh m_refresh{250, [this] { applyPending(); }};
};

} // namespace ws

#pragma once

#include "charts/WatcherPalette.h"
#include "engine/EngineUpdate.h"

#include <QWidget>

class QButtonGroup;
class QComboBox;
class QStackedWidget;

namespace ws {

class BufferOccupancyChart;
class ChartData;
class LagChart;
class ListPressureChart;
class LiveChartView;
class RvTimelineChart;

// The charts of the resource shown: on the left its resource versions over time (etcd head,
// watch cache, watchers, anomaly markers) or, toggled, how far each watcher is behind the head
// (LagChart, in revisions or seconds); on the right its watch cache's buffer; all over one time
// window. They read the window's ChartData and share one watcher palette; what they show
// (resource, span, following or parked) is given to all at once, and a chart the reader zooms or
// pans (ChartInteraction) moves the others with it. The chart not shown is not redrawn.
class ChartsPane : public QWidget {
    Q_OBJECT
public:
    enum class View { ResourceVersions, Lag };

    explicit ChartsPane(const ChartData* data, QWidget* parent = nullptr);

    RvTimelineChart* rvChart() const { return m_rvChart; }
    LagChart* lagChart() const { return m_lagChart; }
    BufferOccupancyChart* bufferChart() const { return m_bufferChart; }
    // Under the RV chart, for resources whose source records apiserver memory.
    ListPressureChart* listPressureChart() const { return m_listChart; }

    void setView(View view);
    View view() const;
    QComboBox* lagUnitChooser() const { return m_unitBox; }

    void setResource(const QString& resource);
    void setSpan(double seconds);
    void setFollowLive(bool follow);
    void setFrozen(bool frozen);
    // Session time of the newest data (ms).
    void setLiveEdge(double ms);
    // `firstSerial`: the session-wide number of batch[0] (a marker names its anomaly by it).
    void addAnomalies(const AnomalyList& batch, qint64 firstSerial);
    // `now`: the session time of the snapshots (where the buffer chart marks what it sees).
    void applySnapshots(const QVector<CacheSnapshot>& caches, TimeUs now = 0);
    // Parks the charts on the anomaly (the RV chart marks it with a line).
    void focusAnomaly(const Anomaly& anomaly);
    // Forgets the session (markers, watcher lines, colours, time); span and follow mode stay.
    void reset();

signals:
    void anomalyClicked(qint64 anomalySerial); // a marker, by the anomaly's session number
    void spanChanged(double seconds);          // a zoom on any chart
    void followLiveChanged(bool follow);       // parked (an anomaly, a pan), or following again
    void viewChanged(ws::ChartsPane::View view);

private:
    QList<LiveChartView*> views() const;
    void updateListChartVisibility();

    WatcherPalette m_palette;
    RvTimelineChart* m_rvChart;
    LagChart* m_lagChart;
    BufferOccupancyChart* m_bufferChart;
    ListPressureChart* m_listChart;
    const ChartData* m_data;
    QString m_resource;
    QStackedWidget* m_stack;
    QButtonGroup* m_viewButtons;
    QComboBox* m_unitBox;
};

} // namespace ws

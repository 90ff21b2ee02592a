#pragma once

#include <QChartView>
#include <QHash>
#include <QList>
#include <QPointF>
#include <QString>
#include <QTimer>

class QValueAxis;
class QXYSeries;

namespace ws {

class ChartData;
class ChartInteraction;

// A time chart over ChartData for one resource: x in seconds of session time, following the
// live edge or parked on a chosen moment. Replots are coalesced by a timer (at most ~30 a
// second) and each bound series gets at most one replace() per replot with min/max-decimated
// points, never per-point append() (quadratic in QtCharts), and none when its points did not
// change. A replot happens only when what is shown changed: following, once the live edge moved
// kFollowStepColumns pixel columns (or the updates paused); parked, when new samples land in
// view; never while the chart is hidden (one replot catches up when it is shown). Wheel, drag and
// keys move it through ChartInteraction. Software rendering only: OpenGL crashes on the
// offscreen platform CI uses.
class LiveChartView : public QChartView {
    Q_OBJECT
public:
    static constexpr int kReplotIntervalMs = 33;
    // Following the live edge, redraw once it moved this many pixel columns...
    static constexpr int kFollowStepColumns = 8;
    // ...or this long after the last update that moved it less.
    static constexpr int kSettleMs = 400;

    explicit LiveChartView(QWidget* parent = nullptr);

    void setChartData(const ChartData* data);
    void setResource(const QString& resource);
    QString resource() const { return m_resource; }

    // Session time of the newest data; the view follows it unless parked. Schedules a replot
    // only when that changes what is shown: a view parked away from the newest data is not
    // redrawn for samples it would not show.
    void setLiveEdge(double ms);
    // Forgets the session's data and time (the live edge only grows otherwise), for a new
    // session that starts again at 0; the span and the follow mode stay as chosen.
    virtual void reset();
    double liveEdgeMs() const { return m_edgeMs; }
    void setSpanSeconds(double seconds);
    double spanSeconds() const { return m_spanMs / 1000.0; }
    void setFollowLive(bool follow);
    bool followsLive() const { return m_follow; }
    // Parks the view centred on `ms` (stops following the live edge).
    void centerOn(double ms);
    // The same, asked by the reader (a drag, a key): also reported by navigated(), so the other
    // charts of the window park there too.
    void navigateTo(double ms);
    // The centre of the window the next replot shows.
    double viewCentreMs() const;
    // The time of the oldest sample kept of the bound series (0 when none).
    double dataStartMs() const;
    ChartInteraction* interaction() const { return m_interaction; }
    // While frozen the view keeps what it shows; one replot catches up on unfreeze.
    void setFrozen(bool frozen);
    bool isFrozen() const { return m_frozen; }
    // Floor the y axis at 0 (counts), instead of fitting the data (RVs).
    void setYIncludesZero(bool include) { m_yIncludesZero = include; }
    // For RVs, 0 means "absent" (a cache restarting): such samples are drawn but do not stretch
    // the y axis, so the line drops out of view instead of squashing every other line.
    void setZeroMeansAbsent(bool absent) { m_zeroMeansAbsent = absent; }
    // Values are drawn divided by this (bytes shown in GiB).
    void setYDivisor(double divisor) { m_yDivisor = divisor; }

    void bindSeries(const QString& name, QXYSeries* series);
    void unbindSeries(const QString& name);
    bool isBound(const QString& name) const { return m_bound.contains(name); }
    QXYSeries* boundSeries(const QString& name) const { return m_bound.value(name); }
    QStringList boundNames() const { return m_bound.keys(); }

    QValueAxis* axisX() const { return m_axisX; }
    QValueAxis* axisY() const { return m_axisY; }
    // Visible x range in ms of the last replot.
    double visibleFromMs() const { return m_fromMs; }
    double visibleToMs() const { return m_toMs; }
    int replotCount() const { return m_replotCount; }
    // Series replaced and axes changed by the replots so far: what they actually redrew.
    int seriesReplaced() const { return m_seriesReplaced; }
    int axisChanges() const { return m_axisChanges; }
    int plotColumns() const;
    int lastReplotColumns() const { return m_lastColumns; } // decimation width last used
    // Dark scheme: a palette whose window colour is dark (Qt 6.4 has no colour-scheme hint;
    // the platform theme hands the system's scheme over as the palette).
    static bool isDark(const QPalette& palette);

public slots:
    void scheduleReplot();
    void replotNow();

signals:
    void followLiveChanged(bool follow);
    void spanChanged(double seconds);
    void navigated(double centreMs); // the reader moved the parked view (navigateTo)

protected:
    // Hooks for subclasses: adjust the bound series before, add decorations after.
    virtual void prepareReplot() {}
    virtual void finishReplot(double /*fromMs*/, double /*toMs*/) {}
    virtual void axesUpdated() {}
    // The palette changed (light/dark): recolour what the subclass drew in palette colours.
    virtual void paletteApplied(const QPalette& /*palette*/) {}
    // The names of the `max` largest values (all of them, in order, when there are no more):
    // which watcher lines a chart with too many of them keeps.
    static QStringList largestFirst(QVector<QPair<double, QString>> candidates, int max);
    // Let subclasses widen the y range (e.g. for markers) before the axis is set.
    void includeY(double y);
    // The y range of what was plotted so far in this replot (false when nothing was).
    bool plottedYRange(double* lo, double* hi) const;
    // replace() only when the points differ from the series' own: a replace re-lays the whole
    // series out and repaints it even when nothing moved. True when it replaced.
    static bool replaceIfChanged(QXYSeries* series, const QList<QPointF>& points);

    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

    const ChartData* m_data = nullptr;
    QString m_resource;

private:
    void applyPalette();

    QValueAxis* m_axisX;
    QValueAxis* m_axisY;
    ChartInteraction* m_interaction = nullptr;
    QHash<QString, QXYSeries*> m_bound;
    QTimer m_replotTimer;
    QTimer m_settleTimer;
    double m_edgeMs = 0;
    double m_drawnEdgeMs = 0; // the live edge at the last replot
    double m_centerMs = 0;
    double m_spanMs = 60 * 1000.0;
    double m_fromMs = 0;
    double m_toMs = 0;
    double m_yMin = 0;
    double m_yMax = 0;
    bool m_yValid = false;
    bool m_follow = true;
    bool m_frozen = false;
    bool m_pendingWhileFrozen = false;
    bool m_pendingWhileHidden = false;
    bool m_yIncludesZero = false;
    bool m_zeroMeansAbsent = false;
    double m_yDivisor = 1.0;
    int m_replotCount = 0;
    int m_seriesReplaced = 0;
    int m_axisChanges = 0;
    int m_lastColumns = 0;
    quint64 m_drawnGeneration = 0; // ChartData's generation of the resource last drawn
};

} // namespace ws

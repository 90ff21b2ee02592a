#pragma once

#include "AnomalyMarkerLayer.h"
#include "LiveChartView.h"
#include "charts/WatcherPalette.h"

class QLineSeries;

namespace ws {

// How far behind the head each watcher of one resource is, over time: the `watcher_lag:<id>`
// (revisions) or `watcher_lag_seconds:<id>` (seconds) series the engine records for every
// watcher of every source, from 0 up. On the absolute RV axis a lagging watcher hides between
// overlapping lines; here a watcher in sync lies on 0 and a lagging or stuck one rises. With
// more than kMaxWatcherLines watchers, the most lagging ones are drawn. Anomaly markers sit on
// their watcher's line and open the anomaly when clicked; in seconds the watcher-lag threshold
// is drawn as a dashed line.
class LagChart : public LiveChartView {
    Q_OBJECT
public:
    enum class Unit { Revisions, Seconds };
    static constexpr int kMaxWatcherLines = 12;

    explicit LagChart(QWidget* parent = nullptr);

    void setWatcherPalette(WatcherPalette* palette);
    void setUnit(Unit unit);
    Unit unit() const { return m_unit; }
    // The series prefix of the unit: "watcher_lag:" or "watcher_lag_seconds:".
    QString seriesPrefix() const;
    // "watcher_lag:<id>" (or the seconds one) of a watcher.
    QString seriesName(const QString& watcherId) const;

    void addAnomalies(const AnomalyList& batch, qint64 firstSerial);
    void reset() override;

    QStringList watcherLines() const; // ids of the watchers drawn, sorted
    int pointCount(const QString& seriesName) const;
    // The largest value drawn of a watcher's line in the last replot (-1: not drawn).
    double drawnMax(const QString& watcherId) const;
    int markerCount() const { return m_markers->drawnCount(); }

signals:
    void anomalyClicked(qint64 anomalySerial);
    void unitChanged(ws::LagChart::Unit unit);

protected:
    void prepareReplot() override;
    void finishReplot(double fromMs, double toMs) override;
    void paletteApplied(const QPalette& palette) override;

private:
    void unbindWatchers();
    void restack();

    Unit m_unit = Unit::Revisions;
    AnomalyMarkerLayer* m_markers;
    QLineSeries* m_threshold;
    WatcherPalette m_ownPalette;
    WatcherPalette* m_palette = &m_ownPalette;
};

} // namespace ws

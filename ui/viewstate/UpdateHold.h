#pragma once

#include "engine/EngineUpdate.h"

#include <QHash>
#include <QObject>

namespace ws {

// Pause/hold of the view (View → Pause view, Ctrl+Space): while paused, what the session sends
// is held instead of shown, and nothing is lost. Snapshots are merged (the latest per watcher and
// per cache), incidents too (the latest of each, in the order they first came), and anomalies
// are kept up to the anomaly list's bound: what the list would drop on resume anyway is dropped
// now, a batch at a time, and counted, so memory stays bounded however long the pause lasts.
// Series are not held: they go into the charts' data at once and frozen charts just do not draw
// them. No widgets: the window asks it what to hold and what to show on resume.
class UpdateHold : public QObject {
    Q_OBJECT
public:
    struct Released {
        EngineUpdate update;         // watchers, caches, incidents and anomalies held
        qint64 missingAnomalies = 0; // came before update.anomalies, dropped while held
    };

    using QObject::QObject;

    bool paused() const { return m_paused; }
    // Emits pausedChanged; resuming does not release by itself: the caller takes release().
    void setPaused(bool paused);

    // Holds what `update` would have shown. `maxAnomalies`/`dropBatch`: the anomaly list's bound
    // (AnomalyListModel::maxRows()/dropBatch()), read at each call since it can be changed.
    void hold(const EngineUpdate& update, int maxAnomalies, int dropBatch);
    // Everything held, in arrival order, and forgets it.
    Released release();
    // Forgets everything held and resumes (a new session: held data is the old one's).
    void clear();

    // New anomalies since the pause: those in memory and those already dropped.
    qint64 anomaliesHeld() const { return qint64(m_anomalies.size()) + m_dropped; }
    int anomaliesInMemory() const { return int(m_anomalies.size()); }
    int incidentsHeld() const { return int(m_incidents.size()); }

signals:
    void pausedChanged(bool paused);

private:
    bool m_paused = false;
    QHash<QString, WatcherSnapshot> m_watchers;
    QHash<QString, CacheSnapshot> m_caches;
    QVector<Incident> m_incidents;
    QHash<qint64, qsizetype> m_incidentIndex; // id -> position in m_incidents
    AnomalyList m_anomalies;
    qint64 m_dropped = 0;
};

} // namespace ws

#pragma once

#include "engine/EngineUpdate.h"

#include <QObject>
#include <QString>

namespace ws {

// What the status bar says about the session: its state ("Waiting for data", "Live" or what a
// live source is doing, "View paused — 12 new anomalies held", "Finished", "Failed: …"), session
// time, events and rate, and the counts the window keeps (updates applied, stale ones dropped,
// the last error). The state reads, most important first: failed, paused, finished, live.
// No widgets: the window shows its texts whenever changed() is emitted.
class SessionStatus : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    QString stateText() const;
    bool isError() const { return m_failed; } // the state is drawn as an error
    QString timeText() const;
    QString eventsText() const;
    QString rateText() const;

    // An update arrived (counted; its time, events, rate and the source's own state kept),
    // to be shown or held.
    void noteArrived(const EngineUpdate& update);
    // What arrived was shown: the state is the source's latest ("" reads "Live").
    void noteShown();
    void setPaused(bool paused);
    void setHeld(qint64 anomalies); // held while paused
    void fail(const QString& message);
    void finish();
    void noteStale() { ++m_staleUpdates; } // an update of a previous session, dropped
    void setLastError(const QString& message) { m_lastError = message; }

    bool finished() const { return m_finished; }
    bool failed() const { return m_failed; }
    bool paused() const { return m_paused; }
    QString lastError() const { return m_lastError; }
    int updatesApplied() const { return m_updatesApplied; }
    int staleUpdates() const { return m_staleUpdates; }

    // A new session: waiting for data again, every count at 0.
    void reset();

signals:
    void changed();

private:
    TimeUs m_now = 0;
    qint64 m_events = 0;
    double m_rate = 0;
    bool m_shown = false;
    QString m_sourceState;
    bool m_paused = false;
    qint64 m_held = 0;
    bool m_finished = false;
    bool m_failed = false;
    QString m_failure;
    QString m_lastError;
    int m_updatesApplied = 0;
    int m_staleUpdates = 0;
};

} // namespace ws

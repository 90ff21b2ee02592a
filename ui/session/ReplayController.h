#pragma once

#include "engine/EngineUpdate.h"
#include "engine/ReplayControl.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <atomic>
#include <memory>

class QThread;

namespace ws {

class MainWindow;
class Session;
class SessionSwitcher;

// Play/pause, speed and seek of a capture being replayed, between the window's ReplayBar and
// the session's ReplayControl (which the replay source consults on the session thread: nothing
// here waits for the engine). A seek forward plays as fast as possible up to the target on the
// running session; a seek back (or any seek once the replay has ended) opens the capture again
// on a fresh session that runs as fast as possible up to the target and then pauses or plays
// on as before — the engine derives everything from the recorded frames, so this is exact. The
// bar shows the seek's progress. The recorded duration is measured on a thread of its own.
class ReplayController : public QObject {
    Q_OBJECT
public:
    ReplayController(MainWindow* window, SessionSwitcher* switcher);
    ~ReplayController() override;

    bool active() const { return m_control != nullptr; } // a capture is being replayed
    TimeUs duration() const { return m_duration; }       // -1 until measured
    TimeUs position() const { return m_position; }       // session time of the last update
    bool paused() const { return m_paused; }
    bool seeking() const { return m_seekTarget >= 0; }
    bool replayFinished() const { return m_finished; }
    double speed() const;

public slots:
    void setPaused(bool paused);
    void setSpeed(double speed);
    void seek(ws::TimeUs target);

signals:
    void durationMeasured(ws::TimeUs duration);
    void seekFinished(ws::TimeUs position);

private:
    void onSwitched();
    void onUpdate(const EngineUpdate& update);
    void endSeek();
    void measure(const QString& path);
    void stopMeasuring(bool wait = false);

    MainWindow* m_window;
    SessionSwitcher* m_switcher;
    std::shared_ptr<ReplayControl> m_control;
    QPointer<Session> m_session;
    QString m_path;
    TimeUs m_duration = -1;
    TimeUs m_position = 0;
    TimeUs m_seekFrom = 0;
    TimeUs m_seekTarget = -1;
    bool m_paused = false;
    bool m_finished = false;
    bool m_keepSeek = false; // a seek back is switching sessions
    QList<QThread*> m_measuring;
    std::shared_ptr<std::atomic<bool>> m_cancelMeasure;
    quint64 m_measureGeneration = 0;
};

} // namespace ws

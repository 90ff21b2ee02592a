#pragma once

#include "engine/SourceSpec.h"

#include <QObject>
#include <QPointer>
#include <optional>

namespace ws {

class ConnectDialog;
class MainWindow;
class ReplayController;
class Session;
class SessionRecording;
class WhatIfController;

// Moves the window from one session to another without restarting the program: to the
// simulator on a scenario picked in the window, or to a cluster chosen in the connect dialog.
// The new session is prepared first (a scenario with the running speed and its own seed): when
// that fails the old one keeps running and the window says why. Otherwise the old session is
// stopped, the window moved to the new one with a clean slate, the old one deleted and the new
// one started. Owns the sessions; the window only observes them.
class SessionSwitcher : public QObject {
    Q_OBJECT
public:
    // `prepared` is the session the window shows now (prepared, maybe not started); `spec` is
    // the source it was made with (a scenario's speed and --resources carry over to picked ones).
    SessionSwitcher(MainWindow* window, Session* prepared, SourceSpec spec,
                    QObject* parent = nullptr);
    ~SessionSwitcher() override;

    Session* session() const { return m_session; }
    // The scenario running, empty when watching a live source.
    QString currentScenario() const { return m_current; }
    SourceSpec currentSpec() const { return m_currentSpec; }
    void start();
    void stop();
    // The connect dialog while it is open (tests drive it).
    ConnectDialog* connectDialog() const;
    // Play/pause/speed/seek of a capture replay, and the Record button.
    ReplayController* replay() const { return m_replay; }
    SessionRecording* recording() const { return m_recording; }
    // File → What If… on the capture being replayed.
    WhatIfController* whatIf() const { return m_whatIf; }

public slots:
    // A built-in name or a .yaml path; false (and the old session untouched) on failure.
    bool switchTo(const QString& nameOrPath);
    // Any source (a cluster from the connect dialog); false, the old session untouched and the
    // reason shown on failure. A cluster is remembered among the recent connections.
    bool switchToSource(const ws::SourceSpec& spec);
    // The current source again from the start: a scenario with the same seed (a file is read
    // again), a cluster connected again.
    bool restart();
    // Opens the connect dialog (window-modal, the session keeps running behind it).
    void openConnectDialog();
    // Replays a .wscap capture (paced by a ReplayControl, at 1× to begin with); false, the
    // old session untouched and one line shown ("Capture not opened: …") when it cannot be
    // read. A capture opened is remembered among the recent captures; a missing one is
    // forgotten.
    bool openCapture(const QString& path);
    // Asks for a capture file (window-modal, the session keeps running behind it).
    void chooseCaptureFile();
    // Fills File → Recent Captures again (missing files greyed).
    void refreshRecentCaptures();

public:
    // The source spec of a capture replay (--open, File → Open Capture…): the header's
    // --resources, a fresh ReplayControl at `speed`; nullopt with one line when `path` is not a
    // readable capture.
    static std::optional<SourceSpec> captureSpec(const QString& path, double speed, QString* error);

signals:
    // The scenario's name or path, or the live source's description.
    void switched(const QString& what);
    void switchFailed(const QString& error);

private:
    bool run(const SourceSpec& spec);
    void showQualifier();

    QPointer<MainWindow> m_window;
    ScenarioSourceSpec m_scenarioDefaults; // speed of the simulator for picked scenarios
    QStringList m_scenarioResources;       // --resources given with the scenario
    SourceSpec m_currentSpec;
    Session* m_session;
    QString m_current;
    QPointer<ConnectDialog> m_connectDialog;
    ReplayController* m_replay = nullptr;
    SessionRecording* m_recording = nullptr;
    WhatIfController* m_whatIf = nullptr;
};

} // namespace ws

#pragma once

#include "engine/SourceSpec.h"

#include <QObject>
#include <QPointer>
#include <optional>

namespace ws {

class MainWindow;
class Session;

// Runs the window's simulator on the scenario picked in it, without restarting the program. The
// new session is prepared first (same speed, the scenario's own seed): when that fails the old
// one keeps running and the window says why. Otherwise the old session is stopped, the window
// moved to the new one with a clean slate, the old one deleted and the new one started.
// Owns the sessions; the window only observes them.
class ScenarioSwitcher : public QObject {
    Q_OBJECT
public:
    // `prepared` is the session the window shows now (prepared, maybe not started); `spec` is
    // the scenario source it was made with (speed, --resources carry over to picked ones).
    ScenarioSwitcher(MainWindow* window, Session* prepared, SourceSpec spec,
                     QObject* parent = nullptr);
    ~ScenarioSwitcher() override;

    Session* session() const { return m_session; }
    QString currentScenario() const { return m_current; }
    void start();
    void stop();

public slots:
    // A built-in name or a .yaml path; false (and the old session untouched) on failure.
    bool switchTo(const QString& nameOrPath);
    // The current scenario again from the start, with the same seed (a file is read again).
    bool restart();

signals:
    void switched(const QString& nameOrPath);
    void switchFailed(const QString& error);

private:
    QPointer<MainWindow> m_window;
    SourceSpec m_spec;
    Session* m_session;
    QString m_current;
    std::optional<std::uint64_t> m_currentSeed; // unset: the scenario's own

    bool run(const QString& nameOrPath, std::optional<std::uint64_t> seed);
};

} // namespace ws

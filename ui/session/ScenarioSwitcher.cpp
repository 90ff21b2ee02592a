#include "ScenarioSwitcher.h"

#include "engine/SimulationSession.h"
#include "scenario/ScenarioLoader.h"
#include "widgets/MainWindow.h"
#include "widgets/ScenarioPicker.h"

#include <QAction>
#include <memory>

namespace ws {

ScenarioSwitcher::ScenarioSwitcher(MainWindow* window, SimulationSession* prepared,
                                   SimulationOptions options, QObject* parent)
    : QObject(parent), m_window(window), m_options(std::move(options)), m_session(prepared),
      m_current(m_options.scenario) {
    m_session->setParent(this);
    // A --seed is for the scenario it was given with (and its restarts); a picked one runs with
    // the seed its file chose, which is the one that reproduces its incident.
    m_currentSeed = m_options.seed;
    m_options.seed.reset();

    QString error;
    std::vector<ScenarioSummary> builtins = ScenarioLoader::builtinSummaries(&error);
    if (!error.isEmpty())
        qWarning("watchscope: %s", qPrintable(error));
    m_window->setScenarios(builtins, m_current);
    m_window->setSessionNote(m_session->explanation());
    connect(m_window->scenarioPicker(), &ScenarioPicker::scenarioChosen, this,
            &ScenarioSwitcher::switchTo);
    connect(m_window->restartScenarioAction(), &QAction::triggered, this, [this] { restart(); });
}

ScenarioSwitcher::~ScenarioSwitcher() {
    stop();
}

void ScenarioSwitcher::start() {
    m_session->start();
}

void ScenarioSwitcher::stop() {
    m_session->stop();
}

bool ScenarioSwitcher::switchTo(const QString& nameOrPath) {
    return run(nameOrPath, std::nullopt);
}

bool ScenarioSwitcher::restart() {
    return run(m_current, m_currentSeed);
}

bool ScenarioSwitcher::run(const QString& nameOrPath, std::optional<std::uint64_t> seed) {
    SimulationOptions options = m_options;
    options.scenario = nameOrPath;
    options.seed = seed;
    auto next = std::make_unique<SimulationSession>(options);
    QString error;
    if (!next->prepare(&error)) {
        if (m_window) {
            m_window->scenarioPicker()->setCurrentScenario(m_current);
            m_window->showSwitchError(error);
        }
        emit switchFailed(error);
        return false;
    }

    SimulationSession* old = m_session;
    // Stopped before the window lets go of it: after stop() returns no further update can be
    // queued, and the ones already queued are dropped by the window.
    old->stop();
    m_session = next.release();
    m_session->setParent(this);
    m_current = nameOrPath;
    m_currentSeed = seed;
    if (m_window) {
        m_window->setSession(m_session);
        m_window->setSessionNote(m_session->explanation());
        m_window->scenarioPicker()->setCurrentScenario(nameOrPath);
    }
    old->deleteLater();
    m_session->start();
    emit switched(nameOrPath);
    return true;
}

} // namespace ws

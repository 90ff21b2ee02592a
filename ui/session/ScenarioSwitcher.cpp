#include "ScenarioSwitcher.h"

#include "engine/Session.h"
#include "scenario/ScenarioLoader.h"
#include "sources/SourceFactory.h"
#include "widgets/MainWindow.h"
#include "widgets/ScenarioPicker.h"

#include <QAction>
#include <memory>

namespace ws {

ScenarioSwitcher::ScenarioSwitcher(MainWindow* window, Session* prepared, SourceSpec spec,
                                   QObject* parent)
    : QObject(parent), m_window(window), m_spec(std::move(spec)), m_session(prepared),
      m_current(m_spec.scenario.scenario) {
    m_session->setParent(this);
    // A --seed is for the scenario it was given with (and its restarts); a picked one runs with
    // the seed its file chose, which is the one that reproduces its incident.
    m_currentSeed = m_spec.scenario.seed;
    m_spec.scenario.seed.reset();

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
    SourceSpec spec = m_spec;
    spec.scenario.scenario = nameOrPath;
    spec.scenario.seed = seed;
    QString error;
    std::unique_ptr<Session> next =
        Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error);
    if (!next) {
        if (m_window) {
            m_window->scenarioPicker()->setCurrentScenario(m_current);
            m_window->showSwitchError(error);
        }
        emit switchFailed(error);
        return false;
    }

    Session* old = m_session;
    // The window lets go of the old session first: updates it still delivers are dropped. It
    // stops on its own thread and deletes itself; the GUI thread never waits for it.
    m_session = next.release();
    m_session->setParent(this);
    m_current = nameOrPath;
    m_currentSeed = seed;
    if (m_window) {
        m_window->setSession(m_session);
        m_window->setSessionNote(m_session->explanation());
        m_window->scenarioPicker()->setCurrentScenario(nameOrPath);
    }
    old->stopLater();
    m_session->start();
    emit switched(nameOrPath);
    return true;
}

} // namespace ws

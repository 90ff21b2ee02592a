#include "SessionSwitcher.h"

#include "RecentConnections.h"
#include "engine/Session.h"
#include "scenario/ScenarioLoader.h"
#include "sources/SourceFactory.h"
#include "widgets/ConnectDialog.h"
#include "widgets/MainWindow.h"
#include "widgets/ScenarioPicker.h"

#include <QAction>
#include <memory>

namespace ws {

namespace {
bool isCluster(const SourceSpec& spec) {
    return spec.kind == SourceSpec::Kind::Kubeconfig || spec.kind == SourceSpec::Kind::Server;
}
} // namespace

SessionSwitcher::SessionSwitcher(MainWindow* window, Session* prepared, SourceSpec spec,
                                 QObject* parent)
    : QObject(parent), m_window(window), m_currentSpec(spec), m_session(prepared) {
    m_session->setParent(this);
    m_scenarioDefaults.speed = spec.scenario.speed;
    if (spec.kind == SourceSpec::Kind::Scenario) {
        m_current = spec.scenario.scenario;
        m_scenarioResources = spec.resources;
    }
    // A --seed is for the scenario it was given with (and its restarts); a picked one runs with
    // the seed its file chose, which is the one that reproduces its incident.

    QString error;
    std::vector<ScenarioSummary> builtins = ScenarioLoader::builtinSummaries(&error);
    if (!error.isEmpty())
        qWarning("watchscope: %s", qPrintable(error));
    m_window->setScenarios(builtins, m_current);
    m_window->setSessionNote(m_session->explanation());
    connect(m_window->scenarioPicker(), &ScenarioPicker::scenarioChosen, this,
            &SessionSwitcher::switchTo);
    connect(m_window->restartScenarioAction(), &QAction::triggered, this, [this] { restart(); });
    m_window->connectClusterAction()->setEnabled(true);
    connect(m_window->connectClusterAction(), &QAction::triggered, this,
            &SessionSwitcher::openConnectDialog);
}

SessionSwitcher::~SessionSwitcher() {
    stop();
}

ConnectDialog* SessionSwitcher::connectDialog() const {
    return m_connectDialog.data();
}

void SessionSwitcher::start() {
    m_session->start();
}

void SessionSwitcher::stop() {
    m_session->stop();
}

bool SessionSwitcher::switchTo(const QString& nameOrPath) {
    SourceSpec spec;
    spec.kind = SourceSpec::Kind::Scenario;
    spec.scenario = m_scenarioDefaults;
    spec.scenario.scenario = nameOrPath;
    spec.resources = m_scenarioResources;
    return run(spec);
}

bool SessionSwitcher::switchToSource(const SourceSpec& spec) {
    return run(spec);
}

bool SessionSwitcher::restart() {
    return run(m_currentSpec);
}

void SessionSwitcher::openConnectDialog() {
    if (m_connectDialog) {
        m_connectDialog->raise();
        m_connectDialog->activateWindow();
        return;
    }
    auto* dialog = new ConnectDialog(RecentConnections().load(), m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { switchToSource(dialog->spec()); });
    m_connectDialog = dialog;
    dialog->open(); // window-modal, no nested event loop
}

bool SessionSwitcher::run(const SourceSpec& spec) {
    QString error;
    std::unique_ptr<Session> next =
        Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error);
    if (!next) {
        if (m_window) {
            m_window->scenarioPicker()->setCurrentScenario(m_current);
            m_window->showSwitchError(error, spec.kind == SourceSpec::Kind::Scenario);
        }
        emit switchFailed(error);
        return false;
    }

    Session* old = m_session;
    // The window lets go of the old session first: updates it still delivers are dropped. It
    // stops on its own thread and deletes itself; the GUI thread never waits for it.
    m_session = next.release();
    m_session->setParent(this);
    m_currentSpec = spec;
    m_current = spec.kind == SourceSpec::Kind::Scenario ? spec.scenario.scenario : QString();
    if (isCluster(spec))
        RecentConnections().remember(spec);
    if (m_window) {
        m_window->setSession(m_session);
        m_window->setSessionNote(m_session->explanation());
        m_window->scenarioPicker()->setCurrentScenario(m_current);
    }
    old->stopLater();
    m_session->start();
    emit switched(m_current.isEmpty() ? m_session->description() : m_current);
    return true;
}

} // namespace ws

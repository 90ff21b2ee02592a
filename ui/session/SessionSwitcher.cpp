#include "SessionSwitcher.h"

#include "RecentCaptures.h"
#include "RecentConnections.h"
#include "ReplayController.h"
#include "SessionRecording.h"
#include "WhatIfController.h"
#include "engine/Session.h"
#include "scenario/ScenarioLoader.h"
#include "sources/SourceFactory.h"
#include "sources/capture/CaptureReplay.h"
#include "widgets/ConnectDialog.h"
#include "widgets/MainWindow.h"
#include "widgets/ScenarioPicker.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <memory>

namespace ws {

namespace {
bool isCluster(const SourceSpec& spec) {
    return spec.kind == SourceSpec::Kind::Kubeconfig || spec.kind == SourceSpec::Kind::Server;
}

// What the scenario picker says while no scenario of its own runs.
void notePicker(ScenarioPicker* picker, const SourceSpec& spec) {
    picker->setPlaceholderText(spec.kind == SourceSpec::Kind::Capture
                                   ? QObject::tr("none: capture replay")
                                   : QObject::tr("none: live source"));
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
    notePicker(m_window->scenarioPicker(), spec);
    m_window->setScenarios(builtins, m_current);
    m_window->setSessionNote(m_session->explanation());
    connect(m_window->scenarioPicker(), &ScenarioPicker::scenarioChosen, this,
            &SessionSwitcher::switchTo);
    connect(m_window->restartScenarioAction(), &QAction::triggered, this, [this] { restart(); });
    m_window->connectClusterAction()->setEnabled(true);
    connect(m_window->connectClusterAction(), &QAction::triggered, this,
            &SessionSwitcher::openConnectDialog);
    m_window->openCaptureAction()->setEnabled(true);
    connect(m_window->openCaptureAction(), &QAction::triggered, this,
            &SessionSwitcher::chooseCaptureFile);
    connect(m_window->recentCapturesMenu(), &QMenu::aboutToShow, this,
            &SessionSwitcher::refreshRecentCaptures);
    refreshRecentCaptures();
    m_replay = new ReplayController(m_window, this);
    m_recording = new SessionRecording(m_window, this);
    m_whatIf = new WhatIfController(m_window, this);
    showQualifier();
}

std::optional<SourceSpec> SessionSwitcher::captureSpec(const QString& path, double speed,
                                                       QString* error) {
    const auto header = CaptureReplay::header(path, error);
    if (!header)
        return std::nullopt;
    SourceSpec spec;
    spec.kind = SourceSpec::Kind::Capture;
    spec.capture = path;
    spec.captureSpeed = speed;
    spec.resources = header->resources; // what the recorded session showed
    spec.replayControl = std::make_shared<ReplayControl>(speed);
    return spec;
}

bool SessionSwitcher::openCapture(const QString& path) {
    QString error;
    const auto spec = captureSpec(path, 1.0, &error);
    if (!spec) {
        if (!QFileInfo::exists(path)) {
            RecentCaptures().forget(path);
            refreshRecentCaptures();
            error = tr("%1 no longer exists; removed from the recent captures")
                        .arg(QDir::toNativeSeparators(path));
        }
        if (m_window)
            m_window->showError(tr("Capture not opened"), error);
        emit switchFailed(error);
        return false;
    }
    if (!run(*spec))
        return false;
    RecentCaptures().remember(path);
    refreshRecentCaptures();
    return true;
}

void SessionSwitcher::chooseCaptureFile() {
    if (!m_window)
        return;
    const QStringList recent = RecentCaptures().load();
    const QString dir =
        recent.isEmpty() ? QDir::currentPath() : QFileInfo(recent.constFirst()).absolutePath();
    auto* dialog = new QFileDialog(m_window, tr("Open capture"), dir,
                                   tr("WatchScope captures (*.wscap);;All files (*)"));
    dialog->setObjectName(QStringLiteral("captureFileDialog"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& p) { openCapture(p); });
    dialog->open();
}

void SessionSwitcher::refreshRecentCaptures() {
    if (!m_window)
        return;
    QMenu* menu = m_window->recentCapturesMenu();
    menu->clear();
    const QStringList list = RecentCaptures().load();
    int missing = 0;
    for (int i = 0; i < list.size(); ++i) {
        const QString& path = list[i];
        QAction* a = menu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(
            QDir::toNativeSeparators(path).replace(QDir::homePath(), QStringLiteral("~"))));
        a->setData(path);
        if (!QFileInfo::exists(path)) {
            ++missing;
            a->setEnabled(false); // greyed: the file is gone
            a->setToolTip(tr("%1 no longer exists").arg(path));
            continue;
        }
        connect(a, &QAction::triggered, this, [this, path] { openCapture(path); });
    }
    if (list.isEmpty()) {
        menu->addAction(tr("(none yet)"))->setEnabled(false);
        return;
    }
    menu->addSeparator();
    if (missing > 0) {
        QAction* prune = menu->addAction(tr("Remove Missing Files (%1)").arg(missing));
        prune->setObjectName(QStringLiteral("removeMissingCaptures"));
        connect(prune, &QAction::triggered, this, [this] {
            RecentCaptures recent;
            int removed = 0;
            for (const QString& p : recent.load())
                if (!QFileInfo::exists(p)) {
                    recent.forget(p);
                    ++removed;
                }
            refreshRecentCaptures();
            if (m_window)
                m_window->showStatusMessage(
                    tr("Removed %n missing capture(s) from the recent captures", nullptr, removed),
                    8000);
        });
    }
    connect(menu->addAction(tr("Clear List")), &QAction::triggered, this, [this] {
        RecentCaptures().clear();
        refreshRecentCaptures();
    });
}

void SessionSwitcher::showQualifier() {
    // A capture replayed under other versions: its description is the recorded source's.
    if (m_window)
        m_window->setSessionQualifier(m_currentSpec.whatIf.any()
                                          ? tr("what if %1").arg(m_currentSpec.whatIf.describe())
                                          : QString());
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
    SourceSpec spec = m_currentSpec;
    if (spec.kind == SourceSpec::Kind::Capture) {
        // From the start again, at the speed it plays now; a fresh control (no seek under way).
        const double speed =
            spec.replayControl ? spec.replayControl->state().speed : spec.captureSpeed;
        spec.replayControl = std::make_shared<ReplayControl>(speed);
    }
    return run(spec);
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
        Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error,
                          EventJournalLimits::window()); // the Events tab reads it
    if (!next) {
        if (m_window) {
            m_window->scenarioPicker()->setCurrentScenario(m_current);
            if (spec.kind == SourceSpec::Kind::Capture)
                m_window->showError(tr("Capture not opened"), error);
            else
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
        showQualifier();
        m_window->setSessionNote(m_session->explanation());
        notePicker(m_window->scenarioPicker(), spec);
        m_window->scenarioPicker()->setCurrentScenario(m_current);
    }
    old->stopLater();
    m_session->start();
    emit switched(m_current.isEmpty() ? m_session->description() : m_current);
    return true;
}

} // namespace ws

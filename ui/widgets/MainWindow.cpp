#include "MainWindow.h"

#include "AnomaliesPane.h"
#include "AnomalyDetailPane.h"
#include "ChartsPane.h"
#include "EventsPane.h"
#include "IncidentsPane.h"
#include "ReplayBar.h"
#include "ResourceTablePane.h"
#include "ResourcesPane.h"
#include "RevisionAccountsPane.h"
#include "RvTimelineChart.h"
#include "ScenarioPicker.h"
#include "SessionStatusBar.h"
#include "ShortcutsDialog.h"
#include "TableSetup.h"
#include "WarningBanner.h"
#include "engine/Session.h"
#include "models/AnomalyFilterProxy.h"
#include "models/AnomalyListModel.h"
#include "models/CacheTableModel.h"
#include "models/CellFormat.h"
#include "models/IncidentTreeModel.h"
#include "models/ResourceTreeModel.h"
#include "models/WatcherTableModel.h"
#include "session/ExecPluginOutput.h"
#include "viewexport/ViewExporter.h"
#include "viewstate/FollowPolicy.h"
#include "viewstate/ResourceFocus.h"
#include "viewstate/ScenarioNote.h"
#include "viewstate/SessionStatus.h"
#include "viewstate/UpdateHold.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QScreen>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace ws {

MainWindow::MainWindow(Session* session, QWidget* parent, SeriesBuffer::Limits seriesLimits)
    : QMainWindow(parent), m_session(session), m_chartData(seriesLimits),
      m_hold(new UpdateHold(this)), m_focus(new ResourceFocus(this)),
      m_follow(new FollowPolicy(this)), m_status(new SessionStatus(this)),
      m_watchers(new WatcherTableModel(this)), m_caches(new CacheTableModel(this)) {
    qRegisterMetaType<ws::EngineUpdate>();
    // 1400×900 where it fits, otherwise most of the screen: every pane needs room to be read.
    QSize size(1400, 900);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableSize() * 0.95);
    resize(size);

    buildPanes();
    buildActions();
    buildToolBar();
    m_statusBar = new SessionStatusBar;
    setStatusBar(m_statusBar);
    m_exporter = new ViewExporter(this);
    connectViewState();
    m_chartsPane->setSpan(m_follow->spanSeconds());
    showStatus();
    updateTabTitles();
    connectSession();
    // A credential plugin that needs its user mid-session (a device-code login once a token
    // expired) says so on stderr and waits: the status bar shows its latest line.
    if (ExecPluginOutput* plugins = ExecPluginOutput::instance())
        connect(plugins, &ExecPluginOutput::text, this,
                [this](const QString& plugin, const QString& text) {
                    const QString line = text.trimmed().section(u'\n', -1).simplified();
                    if (!line.isEmpty())
                        showStatusMessage(tr("Credential plugin %1: %2").arg(plugin, line), 120000);
                });
}

MainWindow::~MainWindow() = default;

void MainWindow::buildPanes() {
    m_chartsPane = new ChartsPane(&m_chartData);
    m_resourcesPane = new ResourcesPane;
    m_incidentsPane = new IncidentsPane;
    m_anomaliesPane = new AnomaliesPane;
    m_eventsPane = new EventsPane;
    m_watcherPane = new ResourceTablePane(m_watchers, WatcherTableModel::ResourceColumn,
                                          WatcherTableModel::SortRole);
    m_watcherPane->sortByColumn(WatcherTableModel::IdColumn, Qt::AscendingOrder);
    setColumnWidths(m_watcherPane->horizontalHeader(),
                    {175, 85, 90, 90, 105, 70, 70, 60, 75, 55, 50, 80});
    m_cachePane =
        new ResourceTablePane(m_caches, CacheTableModel::ResourceColumn, CacheTableModel::SortRole);
    m_cachePane->sortByColumn(CacheTableModel::ResourceColumn, Qt::AscendingOrder);
    setColumnWidths(m_cachePane->horizontalHeader(), {130, 100, 90, 90, 110, 190, 90, 90});
    m_accountsPane = new RevisionAccountsPane;
    m_detail = new AnomalyDetailPane;

    // Incidents first: what a reader wants to see first is what went wrong, grouped; the raw
    // rows are one tab away.
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("paneTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_incidentsPane, tr("Incidents"));
    m_tabs->addTab(m_anomaliesPane, tr("Anomalies"));
    m_tabs->addTab(m_eventsPane, tr("Events"));
    m_tabs->addTab(m_watcherPane, tr("Watchers"));
    m_tabs->addTab(m_cachePane, tr("Watch caches"));
    m_tabs->addTab(m_accountsPane, tr("Revisions"));
    m_tabs->setTabToolTip(m_tabs->indexOf(m_accountsPane),
                          tr("Every revision the source of truth wrote: seen, or lost in a "
                             "reported gap"));
    m_tabs->setCurrentWidget(m_incidentsPane);
    m_allResourcesBox = new QCheckBox(tr("All resources"));
    m_allResourcesBox->setToolTip(tr("Watchers and watch caches of every resource, not only of "
                                     "the one the charts show"));
    connect(m_allResourcesBox, &QCheckBox::toggled, this, [this] { applyResourceFilter(); });
    m_tabs->setCornerWidget(m_allResourcesBox, Qt::TopRightCorner);
    // It filters the watcher and cache tables: shown with them only.
    const auto showCorner = [this] {
        const QWidget* tab = m_tabs->currentWidget();
        m_allResourcesBox->setVisible(tab == m_watcherPane || tab == m_cachePane);
    };
    connect(m_tabs, &QTabWidget::currentChanged, this, showCorner);
    showCorner();

    auto* lists = new QSplitter(Qt::Horizontal);
    lists->setObjectName(QStringLiteral("listsSplitter")); // remembered by WindowLayoutMemory
    lists->addWidget(m_tabs);
    lists->addWidget(m_detail);
    lists->setStretchFactor(0, 3);
    lists->setStretchFactor(1, 1);
    lists->setSizes({1040, 360});

    // The resources beside the charts: picking one there is picking what the charts show.
    auto* top = new QSplitter(Qt::Horizontal);
    top->setObjectName(QStringLiteral("topSplitter")); // remembered by WindowLayoutMemory
    top->addWidget(m_resourcesPane);
    top->addWidget(m_chartsPane);
    top->setStretchFactor(0, 0);
    top->setStretchFactor(1, 1);
    top->setSizes({360, 1040});
    top->setChildrenCollapsible(false);

    auto* central = new QSplitter(Qt::Vertical);
    central->setObjectName(QStringLiteral("centralSplitter"));
    central->addWidget(top);
    central->addWidget(lists);
    central->setStretchFactor(0, 1);
    central->setStretchFactor(1, 1);
    central->setSizes({430, 400});
    central->setChildrenCollapsible(false);
    // The banner above everything: a connection without TLS verification is never quiet.
    m_banner = new WarningBanner;
    auto* page = new QWidget;
    auto* pageLayout = new QVBoxLayout(page);
    pageLayout->setContentsMargins(0, 0, 0, 0);
    pageLayout->setSpacing(0);
    pageLayout->addWidget(m_banner);
    pageLayout->addWidget(central, 1);
    setCentralWidget(page);

    // Selecting an anomaly in either pane, or a marker on the chart, shows it the same way.
    connect(m_incidentsPane, &IncidentsPane::anomalySelected, this,
            [this](const Anomaly& a, qint64 serial) {
                showAnomaly(a, serial, DetailSource::Incidents);
            });
    connect(m_anomaliesPane, &AnomaliesPane::anomalySelected, this,
            [this](const Anomaly& a, qint64 serial) {
                showAnomaly(a, serial, DetailSource::Anomalies);
            });
    connect(m_incidentsPane, &IncidentsPane::selectionCleared, this,
            [this] { onSelectionCleared(DetailSource::Incidents); });
    connect(m_anomaliesPane, &AnomaliesPane::selectionCleared, this,
            [this] { onSelectionCleared(DetailSource::Anomalies); });
    connect(m_incidentsPane, &IncidentsPane::selectedDropped, this,
            [this] { onSelectedDropped(DetailSource::Incidents); });
    connect(m_anomaliesPane, &AnomaliesPane::selectedDropped, this,
            [this] { onSelectedDropped(DetailSource::Anomalies); });
    // An event an anomaly names shows that anomaly the same way.
    connect(
        m_eventsPane, &EventsPane::anomalySelected, this,
        [this](const Anomaly& a, qint64 serial) { showAnomaly(a, serial, DetailSource::Events); });
    connect(m_eventsPane, &EventsPane::selectionCleared, this,
            [this] { onSelectionCleared(DetailSource::Events); });
    connect(m_incidentsPane, &IncidentsPane::countsChanged, this, &MainWindow::updateTabTitles);
    connect(m_anomaliesPane, &AnomaliesPane::countsChanged, this, &MainWindow::updateTabTitles);
    connect(m_eventsPane, &EventsPane::countsChanged, this, &MainWindow::updateTabTitles);
    connect(m_accountsPane, &RevisionAccountsPane::countsChanged, this,
            &MainWindow::updateTabTitles);
    connect(m_chartsPane, &ChartsPane::anomalyClicked, this, &MainWindow::selectAnomalySerial);

    // Ctrl+F jumps to the display filter from anywhere in the window.
    auto* focusFilter = new QAction(this);
    focusFilter->setShortcut(QKeySequence::Find);
    focusFilter->setShortcutContext(Qt::WindowShortcut);
    connect(focusFilter, &QAction::triggered, this, [this] {
        m_tabs->setCurrentWidget(m_anomaliesPane);
        m_anomaliesPane->focusFilter();
    });
    addAction(focusFilter);
    // Ctrl+Shift+F: the events' display filter.
    auto* focusEventFilter = new QAction(tr("Filter the events"), this); // named in Help → Keys
    focusEventFilter->setShortcut(EventsPane::focusFilterShortcut());
    focusEventFilter->setShortcutContext(Qt::WindowShortcut);
    connect(focusEventFilter, &QAction::triggered, this, [this] {
        m_tabs->setCurrentWidget(m_eventsPane);
        m_eventsPane->focusFilter();
    });
    addAction(focusEventFilter);
}

void MainWindow::connectViewState() {
    // Each piece of view state is shown by the widgets that mirror it; widgets that change it
    // (the tool bar, the charts' wheel zoom) go through it.
    connect(m_hold, &UpdateHold::pausedChanged, this, &MainWindow::showPaused);
    connect(m_focus, &ResourceFocus::resourceAdded, this, [this](const QString& resource) {
        const QSignalBlocker block(m_resourceBox);
        m_resourceBox->addItem(resource);
    });
    connect(m_focus, &ResourceFocus::cleared, this, [this] {
        const QSignalBlocker block(m_resourceBox);
        m_resourceBox->clear();
    });
    connect(m_focus, &ResourceFocus::currentChanged, this, &MainWindow::showResource);
    connect(m_focus, &ResourceFocus::resourceAdded, m_resourcesPane,
            [this](const QString& resource) { m_resourcesPane->addResources({resource}); });
    connect(m_focus, &ResourceFocus::selectionChanged, this, [this](const QStringList& selection) {
        m_resourcesPane->showSelection(selection);
        applyResourceFilter();
    });
    connect(m_resourcesPane, &ResourcesPane::resourcesChosen, m_focus,
            qOverload<const QStringList&>(&ResourceFocus::choose));
    connect(m_follow, &FollowPolicy::spanChanged, this, &MainWindow::showSpan);
    connect(m_follow, &FollowPolicy::followLiveChanged, this, [this](bool follow) {
        if (m_followAction->isChecked() != follow)
            m_followAction->setChecked(follow);
        m_chartsPane->setFollowLive(follow);
    });
    connect(m_chartsPane, &ChartsPane::spanChanged, m_follow, &FollowPolicy::setSpan);
    connect(m_chartsPane, &ChartsPane::followLiveChanged, m_follow, &FollowPolicy::setFollowLive);
    connect(m_status, &SessionStatus::changed, this, &MainWindow::showStatus);
}

Session* MainWindow::session() const {
    return m_session;
}

ResourceTreeModel* MainWindow::resourceModel() const {
    return m_resourcesPane->model();
}
QTreeView* MainWindow::resourceView() const {
    return m_resourcesPane->view();
}
IncidentTreeModel* MainWindow::incidentModel() const {
    return m_incidentsPane->model();
}
AnomalyListModel* MainWindow::anomalyModel() const {
    return m_anomaliesPane->model();
}
AnomalyFilterProxy* MainWindow::anomalyProxy() const {
    return m_anomaliesPane->proxy();
}
QTableView* MainWindow::anomalyView() const {
    return m_anomaliesPane->view();
}
RvTimelineChart* MainWindow::rvChart() const {
    return m_chartsPane->rvChart();
}
BufferOccupancyChart* MainWindow::bufferChart() const {
    return m_chartsPane->bufferChart();
}
QLineEdit* MainWindow::filterEdit() const {
    return m_anomaliesPane->filterEdit();
}
QComboBox* MainWindow::kindChooser() const {
    return m_anomaliesPane->kindChooser();
}
QSortFilterProxyModel* MainWindow::watcherProxy() const {
    return m_watcherPane->proxy();
}
QSortFilterProxyModel* MainWindow::cacheProxy() const {
    return m_cachePane->proxy();
}
QTableView* MainWindow::watcherView() const {
    return m_watcherPane;
}
QTableView* MainWindow::cacheView() const {
    return m_cachePane;
}
bool MainWindow::isViewPaused() const {
    return m_hold->paused();
}
QString MainWindow::lastError() const {
    return m_status->lastError();
}
int MainWindow::updatesApplied() const {
    return m_status->updatesApplied();
}
int MainWindow::anomaliesHeld() const {
    return m_hold->anomaliesInMemory();
}
int MainWindow::staleUpdatesDropped() const {
    return m_status->staleUpdates();
}

void MainWindow::showSessionTitle() {
    QString what = m_session ? m_session->description() : QString();
    if (m_session && !m_sessionQualifier.isEmpty())
        what = tr("%1 — %2").arg(what, m_sessionQualifier);
    setWindowTitle(m_session ? tr("WatchScope — %1").arg(what) : tr("WatchScope"));
    m_sessionLabel->setText(m_session ? tr("  Session: %1").arg(what) : tr("  No session"));
}

void MainWindow::setSessionQualifier(const QString& qualifier) {
    m_sessionQualifier = qualifier;
    showSessionTitle();
}

void MainWindow::connectSession() {
    showSessionTitle();
    m_eventsPane->setSession(m_session);
    const QStringList warnings = m_session ? m_session->securityWarnings() : QStringList();
    m_banner->setSecurityWarnings(warnings);
    m_banner->setSessionWarnings({});
    // On stderr too: a window on another screen, or closed early, is no place to learn it.
    for (const QString& w : warnings)
        qWarning("watchscope: warning: %s", qPrintable(w));
    if (!m_session)
        return;
    m_focus->offer(m_session->resources());
    // Each connection remembers the generation it was made under: a signal the previous session
    // queued before it stopped is still delivered after a switch (disconnecting does not take
    // back posted events), and must not land in the new session's rows.
    const quint64 generation = m_sessionGeneration;
    connect(
        m_session, &Session::updated, this,
        [this, generation](const EngineUpdate& update) {
            if (generation != m_sessionGeneration) {
                m_status->noteStale();
                return;
            }
            applyUpdate(update);
        },
        Qt::QueuedConnection);
    connect(
        m_session, &Session::failed, this,
        [this, generation](const QString& message) {
            if (generation == m_sessionGeneration)
                onSessionFailed(message);
        },
        Qt::QueuedConnection);
    connect(
        m_session, &Session::finished, this,
        [this, generation] {
            if (generation == m_sessionGeneration)
                onSessionFinished();
        },
        Qt::QueuedConnection);
}

void MainWindow::setSession(Session* session) {
    if (m_session)
        disconnect(m_session, nullptr, this, nullptr);
    ++m_sessionGeneration;
    m_session = session;
    m_sessionQualifier.clear();
    clearSessionState();
    // Stay on the resource looked at when the new session has it too.
    m_focus->restart(m_session ? m_session->resources() : QStringList());
    connectSession();
}

void MainWindow::clearSessionState() {
    // Held data belongs to the old session: drop it before resuming, so nothing is folded.
    m_hold->clear();

    m_incidentsPane->clear();
    m_resourcesPane->clear();
    m_anomaliesPane->clearSelection();
    m_anomaliesPane->model()->clear();
    m_watchers->clear();
    m_caches->clear();
    m_accountsPane->clear();
    m_chartData.clear();
    m_detail->clear();
    m_detailSource = DetailSource::None;
    m_chartsPane->reset();
    m_follow->restart();
    m_status->reset();
    statusBar()->clearMessage();
    m_pendingMessage.clear();
    if (m_errorBox)
        m_errorBox->close();
    setSessionNote(QString());
    updateTabTitles();
}

void MainWindow::setScenarios(const std::vector<ScenarioSummary>& builtins,
                              const QString& current) {
    m_scenarioPicker->setScenarios(builtins);
    m_scenarioPicker->setCurrentScenario(current);
    m_scenarioPicker->setEnabled(true);
    m_scenarioPickerItem->setVisible(true);
    m_scenarioSeparator->setVisible(true);
    m_openScenarioAction->setEnabled(true);
    m_restartScenarioAction->setEnabled(true);
}

void MainWindow::chooseScenarioFile() {
    const QString current = m_scenarioPicker->currentScenario();
    const QString dir = current.contains(QLatin1Char('/')) ? QFileInfo(current).absolutePath()
                                                           : QDir::currentPath();
    // Window-modal but not a nested event loop: the session keeps being drawn behind it.
    auto* dialog = new QFileDialog(this, tr("Open scenario file"), dir,
                                   tr("Scenario files (*.yaml *.yml);;All files (*)"));
    dialog->setObjectName(QStringLiteral("scenarioFileDialog"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, m_scenarioPicker, &ScenarioPicker::choose);
    dialog->open();
}

void MainWindow::showSwitchError(const QString& message, bool scenario) {
    m_status->setLastError(message);
    const QString what = scenario ? tr("Scenario not switched") : tr("Not connected");
    showStatusMessage(tr("%1: %2").arg(what, message), 15000);
    showErrorBox(tr("WatchScope — %1").arg(what.toLower()),
                 tr("%1\n\nThe current session keeps running.").arg(message));
}

void MainWindow::showError(const QString& what, const QString& message) {
    m_status->setLastError(message);
    showStatusMessage(tr("%1: %2").arg(what, message), 15000);
    showErrorBox(tr("WatchScope — %1").arg(what.toLower()), message);
}

void MainWindow::showStatusMessage(const QString& text, int timeoutMs) {
    // QStatusBar hides the state label under a message only if the label is visible then: a
    // message given before the window is shown would be drawn over it.
    if (isVisible()) {
        statusBar()->showMessage(text, timeoutMs);
        return;
    }
    m_pendingMessage = text;
    m_pendingMessageMs = timeoutMs;
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (!m_pendingMessage.isEmpty())
        statusBar()->showMessage(std::exchange(m_pendingMessage, QString()), m_pendingMessageMs);
}

void MainWindow::showErrorBox(const QString& title, const QString& message) {
    // Window-modal and non-blocking: the data seen so far stays explorable behind it.
    if (!m_errorBox) {
        m_errorBox = new QMessageBox(QMessageBox::Critical, title, message, QMessageBox::Ok, this);
        m_errorBox->setAttribute(Qt::WA_DeleteOnClose);
        m_errorBox->open();
    } else {
        m_errorBox->setWindowTitle(title);
        m_errorBox->setText(message);
    }
}

void MainWindow::buildActions() {
    m_pauseAction =
        new QAction(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause view"), this);
    m_pauseAction->setCheckable(true);
    m_pauseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Space));
    m_pauseAction->setToolTip(
        tr("Freeze what is shown; the session keeps running and nothing is lost (Ctrl+Space)"));
    connect(m_pauseAction, &QAction::toggled, this, &MainWindow::setViewPaused);

    m_followAction =
        new QAction(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("Follow live"), this);
    m_followAction->setCheckable(true);
    m_followAction->setChecked(true);
    m_followAction->setShortcut(QKeySequence(Qt::Key_End));
    m_followAction->setToolTip(tr("Keep the charts on the newest data (End)"));
    connect(m_followAction, &QAction::toggled, this, &MainWindow::setFollowLive);

    m_openScenarioAction = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton),
                                       tr("&Open Scenario File…"), this);
    m_openScenarioAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openScenarioAction->setToolTip(tr("Run the simulator on a scenario from a .yaml file"));
    m_openScenarioAction->setEnabled(false); // until there is a simulator to switch
    connect(m_openScenarioAction, &QAction::triggered, this, &MainWindow::chooseScenarioFile);

    m_restartScenarioAction =
        new QAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("&Restart"), this);
    m_restartScenarioAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_restartScenarioAction->setToolTip(
        tr("Start the session again: a scenario from its start (a scenario file is read again, "
           "so edits to it take effect), a cluster connected again (Ctrl+R)"));
    m_restartScenarioAction->setEnabled(false); // until there is a session to restart

    m_connectClusterAction = new QAction(style()->standardIcon(QStyle::SP_DriveNetIcon),
                                         tr("&Connect to Cluster…"), this);
    m_connectClusterAction->setObjectName(QStringLiteral("connectClusterAction"));
    m_connectClusterAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
    m_connectClusterAction->setToolTip(
        tr("Watch a cluster through a kubeconfig context or API server URLs (Ctrl+K)"));
    m_connectClusterAction->setEnabled(false); // until there is a session to switch

    m_openCaptureAction =
        new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Open &Capture…"), this);
    m_openCaptureAction->setObjectName(QStringLiteral("openCaptureAction"));
    m_openCaptureAction->setShortcut(QKeySequence::Open);
    m_openCaptureAction->setToolTip(
        tr("Replay a .wscap capture: play, pause, speed and seek (Ctrl+O)"));
    m_openCaptureAction->setEnabled(false); // until there is a session to switch

    m_whatIfAction = new QAction(style()->standardIcon(QStyle::SP_FileDialogContentsView),
                                 tr("What &If…"), this);
    m_whatIfAction->setObjectName(QStringLiteral("whatIfAction"));
    m_whatIfAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    m_whatIfAction->setToolTip(
        tr("Replay this capture under other Kubernetes versions and compare the anomalies of "
           "both runs (Ctrl+Shift+W)"));
    m_whatIfAction->setEnabled(false); // while a capture is replayed

    // A red dot, as recorders have.
    QPixmap dot(32, 32);
    dot.fill(Qt::transparent);
    {
        QPainter painter(&dot);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(QColor(0x80, 0, 0x10), 2));
        painter.setBrush(QColor(0xd0, 0x10, 0x20));
        painter.drawEllipse(QRectF(5, 5, 22, 22));
    }
    m_recordAction = new QAction(QIcon(dot), tr("&Record…"), this);
    m_recordAction->setObjectName(QStringLiteral("recordAction"));
    m_recordAction->setCheckable(true);
    m_recordAction->setEnabled(false); // until someone records (SessionRecording)
    m_recordAction->setToolTip(
        tr("Write the session to a .wscap capture file from now on; again to stop"));

    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_connectClusterAction);
    file->addSeparator();
    file->addAction(m_openCaptureAction);
    m_recentCapturesMenu = file->addMenu(tr("Recent Captures"));
    m_recentCapturesMenu->setObjectName(QStringLiteral("recentCapturesMenu"));
    file->addAction(m_whatIfAction);
    file->addAction(m_recordAction);
    file->addSeparator();
    file->addAction(m_openScenarioAction);
    file->addAction(m_restartScenarioAction);
    file->addSeparator();
    m_exportMenu = file->addMenu(tr("&Export"));
    m_exportMenu->setObjectName(QStringLiteral("exportMenu"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_pauseAction);
    view->addAction(m_followAction);
    // Alt+1…Alt+9: the tabs below the charts, in their order.
    for (int i = 0; i < 9; ++i) {
        auto* tab = new QAction(tr("Show tab %1").arg(i + 1), this);
        tab->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + i)));
        tab->setShortcutContext(Qt::WindowShortcut);
        connect(tab, &QAction::triggered, this, [this, i] {
            if (i < m_tabs->count())
                m_tabs->setCurrentIndex(i);
        });
        addAction(tab);
    }
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* keys = help->addAction(tr("&Keyboard Shortcuts"), this, [this] {
        auto* dialog = new ShortcutsDialog(this, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    keys->setObjectName(QStringLiteral("shortcutsAction"));
    keys->setShortcut(QKeySequence(Qt::Key_F1));
    help->addAction(tr("&About WatchScope"), this, [this] {
        QMessageBox::about(this, tr("About WatchScope"),
                           tr("<b>WatchScope</b> %1<br>Kubernetes watch streams and watch-cache "
                              "state, live.")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::buildToolBar() {
    QToolBar* bar = addToolBar(tr("Session"));
    bar->setObjectName(QStringLiteral("sessionToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);

    // The scenario first: it is where everything below comes from. Hidden until there is a
    // simulator whose scenario can be picked.
    auto* scenarioBox = new QWidget;
    auto* scenarioRow = new QHBoxLayout(scenarioBox);
    scenarioRow->setContentsMargins(0, 0, 0, 0);
    scenarioRow->setSpacing(0);
    scenarioRow->addWidget(new QLabel(tr(" Scenario: ")));
    m_scenarioPicker = new ScenarioPicker;
    connect(m_scenarioPicker, &ScenarioPicker::openFileRequested, this,
            &MainWindow::chooseScenarioFile);
    scenarioRow->addWidget(m_scenarioPicker);
    m_scenarioPickerItem = bar->addWidget(scenarioBox);
    m_scenarioSeparator = bar->addSeparator();
    m_scenarioPickerItem->setVisible(false);
    m_scenarioSeparator->setVisible(false);

    bar->addAction(m_connectClusterAction);
    bar->addAction(m_openCaptureAction);
    // The tool bar is full at 1400 px: Open Capture is a known icon (its tooltip says it).
    if (auto* button = qobject_cast<QToolButton*>(bar->widgetForAction(m_openCaptureAction)))
        button->setToolButtonStyle(Qt::ToolButtonIconOnly);
    bar->addAction(m_recordAction);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Resource: ")));
    m_resourceBox = new QComboBox;
    m_resourceBox->setMinimumContentsLength(18);
    m_resourceBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_resourceBox->setToolTip(tr("Resource shown in the charts"));
    // The reader's pick; the box itself only mirrors ResourceFocus.
    connect(m_resourceBox, &QComboBox::activated, this,
            [this](int index) { m_focus->choose(m_resourceBox->itemText(index)); });
    bar->addWidget(m_resourceBox);

    bar->addWidget(new QLabel(tr("  Window: ")));
    m_spanBox = new QComboBox;
    for (const FollowPolicy::SpanChoice& s : FollowPolicy::spanChoices())
        m_spanBox->addItem(s.label, s.seconds);
    m_spanBox->setCurrentIndex(FollowPolicy::kDefaultSpanIndex);
    m_spanBox->setToolTip(tr("Time shown by the charts (mouse wheel on a chart zooms)"));
    connect(m_spanBox, &QComboBox::activated, this,
            [this](int index) { m_follow->setSpan(m_spanBox->itemData(index).toDouble()); });
    bar->addWidget(m_spanBox);
    bar->addSeparator();
    bar->addAction(m_pauseAction);
    bar->addAction(m_followAction);
    bar->addSeparator();

    m_sessionLabel = new QLabel; // its text is connectSession()'s
    m_sessionLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(m_sessionLabel);

    addToolBarBreak();
    m_replayBar = new ReplayBar(this);
    m_replayBar->addSeparator();
    m_replayBar->addAction(m_whatIfAction);
    addToolBar(m_replayBar);
    m_replayBar->setVisible(false);
}

void MainWindow::setReplayBarVisible(bool visible) {
    m_replayBar->setVisible(visible);
}

void MainWindow::setRecordingStatus(const QString& text) {
    m_statusBar->setRecordingStatus(text);
}

QString MainWindow::flowStatus() const {
    return m_statusBar->flowText();
}

QString MainWindow::recordingStatus() const {
    return m_statusBar->recordingStatus();
}

QString MainWindow::currentResource() const {
    return m_focus->current();
}

QStringList MainWindow::securityWarningsShown() const {
    return m_banner->isVisibleTo(this) ? m_banner->securityWarnings() : QStringList();
}

QStringList MainWindow::sessionWarningsShown() const {
    return m_banner->isVisibleTo(this) ? m_banner->sessionWarnings() : QStringList();
}

QString MainWindow::anomalyCountText() const {
    return m_statusBar->anomalyCountText();
}

QString MainWindow::stateText() const {
    return m_statusBar->stateText();
}

void MainWindow::showStatus() {
    m_statusBar->showStatus(*m_status);
}

void MainWindow::setCurrentResource(const QString& resource) {
    m_focus->choose(resource);
}

void MainWindow::showResource(const QString& resource) {
    // ResourceFocus changed what is shown: the chooser, the charts and the tables follow.
    {
        const QSignalBlocker block(m_resourceBox);
        m_resourceBox->setCurrentIndex(m_resourceBox->findText(resource));
    }
    m_chartsPane->setResource(resource);
    m_resourcesPane->showSelection(m_focus->selection());
    applyResourceFilter();
}

void MainWindow::setTablesShowAllResources(bool all) {
    if (m_allResourcesBox->isChecked() != all)
        m_allResourcesBox->setChecked(all); // re-enters through toggled
    else
        applyResourceFilter();
}

bool MainWindow::tablesShowAllResources() const {
    return m_allResourcesBox->isChecked();
}

void MainWindow::applyResourceFilter() {
    // The watcher and cache tables show the resource the charts show, as the charts do.
    // Several resources picked in the resource tree: the tables show all of them.
    const QStringList only = m_allResourcesBox->isChecked() ? QStringList() : m_focus->selection();
    m_watcherPane->setResources(only);
    m_cachePane->setResources(only);
    updateTabTitles();
}

void MainWindow::setSpan(double seconds) {
    m_follow->setSpan(seconds);
}

void MainWindow::showSpan(double seconds) {
    m_chartsPane->setSpan(seconds);
    int index = m_follow->spanIndex();
    if (index < 0) {
        // A wheel zoom lands between the presets: show it as an extra, last entry.
        const QString label = m_follow->spanLabel();
        const int presets = int(FollowPolicy::spanChoices().size());
        if (m_spanBox->count() > presets)
            m_spanBox->setItemText(m_spanBox->count() - 1, label);
        else
            m_spanBox->addItem(label);
        index = m_spanBox->count() - 1;
        m_spanBox->setItemData(index, seconds);
    }
    m_spanBox->setCurrentIndex(index);
}

void MainWindow::setFollowLive(bool follow) {
    m_follow->setFollowLive(follow);
}

void MainWindow::setSessionNote(const QString& note) {
    m_sessionLabel->setToolTip(note);
    auto* view = m_tabs->findChild<QPlainTextEdit*>(QStringLiteral("scenarioExplanation"));
    if (note.trimmed().isEmpty()) {
        if (view) {
            m_tabs->removeTab(m_tabs->indexOf(view));
            delete view;
        }
        return;
    }
    // The scenario's explanation, readable beside the live view.
    const QString text = reflowScenarioNote(note);
    if (view) {
        view->setPlainText(text); // a switched session: the tab stays where it was
    } else {
        view = new QPlainTextEdit(text);
        view->setReadOnly(true);
        view->setObjectName(QStringLiteral("scenarioExplanation"));
        m_tabs->addTab(view, tr("Scenario"));
    }
    showStatusMessage(note.simplified(), 15000);
}

void MainWindow::applyUpdate(const EngineUpdate& update) {
    m_status->noteArrived(update);
    m_statusBar->setFlow(update.flow);
    // Running totals, like the flow: shown even while the view is paused, redrawn only where a
    // figure changed.
    m_accountsPane->applyAccounts(update.accounts);
    // Series always go in (bounded); the frozen charts simply do not redraw them yet.
    m_chartData.apply(update.series);
    m_focus->note(update);
    detailPane()->setVersions(update.versions); // explanations for the session's versions
    if (update.warnings != m_banner->sessionWarnings())
        m_banner->setSessionWarnings(update.warnings);
    if (m_hold->paused()) {
        m_hold->hold(update, anomalyModel()->maxRows(), anomalyModel()->dropBatch());
        m_status->setHeld(m_hold->anomaliesHeld());
    } else {
        fold(update, update.missingAnomalies);
    }
    m_chartsPane->setLiveEdge(
        std::max(double(update.now) / double(kUsPerMs), m_chartData.latestTimeMs()));
    if (update.finished)
        onSessionFinished();
}

void MainWindow::fold(const EngineUpdate& update, qint64 missingAnomalies) {
    m_watchers->applySnapshots(update.watchers);
    m_caches->applySnapshots(update.caches);
    m_chartsPane->applySnapshots(update.caches, update.now);
    m_resourcesPane->applyUpdate(update);
    const AnomalyListModel* list = anomalyModel();
    // The session-wide number of the batch's first anomaly, before the list takes it.
    const qint64 firstSerial = list->serialOf(list->rowCount()) + missingAnomalies;
    m_anomaliesPane->append(update.anomalies, missingAnomalies);
    m_incidentsPane->applyUpdate(update.incidents, update.anomalies, missingAnomalies);
    m_eventsPane->applyUpdate(update, firstSerial);
    if (!update.anomalies.isEmpty()) {
        m_chartsPane->addAnomalies(update.anomalies, firstSerial);
        const QString moved = m_focus->followFirstAnomaly(update.anomalies);
        if (!moved.isEmpty())
            showStatusMessage(tr("Showing %1, where the first anomaly is").arg(moved), 8000);
    }
    updateTabTitles();
    m_status->noteShown();
}

void MainWindow::updateTabTitles() {
    const AnomalyListModel* list = anomalyModel();
    const int total = list->rowCount();
    // QTabBar relayouts and repaints on every setTabText: only set the titles that changed.
    const auto setTitle = [this](QWidget* pane, const QString& title) {
        const int index = m_tabs->indexOf(pane);
        if (m_tabs->tabText(index) != title)
            m_tabs->setTabText(index, title);
    };
    setTitle(m_incidentsPane, tr("Incidents (%1)").arg(incidentModel()->incidentCount()));
    setTitle(m_anomaliesPane, tr("Anomalies (%1)").arg(total));
    if (!m_eventsTitle)
        m_eventsTitle = new ThrottledRefresh(
            500,
            [this] {
                const int index = m_tabs->indexOf(m_eventsPane);
                const QString title = tr("Events (%1)").arg(m_eventsPane->tabCount());
                if (m_tabs->tabText(index) != title)
                    m_tabs->setTabText(index, title);
            },
            this);
    m_eventsTitle->request();
    // Counts of what the tables show, and of all there is when they show one resource of several.
    setTitle(m_watcherPane, tr("Watchers (%1)").arg(m_watcherPane->countText()));
    setTitle(m_cachePane, tr("Watch caches (%1)").arg(m_cachePane->countText()));
    setTitle(m_accountsPane, tr("Revisions (%1)").arg(m_accountsPane->countText()));
    const qint64 dropped = list->droppedCount();
    m_statusBar->setAnomalyCount(
        dropped == 0 ? tr("anomalies %1").arg(total)
                     : tr("anomalies %1 (oldest %2 dropped)")
                           .arg(formatCount(dropped + total), formatCount(dropped)),
        tr("The anomaly list keeps the newest %1; older ones are dropped in batches")
            .arg(formatCount(list->maxRows())));
}

void MainWindow::setViewPaused(bool paused) {
    m_hold->setPaused(paused);
}

void MainWindow::showPaused(bool paused) {
    if (m_pauseAction->isChecked() != paused)
        m_pauseAction->setChecked(paused);
    m_pauseAction->setText(paused ? tr("Resume view") : tr("Pause view"));
    m_pauseAction->setIcon(
        style()->standardIcon(paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
    m_chartsPane->setFrozen(paused);
    m_status->setPaused(paused);
    if (paused)
        return;
    UpdateHold::Released held = m_hold->release();
    fold(held.update, held.missingAnomalies);
}

void MainWindow::selectAnomalySerial(qint64 serial) {
    if (m_tabs->currentWidget() == m_incidentsPane) {
        if (!m_incidentsPane->selectSerial(serial))
            showStatusMessage(tr("Anomaly #%1 was dropped: the window keeps the newest %2")
                                  .arg(serial + 1)
                                  .arg(formatCount(incidentModel()->maxAnomalies())),
                              5000);
        return;
    }
    const int row = anomalyModel()->rowOfSerial(serial);
    if (row < 0) {
        showStatusMessage(tr("Anomaly #%1 was dropped: the list keeps the newest %2")
                              .arg(serial + 1)
                              .arg(formatCount(anomalyModel()->maxRows())),
                          5000);
        return;
    }
    selectAnomaly(row);
}

void MainWindow::selectAnomaly(int sourceRow) {
    m_tabs->setCurrentWidget(m_anomaliesPane);
    if (!m_anomaliesPane->selectRow(sourceRow))
        statusBar()->showMessage(tr("Anomaly #%1 is hidden by the display filter")
                                     .arg(anomalyModel()->serialOf(sourceRow) + 1),
                                 5000);
}

void MainWindow::showAnomaly(const Anomaly& a, qint64 serial, DetailSource from) {
    m_detailSource = from;
    m_detail->showAnomaly(a, serial + 1);
    if (!a.resource.isEmpty())
        m_focus->show(a.resource);
    m_chartsPane->focusAnomaly(a);
}

void MainWindow::onSelectionCleared(DetailSource from) {
    if (m_detailSource != from)
        return; // the details show another pane's selection
    m_detail->clear();
    m_detailSource = DetailSource::None;
}

void MainWindow::onSelectedDropped(DetailSource from) {
    // The details stay, marked: the reader was looking at them.
    if (m_detailSource == from)
        m_detail->markDropped();
}

void MainWindow::onSessionFailed(const QString& message) {
    m_status->fail(message);
    showErrorBox(tr("WatchScope — session failed"), message);
}

void MainWindow::onSessionFinished() {
    m_status->finish();
}

} // namespace ws

#include "MainWindow.h"

#include <QPlainTextEdit>
#include <QRegularExpression>

#include "AnomalyDetailPane.h"
#include "BufferOccupancyChart.h"
#include "LiveChartView.h"
#include "ReplayBar.h"
#include "RvTimelineChart.h"
#include "ScenarioPicker.h"
#include "engine/Session.h"
#include "models/AnomalyFilterProxy.h"
#include "models/AnomalyListModel.h"
#include "models/CacheTableModel.h"
#include "models/CellFormat.h"
#include "models/WatcherTableModel.h"
#include "viewexport/ViewExporter.h"

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
#include <QScreen>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

namespace ws {

namespace {

struct SpanChoice {
    const char* label;
    double seconds;
};
constexpr SpanChoice kSpans[] = {
    {"10 s", 10}, {"30 s", 30}, {"1 min", 60}, {"5 min", 300}, {"15 min", 900}};
constexpr int kDefaultSpanIndex = 2;

// Initial widths that fit typical content ("informer/kube-controller-manager", "1,000 / 1,000
// (100%)") without measuring every row of a live table; the last column stretches.
void setColumnWidths(QTableView* view, std::initializer_list<int> widths) {
    int column = 0;
    for (int w : widths)
        view->horizontalHeader()->resizeSection(column++, w);
}

QString snapshotKey(const QString& a, const QString& b) {
    return a + QLatin1Char('\x1f') + b;
}

} // namespace

MainWindow::MainWindow(Session* session, QWidget* parent, SeriesBuffer::Limits seriesLimits)
    : QMainWindow(parent), m_session(session), m_chartData(seriesLimits),
      m_watchers(new WatcherTableModel(this)), m_caches(new CacheTableModel(this)),
      m_anomalies(new AnomalyListModel(this)), m_anomalyProxy(new AnomalyFilterProxy(this)),
      m_watcherProxy(new QSortFilterProxyModel(this)),
      m_cacheProxy(new QSortFilterProxyModel(this)) {
    qRegisterMetaType<ws::EngineUpdate>();
    // 1400×900 where it fits, otherwise most of the screen: every pane needs room to be read.
    QSize size(1400, 900);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableSize() * 0.95);
    resize(size);

    m_anomalyProxy->setSourceModel(m_anomalies);
    m_watcherProxy->setSourceModel(m_watchers);
    m_watcherProxy->setSortRole(WatcherTableModel::SortRole);
    m_watcherProxy->setFilterRole(WatcherTableModel::SortRole);
    m_watcherProxy->setFilterKeyColumn(WatcherTableModel::ResourceColumn);
    m_cacheProxy->setSourceModel(m_caches);
    m_cacheProxy->setSortRole(CacheTableModel::SortRole);
    m_cacheProxy->setFilterRole(CacheTableModel::SortRole);
    m_cacheProxy->setFilterKeyColumn(CacheTableModel::ResourceColumn);

    m_rvChart = new RvTimelineChart;
    m_rvChart->setChartData(&m_chartData);
    m_bufferChart = new BufferOccupancyChart;
    m_bufferChart->view()->setChartData(&m_chartData);

    auto* charts = new QSplitter(Qt::Horizontal);
    charts->addWidget(m_rvChart);
    charts->addWidget(m_bufferChart);
    charts->setStretchFactor(0, 2);
    charts->setStretchFactor(1, 1);
    charts->setSizes({930, 470});

    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(buildAnomalyTab(), tr("Anomalies"));
    m_watcherView = makeTable(m_watcherProxy);
    m_watcherView->sortByColumn(WatcherTableModel::IdColumn, Qt::AscendingOrder);
    setColumnWidths(m_watcherView, {230, 95, 95, 120, 85, 75, 75, 65, 85, 60});
    m_tabs->addTab(m_watcherView, tr("Watchers"));
    m_cacheView = makeTable(m_cacheProxy);
    m_cacheView->sortByColumn(CacheTableModel::ResourceColumn, Qt::AscendingOrder);
    setColumnWidths(m_cacheView, {130, 100, 90, 90, 110, 190, 90, 90});
    m_tabs->addTab(m_cacheView, tr("Watch caches"));
    m_allResourcesBox = new QCheckBox(tr("All resources"));
    m_allResourcesBox->setToolTip(tr("Watchers and watch caches of every resource, not only of "
                                     "the one the charts show"));
    connect(m_allResourcesBox, &QCheckBox::toggled, this, [this] { applyResourceFilter(); });
    m_tabs->setCornerWidget(m_allResourcesBox, Qt::TopRightCorner);

    m_detail = new AnomalyDetailPane;
    auto* lists = new QSplitter(Qt::Horizontal);
    lists->addWidget(m_tabs);
    lists->addWidget(m_detail);
    lists->setStretchFactor(0, 3);
    lists->setStretchFactor(1, 1);
    lists->setSizes({1040, 360});

    auto* central = new QSplitter(Qt::Vertical);
    central->addWidget(charts);
    central->addWidget(lists);
    central->setStretchFactor(0, 1);
    central->setStretchFactor(1, 1);
    central->setSizes({430, 400});
    central->setChildrenCollapsible(false);
    setCentralWidget(central);

    buildActions();
    buildToolBar();
    buildStatusBar();
    m_exporter = new ViewExporter(this);
    setSpan(kSpans[kDefaultSpanIndex].seconds);
    updateTabTitles();

    // Clicking a marker on the chart selects its row, like clicking a row focuses the chart.
    connect(m_rvChart, &RvTimelineChart::anomalyClicked, this, &MainWindow::selectAnomalySerial);
    connect(m_anomalyView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onAnomalySelected(current); });
    // When the list drops the selected row (it keeps the newest), Qt would move the selection
    // to a neighbour and the detail pane and chart would jump to an unrelated anomaly: clear
    // the selection instead, and keep the dropped anomaly's details, marked as such.
    connect(m_anomalies, &AnomalyListModel::aboutToDropOldest, this, [this](int count) {
        const QModelIndex current = m_anomalyView->selectionModel()->currentIndex();
        if (!current.isValid())
            return;
        const int row = m_anomalyProxy->mapToSource(current).row();
        if (row >= count)
            return;
        m_keepDetail = true;
        m_anomalyView->selectionModel()->clear();
        m_keepDetail = false;
        m_detail->markDropped();
    });
    // The two charts show one time window: a wheel zoom on either applies to both.
    connect(m_rvChart, &LiveChartView::spanChanged, this, &MainWindow::setSpan);
    connect(m_bufferChart->view(), &LiveChartView::spanChanged, this, &MainWindow::setSpan);
    connect(m_rvChart, &LiveChartView::followLiveChanged, this, &MainWindow::setFollowLive);

    connectSession();
    if (m_resourceBox->count() > 0)
        showResource(m_resourceBox->itemText(0));
}

MainWindow::~MainWindow() = default;

Session* MainWindow::session() const {
    return m_session;
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
    if (!m_session)
        return;
    for (const QString& r : m_session->resources()) {
        if (m_resourceBox->findText(r) < 0)
            m_resourceBox->addItem(r);
    }
    // Each connection remembers the generation it was made under: a signal the previous session
    // queued before it stopped is still delivered after a switch (disconnecting does not take
    // back posted events), and must not land in the new session's rows.
    const quint64 generation = m_sessionGeneration;
    connect(
        m_session, &Session::updated, this,
        [this, generation](const EngineUpdate& update) {
            if (generation != m_sessionGeneration) {
                ++m_staleUpdates;
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
    const QString resource = currentResource();
    clearSessionState();
    connectSession();
    // Stay on the resource looked at when the new session has it too.
    if (m_resourceBox->findText(resource) >= 0)
        showResource(resource);
    else if (m_resourceBox->count() > 0)
        showResource(m_resourceBox->itemText(0));
}

void MainWindow::clearSessionState() {
    // Held data belongs to the old session: drop it before resuming, so nothing is folded.
    m_heldWatchers.clear();
    m_heldCaches.clear();
    m_heldAnomalies.clear();
    m_heldDropped = 0;
    setViewPaused(false);

    m_anomalyView->selectionModel()->clear();
    m_anomalies->clear();
    m_watchers->clear();
    m_caches->clear();
    m_chartData.clear();
    m_detail->clear();
    m_rvChart->reset();
    m_bufferChart->reset();
    setFollowLive(true);
    {
        // Emptied and refilled by connectSession(): no chart should follow the empty choice.
        const QSignalBlocker block(m_resourceBox);
        m_resourceBox->clear();
    }

    m_resourcePicked = false;
    m_followedFirstAnomaly = false;
    m_finished = false;
    m_failed = false;
    m_lastError.clear();
    m_updatesApplied = 0;
    m_staleUpdates = 0;
    m_stateLabel->setText(tr("Waiting for data"));
    m_stateLabel->setStyleSheet(QString());
    m_timeLabel->setText(tr("t = 0.0 s"));
    m_eventsLabel->setText(tr("events 0"));
    m_rateLabel->setText(tr("0 events/s"));
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
    m_lastError = message;
    const QString what = scenario ? tr("Scenario not switched") : tr("Not connected");
    showStatusMessage(tr("%1: %2").arg(what, message), 15000);
    showErrorBox(tr("WatchScope — %1").arg(what.toLower()),
                 tr("%1\n\nThe current session keeps running.").arg(message));
}

void MainWindow::showError(const QString& what, const QString& message) {
    m_lastError = message;
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
    QMenu* help = menuBar()->addMenu(tr("&Help"));
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
    connect(m_resourceBox, &QComboBox::currentTextChanged, this, &MainWindow::showResource);
    connect(m_resourceBox, &QComboBox::activated, this, [this] { m_resourcePicked = true; });
    bar->addWidget(m_resourceBox);

    bar->addWidget(new QLabel(tr("  Window: ")));
    m_spanBox = new QComboBox;
    for (const SpanChoice& s : kSpans)
        m_spanBox->addItem(tr(s.label), s.seconds);
    m_spanBox->setCurrentIndex(kDefaultSpanIndex);
    m_spanBox->setToolTip(tr("Time shown by the charts (mouse wheel on a chart zooms)"));
    connect(m_spanBox, &QComboBox::activated, this,
            [this](int index) { setSpan(m_spanBox->itemData(index).toDouble()); });
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

QWidget* MainWindow::buildAnomalyTab() {
    auto* tab = new QWidget;
    m_filterEdit = new QLineEdit;
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->setPlaceholderText(
        tr("Display filter, e.g. resource:pods kind:too-old !watcher:kubelet  (terms AND-ed)"));
    m_filterEdit->setToolTip(
        tr("Whitespace-separated terms, all must match. field:value with field one of kind, "
           "severity, source, resource, key, watcher, rv, message; a bare word searches every "
           "field; a leading ! negates a term."));
    // Ctrl+F jumps to the display filter from anywhere in the window.
    auto* focusFilter = new QAction(tab);
    focusFilter->setShortcut(QKeySequence::Find);
    focusFilter->setShortcutContext(Qt::WindowShortcut);
    connect(focusFilter, &QAction::triggered, this, [this] {
        m_tabs->setCurrentIndex(0);
        m_filterEdit->setFocus(Qt::ShortcutFocusReason);
        m_filterEdit->selectAll();
    });
    addAction(focusFilter);
    connect(m_filterEdit, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_anomalyProxy->setText(text);
        updateTabTitles();
    });

    m_kindBox = new QComboBox;
    m_kindBox->addItem(tr("All kinds"));
    for (AnomalyKind kind : allAnomalyKinds())
        m_kindBox->addItem(kindName(kind), int(kind));
    connect(m_kindBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QVariant v = m_kindBox->itemData(index);
        m_anomalyProxy->setKind(v.isValid() ? std::optional(AnomalyKind(v.toInt())) : std::nullopt);
        updateTabTitles();
    });

    m_severityBox = new QComboBox;
    m_severityBox->addItem(tr("All severities"));
    for (Severity s : {Severity::Error, Severity::Warning, Severity::Info})
        m_severityBox->addItem(severityName(s), int(s));
    connect(m_severityBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QVariant v = m_severityBox->itemData(index);
        m_anomalyProxy->setSeverity(v.isValid() ? std::optional(Severity(v.toInt()))
                                                : std::nullopt);
        updateTabTitles();
    });
    m_shownLabel = new QLabel;

    auto* filterRow = new QHBoxLayout;
    filterRow->setContentsMargins(4, 4, 4, 0);
    filterRow->addWidget(m_filterEdit, 1);
    filterRow->addWidget(m_kindBox);
    filterRow->addWidget(m_severityBox);
    filterRow->addWidget(m_shownLabel);

    m_anomalyView = makeTable(m_anomalyProxy);
    m_anomalyView->sortByColumn(AnomalyListModel::NumberColumn, Qt::AscendingOrder);
    setColumnWidths(m_anomalyView, {48, 72, 86, 150, 76, 90, 64, 160, 170});
    QHeaderView* h = m_anomalyView->horizontalHeader();
    // One simulator or one endpoint per session: the source rarely tells rows apart, so it
    // starts hidden (the header's context menu shows it) and leaves the message room.
    h->setSectionHidden(AnomalyListModel::SourceColumn, true);

    auto* layout = new QVBoxLayout(tab);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(filterRow);
    layout->addWidget(m_anomalyView, 1);
    return tab;
}

QTableView* MainWindow::makeTable(QAbstractItemModel* model) {
    auto* view = new QTableView;
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->setSortingEnabled(true);
    view->setWordWrap(false);
    view->setTextElideMode(Qt::ElideRight);
    view->verticalHeader()->setVisible(false);
    // Fixed row heights: a live table must not measure every row it has.
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setDefaultSectionSize(110);
    view->horizontalHeader()->setHighlightSections(false);
    // Right-click on a header to choose the columns, as in Wireshark's packet list.
    QHeaderView* header = view->horizontalHeader();
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QWidget::customContextMenuRequested, view, [header, model](const QPoint& pos) {
        QMenu menu;
        for (int c = 0; c < model->columnCount(); ++c) {
            QAction* a = menu.addAction(model->headerData(c, Qt::Horizontal).toString());
            a->setCheckable(true);
            a->setChecked(!header->isSectionHidden(c));
            QObject::connect(a, &QAction::toggled, header,
                             [header, c](bool on) { header->setSectionHidden(c, !on); });
        }
        menu.exec(header->mapToGlobal(pos));
    });
    return view;
}

void MainWindow::buildStatusBar() {
    m_stateLabel = new QLabel(tr("Waiting for data"));
    m_timeLabel = new QLabel;
    m_eventsLabel = new QLabel;
    m_rateLabel = new QLabel;
    m_anomalyCountLabel = new QLabel;
    statusBar()->addWidget(m_stateLabel, 1);
    m_recordLabel = new QLabel;
    m_recordLabel->setObjectName(QStringLiteral("recordingStatus"));
    m_recordLabel->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_recordLabel->setVisible(false);
    statusBar()->addPermanentWidget(m_recordLabel);
    for (QLabel* l : {m_timeLabel, m_eventsLabel, m_rateLabel, m_anomalyCountLabel}) {
        l->setMinimumWidth(l->fontMetrics().horizontalAdvance(QStringLiteral("0")) * 16);
        l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        statusBar()->addPermanentWidget(l);
    }
    m_timeLabel->setText(tr("t = 0.0 s"));
    m_eventsLabel->setText(tr("events 0"));
    m_rateLabel->setText(tr("0 events/s"));
    m_anomalyCountLabel->setText(tr("anomalies 0"));
}

void MainWindow::setRecordingStatus(const QString& text) {
    m_recordLabel->setText(text);
    m_recordLabel->setVisible(!text.isEmpty());
}

QString MainWindow::recordingStatus() const {
    return m_recordLabel->text();
}

QString MainWindow::currentResource() const {
    return m_resourceBox->currentText();
}

QString MainWindow::anomalyCountText() const {
    return m_anomalyCountLabel->text();
}

QString MainWindow::stateText() const {
    return m_stateLabel->text();
}

void MainWindow::setCurrentResource(const QString& resource) {
    m_resourcePicked = true;
    showResource(resource);
}

void MainWindow::showResource(const QString& resource) {
    if (resource.isEmpty())
        return;
    if (m_resourceBox->currentText() != resource) {
        const int index = m_resourceBox->findText(resource);
        if (index < 0)
            return;
        m_resourceBox->setCurrentIndex(index); // re-enters through currentTextChanged
        return;
    }
    m_rvChart->setResource(resource);
    m_bufferChart->setResource(resource);
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
    // The watcher and cache tables show the resource the charts show, as the charts do; exact
    // match on the raw value, so "pods" does not also show "podtemplates".
    const QString resource = currentResource();
    const QRegularExpression only(
        m_allResourcesBox->isChecked() || resource.isEmpty()
            ? QString()
            : QRegularExpression::anchoredPattern(QRegularExpression::escape(resource)));
    m_watcherProxy->setFilterRegularExpression(only);
    m_cacheProxy->setFilterRegularExpression(only);
    updateTabTitles();
}

void MainWindow::setSpan(double seconds) {
    m_rvChart->setSpanSeconds(seconds);
    m_bufferChart->view()->setSpanSeconds(seconds);
    int index = m_spanBox->findData(seconds);
    if (index < 0) {
        // A wheel zoom lands between the presets: show it as an extra, last entry.
        const QString label = tr("%1 s").arg(seconds, 0, 'f', 0);
        if (m_spanBox->count() > int(std::size(kSpans)))
            m_spanBox->setItemText(m_spanBox->count() - 1, label);
        else
            m_spanBox->addItem(label);
        index = m_spanBox->count() - 1;
        m_spanBox->setItemData(index, seconds);
    }
    m_spanBox->setCurrentIndex(index);
}

void MainWindow::setFollowLive(bool follow) {
    // The focus line of a selected anomaly stays: it still marks the row shown in the detail.
    if (m_followAction->isChecked() != follow)
        m_followAction->setChecked(follow);
    m_rvChart->setFollowLive(follow);
    m_bufferChart->view()->setFollowLive(follow);
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
    // The scenario's explanation, readable beside the live view: a paragraph starts at each
    // "What happens:" / "Why ...:" style line of the hard-wrapped text.
    QString text;
    for (const QString& line : note.split(QLatin1Char('\n'))) {
        const QString t = line.trimmed();
        const int colon = t.indexOf(QLatin1Char(':'));
        const bool heading = colon > 0 && colon < 24 &&
                             t.left(colon).count(QLatin1Char(' ')) <= 3 && t.at(0).isUpper();
        if (heading && !text.isEmpty())
            text += QStringLiteral("\n\n");
        else if (!text.isEmpty())
            text += QLatin1Char(' ');
        text += t;
    }
    if (view) {
        view->setPlainText(text.trimmed()); // a switched session: the tab stays where it was
    } else {
        view = new QPlainTextEdit(text.trimmed());
        view->setReadOnly(true);
        view->setObjectName(QStringLiteral("scenarioExplanation"));
        m_tabs->addTab(view, tr("Scenario"));
    }
    if (!note.isEmpty())
        showStatusMessage(note.simplified(), 15000);
}

void MainWindow::applyUpdate(const EngineUpdate& update) {
    ++m_updatesApplied;
    // Series always go in (bounded); the frozen charts simply do not redraw them yet.
    m_chartData.apply(update.series);
    noteResources(update);
    updateStatus(update);

    if (m_paused) {
        for (const WatcherSnapshot& w : update.watchers)
            m_heldWatchers.insert(snapshotKey(w.resource, w.id), w);
        for (const CacheSnapshot& c : update.caches)
            m_heldCaches.insert(snapshotKey(c.resource, c.apiserver), c);
        m_heldAnomalies.append(update.anomalies);
        // What the list would drop on resume need not be held: drop it now, in batches.
        const qsizetype excess = m_heldAnomalies.size() - m_anomalies->maxRows();
        if (excess > 0 && excess >= m_anomalies->dropBatch()) {
            m_heldAnomalies.remove(0, excess);
            m_heldDropped += excess;
        }
        const qint64 held = qint64(m_heldAnomalies.size()) + m_heldDropped;
        m_stateLabel->setText(tr("View paused — %1 new anomalies held").arg(held));
    } else {
        fold(update);
    }
    const double edgeMs =
        std::max(double(update.now) / double(kUsPerMs), m_chartData.latestTimeMs());
    m_rvChart->setLiveEdge(edgeMs);
    m_bufferChart->view()->setLiveEdge(edgeMs);
    if (update.finished)
        onSessionFinished();
}

void MainWindow::fold(const EngineUpdate& update, qint64 missingAnomalies) {
    m_watchers->applySnapshots(update.watchers);
    m_caches->applySnapshots(update.caches);
    m_bufferChart->applySnapshots(update.caches);
    if (!update.anomalies.isEmpty() || missingAnomalies > 0) {
        // Keep the newest row in view, as Wireshark does during a live capture, unless the
        // reader scrolled away from the bottom.
        QScrollBar* bar = m_anomalyView->verticalScrollBar();
        const bool atBottom = bar->value() >= bar->maximum();
        const qint64 firstSerial =
            m_anomalies->serialOf(m_anomalies->rowCount()) + missingAnomalies;
        m_anomalies->appendAnomalies(update.anomalies, missingAnomalies);
        m_rvChart->addAnomalies(update.anomalies, firstSerial);
        followFirstAnomaly(update.anomalies);
        if (atBottom && !m_anomalyView->selectionModel()->hasSelection())
            m_anomalyView->scrollToBottom();
    }
    updateTabTitles();
    // A live source says what its transport is doing ("Connecting to …", "Reconnecting …").
    if (!m_finished && !m_failed)
        m_stateLabel->setText(update.sourceState.isEmpty() ? tr("Live") : update.sourceState);
}

void MainWindow::followFirstAnomaly(const AnomalyList& anomalies) {
    if (m_resourcePicked || m_followedFirstAnomaly)
        return;
    for (const Anomaly& a : anomalies) {
        // Info anomalies (a quiet resource's stuck watcher) are not worth moving the view for.
        if (a.severity == Severity::Info || a.resource.isEmpty() ||
            m_resourceBox->findText(a.resource) < 0)
            continue;
        m_followedFirstAnomaly = true;
        if (a.resource != currentResource()) {
            showResource(a.resource);
            showStatusMessage(tr("Showing %1, where the first anomaly is").arg(a.resource), 8000);
        }
        return;
    }
}

void MainWindow::noteResources(const EngineUpdate& update) {
    const auto note = [this](const QString& resource) {
        if (!resource.isEmpty() && m_resourceBox->findText(resource) < 0)
            m_resourceBox->addItem(resource); // the first one added becomes current
    };
    for (const CacheSnapshot& c : update.caches)
        note(c.resource);
    for (const WatcherSnapshot& w : update.watchers)
        note(w.resource);
    for (const SeriesDelta& s : update.series)
        note(s.resource);
}

void MainWindow::updateStatus(const EngineUpdate& update) {
    m_timeLabel->setText(tr("t = %1 s").arg(double(update.now) / double(kUsPerSecond), 0, 'f', 1));
    m_eventsLabel->setText(tr("events %1").arg(formatCount(update.totalEvents)));
    m_rateLabel->setText(tr("%1 events/s").arg(formatCount(qRound64(update.eventsPerSecond))));
}

void MainWindow::updateTabTitles() {
    const int total = m_anomalies->rowCount();
    const int shown = m_anomalyProxy->rowCount();
    m_tabs->setTabText(0, tr("Anomalies (%1)").arg(total));
    // Counts of what the tables show, and of all there is when they show one resource of several.
    const auto count = [](const QAbstractItemModel* shownRows, const QAbstractItemModel* all) {
        const int n = shownRows->rowCount();
        const int of = all->rowCount();
        return n == of ? QString::number(n) : tr("%1 of %2").arg(n).arg(of);
    };
    m_tabs->setTabText(1, tr("Watchers (%1)").arg(count(m_watcherProxy, m_watchers)));
    m_tabs->setTabText(2, tr("Watch caches (%1)").arg(count(m_cacheProxy, m_caches)));
    m_shownLabel->setText(shown == total ? tr("%1 shown").arg(total)
                                         : tr("%1 of %2 shown").arg(shown).arg(total));
    const qint64 dropped = m_anomalies->droppedCount();
    m_anomalyCountLabel->setText(
        dropped == 0 ? tr("anomalies %1").arg(total)
                     : tr("anomalies %1 (oldest %2 dropped)")
                           .arg(formatCount(dropped + total), formatCount(dropped)));
    m_anomalyCountLabel->setToolTip(
        tr("The anomaly list keeps the newest %1; older ones are dropped in batches")
            .arg(formatCount(m_anomalies->maxRows())));
}

void MainWindow::setViewPaused(bool paused) {
    if (paused == m_paused)
        return;
    m_paused = paused;
    if (m_pauseAction->isChecked() != paused)
        m_pauseAction->setChecked(paused);
    m_pauseAction->setText(paused ? tr("Resume view") : tr("Pause view"));
    m_pauseAction->setIcon(
        style()->standardIcon(paused ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
    m_rvChart->setFrozen(paused);
    m_bufferChart->view()->setFrozen(paused);
    if (paused) {
        m_stateLabel->setText(tr("View paused"));
        return;
    }
    EngineUpdate held;
    held.watchers = m_heldWatchers.values().toVector();
    held.caches = m_heldCaches.values().toVector();
    held.anomalies.swap(m_heldAnomalies);
    const qint64 missing = std::exchange(m_heldDropped, 0);
    m_heldWatchers.clear();
    m_heldCaches.clear();
    fold(held, missing);
    if (m_finished)
        m_stateLabel->setText(tr("Finished"));
}

void MainWindow::selectAnomalySerial(qint64 serial) {
    const int row = m_anomalies->rowOfSerial(serial);
    if (row < 0) {
        showStatusMessage(tr("Anomaly #%1 was dropped: the list keeps the newest %2")
                              .arg(serial + 1)
                              .arg(formatCount(m_anomalies->maxRows())),
                          5000);
        return;
    }
    selectAnomaly(row);
}

void MainWindow::selectAnomaly(int sourceRow) {
    const QModelIndex source = m_anomalies->index(sourceRow, 0);
    const QModelIndex proxy = m_anomalyProxy->mapFromSource(source);
    if (!proxy.isValid()) {
        statusBar()->showMessage(tr("Anomaly #%1 is hidden by the display filter")
                                     .arg(m_anomalies->serialOf(sourceRow) + 1),
                                 5000);
        return;
    }
    m_tabs->setCurrentIndex(0);
    m_anomalyView->selectionModel()->setCurrentIndex(proxy, QItemSelectionModel::ClearAndSelect |
                                                                QItemSelectionModel::Rows);
    m_anomalyView->scrollTo(proxy);
}

void MainWindow::onAnomalySelected(const QModelIndex& current) {
    if (!current.isValid()) {
        if (!std::exchange(m_keepDetail, false))
            m_detail->clear();
        return;
    }
    const int row = m_anomalyProxy->mapToSource(current).row();
    const Anomaly& a = m_anomalies->anomaly(row);
    m_detail->showAnomaly(a, m_anomalies->serialOf(row) + 1);
    if (!a.resource.isEmpty())
        showResource(a.resource);
    m_rvChart->focusAnomaly(a);
    m_bufferChart->view()->centerOn(double(a.time) / double(kUsPerMs));
}

void MainWindow::onSessionFailed(const QString& message) {
    m_failed = true;
    m_lastError = message;
    m_stateLabel->setText(tr("Failed: %1").arg(message));
    m_stateLabel->setStyleSheet(QStringLiteral("color: #b00020;"));
    showErrorBox(tr("WatchScope — session failed"), message);
}

void MainWindow::onSessionFinished() {
    if (m_finished)
        return;
    m_finished = true;
    if (!m_failed && !m_paused)
        m_stateLabel->setText(tr("Finished"));
}

} // namespace ws

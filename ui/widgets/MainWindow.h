#pragma once

#include "charts/ChartData.h"
#include "engine/EngineUpdate.h"
#include "scenario/ScenarioLoader.h"
#include "viewstate/ThrottledRefresh.h"

#include <QMainWindow>
#include <QPointer>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QMessageBox;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTreeView;

namespace ws {

class AnomaliesPane;
class AnomalyDetailPane;
class AnomalyFilterProxy;
class AnomalyListModel;
class BufferOccupancyChart;
class CacheTableModel;
class ChartsPane;
class EventsPane;
class FollowPolicy;
class IncidentsPane;
class IncidentTreeModel;
class ReplayBar;
class ResourceFocus;
class ResourceTablePane;
class ResourceTreeModel;
class ResourcesPane;
class RevisionAccountsPane;
class RvTimelineChart;
class ScenarioPicker;
class Session;
class SessionStatus;
class WarningBanner;
class SessionStatusBar;
class UpdateHold;
class ViewExporter;
class WatcherTableModel;

// The capture → filter → detail window. It creates the panes, lays them out and wires them:
// the resources by API group (ResourcesPane) and the charts of the shown resource (ChartsPane)
// on top; below, tabs with the incidents first (IncidentsPane), the raw anomaly list and its
// display filter (AnomaliesPane), every event received with its own display filter and diffs
// (EventsPane), the watchers and
// the watch caches (ResourceTablePane) and the scenario's explanation; the selected anomaly's
// fields beside them (AnomalyDetailPane). What the view shows and when it changes by itself
// lives in widget-free view state (ui/viewstate): UpdateHold (pause/hold), ResourceFocus (which
// resource, discovered and followed), FollowPolicy (time window, live or parked), SessionStatus
// (the status bar's texts).
//
// It observes a Session but does not own it or its thread: updates arrive queued, at most ~30 a
// second, and each is folded into the models; charts replot on their own timer, only when what
// they show changed. setSession() moves it to another session with a clean slate; a scenario
// picker in the tool bar (shown once setScenarios() is called) asks for such a switch, which
// SessionSwitcher does.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(Session* session, QWidget* parent = nullptr,
                        SeriesBuffer::Limits seriesLimits = {});
    ~MainWindow() override;

    // The panes.
    IncidentsPane* incidentsPane() const { return m_incidentsPane; }
    AnomaliesPane* anomaliesPane() const { return m_anomaliesPane; }
    EventsPane* eventsPane() const { return m_eventsPane; }
    ChartsPane* chartsPane() const { return m_chartsPane; }
    // The resources by API group beside the charts: selecting there picks what they show.
    ResourcesPane* resourcesPane() const { return m_resourcesPane; }
    ResourceTreeModel* resourceModel() const;
    QTreeView* resourceView() const;
    AnomalyDetailPane* detailPane() const { return m_detail; }
    QTabWidget* paneTabs() const { return m_tabs; } // Incidents, Anomalies, Watchers, …
    // The view state.
    UpdateHold* updateHold() const { return m_hold; }
    ResourceFocus* resourceFocus() const { return m_focus; }
    FollowPolicy* followPolicy() const { return m_follow; }
    SessionStatus* sessionStatus() const { return m_status; }

    IncidentTreeModel* incidentModel() const;
    WatcherTableModel* watcherModel() const { return m_watchers; }
    CacheTableModel* cacheModel() const { return m_caches; }
    AnomalyListModel* anomalyModel() const;
    AnomalyFilterProxy* anomalyProxy() const;
    QTableView* anomalyView() const;
    RvTimelineChart* rvChart() const;
    BufferOccupancyChart* bufferChart() const;
    QComboBox* resourceChooser() const { return m_resourceBox; }
    QLineEdit* filterEdit() const;
    QComboBox* kindChooser() const;
    QSortFilterProxyModel* watcherProxy() const;
    QSortFilterProxyModel* cacheProxy() const;
    bool tablesShowAllResources() const;
    ScenarioPicker* scenarioPicker() const { return m_scenarioPicker; }
    QAction* openScenarioAction() const { return m_openScenarioAction; }
    // Runs the current scenario again from the start (a file is read again): the window asks,
    // whoever owns the sessions (SessionSwitcher) does it.
    QAction* restartScenarioAction() const { return m_restartScenarioAction; }
    // Opens the connect dialog (enabled by whoever can switch sessions: SessionSwitcher).
    QAction* connectClusterAction() const { return m_connectClusterAction; }
    // File → Open Capture… (Ctrl+O) and File → Recent Captures: the window asks, SessionSwitcher
    // opens (enabled by it).
    QAction* openCaptureAction() const { return m_openCaptureAction; }
    QMenu* recentCapturesMenu() const { return m_recentCapturesMenu; }
    // File → What If… (Ctrl+Shift+W, also on the replay bar): the capture being replayed under
    // other versions, compared (WhatIfController enables it while a capture is replayed).
    QAction* whatIfAction() const { return m_whatIfAction; }
    // Record (checkable, tool bar and File menu): SessionRecording does it.
    QAction* recordAction() const { return m_recordAction; }
    // The replay controls, shown while a capture plays (ReplayController drives them).
    ReplayBar* replayBar() const { return m_replayBar; }
    void setReplayBarVisible(bool visible);
    // File → Export: the chart as PNG/SVG, the visible tables as CSV.
    ViewExporter* exporter() const { return m_exporter; }
    QMenu* exportMenu() const { return m_exportMenu; }
    QTableView* watcherView() const;
    QTableView* cacheView() const;
    RevisionAccountsPane* accountsPane() const { return m_accountsPane; }
    // "Recording foo.wscap: 1.2 MB" in the status bar; empty hides it.
    void setRecordingStatus(const QString& text);
    QString recordingStatus() const;
    QString flowStatus() const; // "dropped …" in the status bar; empty while nothing was
    Session* session() const;
    const ChartData& chartData() const { return m_chartData; }
    QString currentResource() const;
    bool isViewPaused() const;
    QString stateText() const;
    QString lastError() const;
    int updatesApplied() const;
    int anomaliesHeld() const; // in memory, while paused
    // Updates that arrived from a session after the window had moved to another one.
    int staleUpdatesDropped() const;
    QString anomalyCountText() const;
    // The session's security warnings as the banner above the panes shows them; empty: hidden.
    QStringList securityWarningsShown() const;
    // The sources' session warnings the banner shows now (what the session goes on without).
    QStringList sessionWarningsShown() const;

public slots:
    void applyUpdate(const ws::EngineUpdate& update);
    void setViewPaused(bool paused);
    // Charts, watcher table and cache table follow the chosen resource. A choice: from now on
    // the charts no longer move to the first anomaly's resource by themselves.
    void setCurrentResource(const QString& resource);
    // The watcher and cache tables: every resource's rows, or only the chosen resource's.
    void setTablesShowAllResources(bool all);
    // The time window both charts show (seconds).
    void setSpan(double seconds);
    void setFollowLive(bool follow);
    // What the session is about (a scenario's explanation): tooltip of the session label and
    // the Scenario tab (removed when the note is empty).
    void setSessionNote(const QString& note);
    // What the session description leaves out ("what if kube-apiserver 1.24" for a capture
    // replayed under other versions): added to the window title and the session label until
    // the next setSession().
    void setSessionQualifier(const QString& qualifier);
    QString sessionQualifier() const { return m_sessionQualifier; }
    // Observes `session` from now on, forgetting everything shown of the previous one (rows,
    // series, markers, selection, counts, state, the Scenario tab). Updates the previous
    // session had already queued are dropped when they arrive.
    void setSession(ws::Session* session);
    // Shows the picker with these scenarios, `current` selected (a name or a file path).
    void setScenarios(const std::vector<ws::ScenarioSummary>& builtins, const QString& current);
    // A switch that did not happen: the session shown keeps running, the reason is shown.
    void showSwitchError(const QString& message, bool scenario = true);
    // Something asked for did not happen ("Capture not opened", "Not recording", "Not
    // exported"): one line in the status bar (and lastError()), a message box where one can be
    // seen. The session keeps running.
    void showError(const QString& what, const QString& message);
    // A passing note in the status bar.
    void showStatusMessage(const QString& text, int timeoutMs);
    // Selects a row of the anomaly list by its row in AnomalyListModel (the Anomalies tab).
    void selectAnomaly(int sourceRow);
    // The same by its session-wide number (a chart marker's): in the incidents when they are the
    // tab shown, otherwise in the anomaly list; says so when it was dropped.
    void selectAnomalySerial(qint64 serial);

protected:
    void showEvent(QShowEvent* event) override;

private:
    // Which pane the details come from: its selection going clears them.
    enum class DetailSource { None, Incidents, Anomalies, Events };

    void buildActions();
    void buildToolBar();
    void buildPanes();
    void connectViewState();
    void connectSession();
    void showSessionTitle();
    void clearSessionState();
    void showErrorBox(const QString& title, const QString& message);
    void chooseScenarioFile();
    void fold(const EngineUpdate& update, qint64 missingAnomalies = 0);
    // What selecting an anomaly in either pane does: details, resource, both charts parked on it.
    void showAnomaly(const Anomaly& anomaly, qint64 serial, DetailSource from);
    void onSelectionCleared(DetailSource from);
    void onSelectedDropped(DetailSource from);
    void showResource(const QString& resource);
    void showSpan(double seconds);
    void showPaused(bool paused);
    void showStatus();
    void updateTabTitles();
    void applyResourceFilter();
    void onSessionFailed(const QString& message);
    void onSessionFinished();

    QPointer<Session> m_session;
    ChartData m_chartData;

    // View state.
    UpdateHold* m_hold;
    ResourceFocus* m_focus;
    FollowPolicy* m_follow;
    SessionStatus* m_status;

    // Models of the tables (the list and the incidents belong to their panes).
    WatcherTableModel* m_watchers;
    CacheTableModel* m_caches;

    // Panes.
    ChartsPane* m_chartsPane = nullptr;
    ResourcesPane* m_resourcesPane = nullptr;
    IncidentsPane* m_incidentsPane = nullptr;
    AnomaliesPane* m_anomaliesPane = nullptr;
    EventsPane* m_eventsPane = nullptr;
    ResourceTablePane* m_watcherPane = nullptr;
    ResourceTablePane* m_cachePane = nullptr;
    RevisionAccountsPane* m_accountsPane = nullptr;
    AnomalyDetailPane* m_detail = nullptr;
    QTabWidget* m_tabs = nullptr;
    // The events count changes with every update; its tab title (a tab bar relayout, and a
    // repaint of the pane under it) is redrawn twice a second.
    ThrottledRefresh* m_eventsTitle = nullptr;
    SessionStatusBar* m_statusBar = nullptr;
    WarningBanner* m_banner = nullptr;
    DetailSource m_detailSource = DetailSource::None;

    ScenarioPicker* m_scenarioPicker = nullptr;
    QAction* m_scenarioPickerItem = nullptr; // the tool bar's handles to show/hide it
    QAction* m_scenarioSeparator = nullptr;
    QAction* m_openScenarioAction = nullptr;
    QAction* m_restartScenarioAction = nullptr;
    QAction* m_connectClusterAction = nullptr;
    QAction* m_openCaptureAction = nullptr;
    QMenu* m_recentCapturesMenu = nullptr;
    QAction* m_whatIfAction = nullptr;
    QAction* m_recordAction = nullptr;
    QMenu* m_exportMenu = nullptr;
    ReplayBar* m_replayBar = nullptr;
    ViewExporter* m_exporter = nullptr;
    QComboBox* m_resourceBox = nullptr;
    QCheckBox* m_allResourcesBox = nullptr;
    QComboBox* m_spanBox = nullptr;
    QLabel* m_sessionLabel = nullptr;
    QString m_sessionQualifier;
    QAction* m_pauseAction = nullptr;
    QAction* m_followAction = nullptr;

    QPointer<QMessageBox> m_errorBox;
    QString m_pendingMessage; // a status message waiting for the window to be shown
    int m_pendingMessageMs = 0;

    // Bumped by setSession(): a queued signal carries the generation it was connected under.
    quint64 m_sessionGeneration = 0;
};

} // namespace ws

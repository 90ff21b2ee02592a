#pragma once

#include "charts/ChartData.h"
#include "engine/EngineUpdate.h"
#include "scenario/ScenarioLoader.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>

class QAbstractItemModel;
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

namespace ws {

class AnomalyDetailPane;
class AnomalyFilterProxy;
class AnomalyListModel;
class BufferOccupancyChart;
class CacheTableModel;
class ReplayBar;
class RvTimelineChart;
class ScenarioPicker;
class ViewExporter;
class Session;
class WatcherTableModel;

// The capture → filter → detail window: charts of the chosen resource on top, the anomaly list
// (with its display filter), watchers and watch caches below, and the selected anomaly's fields
// beside them. It observes a Session but does not own it or its thread: updates arrive queued,
// at most ~30 a second, and each is folded into the models; charts replot on their own timer.
// setSession() moves it to another session with a clean slate; a scenario picker in the tool bar
// (shown once setScenarios() is called) asks for such a switch, which SessionSwitcher does.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(Session* session, QWidget* parent = nullptr,
                        SeriesBuffer::Limits seriesLimits = {});
    ~MainWindow() override;

    WatcherTableModel* watcherModel() const { return m_watchers; }
    CacheTableModel* cacheModel() const { return m_caches; }
    AnomalyListModel* anomalyModel() const { return m_anomalies; }
    AnomalyFilterProxy* anomalyProxy() const { return m_anomalyProxy; }
    QTableView* anomalyView() const { return m_anomalyView; }
    AnomalyDetailPane* detailPane() const { return m_detail; }
    RvTimelineChart* rvChart() const { return m_rvChart; }
    BufferOccupancyChart* bufferChart() const { return m_bufferChart; }
    QComboBox* resourceChooser() const { return m_resourceBox; }
    QLineEdit* filterEdit() const { return m_filterEdit; }
    QComboBox* kindChooser() const { return m_kindBox; }
    QSortFilterProxyModel* watcherProxy() const { return m_watcherProxy; }
    QSortFilterProxyModel* cacheProxy() const { return m_cacheProxy; }
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
    QTableView* watcherView() const { return m_watcherView; }
    QTableView* cacheView() const { return m_cacheView; }
    // "Recording foo.wscap: 1.2 MB" in the status bar; empty hides it.
    void setRecordingStatus(const QString& text);
    QString recordingStatus() const;
    Session* session() const;
    const ChartData& chartData() const { return m_chartData; }
    QString currentResource() const;
    bool isViewPaused() const { return m_paused; }
    QString stateText() const;
    QString lastError() const { return m_lastError; }
    int updatesApplied() const { return m_updatesApplied; }
    int anomaliesHeld() const { return int(m_heldAnomalies.size()); } // in memory, while paused
    // Updates that arrived from a session after the window had moved to another one.
    int staleUpdatesDropped() const { return m_staleUpdates; }
    QString anomalyCountText() const;

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
    // Selects a row of the anomaly list by its row in AnomalyListModel.
    void selectAnomaly(int sourceRow);
    // The same by its session-wide number (a chart marker's); says so when it was dropped.
    void selectAnomalySerial(qint64 serial);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void buildActions();
    void buildToolBar();
    QWidget* buildAnomalyTab();
    QTableView* makeTable(QAbstractItemModel* model);
    void buildStatusBar();
    void connectSession();
    void showSessionTitle();
    void clearSessionState();
    void showErrorBox(const QString& title, const QString& message);
    void chooseScenarioFile();
    void fold(const EngineUpdate& update, qint64 missingAnomalies = 0);
    void noteResources(const EngineUpdate& update);
    void showResource(const QString& resource); // what setCurrentResource does, as no choice
    void followFirstAnomaly(const AnomalyList& anomalies);
    void updateStatus(const EngineUpdate& update);
    void updateTabTitles();
    void applyResourceFilter();
    void onAnomalySelected(const QModelIndex& current);
    void onSessionFailed(const QString& message);
    void onSessionFinished();

    QPointer<Session> m_session;
    ChartData m_chartData;

    WatcherTableModel* m_watchers;
    CacheTableModel* m_caches;
    AnomalyListModel* m_anomalies;
    AnomalyFilterProxy* m_anomalyProxy;
    QSortFilterProxyModel* m_watcherProxy;
    QSortFilterProxyModel* m_cacheProxy;

    RvTimelineChart* m_rvChart = nullptr;
    BufferOccupancyChart* m_bufferChart = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableView* m_anomalyView = nullptr;
    QTableView* m_watcherView = nullptr;
    QTableView* m_cacheView = nullptr;
    AnomalyDetailPane* m_detail = nullptr;

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
    QLabel* m_recordLabel = nullptr;
    QComboBox* m_resourceBox = nullptr;
    QCheckBox* m_allResourcesBox = nullptr;
    QComboBox* m_spanBox = nullptr;
    QLineEdit* m_filterEdit = nullptr;
    QComboBox* m_kindBox = nullptr;
    QComboBox* m_severityBox = nullptr;
    QLabel* m_shownLabel = nullptr;
    QLabel* m_sessionLabel = nullptr;
    QString m_sessionQualifier;
    QAction* m_pauseAction = nullptr;
    QAction* m_followAction = nullptr;

    QLabel* m_stateLabel = nullptr;
    QLabel* m_timeLabel = nullptr;
    QLabel* m_eventsLabel = nullptr;
    QLabel* m_rateLabel = nullptr;
    QLabel* m_anomalyCountLabel = nullptr;
    QPointer<QMessageBox> m_errorBox;
    QString m_pendingMessage; // a status message waiting for the window to be shown
    int m_pendingMessageMs = 0;

    // While the view is paused, snapshots are merged (latest per key) and anomalies held, so
    // nothing is lost and memory stays bounded by the number of watchers/caches.
    bool m_paused = false;
    QHash<QString, WatcherSnapshot> m_heldWatchers;
    QHash<QString, CacheSnapshot> m_heldCaches;
    AnomalyList m_heldAnomalies; // the newest, at most the anomaly list's size
    qint64 m_heldDropped = 0;    // held while paused, then dropped for newer ones

    // Until someone picks a resource, the charts move once to the resource of the first warning
    // or error:
    // a scenario's trouble is often on a quiet resource that is not the first one listed.
    bool m_resourcePicked = false;
    bool m_keepDetail = false; // the selected anomaly is being dropped: its details stay
    bool m_followedFirstAnomaly = false;
    bool m_finished = false;
    bool m_failed = false;
    QString m_lastError;
    int m_updatesApplied = 0;
    int m_staleUpdates = 0;
    // Bumped by setSession(): a queued signal carries the generation it was connected under.
    quint64 m_sessionGeneration = 0;
};

} // namespace ws

#include "SyntheticCluster.h"
#include "charts/ChartData.h"
#include "engine/Session.h"
#include "models/AnomalyFilterProxy.h"
#include "models/AnomalyListModel.h"
#include "models/CacheTableModel.h"
#include "models/EventTableModel.h"
#include "models/IncidentSortProxy.h"
#include "models/IncidentTreeModel.h"
#include "models/RevisionAccountModel.h"
#include "models/WatcherTableModel.h"
#include "session/ExecPluginOutput.h"
#include "sources/cluster/kubeconfig/ExecPluginConsole.h"
#include "viewstate/FollowPolicy.h"
#include "widgets/AnomaliesPane.h"
#include "widgets/AnomalyDetailPane.h"
#include "widgets/BufferOccupancyChart.h"
#include "widgets/EventsPane.h"
#include "widgets/IncidentsPane.h"
#include "widgets/LiveChartView.h"
#include "widgets/MainWindow.h"
#include "widgets/RevisionAccountsPane.h"
#include "widgets/RvTimelineChart.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <QTreeView>
#include <QValueAxis>
#include <thread>

using namespace ws;
using namespace ws::test;

namespace {

// A source that only names itself: the test plays the engine.
class ScriptedSource : public Source {
public:
    ScriptedSource(QString description, QStringList resources)
        : m_description(std::move(description)), m_resources(std::move(resources)) {}
    QString description() const override { return m_description; }
    QString kind() const override { return QStringLiteral("scripted"); }
    bool prepare(QString*) override { return true; }
    bool open(Pipeline&, QString*) override { return true; }
    TimeUs poll(Pipeline&) override { return milliseconds(10); }
    bool finished() const override { return true; }
    void close(Pipeline&) override {}
    QStringList resources() const override { return m_resources; }
    TimeUs now() const override { return 0; }
    qint64 totalEvents() const override { return 0; }
    void snapshot(QVector<CacheSnapshot>&, QVector<WatcherSnapshot>&) const override {}

private:
    QString m_description;
    QStringList m_resources;
};

std::vector<std::unique_ptr<Source>> scripted(QString description, QStringList resources) {
    std::vector<std::unique_ptr<Source>> v;
    v.push_back(std::make_unique<ScriptedSource>(std::move(description), std::move(resources)));
    return v;
}

// A Session whose "engine" is the test: it emits the updates the test hands it, from the same
// thread, so the window's queued connections are exercised as in the program.
class ScriptedSession : public Session {
public:
    explicit ScriptedSession(QString description = QStringLiteral("scripted, seed 7"),
                             QStringList resources = {QStringLiteral("pods")})
        : Session(scripted(std::move(description), std::move(resources)), {}) {}
    void push(const EngineUpdate& u) { emit updated(u); }
    void fail(const QString& m) { emit failed(m); }
    void finish() { emit finished(); }
};

EngineUpdate denseUpdate(int index, int pointsPerSeries, double stepMs) {
    EngineUpdate u;
    const double t0 = index * pointsPerSeries * stepMs;
    u.now = TimeUs((t0 + pointsPerSeries * stepMs) * kUsPerMs);
    for (const char* name :
         {"head_rv", "cache_rv", "watcher_rv:a", "buffer_used", "buffer_capacity"}) {
        QVector<QPointF> pts;
        pts.reserve(pointsPerSeries);
        for (int i = 0; i < pointsPerSeries; ++i)
            pts.append(QPointF(t0 + i * stepMs, 1000 + index * pointsPerSeries + i));
        u.series.append(delta(QStringLiteral("pods"), QString::fromLatin1(name), pts));
    }
    return u;
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void showsSessionRows();
    void showsWhatACredentialPluginSays();
    void chartPointCountsAfterDecimation();
    void boundedMemoryOver100Updates();
    void replotsAreCoalesced();
    void pauseHoldsAndResumes();
    void selectingAnomalyFocusesChart();
    void incidentSelectionFocusesChart();
    void pauseHoldsIncidents();
    void droppedIncidentSelectionKeepsDetails();
    void parkedChartSkipsReplots();
    void followingRedrawsByColumns();
    void bogusRvMarkerKeepsScale();
    void filterEditFiltersList();
    void failureAndFinish();
    void explanationTab();
    void eventsTabShortcutAndNoJournal();
    void noteGivenBeforeShowHidesStateLabel();
    void tablesFollowResource_data();
    void tablesFollowResource();
    void anomalyListIsCapped();
    void setSessionClearsEverything();
    void staleUpdatesAreDropped();
    void pausedStormIsBounded();
    void droppedSelectionKeepsDetails();
    void markersAreCapped_data();
    void markersAreCapped();
    void followsFirstAnomalyResource_data();
    void followsFirstAnomalyResource();
    void screenshot();
};

void TestMainWindow::explanationTab() {
    MainWindow window(nullptr);
    window.setSessionNote(
        QStringLiteral("What happens: a cacher\nfalls behind.\nWhat to do: upgrade\netcd."));
    auto* view = window.findChild<QPlainTextEdit*>(QStringLiteral("scenarioExplanation"));
    QVERIFY(view);
    QCOMPARE(view->toPlainText(),
             QStringLiteral("What happens: a cacher falls behind.\n\nWhat to do: upgrade etcd."));
    auto* tabs = window.findChild<QTabWidget*>();
    QVERIFY(tabs);
    QCOMPARE(tabs->tabText(tabs->count() - 1), QStringLiteral("Scenario"));
}

void TestMainWindow::eventsTabShortcutAndNoJournal() {
    // A session made without an event journal: the Events tab says so and shows no rows.
    ScriptedSession session;
    MainWindow window(&session);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    EventsPane* events = window.eventsPane();
    QVERIFY(events->noteLabel()->text().contains(QStringLiteral("records no events")));
    QCOMPARE(events->model()->rowCount(), 0);
    QVERIFY(window.paneTabs()->currentWidget() != events);
    // Ctrl+Shift+F from anywhere: the Events tab, its name filter focused.
    window.activateWindow();
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(window.paneTabs()->currentWidget(), events);
    QTRY_VERIFY(events->nameEdit()->hasFocus());
}

void TestMainWindow::tablesFollowResource_data() {
    QTest::addColumn<QString>("resource");
    QTest::addColumn<bool>("all");
    QTest::addColumn<int>("watchers");
    QTest::addColumn<int>("caches");
    QTest::addColumn<QString>("watcherTab");

    QTest::newRow("pods") << "pods" << false << 4 << 2 << "Watchers (4 of 5)";
    QTest::newRow("configmaps") << "configmaps" << false << 1 << 1 << "Watchers (1 of 5)";
    QTest::newRow("all resources") << "configmaps" << true << 5 << 3 << "Watchers (5)";
}

void TestMainWindow::tablesFollowResource() {
    QFETCH(QString, resource);
    QFETCH(bool, all);
    QFETCH(int, watchers);
    QFETCH(int, caches);
    QFETCH(QString, watcherTab);

    MainWindow window(nullptr);
    QAbstractItemModelTester watcherTester(window.watcherProxy(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester cacheTester(window.cacheProxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    SyntheticCluster cluster;
    for (int i = 0; i < 50; ++i)
        window.applyUpdate(cluster.next());
    QCOMPARE(window.watcherModel()->rowCount(), 5);
    QCOMPARE(window.cacheModel()->rowCount(), 3);
    window.setCurrentResource(resource);
    window.setTablesShowAllResources(all);
    QCOMPARE(window.tablesShowAllResources(), all);
    QCOMPARE(window.watcherProxy()->rowCount(), watchers);
    QCOMPARE(window.cacheProxy()->rowCount(), caches);
    const std::pair<QSortFilterProxyModel*, int> tables[] = {
        {window.watcherProxy(), WatcherTableModel::ResourceColumn},
        {window.cacheProxy(), CacheTableModel::ResourceColumn}};
    for (const auto& [proxy, column] : tables) {
        for (int r = 0; r < proxy->rowCount(); ++r) {
            const QString shown = proxy->index(r, column).data().toString();
            QVERIFY2(all || shown == resource, qPrintable(shown));
        }
    }
    QTabWidget* tabs = window.paneTabs();
    QCOMPARE(tabs->tabText(tabs->indexOf(window.watcherView())), watcherTab);
    // Rows that arrive later are filtered the same way.
    for (int i = 0; i < 50; ++i)
        window.applyUpdate(cluster.next());
    QCOMPARE(window.watcherProxy()->rowCount(), watchers);
    // And back: unticking "All resources" shows only the chosen resource's rows again.
    window.setTablesShowAllResources(false);
    window.setCurrentResource(QStringLiteral("pods"));
    QCOMPARE(window.watcherProxy()->rowCount(), 4);
}

void TestMainWindow::anomalyListIsCapped() {
    MainWindow window(nullptr);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.anomalyModel()->setMaxRows(10, 4);
    QAbstractItemModelTester tester(window.anomalyProxy(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    SyntheticCluster cluster;
    for (int i = 0; i < 12; ++i) { // 36 anomalies, 3 a frame
        EngineUpdate u = cluster.next();
        u.anomalies.clear();
        for (int k = 0; k < 3; ++k)
            u.anomalies.append(anomaly(u.now, AnomalyKind::WatcherLag, Severity::Warning,
                                       QStringLiteral("pods"), 1000 + 3 * i + k,
                                       QStringLiteral("audit-exporter"),
                                       QStringLiteral("lag #%1").arg(3 * i + k + 1)));
        window.applyUpdate(u);
    }
    const int rows = window.anomalyModel()->rowCount();
    QVERIFY(rows <= 10);
    const qint64 dropped = window.anomalyModel()->droppedCount();
    QCOMPARE(dropped + rows, qint64(36));
    QCOMPARE(window.anomalyCountText(),
             QStringLiteral("anomalies 36 (oldest %1 dropped)").arg(dropped));
    QTabWidget* tabs = window.paneTabs();
    QCOMPARE(tabs->tabText(tabs->indexOf(window.anomaliesPane())),
             QStringLiteral("Anomalies (%1)").arg(rows));

    // A chart marker names its anomaly by session number: it still finds its row after drops
    // (in the list when the list is the tab shown).
    tabs->setCurrentWidget(window.anomaliesPane());
    emit window.rvChart()->anomalyClicked(34); // the 35th anomaly
    const QModelIndex current = window.anomalyView()->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(current.siblingAtColumn(AnomalyListModel::MessageColumn).data().toString(),
             QStringLiteral("lag #35"));
    QVERIFY(window.detailPane()->text().contains(QStringLiteral("lag #35")));
    // A dropped one is said to be dropped, and the selection stays.
    emit window.rvChart()->anomalyClicked(0);
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("#1 was dropped")),
             qPrintable(window.statusBar()->currentMessage()));
    QCOMPARE(window.anomalyView()->currentIndex(), current);
}

void TestMainWindow::noteGivenBeforeShowHidesStateLabel() {
    // main() gives the note before show(): its status message must not be drawn over the state.
    MainWindow window(nullptr);
    window.setSessionNote(QStringLiteral("What happens: steady writes."));
    QLabel* state = nullptr;
    for (QLabel* l : window.statusBar()->findChildren<QLabel*>()) {
        if (l->text() == QLatin1String("Waiting for data"))
            state = l;
    }
    QVERIFY(state);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.statusBar()->currentMessage(), QStringLiteral("What happens: steady writes."));
    QVERIFY(!state->isVisible());
    window.statusBar()->clearMessage();
    QVERIFY(state->isVisible());
}

void TestMainWindow::setSessionClearsEverything() {
    ScriptedSession first;
    ScriptedSession second(QStringLiteral("scenario other, seed 2"),
                           {QStringLiteral("leases"), QStringLiteral("configmaps")});
    MainWindow window(&first);
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;
    for (QAbstractItemModel* m : std::initializer_list<QAbstractItemModel*>{
             window.watcherModel(), window.cacheModel(), window.anomalyModel(),
             window.anomalyProxy(), window.incidentModel(), window.incidentsPane()->proxy()})
        testers.push_back(std::make_unique<QAbstractItemModelTester>(
            m, QAbstractItemModelTester::FailureReportingMode::QtTest));
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.setSessionNote(QStringLiteral("What happens: the first one."));
    SyntheticCluster cluster;
    for (int i = 0; i < 900; ++i)
        first.push(cluster.next());
    QTRY_COMPARE(window.updatesApplied(), 900);
    window.selectAnomaly(1); // pods: parks the charts on 45 s
    QVERIFY(!window.detailPane()->text().isEmpty());
    window.setViewPaused(true);
    for (int i = 0; i < 100; ++i)
        first.push(cluster.next());
    QTRY_COMPARE(window.updatesApplied(), 1000);
    window.rvChart()->replotNow();
    QVERIFY(window.rvChart()->markerCount() > 0);
    QVERIFY(window.rvChart()->boundNames().size() > 2);
    QCOMPARE(window.anomalyModel()->rowCount(), 4);
    QVERIFY(window.bufferChart()->gaugeText().contains(QStringLiteral("/")));

    window.setSession(&second);
    QCOMPARE(window.session(), &second);
    QCOMPARE(window.windowTitle(), QStringLiteral("WatchScope — scenario other, seed 2"));
    QCOMPARE(window.watcherModel()->rowCount(), 0);
    QCOMPARE(window.cacheModel()->rowCount(), 0);
    QCOMPARE(window.anomalyModel()->rowCount(), 0);
    QCOMPARE(window.anomalyProxy()->rowCount(), 0);
    QCOMPARE(window.chartData().retainedPoints(), std::size_t(0));
    QVERIFY(window.chartData().resources().isEmpty());
    QVERIFY(!window.isViewPaused());
    QVERIFY(!window.rvChart()->isFrozen());
    QVERIFY(window.rvChart()->followsLive());
    QCOMPARE(window.rvChart()->liveEdgeMs(), 0.0);
    QCOMPARE(window.bufferChart()->view()->liveEdgeMs(), 0.0);
    QVERIFY(window.detailPane()->text().isEmpty());
    QCOMPARE(window.bufferChart()->gaugeText(), QStringLiteral("no data"));
    QCOMPARE(window.stateText(), QStringLiteral("Waiting for data"));
    QCOMPARE(window.updatesApplied(), 0);
    QCOMPARE(window.resourceChooser()->count(), 2);
    QCOMPARE(window.resourceChooser()->itemText(0), QStringLiteral("leases"));
    QCOMPARE(window.currentResource(), QStringLiteral("leases"));
    QCOMPARE(window.rvChart()->resource(), QStringLiteral("leases"));
    QVERIFY(!window.findChild<QPlainTextEdit*>(QStringLiteral("scenarioExplanation")));
    QTabWidget* tabs = window.paneTabs();
    QCOMPARE(window.findChild<QTabWidget*>(), tabs);
    QCOMPARE(tabs->count(), 6);
    QCOMPARE(tabs->tabText(0), QStringLiteral("Incidents (0)"));
    QCOMPARE(tabs->tabText(1), QStringLiteral("Anomalies (0)"));
    QTRY_COMPARE(tabs->tabText(2), QStringLiteral("Events (0)"));
    QCOMPARE(tabs->tabText(3), QStringLiteral("Watchers (0)"));
    QCOMPARE(tabs->tabText(5), QStringLiteral("Revisions (0)"));
    QCOMPARE(window.accountsPane()->model()->rowCount(), 0);
    QCOMPARE(window.eventsPane()->model()->rowCount(), 0);
    QCOMPARE(window.incidentModel()->rowCount(), 0);
    QCOMPARE(window.incidentModel()->anomaliesSeen(), 0);
    window.rvChart()->replotNow();
    QCOMPARE(window.rvChart()->markerCount(), 0);
    const QStringList bound = window.rvChart()->boundNames();
    QCOMPARE(bound.size(), 2); // etcd head and watch cache only
    QCOMPARE(window.rvChart()->axisX()->min(), 0.0);

    // The new session's data goes in as into a fresh window; its resource is the one shown.
    window.setSessionNote(QStringLiteral("What happens: the second one."));
    QCOMPARE(window.findChildren<QPlainTextEdit*>(QStringLiteral("scenarioExplanation")).size(), 1);
    SyntheticCluster again;
    for (int i = 0; i < 900; ++i)
        second.push(again.next());
    QTRY_COMPARE(window.updatesApplied(), 900);
    QCOMPARE(window.anomalyModel()->rowCount(), 4);
    QCOMPARE(window.watcherModel()->rowCount(), 5);
    window.setCurrentResource(QStringLiteral("pods"));
    window.rvChart()->replotNow();
    QCOMPARE(window.rvChart()->markerCount(), 3);
}

void TestMainWindow::staleUpdatesAreDropped() {
    auto* first = new ScriptedSession;
    QPointer<ScriptedSession> firstGuard(first);
    ScriptedSession second(QStringLiteral("second"), {QStringLiteral("configmaps")});
    MainWindow window(first);
    QAbstractItemModelTester tester(window.watcherModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    SyntheticCluster cluster;
    // Queued by the old session before the switch, delivered after it: as from a worker thread
    // that published its last frames while the GUI thread was switching.
    for (int i = 0; i < 200; ++i)
        first->push(cluster.next());
    first->fail(QStringLiteral("old session failed late"));
    first->finish();
    QCOMPARE(window.updatesApplied(), 0);
    window.setSession(&second);
    first->deleteLater(); // as the switcher does; the queued signals outlive it
    QTRY_COMPARE(window.staleUpdatesDropped(), 200);
    QTRY_VERIFY(firstGuard.isNull());
    second.push(cluster.next());
    QTRY_COMPARE(window.updatesApplied(), 1);
    QCOMPARE(window.watcherModel()->rowCount(), 5);
    QCOMPARE(window.anomalyModel()->rowCount(), 0); // the old one's stuck-watcher never lands
    QVERIFY(window.lastError().isEmpty());
    QCOMPARE(window.stateText(), QStringLiteral("Live"));
}

void TestMainWindow::pausedStormIsBounded() {
    MainWindow window(nullptr);
    window.anomalyModel()->setMaxRows(100, 10);
    EngineUpdate first;
    first.now = seconds(1);
    first.anomalies = {anomaly(seconds(1), AnomalyKind::WatcherLag, Severity::Warning,
                               QStringLiteral("pods"), 1, QStringLiteral("w"),
                               QStringLiteral("0"))};
    window.applyUpdate(first);
    window.setViewPaused(true);
    qint64 rv = 2;
    for (int u = 0; u < 50; ++u) {
        EngineUpdate e;
        e.now = seconds(2 + u);
        for (int i = 0; i < 20; ++i, ++rv)
            e.anomalies.append(anomaly(e.now, AnomalyKind::StaleObject, Severity::Error,
                                       QStringLiteral("pods"), rv, QStringLiteral("w"),
                                       QString::number(rv)));
        window.applyUpdate(e);
        QVERIFY2(window.anomaliesHeld() <= 100 + 10 + 20, qPrintable(QString::number(u)));
    }
    QVERIFY(window.stateText().contains(QStringLiteral("1000 new anomalies held")));
    window.setViewPaused(false);
    // The list is what it would be had the view never paused: the newest 100, numbered from
    // the session's start.
    AnomalyListModel* model = window.anomalyModel();
    QVERIFY(model->rowCount() <= 100);
    QCOMPARE(model->droppedCount() + model->rowCount(), 1001);
    QCOMPARE(model->anomaly(model->rowCount() - 1).rv, rv - 1);
    QCOMPARE(model->serialOf(model->rowCount() - 1), 1000);
    QCOMPARE(model->anomaly(0).rv, qint64(1001 - model->rowCount() + 1));
    QCOMPARE(window.anomaliesHeld(), 0);
}

void TestMainWindow::droppedSelectionKeepsDetails() {
    MainWindow window(nullptr);
    window.anomalyModel()->setMaxRows(50, 10);
    const auto batch = [](int from, int count) {
        AnomalyList list;
        for (int i = from; i < from + count; ++i)
            list.append(anomaly(seconds(i), AnomalyKind::StaleObject, Severity::Error,
                                QStringLiteral("pods"), 100 + i, QStringLiteral("w"),
                                QStringLiteral("n%1").arg(i)));
        return list;
    };
    EngineUpdate u;
    u.now = seconds(40);
    u.anomalies = batch(0, 40);
    window.applyUpdate(u);
    // Row 5 is anomaly #6; after 20 more, 10 + 10 were dropped and row 5 is #16 (numbers
    // count from the session start, as the No. column does).
    window.selectAnomaly(5);
    QVERIFY(window.detailPane()->heading().startsWith(QStringLiteral("Anomaly #6:")));
    u.now = seconds(60);
    u.anomalies = batch(40, 20);
    window.applyUpdate(u);
    QCOMPARE(window.anomalyModel()->droppedCount(), 20);
    QVERIFY(!window.anomalyView()->selectionModel()->hasSelection());
    QVERIFY2(window.detailPane()->heading().contains(QStringLiteral("no longer in the list")),
             qPrintable(window.detailPane()->heading()));
    QVERIFY(window.detailPane()->text().contains(QStringLiteral("n5")));
    window.selectAnomaly(5);
    QVERIFY2(window.detailPane()->heading().startsWith(QStringLiteral("Anomaly #26:")),
             qPrintable(window.detailPane()->heading()));
    // A row that stays keeps its selection when older ones go.
    u.now = seconds(80);
    u.anomalies = batch(60, 1);
    window.applyUpdate(u);
    QVERIFY(window.anomalyView()->selectionModel()->hasSelection());
}

void TestMainWindow::markersAreCapped_data() {
    QTest::addColumn<int>("batches");
    QTest::addColumn<int>("perBatch");
    QTest::newRow("under the cap") << 4 << 1000;
    QTest::newRow("one storm batch") << 1 << 12000;
    QTest::newRow("many small batches") << 300 << 20;
    QTest::newRow("cap crossed mid-batch") << 2 << 3000;
}

void TestMainWindow::markersAreCapped() {
    QFETCH(int, batches);
    QFETCH(int, perBatch);
    RvTimelineChart chart;
    qint64 serial = 0;
    for (int b = 0; b < batches; ++b) {
        AnomalyList batch;
        for (int i = 0; i < perBatch; ++i) {
            const qint64 n = serial + i;
            // Two resources interleaved, as a storm across a cluster would be.
            batch.append(anomaly(milliseconds(10 * n), AnomalyKind::StaleObject, Severity::Error,
                                 n % 4 == 0 ? QStringLiteral("configmaps") : QStringLiteral("pods"),
                                 1000 + n, QStringLiteral("informer-0"), QStringLiteral("stale")));
        }
        chart.addAnomalies(batch, serial);
        serial += perBatch;
    }
    const int total = batches * perBatch;
    const int pods = total - (total + 3) / 4;
    const int cap = RvTimelineChart::kMaxMarkersPerResource;
    QCOMPARE(chart.markersHeld(QStringLiteral("pods")), std::min(pods, cap));
    QCOMPARE(chart.markersHeld(QStringLiteral("configmaps")), std::min((total + 3) / 4, cap));
    // The newest are kept: the oldest pods marker left is the cap-th newest pods anomaly.
    qint64 expectedOldest = -1;
    int seen = 0;
    for (qint64 n = total - 1; n >= 0 && seen < cap; --n)
        if (n % 4 != 0) {
            expectedOldest = n;
            ++seen;
        }
    QCOMPARE(chart.oldestMarkerSerial(QStringLiteral("pods")), expectedOldest);
}

void TestMainWindow::followsFirstAnomalyResource_data() {
    QTest::addColumn<QString>("picked"); // what the user chose before the anomaly ("": nothing)
    QTest::addColumn<QString>("anomalyResource");
    QTest::addColumn<int>("severity");
    QTest::addColumn<QString>("shown");
    QTest::addColumn<bool>("followed"); // the first anomaly was the one followed
    const int error = int(Severity::Error), info = int(Severity::Info);
    QTest::newRow("nothing picked: moves") << ""
                                           << "configmaps" << error << "configmaps" << true;
    QTest::newRow("nothing picked, same resource") << ""
                                                   << "pods" << error << "pods" << true;
    QTest::newRow("picked: stays") << "pods"
                                   << "configmaps" << error << "pods" << true;
    QTest::newRow("unknown resource: stays") << ""
                                             << "leases" << error << "pods" << false;
    QTest::newRow("info: stays") << ""
                                 << "configmaps" << info << "pods" << false;
}

void TestMainWindow::followsFirstAnomalyResource() {
    QFETCH(QString, picked);
    QFETCH(QString, anomalyResource);
    QFETCH(int, severity);
    QFETCH(QString, shown);
    QFETCH(bool, followed);
    MainWindow window(nullptr);
    EngineUpdate first;
    first.now = seconds(1);
    first.caches = {
        cache(QStringLiteral("pods"), QStringLiteral("apiserver-0"), 100, 100, 10, 100),
        cache(QStringLiteral("configmaps"), QStringLiteral("apiserver-0"), 100, 90, 5, 100)};
    window.applyUpdate(first);
    QCOMPARE(window.currentResource(), QStringLiteral("pods")); // the first one seen
    if (!picked.isEmpty())
        window.setCurrentResource(picked);
    EngineUpdate withAnomaly;
    withAnomaly.now = seconds(2);
    withAnomaly.anomalies = {anomaly(seconds(2), AnomalyKind::TooLargeRv, Severity(severity),
                                     anomalyResource, 95, QStringLiteral("agent-0"),
                                     QStringLiteral("504"))};
    window.applyUpdate(withAnomaly);
    QCOMPARE(window.currentResource(), shown);
    // Only the first followed anomaly moves the view: a later warning elsewhere leaves it alone,
    // unless nothing was followed yet (and nothing was picked).
    const QString elsewhere =
        shown == QLatin1String("pods") ? QStringLiteral("configmaps") : QStringLiteral("pods");
    EngineUpdate later;
    later.now = seconds(3);
    later.anomalies = {anomaly(seconds(3), AnomalyKind::WatcherLag, Severity::Warning, elsewhere,
                               90, QStringLiteral("informer-0"), QStringLiteral("lag"))};
    window.applyUpdate(later);
    QCOMPARE(window.currentResource(), followed || !picked.isEmpty() ? shown : elsewhere);
}

void TestMainWindow::initTestCase() {
    QLocale::setDefault(QLocale::c());
}

void TestMainWindow::showsWhatACredentialPluginSays() {
    // A plugin's stderr comes from the thread that runs it; the status bar shows its last line.
    ExecPluginOutput output;
    MainWindow window(nullptr);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    std::thread plugin([] {
        ExecPluginConsole::current().stderrText(
            QStringLiteral("kubelogin"),
            "Please sign in.\nOpen https://microsoft.com/devicelogin, enter code F7KQ2ZB\n");
    });
    plugin.join();
    QTRY_COMPARE(window.statusBar()->currentMessage(),
                 QStringLiteral("Credential plugin kubelogin: Open "
                                "https://microsoft.com/devicelogin, enter code F7KQ2ZB"));
}

void TestMainWindow::showsSessionRows() {
    ScriptedSession session;
    MainWindow window(&session);
    QCOMPARE(window.windowTitle(), QStringLiteral("WatchScope — scripted, seed 7"));
    SyntheticCluster cluster;
    for (int i = 0; i < 50; ++i)
        session.push(cluster.next());
    // Queued: nothing before the event loop runs.
    QCOMPARE(window.updatesApplied(), 0);
    QTRY_COMPARE(window.updatesApplied(), 50);

    QCOMPARE(window.watcherModel()->rowCount(), 5);
    QCOMPARE(window.cacheModel()->rowCount(), 3);
    QVERIFY(window.watcherModel()->rowOf(QStringLiteral("pods"),
                                         QStringLiteral("audit-exporter")) >= 0);
    QCOMPARE(window.resourceChooser()->count(), 2);
    QCOMPARE(window.currentResource(), QStringLiteral("pods"));
    QCOMPARE(window.anomalyModel()->rowCount(), 0);
    for (int i = 0; i < 150; ++i)
        session.push(cluster.next());
    QTRY_COMPARE(window.updatesApplied(), 200);
    QCOMPARE(window.anomalyModel()->rowCount(), 1); // stuck-watcher at 18 s
    QCOMPARE(window.anomalyModel()->anomaly(0).kind, AnomalyKind::StuckWatcher);
    QVERIFY(window.bufferChart()->gaugeText().contains(QStringLiteral("/ 1,000")));
}

void TestMainWindow::chartPointCountsAfterDecimation() {
    MainWindow window(nullptr);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // Sparse: 10 samples/s over 20 s, all inside the 60 s window, so every point is drawn.
    SyntheticCluster cluster;
    for (int i = 0; i < 200; ++i)
        window.applyUpdate(cluster.next());
    RvTimelineChart* chart = window.rvChart();
    chart->replotNow();
    QCOMPARE(chart->pointCount(QStringLiteral("head_rv")), 200);
    QCOMPARE(chart->pointCount(QStringLiteral("watcher_rv:audit-exporter")), 200);
    QCOMPARE(chart->axisX()->min(), 0.0);
    QCOMPARE(chart->axisX()->max(), 60.0);
    QVERIFY(chart->axisX()->titleText().contains(QStringLiteral("(s)")));
    QVERIFY(!chart->axisY()->titleText().isEmpty());

    // Dense: 60,000 samples in the window are cut to at most two per pixel column.
    MainWindow dense(nullptr, nullptr, SeriesBuffer::Limits{15 * 60 * 1000.0, 100000});
    dense.resize(1400, 900);
    dense.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dense));
    for (int i = 0; i < 60; ++i)
        dense.applyUpdate(denseUpdate(i, 1000, 1.0)); // 1 ms apart, 60 s in all
    dense.rvChart()->replotNow();
    const int columns = dense.rvChart()->lastReplotColumns();
    QVERIFY(columns > 300);
    const int head = dense.rvChart()->pointCount(QStringLiteral("head_rv"));
    QVERIFY2(head <= 2 * columns + 3, qPrintable(QString::number(head)));
    QVERIFY2(head >= columns,
             qPrintable(QStringLiteral("%1 points, %2 columns").arg(head).arg(columns)));
    QCOMPARE(dense.rvChart()->pointCount(QStringLiteral("watcher_rv:a")), head);
    dense.bufferChart()->view()->replotNow();
    QVERIFY(dense.bufferChart()->pointCount(QStringLiteral("buffer_used")) <=
            2 * dense.bufferChart()->view()->lastReplotColumns() + 3);
}

void TestMainWindow::boundedMemoryOver100Updates() {
    const SeriesBuffer::Limits limits{/*spanMs=*/10 * 60 * 1000.0, /*maxPoints=*/5000};
    MainWindow window(nullptr, nullptr, limits);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    for (int i = 0; i < 100; ++i) {
        window.applyUpdate(denseUpdate(i, 2000, 5.0)); // 200,000 samples per series pushed
        if (i % 10 == 0)
            QCoreApplication::processEvents();
    }
    // Five series, each capped: the GUI keeps a window, the engine keeps the history.
    QCOMPARE(window.chartData().retainedPoints(), std::size_t(5 * 5000));
    window.rvChart()->replotNow();
    QVERIFY(window.rvChart()->pointCount(QStringLiteral("head_rv")) <=
            2 * window.rvChart()->lastReplotColumns() + 3);
    const SeriesBuffer* head =
        window.chartData().series(QStringLiteral("pods"), QStringLiteral("head_rv"));
    QCOMPARE(head->last().x(), 100 * 2000 * 5.0 - 5.0);
}

void TestMainWindow::replotsAreCoalesced() {
    MainWindow window(nullptr);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SyntheticCluster cluster;
    window.applyUpdate(cluster.next());
    QTest::qWait(100);
    const int before = window.rvChart()->replotCount();
    for (int i = 0; i < 100; ++i)
        window.applyUpdate(cluster.next()); // a burst: one frame's worth of replots at most
    QTest::qWait(150);
    QVERIFY2(window.rvChart()->replotCount() - before <= 2,
             qPrintable(QString::number(window.rvChart()->replotCount() - before)));
    QVERIFY(window.rvChart()->replotCount() > before);
}

void TestMainWindow::pauseHoldsAndResumes() {
    MainWindow window(nullptr);
    SyntheticCluster cluster;
    for (int i = 0; i < 100; ++i)
        window.applyUpdate(cluster.next());
    QCOMPARE(window.anomalyModel()->rowCount(), 0);
    window.setViewPaused(true);
    QVERIFY(window.rvChart()->isFrozen());
    const qint64 rvBefore = window.watcherModel()->watcher(0).rv;
    for (int i = 0; i < 100; ++i)
        window.applyUpdate(cluster.next());
    QCOMPARE(window.anomalyModel()->rowCount(), 0); // held, not shown
    QCOMPARE(window.watcherModel()->watcher(0).rv, rvBefore);
    QVERIFY(window.stateText().contains(QStringLiteral("1 new anomalies held")));
    window.setViewPaused(false);
    QVERIFY(!window.rvChart()->isFrozen());
    QCOMPARE(window.anomalyModel()->rowCount(), 1);
    QVERIFY(window.watcherModel()->watcher(0).rv > rvBefore);
    QCOMPARE(window.watcherModel()->rowCount(), 5);
}

void TestMainWindow::selectingAnomalyFocusesChart() {
    MainWindow window(nullptr);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SyntheticCluster cluster;
    for (int i = 0; i < 900; ++i)
        window.applyUpdate(cluster.next());
    QCOMPARE(window.anomalyModel()->rowCount(), 4);
    window.rvChart()->replotNow();
    QVERIFY(window.rvChart()->followsLive());
    QCOMPARE(window.rvChart()->markerCount(), 3); // the pods ones in the last 60 s

    // Row 1 is the watcher-lag warning at 45 s on pods.
    window.selectAnomaly(1);
    const Anomaly& a = window.anomalyModel()->anomaly(1);
    QCOMPARE(a.kind, AnomalyKind::WatcherLag);
    QVERIFY(window.detailPane()->text().contains(QStringLiteral("Kind: watcher-lag")));
    QVERIFY(window.detailPane()->text().contains(QStringLiteral("Watcher: audit-exporter")));
    QVERIFY(window.detailPane()->text().contains(QStringLiteral("Time: 45.000 s")));
    window.rvChart()->replotNow();
    QVERIFY(!window.rvChart()->followsLive());
    QCOMPARE(window.rvChart()->visibleFromMs(), 45000.0 - 30000.0);
    QCOMPARE(window.rvChart()->visibleToMs(), 45000.0 + 30000.0);

    // The configmaps anomaly switches the charts to its resource.
    window.selectAnomaly(0);
    QCOMPARE(window.currentResource(), QStringLiteral("configmaps"));
    QCOMPARE(window.rvChart()->resource(), QStringLiteral("configmaps"));

    // Clicking a chart marker selects its row.
    emit window.rvChart()->anomalyClicked(2);
    QCOMPARE(window.anomalyView()->currentIndex().row(), 2);
}

void TestMainWindow::incidentSelectionFocusesChart() {
    MainWindow window(nullptr);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QAbstractItemModelTester tester(window.incidentsPane()->proxy(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    SyntheticCluster cluster;
    for (int i = 0; i < 900; ++i)
        window.applyUpdate(cluster.next());
    QCOMPARE(window.paneTabs()->currentWidget(), window.incidentsPane());
    // The synthetic anomalies carry no incident: grouped by kind and resource, one each.
    QCOMPARE(window.incidentModel()->rowCount(), 4);
    QCOMPARE(window.paneTabs()->tabText(0), QStringLiteral("Incidents (4)"));
    QTreeView* view = window.incidentsPane()->view();
    const QAbstractItemModel* shown = view->model();
    // Worst first: the info one (the quiet resource's stuck watcher) last.
    QCOMPARE(shown->index(3, IncidentTreeModel::KindColumn).data().toString(),
             QStringLiteral("stuck-watcher"));
    QModelIndex lag;
    for (int r = 0; r < shown->rowCount(); ++r)
        if (shown->index(r, IncidentTreeModel::KindColumn).data() == QStringLiteral("watcher-lag"))
            lag = shown->index(r, 0);
    QVERIFY(lag.isValid());
    view->expand(lag);
    QTRY_COMPARE(shown->rowCount(lag), 1); // a page, fetched from the event loop
    window.rvChart()->replotNow();
    QVERIFY(window.rvChart()->followsLive());

    // The anomaly under it: as selecting its row in the list (anomaly #2, 45 s on pods).
    view->setCurrentIndex(shown->index(0, 0, lag));
    QVERIFY(window.detailPane()->heading().startsWith(QStringLiteral("Anomaly #2:")));
    QVERIFY(window.detailPane()->text().contains(QStringLiteral("Kind: watcher-lag")));
    QVERIFY(window.detailPane()->text().contains(QStringLiteral("Time: 45.000 s")));
    window.rvChart()->replotNow();
    QVERIFY(!window.rvChart()->followsLive());
    QVERIFY(!window.followPolicy()->followLive());
    QCOMPARE(window.rvChart()->visibleFromMs(), 45000.0 - 30000.0);
    QCOMPARE(window.rvChart()->visibleToMs(), 45000.0 + 30000.0);
    window.bufferChart()->view()->replotNow();
    QCOMPARE(window.bufferChart()->view()->visibleFromMs(), 45000.0 - 30000.0);
    QVERIFY(!window.anomalyView()->selectionModel()->hasSelection());

    // An incident row: its first anomaly (the configmaps one moves the charts there).
    view->setCurrentIndex(shown->index(3, 0));
    QVERIFY(window.detailPane()->heading().startsWith(QStringLiteral("Anomaly #1:")));
    QCOMPARE(window.currentResource(), QStringLiteral("configmaps"));
    QCOMPARE(window.rvChart()->resource(), QStringLiteral("configmaps"));

    // A chart marker while the incidents are shown: selected there, the tab stays.
    window.setCurrentResource(QStringLiteral("pods"));
    emit window.rvChart()->anomalyClicked(2);
    QCOMPARE(window.paneTabs()->currentWidget(), window.incidentsPane());
    QCOMPARE(view->currentIndex().data(IncidentTreeModel::SerialRole).toLongLong(), 2);
    QVERIFY(window.detailPane()->heading().startsWith(QStringLiteral("Anomaly #3:")));
    // Enter on an incident row expands it, again collapses it.
    const QModelIndex incident = view->currentIndex().parent();
    view->setCurrentIndex(incident);
    view->collapse(incident);
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Return);
    QVERIFY(view->isExpanded(incident));
    QTest::keyClick(view, Qt::Key_Return);
    QVERIFY(!view->isExpanded(incident));

    // The selection going clears the details it gave; the list's selection is its own.
    view->selectionModel()->clear();
    QVERIFY(window.detailPane()->text().isEmpty());
    window.selectAnomaly(0);
    QVERIFY(!window.detailPane()->text().isEmpty());
    window.paneTabs()->setCurrentWidget(window.incidentsPane());
    view->setCurrentIndex(shown->index(0, 0));
    window.anomalyView()->selectionModel()->clear();
    QVERIFY(!window.detailPane()->text().isEmpty());
    view->selectionModel()->clear();
    QVERIFY(window.detailPane()->text().isEmpty());
}

void TestMainWindow::pauseHoldsIncidents() {
    MainWindow window(nullptr);
    Incident incident;
    incident.id = 1;
    incident.kind = AnomalyKind::StaleObject;
    incident.resource = QStringLiteral("pods");
    incident.severity = Severity::Error;
    EngineUpdate u;
    u.now = seconds(1);
    for (int i = 0; i < 3; ++i) {
        Anomaly a =
            anomaly(seconds(1), AnomalyKind::StaleObject, Severity::Error, QStringLiteral("pods"),
                    10 + i, QStringLiteral("informer-%1").arg(i), QStringLiteral("stale"));
        a.incident = 1;
        u.anomalies.append(a);
    }
    incident.count = 3;
    window.setViewPaused(true);
    window.applyUpdate(u);
    incident.count = 6;
    u.incidents = {incident};
    u.now = seconds(2);
    window.applyUpdate(u);
    QCOMPARE(window.incidentModel()->rowCount(), 0); // held, not shown
    QVERIFY(window.stateText().contains(QStringLiteral("6 new anomalies held")));
    window.setViewPaused(false);
    QCOMPARE(window.incidentModel()->rowCount(), 1);
    QCOMPARE(window.incidentModel()->incident(0).count, 6);
    QCOMPARE(window.incidentModel()->listedAnomalies(0), 6);
    QCOMPARE(window.anomalyModel()->rowCount(), 6);
}

void TestMainWindow::droppedIncidentSelectionKeepsDetails() {
    MainWindow window(nullptr);
    window.anomalyModel()->setMaxRows(50, 10);
    window.incidentModel()->setMaxAnomalies(50, 10);
    const auto batch = [](int from, int count) {
        AnomalyList list;
        for (int i = from; i < from + count; ++i)
            list.append(anomaly(seconds(i), AnomalyKind::StaleObject, Severity::Error,
                                QStringLiteral("pods"), 100 + i, QStringLiteral("w"),
                                QStringLiteral("n%1").arg(i)));
        return list;
    };
    EngineUpdate u;
    u.now = seconds(40);
    u.anomalies = batch(0, 40);
    window.applyUpdate(u);
    QTreeView* view = window.incidentsPane()->view();
    const QModelIndex incident = view->model()->index(0, 0);
    view->expand(incident);
    QTRY_COMPARE(view->model()->rowCount(incident), 40);
    view->setCurrentIndex(view->model()->index(5, 0, incident));
    QVERIFY(window.detailPane()->heading().startsWith(QStringLiteral("Anomaly #6:")));
    // 20 more: the oldest 20 go, #6 with them; the selection goes, the details stay, marked.
    u.now = seconds(60);
    u.anomalies = batch(40, 20);
    window.applyUpdate(u);
    QCOMPARE(window.incidentModel()->anomaliesDropped(), 20);
    QVERIFY(!view->selectionModel()->hasSelection());
    QVERIFY2(window.detailPane()->heading().contains(QStringLiteral("no longer in the list")),
             qPrintable(window.detailPane()->heading()));
    QVERIFY(window.detailPane()->text().contains(QStringLiteral("n5")));
    QCOMPARE(view->model()->index(0, IncidentTreeModel::CountColumn).data().toString(),
             QStringLiteral("60 (40 listed)"));
    // A row that stays keeps its selection when older ones go.
    view->setCurrentIndex(view->model()->index(30, 0, incident)); // #51
    u.now = seconds(80);
    u.anomalies = batch(60, 15);
    window.applyUpdate(u);
    QCOMPARE(window.incidentModel()->anomaliesDropped(), 35);
    QVERIFY(view->selectionModel()->hasSelection());
    QCOMPARE(view->currentIndex().data(IncidentTreeModel::SerialRole).toLongLong(), 50);
}

void TestMainWindow::parkedChartSkipsReplots() {
    // Charts redraw only when what they show changed.
    MainWindow window(nullptr);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SyntheticCluster cluster;
    for (int i = 0; i < 300; ++i)
        window.applyUpdate(cluster.next());
    RvTimelineChart* chart = window.rvChart();
    window.setSpan(10);
    chart->centerOn(5000); // parked on [0 s, 10 s]; the data goes on at 30 s
    chart->replotNow();
    QTest::qWait(100);
    int before = chart->replotCount();
    for (int i = 0; i < 30; ++i)
        window.applyUpdate(cluster.next());
    QTest::qWait(100);
    QCOMPARE(chart->replotCount(), before);
    // Following, the window moves with every update.
    window.setFollowLive(true);
    QTest::qWait(100);
    before = chart->replotCount();
    window.applyUpdate(cluster.next());
    QTRY_COMPARE(chart->replotCount(), before + 1);
    // An update that changes nothing shown (no new time, no samples): no redraw.
    EngineUpdate quiet;
    window.applyUpdate(quiet);
    QTest::qWait(100);
    QCOMPARE(chart->replotCount(), before + 1);
    // Parked where the data is still coming in: redrawn.
    chart->centerOn(chart->liveEdgeMs());
    chart->replotNow();
    before = chart->replotCount();
    window.applyUpdate(cluster.next());
    QTRY_COMPARE(chart->replotCount(), before + 1);
}

void TestMainWindow::followingRedrawsByColumns() {
    // Following a 1 min window, an update moves the edge by a fraction of a pixel column: the
    // chart redraws once the edge moved kFollowStepColumns, not for every update, and shows
    // the newest data once the updates stop.
    MainWindow window(nullptr);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SyntheticCluster cluster;
    window.setSpan(60);
    for (int i = 0; i < 20; ++i) // every series bound: the legend, and so the plot, sized
        window.applyUpdate(cluster.next());
    RvTimelineChart* chart = window.rvChart();
    chart->replotNow();
    QTest::qWait(50);
    chart->replotNow();
    const double msPerColumn = 60000.0 / chart->plotColumns();
    const int updatesPerStep =
        int(std::ceil(LiveChartView::kFollowStepColumns * msPerColumn / 100.0)); // 100 ms each
    QVERIFY2(updatesPerStep >= 3, qPrintable(QString::number(updatesPerStep)));
    const int before = chart->replotCount();
    const int updates = 6 * updatesPerStep;
    for (int i = 0; i < updates; ++i) {
        window.applyUpdate(cluster.next());
        QTest::qWait(40); // the engine's pace: the replot timer (33 ms) fires in between
    }
    const int replots = chart->replotCount() - before;
    QVERIFY2(replots >= 5 && replots <= 7,
             qPrintable(QStringLiteral("%1 replots for %2 updates").arg(replots).arg(updates)));
    // Settled: the last edge is drawn.
    QTRY_COMPARE(chart->visibleToMs(), std::max(chart->liveEdgeMs(), 60000.0));
    QTRY_VERIFY(chart->replotCount() - before <= replots + 1);
}

void TestMainWindow::bogusRvMarkerKeepsScale() {
    MainWindow window(nullptr);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SyntheticCluster cluster;
    for (int i = 0; i < 100; ++i)
        window.applyUpdate(cluster.next());
    EngineUpdate u = cluster.next();
    u.anomalies.append(anomaly(u.now, AnomalyKind::TooLargeRv, Severity::Error,
                               QStringLiteral("pods"), 1000000000000, QStringLiteral("client"),
                               QStringLiteral("504 Too large resource version")));
    window.applyUpdate(u);
    window.rvChart()->replotNow();
    QCOMPARE(window.rvChart()->markerCount(), 1);
    QVERIFY(window.rvChart()->axisY()->max() < 100000); // drawn at the head instead

    // A restarting cache reports RV 0 ("absent"): the line drops out of view, the scale stays.
    EngineUpdate restart = cluster.next();
    const double ms = double(restart.now) / double(kUsPerMs);
    restart.series.append(delta(QStringLiteral("pods"), QStringLiteral("cache_rv"), {{ms, 0}}));
    window.applyUpdate(restart);
    window.rvChart()->replotNow();
    QVERIFY(window.rvChart()->axisY()->min() > 4000);
}

void TestMainWindow::filterEditFiltersList() {
    MainWindow window(nullptr);
    SyntheticCluster cluster;
    for (int i = 0; i < 900; ++i)
        window.applyUpdate(cluster.next());
    QCOMPARE(window.anomalyProxy()->rowCount(), 4);
    QTest::keyClicks(window.filterEdit(), QStringLiteral("watcher:audit severity:warn"));
    QCOMPARE(window.anomalyProxy()->rowCount(), 2);
    window.kindChooser()->setCurrentIndex(
        window.kindChooser()->findText(QStringLiteral("too-old-rv")));
    QCOMPARE(window.anomalyProxy()->rowCount(), 1);
    window.filterEdit()->clear();
    window.kindChooser()->setCurrentIndex(0);
    QCOMPARE(window.anomalyProxy()->rowCount(), 4);
}

void TestMainWindow::failureAndFinish() {
    ScriptedSession session;
    MainWindow window(&session);
    SyntheticCluster cluster;
    session.push(cluster.next());
    session.finish();
    QTRY_COMPARE(window.stateText(), QStringLiteral("Finished"));

    ScriptedSession broken;
    MainWindow other(&broken);
    broken.fail(QStringLiteral("unknown scenario 'nope'"));
    QTRY_COMPARE(other.lastError(), QStringLiteral("unknown scenario 'nope'"));
    QVERIFY(other.stateText().contains(QStringLiteral("unknown scenario 'nope'")));
}

void TestMainWindow::screenshot() {
    // A realistic window for a human (or the screenshot script) to look at; the test checks it
    // renders. WS_SCREENSHOT=path saves it; WS_SCREENSHOT_HOLD_MS keeps it on screen.
    ScriptedSession session;
    MainWindow window(&session);
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SyntheticCluster cluster;
    for (int i = 0; i < 900; ++i)
        window.applyUpdate(cluster.next());
    window.setSpan(90);
    window.selectAnomaly(2);
    window.setFollowLive(true);
    if (qEnvironmentVariableIsSet("WS_SCREENSHOT_TAB")) // for looking at the other tabs
        window.findChild<QTabWidget*>()->setCurrentIndex(
            qEnvironmentVariableIntValue("WS_SCREENSHOT_TAB"));
    window.rvChart()->replotNow();
    window.bufferChart()->view()->replotNow();
    QTest::qWait(50);
    const QPixmap shot = window.grab();
    QCOMPARE(shot.size(), window.size() * shot.devicePixelRatio());
    const QString path = qEnvironmentVariable("WS_SCREENSHOT");
    if (!path.isEmpty())
        QVERIFY(shot.save(path));
    const int hold = qEnvironmentVariableIntValue("WS_SCREENSHOT_HOLD_MS");
    if (hold > 0)
        QTest::qWait(hold);
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"

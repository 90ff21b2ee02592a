// The Incidents pane in the window on a real scenario: cacher-retry-stale-object's lost DELETE
// is one incident of more than a thousand stale-object anomalies across the cache and three
// informers; expanding it (Enter) lists its anomalies a page at a time, and selecting one does
// what selecting a row of the anomaly list does: the details show it and the RV chart parks on
// its resource and time.
#include "GuiSession.h"
#include "engine/Session.h"
#include "models/AnomalyListModel.h"
#include "models/IncidentSortProxy.h"
#include "models/IncidentTreeModel.h"
#include "viewstate/FollowPolicy.h"
#include "widgets/AnomalyDetailPane.h"
#include "widgets/IncidentsPane.h"
#include "widgets/MainWindow.h"
#include "widgets/RvTimelineChart.h"

#include <QAbstractItemModelTester>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>
#include <memory>

using namespace ws;

namespace {

constexpr int kTimeoutMs = 120000;
const QString kScenario = QStringLiteral("cacher-retry-stale-object");

// The rows of stale-object incidents, in the view's (sorted) model.
QList<QModelIndex> staleIncidents(const QAbstractItemModel* model) {
    QList<QModelIndex> out;
    for (int r = 0; r < model->rowCount(); ++r) {
        const QModelIndex i = model->index(r, IncidentTreeModel::KindColumn);
        if (i.data().toString() == QLatin1String("stale-object"))
            out << i.siblingAtColumn(0);
    }
    return out;
}

} // namespace

class TestGuiIncidents : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void staleObjectIsOneIncident();
    void testersOnALiveRun();
    void screenshot();

private:
    // Runs the scenario to its end; *incident: the stale-object incident's row in the view.
    void runToIncident(test::GuiSession& h, QPersistentModelIndex* incident);
};

void TestGuiIncidents::runToIncident(test::GuiSession& h, QPersistentModelIndex* incident) {
    MainWindow& w = *h.window;
    const QAbstractItemModel* model = w.incidentsPane()->view()->model();
    h.start();
    QTRY_VERIFY_WITH_TIMEOUT(!staleIncidents(model).isEmpty(), kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kTimeoutMs);
    const QList<QModelIndex> stale = staleIncidents(model);
    QCOMPARE(stale.size(), 1); // one incident, not one row per anomaly
    *incident = stale.constFirst();
}

void TestGuiIncidents::staleObjectIsOneIncident() {
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(kScenario, 20, &error), qPrintable(error));
    MainWindow& w = *h.window;
    // Incidents are what the window shows first.
    QCOMPARE(w.paneTabs()->currentWidget(), w.incidentsPane());
    QCOMPARE(w.paneTabs()->tabText(0), QStringLiteral("Incidents (0)"));

    QPersistentModelIndex incident;
    runToIncident(h, &incident);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(incident.isValid());
    IncidentTreeModel* model = w.incidentModel();
    const QModelIndex source = w.incidentsPane()->proxy()->mapToSource(incident);
    const Incident& i = model->incident(source.row());
    // 1,016 anomalies, 264 keys, the cache and three informers: one row, counted exactly.
    QVERIFY2(i.count > 1000, qPrintable(QString::number(i.count)));
    QCOMPARE(i.watcherCount, 4);
    QCOMPARE(i.severity, Severity::Error);
    QCOMPARE(
        QModelIndex(incident).siblingAtColumn(IncidentTreeModel::WatchersColumn).data().toString(),
        QStringLiteral("4 watchers"));
    QVERIFY(QModelIndex(incident)
                .siblingAtColumn(IncidentTreeModel::KeysColumn)
                .data()
                .toString()
                .endsWith(QStringLiteral(" keys")));
    // Every anomaly of the session is under one incident, and the list has them all.
    qint64 grouped = 0;
    for (int r = 0; r < model->incidentCount(); ++r)
        grouped += model->incident(r).count;
    QCOMPARE(grouped, qint64(w.anomalyModel()->rowCount()));
    QCOMPARE(w.paneTabs()->tabText(0),
             QStringLiteral("Incidents (%1)").arg(model->incidentCount()));
    // Worst first: the error incidents lead.
    QCOMPARE(w.incidentsPane()->view()->model()->index(0, 0).data(IncidentTreeModel::SeverityRole),
             QVariant(int(Severity::Error)));

    w.setSpan(10);
    RvTimelineChart* chart = w.rvChart();
    QTreeView* view = w.incidentsPane()->view();
    QAbstractItemModel* shown = view->model();

    // Enter on the incident expands it: its first page of anomalies.
    view->setFocus();
    view->setCurrentIndex(incident);
    QTest::keyClick(view, Qt::Key_Return);
    QVERIFY(view->isExpanded(incident));
    QTRY_COMPARE(shown->rowCount(incident), IncidentTreeModel::kDefaultPageSize);
    // Scrolling to the end of the page fetches the rest.
    view->scrollToBottom();
    QTRY_COMPARE(shown->rowCount(incident), int(i.count));
    // Selecting the incident itself showed its first anomaly.
    QVERIFY2(w.detailPane()->text().contains(QStringLiteral("Kind: stale-object")),
             qPrintable(w.detailPane()->text()));

    // Following the live edge again, 10 s wide: far from the incident.
    w.setFollowLive(true);
    chart->replotNow();
    QVERIFY(chart->followsLive());

    // A click on one of its anomalies.
    const QModelIndex child = shown->index(700, IncidentTreeModel::MessageColumn, incident);
    QVERIFY(child.isValid());
    const Anomaly a = child.data(IncidentTreeModel::AnomalyRole).value<Anomaly>();
    const qint64 serial = child.data(IncidentTreeModel::SerialRole).toLongLong();
    const double ms = double(a.time) / double(kUsPerMs);
    QVERIFY2(ms < chart->visibleFromMs() || ms > chart->visibleToMs(),
             "the anomaly must not be in view before it is selected");
    view->scrollTo(child);
    QTest::qWait(50);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(child).center());
    QCOMPARE(view->currentIndex().siblingAtColumn(0), child.siblingAtColumn(0));

    // The details show that anomaly, by its number in the session (the list's No.).
    QVERIFY2(w.detailPane()->heading().startsWith(QStringLiteral("Anomaly #%1:").arg(serial + 1)),
             qPrintable(w.detailPane()->heading()));
    QVERIFY(w.detailPane()->text().contains(a.key));
    // The window hands the session's versions to the explanation: the scenario's 1.27.0 and
    // etcd 3.4.23 are named, and the fix (etcd 3.4.31).
    QVERIFY2(w.detailPane()->text().contains(QStringLiteral("1.27.0")) &&
                 w.detailPane()->text().contains(QStringLiteral("3.4.31")),
             qPrintable(w.detailPane()->text()));
    QCOMPARE(w.anomalyModel()->anomaly(w.anomalyModel()->rowOfSerial(serial)).key, a.key);
    // The RV chart moved to it: its resource, parked with the anomaly's time in the middle.
    QCOMPARE(w.currentResource(), a.resource);
    QCOMPARE(chart->resource(), a.resource);
    chart->replotNow();
    QVERIFY(!chart->followsLive());
    QVERIFY(!w.followPolicy()->followLive());
    QVERIFY2(ms >= chart->visibleFromMs() && ms <= chart->visibleToMs(),
             qPrintable(QStringLiteral("%1 not in [%2, %3]")
                            .arg(ms)
                            .arg(chart->visibleFromMs())
                            .arg(chart->visibleToMs())));
    QCOMPARE(chart->visibleFromMs(), ms - 5000.0);
    QCOMPARE(chart->visibleToMs(), ms + 5000.0);
    QVERIFY(chart->markerCount() > 0);

    // As the anomaly list does it: the same anomaly selected there parks the chart the same way.
    w.setFollowLive(true);
    chart->replotNow();
    QVERIFY(ms < chart->visibleFromMs());
    w.selectAnomaly(w.anomalyModel()->rowOfSerial(serial));
    chart->replotNow();
    QCOMPARE(chart->visibleFromMs(), ms - 5000.0);
    // A marker clicked while the incidents are shown selects the anomaly there.
    w.paneTabs()->setCurrentWidget(w.incidentsPane());
    view->collapse(incident);
    emit chart->anomalyClicked(serial);
    QVERIFY(view->isExpanded(incident));
    QCOMPARE(view->currentIndex().data(IncidentTreeModel::SerialRole).toLongLong(), serial);
}

void TestGuiIncidents::testersOnALiveRun() {
    // The incident model and its sort proxy under QAbstractItemModelTester while the scenario's
    // updates arrive (the tester fetches every page, so this run has every row).
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(kScenario, 0, &error), qPrintable(error));
    MainWindow& w = *h.window;
    w.incidentModel()->setPageSize(97);
    QAbstractItemModelTester modelTester(w.incidentModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(w.incidentsPane()->proxy(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QPersistentModelIndex incident;
    runToIncident(h, &incident);
    if (QTest::currentTestFailed())
        return;
    // The testers asked for every page, which came from the event loop.
    QTRY_VERIFY(w.incidentsPane()->proxy()->rowCount(incident) > 1000);
    QVERIFY(w.updatesApplied() > 0);
}

void TestGuiIncidents::screenshot() {
    // The window once the incident is there, expanded, one anomaly selected; WS_SCREENSHOT=path
    // saves it (run under Xvfb with QT_QPA_PLATFORM=xcb for the real style and fonts).
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(kScenario, 0, &error), qPrintable(error));
    MainWindow& w = *h.window;
    QPersistentModelIndex incident;
    runToIncident(h, &incident);
    if (QTest::currentTestFailed())
        return;
    QTreeView* view = w.incidentsPane()->view();
    view->expand(incident);
    QTRY_VERIFY(view->model()->rowCount(incident) > 0);
    const QModelIndex child = view->model()->index(3, 0, incident);
    view->setCurrentIndex(child);
    view->scrollToTop(); // the incident before it (prevkv-nil, the cause) in view too
    w.setSpan(30);
    w.rvChart()->replotNow();
    QTest::qWait(200);
    const QPixmap shot = w.grab();
    QVERIFY(!shot.isNull());
    const QString path = qEnvironmentVariable("WS_SCREENSHOT");
    if (!path.isEmpty())
        QVERIFY(shot.save(path));
    const int hold = qEnvironmentVariableIntValue("WS_SCREENSHOT_HOLD_MS");
    if (hold > 0)
        QTest::qWait(hold);
}

QTEST_MAIN(TestGuiIncidents)
#include "tst_guiincidents.moc"

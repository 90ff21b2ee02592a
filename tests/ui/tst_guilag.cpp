// The watcher table and the lag view in the window on a real scenario: in
// slow-watcher-terminated one configmaps client drops to 40 events/s while configmaps change 150
// times a second. Its row says "lagging" while the three informers stay live; in the lag view
// its line rises to thousands of revisions (tens of seconds) behind the head while every other
// watcher stays near 0 (it waits only while the dispatcher is blocked on the slow one: at most
// the 0.1 s budget, some 15 revisions), its anomaly markers open the anomaly, and the charts zoom
// and pan with the keyboard, the wheel and a drag, all of them together.
#include "GuiSession.h"
#include "charts/ChartData.h"
#include "charts/SeriesBuffer.h"
#include "engine/Session.h"
#include "models/WatcherTableModel.h"
#include "viewstate/FollowPolicy.h"
#include "widgets/AnomalyDetailPane.h"
#include "widgets/ChartInteraction.h"
#include "widgets/ChartsPane.h"
#include "widgets/LagChart.h"
#include "widgets/MainWindow.h"
#include "widgets/RvTimelineChart.h"

#include <QAbstractItemModelTester>
#include <QChart>
#include <QComboBox>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QValueAxis>
#include <QWheelEvent>
#include <memory>

using namespace ws;

namespace {

constexpr int kTimeoutMs = 120000;
const QString kScenario = QStringLiteral("slow-watcher-terminated");
const QString kSlow = QStringLiteral("slow-controller");
const QString kResource = QStringLiteral("configmaps");
const QStringList kInformers{QStringLiteral("informer-0"), QStringLiteral("informer-1"),
                             QStringLiteral("informer-2")};

QString stateOf(const MainWindow& w, const QString& id) {
    const int row = w.watcherModel()->rowOf(kResource, id);
    return row < 0 ? QString()
                   : w.watcherModel()->index(row, WatcherTableModel::StateColumn).data().toString();
}

// The y values of a watcher's line as drawn, left to right.
QList<double> drawn(const LagChart& chart, const QString& id) {
    QList<double> out;
    const QXYSeries* s = chart.boundSeries(chart.seriesName(id));
    if (s) {
        const QList<QPointF> points = s->points();
        for (const QPointF& p : points)
            out << p.y();
    }
    return out;
}

} // namespace

class TestGuiLag : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void slowWatcherStandsOut();
    void keyboardAndMouseMoveAllCharts();
    void millionPointsDecimated();
    void screenshot();

private:
    void runToEnd(test::GuiSession& h);
};

void TestGuiLag::runToEnd(test::GuiSession& h) {
    h.switcher->start();
    QTRY_COMPARE_WITH_TIMEOUT(h.window->stateText(), QStringLiteral("Finished"), kTimeoutMs);
}

void TestGuiLag::slowWatcherStandsOut() {
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(kScenario, 10, &error), qPrintable(error));
    MainWindow& w = *h.window;
    QAbstractItemModelTester tester(w.watcherModel(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester proxyTester(w.watcherProxy(),
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);
    ChartsPane* pane = w.chartsPane();
    LagChart* lag = pane->lagChart();
    QCOMPARE(pane->view(), ChartsPane::View::ResourceVersions);
    h.switcher->start();

    // Its row turns "lagging" while the informers are live.
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(w, kSlow), QStringLiteral("lagging"), kTimeoutMs);
    for (const QString& id : kInformers)
        QCOMPARE(stateOf(w, id), QStringLiteral("live"));
    // The lag view is not drawn while the RV timeline is shown.
    const int hiddenReplots = lag->replotCount();
    QTest::qWait(300);
    QCOMPARE(lag->replotCount(), hiddenReplots);

    // Sorted by lag (numerically), it is on top.
    w.watcherView()->sortByColumn(WatcherTableModel::LagRevisionsColumn, Qt::DescendingOrder);
    QCOMPARE(w.watcherProxy()->index(0, WatcherTableModel::IdColumn).data().toString(), kSlow);

    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kTimeoutMs);
    QCOMPARE(w.currentResource(), kResource);
    const int slowRow = w.watcherModel()->rowOf(kResource, kSlow);
    QVERIFY(w.watcherModel()->watcher(slowRow).lagRevisions > 1000);

    // The lag view: shown, it draws at once.
    pane->setView(ChartsPane::View::Lag);
    QTRY_VERIFY(lag->replotCount() > hiddenReplots);
    w.setSpan(60); // the last minute: the slow client falls behind from 20 s on
    lag->replotNow();
    const QStringList lines = lag->watcherLines();
    QVERIFY2(lines.contains(kSlow), qPrintable(lines.join(QLatin1Char(','))));
    for (const QString& id : kInformers)
        QVERIFY2(lines.contains(id), qPrintable(lines.join(QLatin1Char(','))));

    // Its line rises to thousands of revisions behind; the others stay within the revisions the
    // blocked dispatcher holds back (0.1 s of 150 writes/s).
    const QList<double> slow = drawn(*lag, kSlow);
    QVERIFY(slow.size() > 10);
    QVERIFY2(slow.constLast() > 1000 && slow.constLast() > slow.constFirst() + 500,
             qPrintable(QStringLiteral("%1 -> %2").arg(slow.constFirst()).arg(slow.constLast())));
    QVERIFY(lag->drawnMax(kSlow) > 1000);
    for (const QString& id : kInformers)
        QVERIFY2(lag->drawnMax(id) < 30, qPrintable(id));
    // The y axis is the lag's, from 0: the slow line is not lost between RVs in the millions.
    QCOMPARE(lag->axisY()->min(), 0.0);
    QVERIFY(lag->axisY()->max() >= lag->drawnMax(kSlow));

    // In seconds: tens of seconds behind, over the threshold line; the others under a second.
    QComboBox* unit = pane->lagUnitChooser();
    QVERIFY(unit->isVisible());
    unit->setCurrentIndex(1);
    emit unit->activated(1);
    QCOMPARE(lag->unit(), LagChart::Unit::Seconds);
    lag->replotNow();
    QVERIFY2(lag->drawnMax(kSlow) > 20, qPrintable(QString::number(lag->drawnMax(kSlow))));
    for (const QString& id : kInformers)
        QVERIFY2(lag->drawnMax(id) < 1, qPrintable(id));

    // Its anomalies (watcher-lag, watcher-terminated) are markers on its line; a click on one
    // opens that anomaly in the detail pane.
    QVERIFY(lag->markerCount() > 0);
    const QList<QPointF> markers =
        static_cast<const QScatterSeries*>(lag->chart()->series().constLast())->points();
    QVERIFY(!markers.isEmpty());
    const QPointF scene = lag->chart()->mapToPosition(markers.constLast());
    const QPoint at = lag->mapFromScene(lag->chart()->mapToScene(scene));
    QTest::mouseClick(lag->viewport(), Qt::LeftButton, {}, at);
    QTRY_VERIFY(w.detailPane()->heading().startsWith(QStringLiteral("Anomaly #")));
    QVERIFY2(w.detailPane()->text().contains(kSlow), qPrintable(w.detailPane()->text()));
}

void TestGuiLag::keyboardAndMouseMoveAllCharts() {
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(kScenario, 0, &error), qPrintable(error));
    MainWindow& w = *h.window;
    runToEnd(h);
    ChartsPane* pane = w.chartsPane();
    LagChart* lag = pane->lagChart();
    RvTimelineChart* rv = pane->rvChart();
    pane->setView(ChartsPane::View::Lag);
    w.setSpan(30);
    w.setFollowLive(true);
    lag->replotNow();
    const double edge = lag->liveEdgeMs();
    QVERIFY(edge > 80000);
    QCOMPARE(lag->visibleToMs(), edge);
    QCOMPARE(lag->visibleFromMs(), edge - 30000);

    lag->setFocus();
    QTRY_VERIFY(lag->hasFocus());
    // '+' zooms in: a narrower window, still on the newest data; the window's span follows.
    QTest::keyClick(lag, Qt::Key_Plus);
    lag->replotNow();
    QCOMPARE(lag->spanSeconds(), 30 / ChartInteraction::kZoomStep);
    QCOMPARE(w.followPolicy()->spanSeconds(), 30 / ChartInteraction::kZoomStep);
    QCOMPARE(lag->visibleToMs(), edge);
    QVERIFY(lag->followsLive());
    // '-' twice zooms out past where it was.
    QTest::keyClick(lag, Qt::Key_Minus);
    QTest::keyClick(lag, Qt::Key_Minus);
    lag->replotNow();
    QCOMPARE(lag->spanSeconds(), 30 * ChartInteraction::kZoomStep);
    const double span = lag->spanSeconds() * 1000.0;

    // Left pans back by a tenth of the span: parked, and the RV chart parks with it.
    QTest::keyClick(lag, Qt::Key_Left);
    lag->replotNow();
    rv->replotNow();
    QVERIFY(!lag->followsLive());
    QVERIFY(!w.followPolicy()->followLive());
    QCOMPARE(lag->visibleToMs(), edge - span / 10);
    QCOMPARE(rv->visibleToMs(), lag->visibleToMs());
    QCOMPARE(rv->visibleFromMs(), lag->visibleFromMs());
    // Shift+Left: half a span more.
    QTest::keyClick(lag, Qt::Key_Left, Qt::ShiftModifier);
    lag->replotNow();
    QCOMPARE(lag->visibleToMs(), edge - span / 10 - span / 2);
    // Home: the oldest data at the left edge.
    QTest::keyClick(lag, Qt::Key_Home);
    lag->replotNow();
    QCOMPARE(lag->visibleFromMs(), lag->dataStartMs());
    QVERIFY(lag->dataStartMs() < 1000);
    // Nothing before the oldest data: Left stays put.
    QTest::keyClick(lag, Qt::Key_Left);
    lag->replotNow();
    QCOMPARE(lag->visibleFromMs(), lag->dataStartMs());
    // '+' while parked zooms around the centre.
    const double centre = (lag->visibleFromMs() + lag->visibleToMs()) / 2;
    QTest::keyClick(lag, Qt::Key_Equal);
    lag->replotNow();
    QCOMPARE((lag->visibleFromMs() + lag->visibleToMs()) / 2, centre);
    QVERIFY(lag->visibleToMs() - lag->visibleFromMs() < span);
    // Right pans forward; at the newest data it follows again.
    const double from = lag->visibleFromMs();
    QTest::keyClick(lag, Qt::Key_Right);
    lag->replotNow();
    QVERIFY(lag->visibleFromMs() > from);
    for (int i = 0; i < 200 && !lag->followsLive(); ++i)
        QTest::keyClick(lag, Qt::Key_Right, Qt::ShiftModifier);
    QVERIFY(lag->followsLive());
    QVERIFY(w.followPolicy()->followLive());

    // The wheel zooms out around the pointer; a drag pans, parking every chart.
    lag->replotNow();
    const double before = lag->spanSeconds();
    const QPoint middle = lag->viewport()->rect().center();
    QWheelEvent wheel(middle, lag->viewport()->mapToGlobal(middle), QPoint(), QPoint(0, -120),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(lag->viewport(), &wheel);
    QCOMPARE(lag->spanSeconds(), before * ChartInteraction::kZoomStep);
    lag->replotNow();
    const double toBeforeDrag = lag->visibleToMs();
    QTest::mousePress(lag->viewport(), Qt::LeftButton, {}, middle);
    for (int dx = 10; dx <= 200; dx += 10)
        QTest::mouseMove(lag->viewport(), middle + QPoint(dx, 0));
    QTest::mouseRelease(lag->viewport(), Qt::LeftButton, {}, middle + QPoint(200, 0));
    lag->replotNow();
    rv->replotNow();
    QVERIFY(!lag->followsLive());
    QVERIFY2(lag->visibleToMs() < toBeforeDrag - 1000,
             qPrintable(QStringLiteral("%1 vs %2").arg(lag->visibleToMs()).arg(toBeforeDrag)));
    QCOMPARE(rv->visibleToMs(), lag->visibleToMs());
    // End: following again.
    QTest::keyClick(lag, Qt::Key_End);
    QVERIFY(lag->followsLive());

    // The same keys work on the RV timeline: one interaction for every chart.
    pane->setView(ChartsPane::View::ResourceVersions);
    rv->setFocus();
    QTRY_VERIFY(rv->hasFocus());
    const double rvSpan = rv->spanSeconds();
    QTest::keyClick(rv, Qt::Key_Plus);
    QCOMPARE(rv->spanSeconds(), rvSpan / ChartInteraction::kZoomStep);
    QTest::keyClick(rv, Qt::Key_Left);
    QVERIFY(!rv->followsLive());
    QVERIFY(!lag->followsLive());
}

void TestGuiLag::millionPointsDecimated() {
    // A lag series of 1,000,000 samples (over 27 hours at 10 a second): drawn min/max-decimated
    // like the RV chart, at most two points a pixel column plus the edges, and a one-sample
    // spike in the middle survives.
    constexpr int kPoints = 1000000;
    SeriesBuffer::Limits limits;
    limits.spanMs = 1e12;
    limits.maxPoints = kPoints;
    ChartData data(limits);
    QVector<QPointF> lag;
    QVector<QPointF> idle;
    lag.reserve(kPoints);
    idle.reserve(kPoints);
    for (int i = 0; i < kPoints; ++i) {
        const double ms = i * 100.0;
        lag.append(QPointF(ms, i == kPoints / 2 ? 90000 : i % 50));
        idle.append(QPointF(ms, 0));
    }
    data.apply({SeriesDelta{kResource, QStringLiteral("watcher_lag:") + kSlow, lag},
                SeriesDelta{kResource, QStringLiteral("watcher_lag:informer-0"), idle}});
    LagChart chart;
    chart.resize(900, 400);
    chart.setChartData(&data);
    chart.setResource(kResource);
    chart.setSpanSeconds(24 * 3600);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    chart.setLiveEdge(data.latestTimeMs());
    chart.replotNow();
    const int columns = chart.lastReplotColumns();
    QVERIFY(columns > 300);
    const int points = chart.pointCount(chart.seriesName(kSlow));
    QVERIFY2(points > columns && points <= 2 * columns + 3, qPrintable(QString::number(points)));
    QCOMPARE(chart.drawnMax(kSlow), 90000.0);
    QCOMPARE(chart.drawnMax(QStringLiteral("informer-0")), 0.0);
    QVERIFY(chart.pointCount(chart.seriesName(QStringLiteral("informer-0"))) <= 2 * columns + 3);
}

void TestGuiLag::screenshot() {
    // The window at the end of the scenario with the lag view and the watcher table shown;
    // WS_SCREENSHOT=path saves it (run under Xvfb with QT_QPA_PLATFORM=xcb for the real style).
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(kScenario, 0, &error), qPrintable(error));
    MainWindow& w = *h.window;
    runToEnd(h);
    w.chartsPane()->setView(ChartsPane::View::Lag);
    w.paneTabs()->setCurrentWidget(w.watcherView());
    w.watcherView()->sortByColumn(WatcherTableModel::LagRevisionsColumn, Qt::DescendingOrder);
    w.setSpan(qEnvironmentVariableIsSet("WS_SCREENSHOT_SPAN")
                  ? qEnvironmentVariableIntValue("WS_SCREENSHOT_SPAN")
                  : 300);
    if (qEnvironmentVariableIntValue("WS_SCREENSHOT_SECONDS") > 0) {
        QComboBox* unit = w.chartsPane()->lagUnitChooser();
        unit->setCurrentIndex(1);
        emit unit->activated(1);
    }
    w.chartsPane()->lagChart()->replotNow();
    QTest::qWait(800); // the status bar's figures are refreshed a few times a second
    const QPixmap shot = w.grab();
    QVERIFY(!shot.isNull());
    const QString path = qEnvironmentVariable("WS_SCREENSHOT");
    if (!path.isEmpty())
        QVERIFY(shot.save(path));
}

QTEST_MAIN(TestGuiLag)
#include "tst_guilag.moc"

// The revision account in the window (issue 14), on the real pipeline: a live etcd session in
// the window, cut off by a stalled network (StallProxy) while etcd is written to and compacted
// past the watcher. The Revisions tab must show the one gap (the range the revision-gap anomaly
// names), every other revision seen, and, once the session ended, exactly the figures and the
// line `watchscope-cli` prints for the same account. With WS_SCREENSHOT_DIR set (run under Xvfb
// by scripts/docs-screenshots.sh) the window is saved there as accounts.png.
#include "../etcd/EtcdTestCluster.h"
#include "DocsScreenshot.h"
#include "engine/SeriesNames.h"
#include "engine/Session.h"
#include "model/AnomalyKind.h"
#include "models/AnomalyListModel.h"
#include "models/CellFormat.h"
#include "models/RevisionAccountModel.h"
#include "session/SessionSwitcher.h"
#include "sources/SourceFactory.h"
#include "sources/etcd/EtcdClient.h"
#include "sources/etcd/EtcdLoadGenerator.h"
#include "sources/etcd/EtcdSource.h"
#include "support/StallProxy.h"
#include "widgets/BufferOccupancyChart.h"
#include "widgets/LiveChartView.h"
#include "widgets/MainWindow.h"
#include "widgets/RevisionAccountsPane.h"
#include "widgets/RvTimelineChart.h"

#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QXYSeries>

using namespace ws;
using namespace ws::test;

namespace {

constexpr int kWaitMs = 30000;

QString cell(const RevisionAccountModel* m, int column) {
    return m->data(m->index(0, column)).toString();
}

} // namespace

class TestGuiAccounts : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { REQUIRE_ETCD(); }
    void gapShownAsTheCliPrintsIt();
};

void TestGuiAccounts::gapShownAsTheCliPrintsIt() {
    EtcdTestCluster cluster(1);
    START_CLUSTER(cluster);
    StallProxy proxy(cluster.member(0).clientPort);
    QString error;
    QVERIFY2(proxy.start(&error), qPrintable(error));
    EtcdClient client(cluster.connectOptions());
    int generation = 0;
    const auto write = [&](int n) {
        for (int i = 0; i < n; ++i) {
            const std::string name = "cm-" + std::to_string(i % 10);
            if (client.put(
                    "/registry/configmaps/ns/" + name,
                    EtcdLoadGenerator::configMapValue(name, "ns", "u-" + name, ++generation, 200),
                    &error) <= 0)
                return false;
        }
        return true;
    };
    QVERIFY2(write(10), qPrintable(error));

    SourceSpec spec;
    spec.kind = SourceSpec::Kind::Etcd;
    spec.etcd.endpoints = {proxy.url()};
    Session* session =
        Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error).release();
    QVERIFY2(session, qPrintable(error));
    // Only read by the test, never by the window: where the watch is, to time the faults.
    const auto* etcd = dynamic_cast<const EtcdSource*>(session->source(0));
    QVERIFY(etcd);
    auto window = std::make_unique<MainWindow>(session);
    auto switcher = std::make_unique<SessionSwitcher>(window.get(), session, spec);
    window->resize(1400, 900);
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    const RevisionAccountsPane* pane = window->accountsPane();
    const RevisionAccountModel* model = pane->model();
    switcher->start();
    QTRY_VERIFY_WITH_TIMEOUT(etcd->stats().state == QLatin1String("watching"), kWaitMs);
    QVERIFY2(write(30), qPrintable(error));
    const auto written = client.status(&error);
    QVERIFY2(written, qPrintable(error));
    // The window learns the account from the updates only.
    QTRY_VERIFY_WITH_TIMEOUT(
        model->rowCount() == 1 && model->account(0).account.head() >= written->revision &&
            cell(model, RevisionAccountModel::BalanceColumn) == QLatin1String("balanced"),
        kWaitMs);
    QCOMPARE(cell(model, RevisionAccountModel::StreamColumn), QStringLiteral("etcd watch"));
    QCOMPARE(cell(model, RevisionAccountModel::GapsColumn), QStringLiteral("none"));
    QCOMPARE(cell(model, RevisionAccountModel::LostColumn), QStringLiteral("0"));

    // Cut off, written on and compacted past: the resume is refused, the source relists.
    proxy.stall();
    QTRY_VERIFY_WITH_TIMEOUT(etcd->stats().brokenStreams >= 1, kWaitMs);
    const ResourceVersion seenLast = etcd->revisionAccounts().value(0).account.accountedTo();
    QVERIFY2(write(40), qPrintable(error));
    const auto st = client.status(&error);
    QVERIFY2(st, qPrintable(error));
    const ResourceVersion compactAt = st->revision;
    QVERIFY2(client.compact(compactAt, true, &error), qPrintable(error));
    proxy.resume();
    QTRY_VERIFY_WITH_TIMEOUT(
        etcd->stats().lists == 2 && etcd->stats().state == QLatin1String("watching"), kWaitMs);
    QVERIFY2(write(20), qPrintable(error));
    const auto end = client.status(&error);
    QVERIFY2(end, qPrintable(error));
    const RevisionRange gap{seenLast + 1, compactAt};
    QTRY_VERIFY_WITH_TIMEOUT(model->account(0).account.head() >= end->revision &&
                                 cell(model, RevisionAccountModel::BalanceColumn) ==
                                     QLatin1String("balanced"),
                             kWaitMs);
    QCOMPARE(cell(model, RevisionAccountModel::GapsColumn), gap.text());
    QCOMPARE(cell(model, RevisionAccountModel::LostColumn), QString::number(gap.count()));
    QVERIFY2(pane->headline().startsWith(
                 QStringLiteral("%1 revisions lost in 1 gap, each reported").arg(gap.count())),
             qPrintable(pane->headline()));
    // The anomaly names the range the table shows.
    const AnomalyListModel* list = window->anomalyModel();
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (int row = 0; row < list->rowCount(); ++row)
                if (list->anomaly(row).kind == AnomalyKind::RevisionGap)
                    return list->anomaly(row).message.startsWith(gap.text() +
                                                                 QStringLiteral(" lost: "));
            return false;
        }(),
        kWaitMs);
    QTabWidget* tabs = window->paneTabs();
    QCOMPARE(tabs->tabText(tabs->indexOf(const_cast<RevisionAccountsPane*>(pane))),
             QStringLiteral("Revisions (1)"));
    tabs->setCurrentWidget(const_cast<RevisionAccountsPane*>(pane));
    // The charts went on after the relist: etcd's head and the cache reach the last write.
    const auto lastValue = [&](const QString& name) {
        const SeriesBuffer* b = window->chartData().series(QStringLiteral("configmaps"), name);
        return b && !b->isEmpty() ? b->last().y() : 0.0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(lastValue(series::headRv()) >= double(end->revision), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(lastValue(series::cacheRv()) >= double(end->revision), kWaitMs);
    // ... and the charts drew them (they redraw as the edge moves a few columns): the RV chart
    // the head, the buffer chart the ring as the relist left it.
    const auto drawn = [&](const LiveChartView* chart, const QString& name) {
        const QXYSeries* xy = chart->boundSeries(name);
        return xy && xy->count() > 0 ? xy->at(xy->count() - 1) : QPointF();
    };
    QTRY_VERIFY_WITH_TIMEOUT(
        drawn(window->rvChart(), series::headRv()).y() >= double(end->revision), kWaitMs);
    const SeriesBuffer* used =
        window->chartData().series(QStringLiteral("configmaps"), series::bufferUsed());
    QVERIFY(used && !used->isEmpty());
    const double headAt = drawn(window->rvChart(), series::headRv()).x();
    QTRY_VERIFY_WITH_TIMEOUT(
        drawn(window->bufferChart()->view(), series::bufferUsed()).x() >= headAt, kWaitMs);
    QVERIFY(saveDocsScreenshot(window.get(), QStringLiteral("accounts.png")));

    // Ended: the last update carries the account the CLI would print, figure for figure.
    QSignalSpy finished(session, &Session::finished);
    session->stop();
    QTRY_VERIFY_WITH_TIMEOUT(window->updatesApplied() > 0 && !finished.isEmpty(), kWaitMs);
    const SourceRevisionAccount printed = etcd->revisionAccounts().value(0);
    QTRY_COMPARE_WITH_TIMEOUT(model->data(model->index(0, 0), Qt::ToolTipRole).toString(),
                              QStringLiteral("Revision account of the %1: %2")
                                  .arg(printed.name, printed.account.summary()),
                              kWaitMs);
    QCOMPARE(cell(model, RevisionAccountModel::SeenColumn),
             formatCount(printed.account.seenCount()));
    QCOMPARE(cell(model, RevisionAccountModel::LostColumn),
             formatCount(printed.account.lostCount()));
    QCOMPARE(cell(model, RevisionAccountModel::RevisionsColumn),
             (RevisionRange{printed.account.start(), printed.account.head()}.text()));
    QCOMPARE(printed.account.gaps(), std::vector<RevisionRange>{gap});
}

QTEST_MAIN(TestGuiAccounts)
#include "tst_guiaccounts.moc"

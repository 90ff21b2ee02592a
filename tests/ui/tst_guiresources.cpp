// The resource tree and the ring buffers in the window on real scenarios: the buffer panel shows
// every apiserver of the resource side by side (selector-watch-too-old: two 1.18 apiservers whose
// fixed 1000-event pods rings fill and evict under 60 pod writes/s), with the evictions counted and
// marked on the chart; the resource tree (too-large-rv-loop: configmaps and runtimeclasses on two
// apiservers) counts objects and events/s, shows the incidents' badge, and picking one or two
// resources there drives what the charts and the tables show; the tree exports as CSV; and an
// update that changes nothing redraws nothing.
#include "GuiSession.h"
#include "engine/Session.h"
#include "models/CacheTableModel.h"
#include "models/CellFormat.h"
#include "models/ResourceTreeModel.h"
#include "models/RingBufferModel.h"
#include "viewexport/ViewExporter.h"
#include "viewstate/ResourceFocus.h"
#include "widgets/BufferOccupancyChart.h"
#include "widgets/LiveChartView.h"
#include "widgets/MainWindow.h"
#include "widgets/ResourcesPane.h"
#include "widgets/RvTimelineChart.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QItemSelectionModel>
#include <QProcess>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <memory>

using namespace ws;

namespace {

constexpr int kTimeoutMs = 120000;

qint64 evictionEpisodes(const RingBufferModel* model) {
    qint64 n = 0;
    for (int r = 0; r < model->rowCount(); ++r)
        n += model->ringAt(r)->evictionEpisodes;
    return n;
}

// The view row of a resource in the resource tree.
QModelIndex treeRow(MainWindow& w, const QString& resource) {
    const auto* proxy = static_cast<const QSortFilterProxyModel*>(w.resourceView()->model());
    return proxy->mapFromSource(w.resourceModel()->indexOfResource(resource));
}

QSet<QString> cacheResourcesShown(MainWindow& w) {
    QSet<QString> out;
    for (int r = 0; r < w.cacheProxy()->rowCount(); ++r)
        out.insert(w.cacheProxy()->index(r, CacheTableModel::ResourceColumn).data().toString());
    return out;
}

} // namespace

class TestGuiResources : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void buffersOfBothApiserversWithEvictions();
    void resourceTreeDrivesTheView();
    void unchangedUpdateRedrawsNothing();
    void clusterBufferUsedIsUnknown();
};

void TestGuiResources::buffersOfBothApiserversWithEvictions() {
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(QStringLiteral("selector-watch-too-old"), 10, &error),
             qPrintable(error));
    MainWindow& w = *h.window;
    BufferOccupancyChart* buffer = w.bufferChart();
    RingBufferModel* rings = buffer->model();
    QAbstractItemModelTester tester(rings, QAbstractItemModelTester::FailureReportingMode::Fatal);
    h.start();

    QTRY_COMPARE_WITH_TIMEOUT(w.currentResource(), QStringLiteral("pods"), kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(rings->rowCount(), 2, kTimeoutMs);
    QCOMPARE(rings->apiservers(),
             QStringList({QStringLiteral("apiserver-0"), QStringLiteral("apiserver-1")}));
    QCOMPARE(buffer->table()->model(), static_cast<QAbstractItemModel*>(rings));
    // 1.18's fixed pods ring of 1000 events (cachesize.go) fills in 17 s of 60 writes/s and
    // evicts.
    QTRY_VERIFY_WITH_TIMEOUT(evictionEpisodes(rings) >= 1, kTimeoutMs);
    for (int r = 0; r < 2; ++r) {
        const QString capacity = rings->index(r, RingBufferModel::UsedColumn).data().toString();
        QVERIFY2(capacity.contains(QStringLiteral("/ 1,000 (")), qPrintable(capacity));
        QVERIFY(rings->index(r, RingBufferModel::OldestRvColumn).data().toString() !=
                QStringLiteral("—"));
    }
    QTRY_VERIFY_WITH_TIMEOUT(
        rings->index(0, RingBufferModel::EvictionsColumn).data().toString() !=
                QStringLiteral("0") ||
            rings->index(1, RingBufferModel::EvictionsColumn).data().toString() !=
                QStringLiteral("0"),
        kTimeoutMs);

    // Both apiservers' lines are drawn, and the eviction marked.
    QTRY_VERIFY_WITH_TIMEOUT(buffer->view()->isBound(QStringLiteral("buffer_used:apiserver-1")),
                             kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        buffer->pointCount(QStringLiteral("buffer_used")) > 0 &&
            buffer->pointCount(QStringLiteral("buffer_used:apiserver-1")) > 0 &&
            buffer->pointCount(QStringLiteral("buffer_capacity:apiserver-1")) > 0,
        kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(buffer->evictionMarksDrawn() >= 1, kTimeoutMs);
    QVERIFY2(buffer->gaugeText().contains(QStringLiteral("/ 1,000")),
             qPrintable(buffer->gaugeText()));
}

void TestGuiResources::resourceTreeDrivesTheView() {
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(QStringLiteral("too-large-rv-loop"), 10, &error), qPrintable(error));
    MainWindow& w = *h.window;
    ResourceTreeModel* tree = w.resourceModel();
    QAbstractItemModelTester tester(tree, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester proxyTester(w.resourceView()->model(),
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);
    const QString configmaps = QStringLiteral("configmaps");
    const QString runtimeclasses = QStringLiteral("runtimeclasses");
    // The session offers its resources before any update.
    QCOMPARE(tree->resourceCount(), 2);
    QVERIFY(treeRow(w, configmaps).isValid());
    QCOMPARE(treeRow(w, configmaps).parent().data().toString(), QStringLiteral("core"));
    h.start();

    // Objects and events/s arrive with the updates; the incidents of the 504 loop give a badge.
    QTRY_VERIFY_WITH_TIMEOUT(tree->objects(configmaps) > 0, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(tree->eventRate(configmaps) > 0, kTimeoutMs);
    // The badge shows the worst open incident's kind; its whole text (tooltip, CSV) all of them.
    const auto badge = [&](int role) {
        return treeRow(w, runtimeclasses)
            .siblingAtColumn(ResourceTreeModel::HealthColumn)
            .data(role)
            .toString();
    };
    QTRY_VERIFY_WITH_TIMEOUT(badge(FullTextRole).contains(QStringLiteral("too-large-rv")),
                             kTimeoutMs);
    QVERIFY2(badge(FullTextRole).contains(QStringLiteral(" incident")),
             qPrintable(badge(FullTextRole)));
    QVERIFY2(
        !badge(Qt::DisplayRole).isEmpty() &&
            badge(FullTextRole).contains(badge(Qt::DisplayRole).section(QLatin1Char(' '), 0, 0)),
        qPrintable(badge(Qt::DisplayRole)));
    QVERIFY(tree->health(runtimeclasses).open > 0);
    QVERIFY(tree->health(runtimeclasses).worst >= std::optional<Severity>(Severity::Warning));
    // Its API group (node.k8s.io) carries its badge.
    QCOMPARE(treeRow(w, runtimeclasses).parent().data().toString(), QStringLiteral("node.k8s.io"));
    QVERIFY(treeRow(w, runtimeclasses)
                .parent()
                .siblingAtColumn(ResourceTreeModel::HealthColumn)
                .data(ResourceTreeModel::SeverityRole)
                .toInt() >= 0);

    // Picking a resource in the tree is picking what the charts show.
    QItemSelectionModel* selection = w.resourceView()->selectionModel();
    const QModelIndex cmRow = treeRow(w, configmaps);
    const QModelIndex rcRow = treeRow(w, runtimeclasses);
    selection->setCurrentIndex(cmRow,
                               QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(w.currentResource(), configmaps);
    QVERIFY(w.resourceFocus()->picked());
    QCOMPARE(w.rvChart()->resource(), configmaps);
    QCOMPARE(w.bufferChart()->model()->resource(), configmaps);
    QCOMPARE(cacheResourcesShown(w), QSet<QString>({configmaps}));
    selection->setCurrentIndex(rcRow,
                               QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(w.currentResource(), runtimeclasses);
    QCOMPARE(w.rvChart()->resource(), runtimeclasses);
    QCOMPARE(cacheResourcesShown(w), QSet<QString>({runtimeclasses}));
    QTRY_COMPARE_WITH_TIMEOUT(w.bufferChart()->model()->rowCount(), 2, kTimeoutMs);

    // Two at once (Ctrl+click): the charts show the current one, the tables both.
    selection->setCurrentIndex(cmRow, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QCOMPARE(w.resourceFocus()->selection(), QStringList({configmaps, runtimeclasses}));
    QCOMPARE(w.currentResource(), configmaps);
    QCOMPARE(cacheResourcesShown(w), QSet<QString>({configmaps, runtimeclasses}));
    QCOMPARE(w.cacheProxy()->rowCount(), 4); // two resources on two apiservers

    // A group row picks its resources: core's and node.k8s.io's rows, both of them.
    selection->setCurrentIndex(cmRow.parent(),
                               QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(w.resourceFocus()->selection(), QStringList({configmaps}));
    selection->setCurrentIndex(rcRow.parent(),
                               QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QCOMPARE(w.resourceFocus()->selection().size(), 2);

    // The chooser in the tool bar moves the tree's selection along.
    w.setCurrentResource(runtimeclasses);
    QCOMPARE(w.resourceFocus()->selection(), QStringList({runtimeclasses}));
    const QModelIndexList rows = selection->selectedRows(0);
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.front().data().toString(), runtimeclasses);
    QCOMPARE(cacheResourcesShown(w), QSet<QString>({runtimeclasses}));

    // File → Export → Resources as CSV: groups with their resources under them.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("resources.csv"));
    QVERIFY(w.exporter()->exportTableCsv(ViewExporter::Table::Resources, path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines =
        QString::fromUtf8(file.readAll()).split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(lines.value(0), QStringLiteral("Parent,Resource,Objects,Events/s,Health"));
    QVERIFY2(lines.value(1).startsWith(QStringLiteral(",core,")), qPrintable(lines.value(1)));
    QCOMPARE(lines.size(), 5);
    QVERIFY(lines.value(2).startsWith(QStringLiteral("core,configmaps,")));
    QVERIFY2(lines.value(3).startsWith(QStringLiteral(",node.k8s.io,")),
             qPrintable(lines.value(3)));
    QVERIFY(lines.value(4).startsWith(QStringLiteral("node.k8s.io,runtimeclasses,")));
    // The health cell says every open incident, not the tree's short badge.
    QVERIFY2(lines.value(4).contains(QStringLiteral("incident")), qPrintable(lines.value(4)));
}

void TestGuiResources::unchangedUpdateRedrawsNothing() {
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(QStringLiteral("selector-watch-too-old"), 20, &error),
             qPrintable(error));
    MainWindow& w = *h.window;
    h.start();
    QTRY_COMPARE_WITH_TIMEOUT(w.bufferChart()->model()->rowCount(), 2, kTimeoutMs);
    h.switcher->stop();
    QTest::qWait(500); // the last queued updates land
    LiveChartView* buffer = w.bufferChart()->view();
    RvTimelineChart* rv = w.rvChart();
    // Draw what there is, let the throttled ring table and the settle timer catch up, draw again.
    buffer->replotNow();
    rv->replotNow();
    QTest::qWait(600);
    buffer->replotNow();
    rv->replotNow();

    // The same snapshots again, no new samples, the same time: nothing to redraw.
    EngineUpdate same;
    same.now = qint64(w.chartData().latestTimeMs()) * kUsPerMs;
    for (int r = 0; r < w.cacheModel()->rowCount(); ++r)
        same.caches.append(w.cacheModel()->cache(r));
    const int replaced = buffer->seriesReplaced() + rv->seriesReplaced();
    const int axes = buffer->axisChanges() + rv->axisChanges();
    const int replots = buffer->replotCount() + rv->replotCount();
    for (int i = 0; i < 10; ++i) {
        w.applyUpdate(same);
        QTest::qWait(2 * LiveChartView::kReplotIntervalMs);
    }
    QCOMPARE(buffer->replotCount() + rv->replotCount(), replots);
    // Even a forced replot of what is already drawn sets no series and no axis again.
    buffer->replotNow();
    rv->replotNow();
    QCOMPARE(buffer->seriesReplaced() + rv->seriesReplaced(), replaced);
    QCOMPARE(buffer->axisChanges() + rv->axisChanges(), axes);
}

void TestGuiResources::clusterBufferUsedIsUnknown() {
    // A cluster session against `watchscope-cli serve`: the watch cache's capacity comes from
    // /metrics, how much of it is used from nowhere, so the window says "unknown", not 0.
    const QString cli = qEnvironmentVariable("WS_CLI");
    if (!QFile::exists(cli))
        QSKIP("WS_CLI not built");
    QProcess serve;
    serve.setProcessChannelMode(QProcess::MergedChannels);
    serve.start(cli,
                {QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                 QStringLiteral("--scenario"), QStringLiteral("healthy")});
    QVERIFY(serve.waitForStarted());
    QString url;
    const QRegularExpression served(QStringLiteral("on (http://\\S+)"));
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            serve.waitForReadyRead(50);
            const auto m = served.match(QString::fromUtf8(serve.peek(4096)));
            url = m.hasMatch() ? m.captured(1) : QString();
            return !url.isEmpty();
        }(),
        30000);

    SourceSpec spec;
    spec.kind = SourceSpec::Kind::Server;
    spec.servers = {url};
    test::GuiSession h;
    QString error;
    QVERIFY2(h.open(spec, &error), qPrintable(error));
    MainWindow& w = *h.window;
    h.start();
    QTRY_VERIFY_WITH_TIMEOUT(w.cacheModel()->rowCount() > 0, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(w.bufferChart()->model()->rowCount() > 0, kTimeoutMs);
    const QModelIndex used = w.bufferChart()->model()->index(0, RingBufferModel::UsedColumn);
    QVERIFY2(used.data().toString().startsWith(QStringLiteral("unknown / ")),
             qPrintable(used.data().toString()));
    QVERIFY(w.bufferChart()->gaugeText().startsWith(QStringLiteral("unknown / ")));
    QVERIFY(w.cacheModel()
                ->index(0, CacheTableModel::BufferColumn)
                .data()
                .toString()
                .startsWith(QStringLiteral("unknown / ")));
    // The capacity is known.
    QVERIFY(w.cacheModel()->cache(0).bufferCapacity > 0);
    // The events of the resource come from its informers.
    QTRY_VERIFY_WITH_TIMEOUT(w.resourceModel()->eventRate(w.currentResource()) > 0, kTimeoutMs);

    h.switcher->stop();
    serve.kill();
    serve.waitForFinished();
}

QTEST_MAIN(TestGuiResources)
#include "tst_guiresources.moc"

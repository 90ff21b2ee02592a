#include "SyntheticCluster.h"
#include "models/WatcherTableModel.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace ws;
using ws::test::watcher;

Q_DECLARE_METATYPE(ws::WatcherSnapshot)
using Frames = QList<QVector<ws::WatcherSnapshot>>;

class TestWatcherTableModel : public QObject {
    Q_OBJECT
private slots:
    void updateSequence_data();
    void updateSequence();
    void changedCellsOnly();
    void displayAndSortValues();
    void testersThroughUpdates();
    void numericSort_data();
    void numericSort();
    void stateAndErrors();
};

namespace {

// The ids of the proxy's rows, top to bottom.
QStringList idsInOrder(const QAbstractItemModel& proxy) {
    QStringList out;
    for (int r = 0; r < proxy.rowCount(); ++r)
        out << proxy.index(r, WatcherTableModel::IdColumn).data().toString();
    return out;
}

} // namespace

void TestWatcherTableModel::updateSequence_data() {
    QTest::addColumn<Frames>("frames");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("insertSignals");
    QTest::addColumn<int>("changeSignals");

    const QString pods = QStringLiteral("pods");
    const QString cms = QStringLiteral("configmaps");
    const WatcherSnapshot a = watcher(QStringLiteral("a"), pods, 100);
    const WatcherSnapshot b = watcher(QStringLiteral("b"), pods, 90, 10);
    const WatcherSnapshot c = watcher(QStringLiteral("c"), pods, 80, 20);
    WatcherSnapshot bLater = b;
    bLater.rv = 95;
    bLater.lagRevisions = 5;
    WatcherSnapshot bTerminated = bLater;
    bTerminated.state = WatcherState::Terminated;
    const WatcherSnapshot aOnConfigmaps = watcher(QStringLiteral("a"), cms, 100);

    QTest::newRow("empty frame") << Frames{{}} << 0 << 0 << 0;
    QTest::newRow("one frame inserts all at once") << Frames{{a, b, c}} << 3 << 1 << 0;
    QTest::newRow("unchanged frame emits nothing") << Frames{{a, b}, {a, b}, {b, a}} << 2 << 1 << 0;
    QTest::newRow("one changed watcher, one dataChanged")
        << Frames{{a, b}, {a, bLater}} << 2 << 1 << 1;
    QTest::newRow("state change") << Frames{{a, bLater}, {bTerminated}} << 2 << 1 << 1;
    QTest::newRow("new watchers in a later frame: one more insert")
        << Frames{{a}, {a, b, c}} << 3 << 2 << 0;
    QTest::newRow("duplicate in one frame keeps the last")
        << Frames{{b, bLater}, {bLater}} << 1 << 1 << 0;
    QTest::newRow("same id on two resources is two rows")
        << Frames{{a, aOnConfigmaps}} << 2 << 1 << 0;
    QTest::newRow("a watcher missing from a frame keeps its row")
        << Frames{{a, b, c}, {a}, {c}} << 3 << 1 << 0;
}

void TestWatcherTableModel::updateSequence() {
    QFETCH(Frames, frames);
    QFETCH(int, rows);
    QFETCH(int, insertSignals);
    QFETCH(int, changeSignals);

    WatcherTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    for (const auto& frame : frames)
        model.applySnapshots(frame);

    QCOMPARE(model.rowCount(), rows);
    QCOMPARE(inserted.count(), insertSignals);
    QCOMPARE(changed.count(), changeSignals);
    QCOMPARE(reset.count(), 0); // never a full reset per frame
}

void TestWatcherTableModel::changedCellsOnly() {
    WatcherTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QString pods = QStringLiteral("pods");
    WatcherSnapshot a = watcher(QStringLiteral("a"), pods, 100);
    WatcherSnapshot b = watcher(QStringLiteral("b"), pods, 90, 10);
    model.applySnapshots({a, b});

    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    b.lagRevisions = 12;
    b.lagSeconds = 0.5;
    model.applySnapshots({a, b});
    QCOMPARE(changed.count(), 1);
    const auto topLeft = changed.at(0).at(0).value<QModelIndex>();
    const auto bottomRight = changed.at(0).at(1).value<QModelIndex>();
    QCOMPARE(topLeft.row(), 1);
    QCOMPARE(bottomRight.row(), 1);
    QCOMPARE(topLeft.column(), int(WatcherTableModel::LagRevisionsColumn));
    QCOMPARE(bottomRight.column(), int(WatcherTableModel::LagSecondsColumn));
    QCOMPARE(model.index(1, WatcherTableModel::LagRevisionsColumn).data().toString(),
             QStringLiteral("12"));
}

void TestWatcherTableModel::displayAndSortValues() {
    WatcherTableModel model;
    WatcherSnapshot w = watcher(QStringLiteral("informer/kcm"), QStringLiteral("pods"), 123456, 0);
    w.eventsReceived = 1234567;
    w.lagSeconds = 0.25;
    w.relists = 3;
    WatcherSnapshot fresh = watcher(QStringLiteral("new"), QStringLiteral("pods"), 0);
    model.applySnapshots({w, fresh});

    const auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
        return model.index(row, column).data(role);
    };
    QCOMPARE(cell(0, WatcherTableModel::IdColumn).toString(), QStringLiteral("informer/kcm"));
    QCOMPARE(cell(0, WatcherTableModel::RvColumn).toString(), QStringLiteral("123456"));
    QCOMPARE(cell(1, WatcherTableModel::RvColumn).toString(), QStringLiteral("—"));
    QCOMPARE(cell(0, WatcherTableModel::EventsColumn).toString(), QStringLiteral("1,234,567"));
    QCOMPARE(cell(0, WatcherTableModel::LagSecondsColumn).toString(), QStringLiteral("0.250"));
    QCOMPARE(cell(0, WatcherTableModel::RelistsColumn).toString(), QStringLiteral("3"));
    QCOMPARE(cell(0, WatcherTableModel::EventsColumn, WatcherTableModel::SortRole).toLongLong(),
             1234567);
    QCOMPARE(model.headerData(WatcherTableModel::LagRevisionsColumn, Qt::Horizontal).toString(),
             QStringLiteral("Lag (rev)"));
    QCOMPARE(model.rowOf(QStringLiteral("pods"), QStringLiteral("new")), 1);

    // A cluster that gives no head (no cache RV in /metrics): the lag is unknown, not 0.
    WatcherSnapshot blind = watcher(QStringLiteral("informer/old"), QStringLiteral("pods"), 500);
    blind.lagRevisions = WatcherSnapshot::kUnknown;
    blind.lagSeconds = WatcherSnapshot::kUnknown;
    model.applySnapshots({w, fresh, blind});
    QCOMPARE(cell(2, WatcherTableModel::LagRevisionsColumn).toString(), QStringLiteral("unknown"));
    QCOMPARE(cell(2, WatcherTableModel::LagSecondsColumn).toString(), QStringLiteral("unknown"));
    QVERIFY(cell(2, WatcherTableModel::IdColumn, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("lag unknown")));
    QVERIFY(cell(0, WatcherTableModel::IdColumn, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("behind head")));
}

void TestWatcherTableModel::testersThroughUpdates() {
    // The model and a sorting proxy on it, checked (Fatal) at every signal of 150 frames of a
    // synthetic cluster: rows inserted, lag, state and relists changing, sorted by lag.
    WatcherTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(WatcherTableModel::SortRole);
    proxy.setDynamicSortFilter(true);
    proxy.sort(WatcherTableModel::LagRevisionsColumn, Qt::DescendingOrder);
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);
    test::SyntheticCluster cluster;
    for (int i = 0; i < 150; ++i)
        model.applySnapshots(cluster.next().watchers);
    QCOMPARE(model.rowCount(), 5);
    // 15 s in, the slow client is far behind: on top when sorted by lag.
    for (int i = 0; i < 450; ++i)
        model.applySnapshots(cluster.next().watchers);
    QCOMPARE(idsInOrder(proxy).constFirst(), QStringLiteral("audit-exporter"));
    QCOMPARE(proxy.index(0, WatcherTableModel::StateColumn).data().toString(),
             QStringLiteral("lagging"));
}

void TestWatcherTableModel::numericSort_data() {
    QTest::addColumn<int>("column");
    QTest::addColumn<QStringList>("ascending");
    // As text these would sort "10" < "100" < "9", and "-" first: numbers sort as numbers.
    QTest::newRow("rv") << int(WatcherTableModel::RvColumn)
                        << QStringList{QStringLiteral("c"), QStringLiteral("a"),
                                       QStringLiteral("b")};
    QTest::newRow("lag revisions")
        << int(WatcherTableModel::LagRevisionsColumn)
        << QStringList{QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("a")};
    QTest::newRow("lag seconds") << int(WatcherTableModel::LagSecondsColumn)
                                 << QStringList{QStringLiteral("a"), QStringLiteral("b"),
                                                QStringLiteral("c")};
    QTest::newRow("errors") << int(WatcherTableModel::ErrorsColumn)
                            << QStringList{QStringLiteral("c"), QStringLiteral("b"),
                                           QStringLiteral("a")};
    QTest::newRow("relists") << int(WatcherTableModel::RelistsColumn)
                             << QStringList{QStringLiteral("b"), QStringLiteral("a"),
                                            QStringLiteral("c")};
    // The state by its place in the cycle: live < lagging < stuck.
    QTest::newRow("state") << int(WatcherTableModel::StateColumn)
                           << QStringList{QStringLiteral("b"), QStringLiteral("a"),
                                          QStringLiteral("c")};
}

void TestWatcherTableModel::numericSort() {
    QFETCH(int, column);
    QFETCH(QStringList, ascending);
    const QString pods = QStringLiteral("pods");
    WatcherSnapshot a = watcher(QStringLiteral("a"), pods, 10, 100, WatcherState::Lagging);
    a.lagSeconds = 0.5;
    a.errors = 12;
    a.relists = 9;
    WatcherSnapshot b = watcher(QStringLiteral("b"), pods, 100, 9, WatcherState::Live);
    b.lagSeconds = 2;
    b.errors = 9;
    b.relists = 2;
    WatcherSnapshot c = watcher(QStringLiteral("c"), pods, 9, 10, WatcherState::Stuck);
    c.lagSeconds = 10.25;
    c.errors = 0;
    c.relists = 10;
    WatcherTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(WatcherTableModel::SortRole);
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.applySnapshots({a, b, c});
    proxy.sort(column, Qt::AscendingOrder);
    QCOMPARE(idsInOrder(proxy), ascending);
    proxy.sort(column, Qt::DescendingOrder);
    QStringList descending = ascending;
    std::reverse(descending.begin(), descending.end());
    QCOMPARE(idsInOrder(proxy), descending);
}

void TestWatcherTableModel::stateAndErrors() {
    WatcherTableModel model;
    WatcherSnapshot w =
        watcher(QStringLiteral("informer-0"), QStringLiteral("pods"), 500, 40, WatcherState::Stuck);
    w.selector = QStringLiteral("spec.nodeName=node-3");
    w.errors = 4;
    w.httpRetries = 3;
    w.detail = QStringLiteral("watching");
    model.applySnapshots({w});
    const auto cell = [&](int column, int role = Qt::DisplayRole) {
        return model.index(0, column).data(role);
    };
    QCOMPARE(cell(WatcherTableModel::StateColumn).toString(), QStringLiteral("stuck"));
    QCOMPARE(cell(WatcherTableModel::StateColumn, WatcherTableModel::SortRole).toInt(),
             int(WatcherState::Stuck));
    QCOMPARE(cell(WatcherTableModel::SelectorColumn).toString(),
             QStringLiteral("spec.nodeName=node-3"));
    QCOMPARE(cell(WatcherTableModel::ErrorsColumn).toString(), QStringLiteral("4"));
    QVERIFY(cell(WatcherTableModel::IdColumn, Qt::ForegroundRole).value<QColor>().isValid());
    QVERIFY(cell(WatcherTableModel::IdColumn, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("stuck")));
    QVERIFY(cell(WatcherTableModel::IdColumn, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("3 HTTP retries below the reflector")));
    QCOMPARE(model.headerData(WatcherTableModel::ErrorsColumn, Qt::Horizontal).toString(),
             QStringLiteral("Errors"));
    QCOMPARE(model.headerData(WatcherTableModel::SelectorColumn, Qt::Horizontal).toString(),
             QStringLiteral("Selector"));

    // A live watcher keeps the palette's colour; the state change is one dataChanged.
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    w.state = WatcherState::Live;
    model.applySnapshots({w});
    QCOMPARE(changed.count(), 1);
    QVERIFY(!cell(WatcherTableModel::IdColumn, Qt::ForegroundRole).isValid());
    QCOMPARE(cell(WatcherTableModel::StateColumn).toString(), QStringLiteral("live"));
}

QTEST_MAIN(TestWatcherTableModel)
#include "tst_watchertablemodel.moc"

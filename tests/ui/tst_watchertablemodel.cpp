#include "SyntheticCluster.h"
#include "models/WatcherTableModel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
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
};

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
    bTerminated.state = QStringLiteral("terminated");
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
}

QTEST_MAIN(TestWatcherTableModel)
#include "tst_watchertablemodel.moc"

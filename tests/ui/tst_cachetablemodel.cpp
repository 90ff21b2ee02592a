#include "SyntheticCluster.h"
#include "models/CacheTableModel.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSignalSpy>
#include <QTest>

using namespace ws;
using ws::test::cache;

Q_DECLARE_METATYPE(ws::CacheSnapshot)
using CacheFrames = QList<QVector<ws::CacheSnapshot>>;

class TestCacheTableModel : public QObject {
    Q_OBJECT
private slots:
    void updateSequence_data();
    void updateSequence();
    void cells();
};

void TestCacheTableModel::updateSequence_data() {
    QTest::addColumn<CacheFrames>("frames");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("insertSignals");
    QTest::addColumn<int>("changeSignals");

    const QString pods = QStringLiteral("pods");
    const QString a0 = QStringLiteral("apiserver-0");
    const QString a1 = QStringLiteral("apiserver-1");
    const CacheSnapshot p0 = cache(pods, a0, 100, 99, 10, 100);
    const CacheSnapshot p1 = cache(pods, a1, 100, 98, 10, 100);
    const CacheSnapshot p0Next = cache(pods, a0, 105, 104, 15, 100);
    const CacheSnapshot cm = cache(QStringLiteral("configmaps"), a0, 100, 100, 3, 100);

    QTest::newRow("two apiservers, two rows") << CacheFrames{{p0, p1}} << 2 << 1 << 0;
    QTest::newRow("steady frames") << CacheFrames{{p0, p1}, {p0, p1}} << 2 << 1 << 0;
    QTest::newRow("progress on one cache") << CacheFrames{{p0, p1}, {p0Next, p1}} << 2 << 1 << 1;
    QTest::newRow("new resource later") << CacheFrames{{p0}, {p0Next, cm}} << 2 << 2 << 1;
}

void TestCacheTableModel::updateSequence() {
    QFETCH(CacheFrames, frames);
    QFETCH(int, rows);
    QFETCH(int, insertSignals);
    QFETCH(int, changeSignals);

    CacheTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    for (const auto& frame : frames)
        model.applySnapshots(frame);
    QCOMPARE(model.rowCount(), rows);
    QCOMPARE(inserted.count(), insertSignals);
    QCOMPARE(changed.count(), changeSignals);
    QCOMPARE(reset.count(), 0);
}

void TestCacheTableModel::cells() {
    CacheTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    CacheSnapshot c =
        cache(QStringLiteral("pods"), QStringLiteral("apiserver-0"), 2000, 1990, 990, 1000);
    c.objects = 12345;
    CacheSnapshot etcdOnly = cache(QStringLiteral("leases"), QString(), 2000, 0, 0, 0);
    model.applySnapshots({c, etcdOnly});
    const auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
        return model.index(row, column).data(role);
    };
    QCOMPARE(cell(0, CacheTableModel::HeadRvColumn).toString(), QStringLiteral("2000"));
    QCOMPARE(cell(0, CacheTableModel::CacheRvColumn).toString(), QStringLiteral("1990"));
    QCOMPARE(cell(0, CacheTableModel::CacheLagColumn).toString(), QStringLiteral("10"));
    QCOMPARE(cell(0, CacheTableModel::BufferColumn).toString(),
             QStringLiteral("990 / 1,000 (99%)"));
    QCOMPARE(cell(0, CacheTableModel::OldestRvColumn).toString(), QStringLiteral("1000"));
    QCOMPARE(cell(0, CacheTableModel::ObjectsColumn).toString(), QStringLiteral("12,345"));
    // A nearly full ring buffer is flagged; an empty one is not, and sorts by fill.
    QVERIFY(cell(0, CacheTableModel::BufferColumn, Qt::ForegroundRole).value<QColor>().isValid());
    QVERIFY(!cell(1, CacheTableModel::BufferColumn, Qt::ForegroundRole).isValid());
    QCOMPARE(cell(0, CacheTableModel::BufferColumn, CacheTableModel::SortRole).toDouble(), 0.99);
    QCOMPARE(cell(1, CacheTableModel::ApiserverColumn).toString(), QStringLiteral("—"));
    QCOMPARE(cell(1, CacheTableModel::CacheRvColumn).toString(), QStringLiteral("—"));
}

QTEST_MAIN(TestCacheTableModel)
#include "tst_cachetablemodel.moc"

// The What If table without widgets: a row per kind either run found, counts side by side, and
// which kinds depend on the versions ("gone on ...", "only on ...").
#include "models/WhatIfKindModel.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QSignalSpy>
#include <QTest>

using namespace ws;

namespace {

WhatIfKindCount count(const char* kind, qint64 recorded, qint64 whatIf) {
    WhatIfKindCount k;
    k.kind = QLatin1String(kind);
    k.recorded = recorded;
    k.whatIf = whatIf;
    return k;
}

const QString kLabel = QStringLiteral("kube-apiserver 1.24");

std::vector<WhatIfKindCount> sample() {
    return {count("prev-kv-nil", 4, 0), count("relist-storm", 0, 2), count("stale-object", 1234, 0),
            count("watcher-lag", 7, 9)};
}

QString cell(const WhatIfKindModel& model, int row, int column, int role = Qt::DisplayRole) {
    return model.data(model.index(row, column), role).toString();
}

} // namespace

class TestWhatIfKindModel : public QObject {
    Q_OBJECT
private slots:
    void emptyUntilSet();
    void rowsAndCells();
    void changeText_data();
    void changeText();
    void headerNamesTheVersions();
    void sortRoleIsNumeric();
    void resetOnEverySet();
};

void TestWhatIfKindModel::emptyUntilSet() {
    WhatIfKindModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), int(WhatIfKindModel::ColumnCount));
    QCOMPARE(model.rowOfKind(QStringLiteral("stale-object")), -1);
    QCOMPARE(model.headerData(WhatIfKindModel::WhatIfColumn, Qt::Horizontal).toString(),
             QStringLiteral("What if"));
}

void TestWhatIfKindModel::rowsAndCells() {
    WhatIfKindModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setKinds(sample(), kLabel);
    QCOMPARE(model.rowCount(), 4);
    const int stale = model.rowOfKind(QStringLiteral("stale-object"));
    QCOMPARE(stale, 2);
    QCOMPARE(cell(model, stale, WhatIfKindModel::KindColumn), QStringLiteral("stale-object"));
    QCOMPARE(cell(model, stale, WhatIfKindModel::RecordedColumn), QStringLiteral("1,234"));
    QCOMPARE(cell(model, stale, WhatIfKindModel::WhatIfColumn), QStringLiteral("0"));
    QCOMPARE(cell(model, stale, WhatIfKindModel::ChangeColumn),
             QStringLiteral("gone on kube-apiserver 1.24"));
    const int storm = model.rowOfKind(QStringLiteral("relist-storm"));
    QCOMPARE(cell(model, storm, WhatIfKindModel::ChangeColumn),
             QStringLiteral("only on kube-apiserver 1.24"));
    const int lag = model.rowOfKind(QStringLiteral("watcher-lag"));
    QCOMPARE(cell(model, lag, WhatIfKindModel::ChangeColumn), QString());
    // Every column of a row knows its kind (what a selection in the view filters by).
    for (int c = 0; c < model.columnCount(); ++c)
        QCOMPARE(cell(model, lag, c, WhatIfKindModel::KindNameRole), QStringLiteral("watcher-lag"));
    // The kinds that depend on the versions are coloured, the others not; tooltips say why.
    QVERIFY(model.data(model.index(stale, WhatIfKindModel::ChangeColumn), Qt::ForegroundRole)
                .canConvert<QBrush>());
    QVERIFY(
        !model.data(model.index(lag, WhatIfKindModel::ChangeColumn), Qt::ForegroundRole).isValid());
    QVERIFY(cell(model, stale, WhatIfKindModel::KindColumn, Qt::ToolTipRole)
                .contains(QStringLiteral("depends on the versions")));
    QVERIFY(!cell(model, lag, WhatIfKindModel::KindColumn, Qt::ToolTipRole)
                 .contains(QStringLiteral("depends on the versions")));
    QCOMPARE(model.kind(storm).whatIf, 2);
    // Out of range: nothing.
    QVERIFY(!model.data(model.index(4, 0)).isValid());
}

void TestWhatIfKindModel::changeText_data() {
    QTest::addColumn<qint64>("recorded");
    QTest::addColumn<qint64>("whatIf");
    QTest::addColumn<QString>("change");
    QTest::newRow("gone") << qint64(3) << qint64(0) << "gone on kube-apiserver 1.24";
    QTest::newRow("new") << qint64(0) << qint64(1) << "only on kube-apiserver 1.24";
    QTest::newRow("fewer") << qint64(3) << qint64(1) << "";
    QTest::newRow("more") << qint64(1) << qint64(3) << "";
    QTest::newRow("same") << qint64(2) << qint64(2) << "";
}

void TestWhatIfKindModel::changeText() {
    QFETCH(qint64, recorded);
    QFETCH(qint64, whatIf);
    QFETCH(QString, change);
    WhatIfKindCount k;
    k.kind = QStringLiteral("stale-object");
    k.recorded = recorded;
    k.whatIf = whatIf;
    QCOMPARE(WhatIfKindModel::changeText(k, kLabel), change);
}

void TestWhatIfKindModel::headerNamesTheVersions() {
    WhatIfKindModel model;
    QSignalSpy header(&model, &QAbstractItemModel::headerDataChanged);
    model.setKinds(sample(), QStringLiteral("kube-apiserver 1.30, SeparateCacheWatchRPC=true"),
                   QStringLiteral("kube-apiserver 1.27.0, client-go current"));
    QVERIFY(header.count() >= 1);
    QCOMPARE(model.headerData(WhatIfKindModel::KindColumn, Qt::Horizontal).toString(),
             QStringLiteral("Kind"));
    QCOMPARE(model.headerData(WhatIfKindModel::RecordedColumn, Qt::Horizontal).toString(),
             QStringLiteral("As recorded"));
    QCOMPARE(model.headerData(WhatIfKindModel::WhatIfColumn, Qt::Horizontal).toString(),
             QStringLiteral("Under kube-apiserver 1.30, SeparateCacheWatchRPC=true"));
    QCOMPARE(model.headerData(WhatIfKindModel::ChangeColumn, Qt::Horizontal).toString(),
             QStringLiteral("Change"));
    QVERIFY(model.headerData(WhatIfKindModel::RecordedColumn, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("1.27.0")));
    QCOMPARE(model.whatIfLabel(),
             QStringLiteral("kube-apiserver 1.30, SeparateCacheWatchRPC=true"));
}

void TestWhatIfKindModel::sortRoleIsNumeric() {
    WhatIfKindModel model;
    model.setKinds(sample(), kLabel);
    // 1,234 sorts above 7 by number, not as text.
    const QVariant big =
        model.data(model.index(2, WhatIfKindModel::RecordedColumn), WhatIfKindModel::SortRole);
    const QVariant small =
        model.data(model.index(3, WhatIfKindModel::RecordedColumn), WhatIfKindModel::SortRole);
    QCOMPARE(big.toLongLong(), 1234);
    QVERIFY(QVariant::compare(big, small) == QPartialOrdering::Greater);
}

void TestWhatIfKindModel::resetOnEverySet() {
    WhatIfKindModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setKinds(sample(), kLabel);
    model.setKinds({count("too-old-rv", 1, 1)}, QStringLiteral("client-go 0.16"));
    QCOMPARE(reset.count(), 2);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.rowOfKind(QStringLiteral("stale-object")), -1);
    QCOMPARE(cell(model, 0, WhatIfKindModel::ChangeColumn), QString());
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.whatIfLabel(), QString());
}

QTEST_MAIN(TestWhatIfKindModel)
#include "tst_whatifkindmodel.moc"

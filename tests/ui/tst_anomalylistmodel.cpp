#include "SyntheticCluster.h"
#include "models/AnomalyFilterProxy.h"
#include "models/AnomalyListModel.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QSignalSpy>
#include <QTest>

using namespace ws;
using ws::test::anomaly;

namespace {

// A fixed set covering every filter field.
AnomalyList sample() {
    const QString pods = QStringLiteral("pods");
    const QString cms = QStringLiteral("configmaps");
    AnomalyList list;
    list << anomaly(seconds(1.5), AnomalyKind::PrevKvNil, Severity::Error, cms, 1234,
                    QStringLiteral("cacher/configmaps"),
                    QStringLiteral("DELETE at 1234 without prev_kv; compact revision 1200"),
                    QStringLiteral("/registry/configmaps/default/a"));
    list << anomaly(seconds(2), AnomalyKind::TooOldRv, Severity::Warning, pods, 900,
                    QStringLiteral("kubelet/node-1"), QStringLiteral("410 Expired"));
    list << anomaly(seconds(3), AnomalyKind::WatcherLag, Severity::Warning, pods, 950,
                    QStringLiteral("audit-exporter"), QStringLiteral("lag 300 revisions"));
    list << anomaly(seconds(4), AnomalyKind::StaleObject, Severity::Error, pods, 0,
                    QStringLiteral("informer/kcm"), QStringLiteral("deleted pod seen again"),
                    QStringLiteral("/registry/pods/default/web-0"));
    list << anomaly(seconds(5), AnomalyKind::StuckWatcher, Severity::Info, cms, 1300, QString(),
                    QStringLiteral("rv unchanged for 5 s"));
    list.last().source = AnomalySource::Etcd;
    return list;
}

} // namespace

class TestAnomalyListModel : public QObject {
    Q_OBJECT
private slots:
    void batchesInsertOnce();
    void cellText();
    void filter_data();
    void filter();
    void filterFollowsAppends();
    void dropsOldestInBatches_data();
    void dropsOldestInBatches();
};

void TestAnomalyListModel::batchesInsertOnce() {
    AnomalyListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy aboutToInsert(&model, &QAbstractItemModel::rowsAboutToBeInserted);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    const AnomalyList all = sample();
    model.appendAnomalies(all.mid(0, 3));
    model.appendAnomalies({}); // an update without anomalies touches nothing
    model.appendAnomalies(all.mid(3));
    QCOMPARE(model.rowCount(), 5);
    QCOMPARE(aboutToInsert.count(), 2);
    QCOMPARE(inserted.count(), 2);
    QCOMPARE(inserted.at(1).at(1).toInt(), 3);
    QCOMPARE(inserted.at(1).at(2).toInt(), 4);
}

void TestAnomalyListModel::cellText() {
    AnomalyListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.appendAnomalies(sample());
    const auto cell = [&](int row, int column, int role = Qt::DisplayRole) {
        return model.index(row, column).data(role);
    };
    QCOMPARE(cell(0, AnomalyListModel::NumberColumn).toInt(), 1);
    QCOMPARE(cell(0, AnomalyListModel::TimeColumn).toString(), QStringLiteral("1.500"));
    QCOMPARE(cell(0, AnomalyListModel::SeverityColumn).toString(), QStringLiteral("error"));
    QCOMPARE(cell(0, AnomalyListModel::KindColumn).toString(), QStringLiteral("prevkv-nil"));
    QCOMPARE(cell(0, AnomalyListModel::SourceColumn).toString(), QStringLiteral("simulator"));
    QCOMPARE(cell(0, AnomalyListModel::RvColumn).toString(), QStringLiteral("1234"));
    QCOMPARE(cell(0, AnomalyListModel::KeyColumn).toString(),
             QStringLiteral("/registry/configmaps/default/a"));
    QCOMPARE(cell(3, AnomalyListModel::RvColumn).toString(), QString()); // absent RV: blank
    QCOMPARE(cell(4, AnomalyListModel::SourceColumn).toString(), QStringLiteral("etcd"));

    // Severity colours: distinct per severity, on the severity swatch and the text.
    const QColor error =
        cell(0, AnomalyListModel::SeverityColumn, Qt::ForegroundRole).value<QColor>();
    const QColor warning =
        cell(1, AnomalyListModel::SeverityColumn, Qt::ForegroundRole).value<QColor>();
    const QColor info =
        cell(4, AnomalyListModel::SeverityColumn, Qt::ForegroundRole).value<QColor>();
    QVERIFY(error.isValid() && warning.isValid() && info.isValid());
    QVERIFY(error != warning && warning != info && error != info);
    QCOMPARE(cell(0, AnomalyListModel::SeverityColumn, Qt::DecorationRole).value<QColor>(), error);
    QVERIFY(!cell(0, AnomalyListModel::MessageColumn, Qt::ForegroundRole).isValid());

    const Anomaly a = cell(3, 0, AnomalyListModel::AnomalyRole).value<Anomaly>();
    QCOMPARE(a.kind, AnomalyKind::StaleObject);
    QCOMPARE(a.key, QStringLiteral("/registry/pods/default/web-0"));
}

void TestAnomalyListModel::filter_data() {
    QTest::addColumn<int>("kind"); // -1: any
    QTest::addColumn<int>("severity");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<int>>("numbers"); // anomaly numbers (1-based) that stay visible

    QTest::newRow("no filter") << -1 << -1 << QString() << QList<int>{1, 2, 3, 4, 5};
    QTest::newRow("kind") << int(AnomalyKind::TooOldRv) << -1 << QString() << QList<int>{2};
    QTest::newRow("severity error") << -1 << int(Severity::Error) << QString() << QList<int>{1, 4};
    QTest::newRow("kind and severity disagree")
        << int(AnomalyKind::TooOldRv) << int(Severity::Error) << QString() << QList<int>{};
    QTest::newRow("bare word, any field") << -1 << -1 << QStringLiteral("EXPIRED") << QList<int>{2};
    QTest::newRow("field term") << -1 << -1 << QStringLiteral("resource:pods")
                                << QList<int>{2, 3, 4};
    QTest::newRow("terms are and-ed")
        << -1 << -1 << QStringLiteral("resource:pods severity:warn") << QList<int>{2, 3};
    QTest::newRow("negation") << -1 << -1 << QStringLiteral("resource:pods !watcher:kubelet")
                              << QList<int>{3, 4};
    QTest::newRow("rv is exact") << -1 << -1 << QStringLiteral("rv:123") << QList<int>{};
    QTest::newRow("rv exact hit") << -1 << -1 << QStringLiteral("rv:1234") << QList<int>{1};
    QTest::newRow("key with colon is plain text")
        << -1 << -1 << QStringLiteral("/registry/pods") << QList<int>{4};
    QTest::newRow("source") << -1 << -1 << QStringLiteral("source:etcd") << QList<int>{5};
    QTest::newRow("text with kind combo")
        << int(AnomalyKind::WatcherLag) << -1 << QStringLiteral("audit") << QList<int>{3};
}

void TestAnomalyListModel::filter() {
    QFETCH(int, kind);
    QFETCH(int, severity);
    QFETCH(QString, text);
    QFETCH(QList<int>, numbers);

    AnomalyListModel model;
    AnomalyFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.appendAnomalies(sample());
    proxy.setKind(kind < 0 ? std::nullopt : std::optional(AnomalyKind(kind)));
    proxy.setSeverity(severity < 0 ? std::nullopt : std::optional(Severity(severity)));
    proxy.setText(text);

    QList<int> shown;
    for (int r = 0; r < proxy.rowCount(); ++r)
        shown << proxy.index(r, AnomalyListModel::NumberColumn).data().toInt();
    std::sort(shown.begin(), shown.end());
    QCOMPARE(shown, numbers);
}

void TestAnomalyListModel::filterFollowsAppends() {
    AnomalyListModel model;
    AnomalyFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setText(QStringLiteral("kind:too-old"));
    const AnomalyList all = sample();
    for (const Anomaly& a : all)
        model.appendAnomalies({a});
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setText(QString());
    QCOMPARE(proxy.rowCount(), 5);
}

void TestAnomalyListModel::dropsOldestInBatches_data() {
    QTest::addColumn<int>("maxRows");
    QTest::addColumn<int>("dropBatch");
    QTest::addColumn<QList<int>>("batches"); // anomalies per appendAnomalies call
    QTest::addColumn<int>("rows");           // rows left
    QTest::addColumn<int>("removeSignals");

    QTest::newRow("under the cap") << 10 << 3 << QList<int>{4, 6} << 10 << 0;
    // 10 + 1: the excess and a batch of 3 more go at once, then 3 appends fit again.
    QTest::newRow("one over") << 10 << 3 << QList<int>{10, 1} << 7 << 1;
    QTest::newRow("batches, not every append")
        << 10 << 3 << QList<int>{10, 1, 1, 1, 1, 1} << 7 << 2;
    QTest::newRow("batch larger than the cap") << 10 << 3 << QList<int>{5, 25} << 10 << 1;
    QTest::newRow("batch of one") << 5 << 1 << QList<int>{5, 1, 1, 1} << 4 << 2;
}

void TestAnomalyListModel::dropsOldestInBatches() {
    QFETCH(int, maxRows);
    QFETCH(int, dropBatch);
    QFETCH(QList<int>, batches);
    QFETCH(int, rows);
    QFETCH(int, removeSignals);

    AnomalyListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setMaxRows(maxRows, dropBatch);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    int total = 0;
    for (int n : std::as_const(batches)) {
        AnomalyList batch;
        for (int i = 0; i < n; ++i, ++total)
            batch << anomaly(seconds(total), AnomalyKind::WatcherLag, Severity::Warning,
                             QStringLiteral("pods"), 100 + total, QStringLiteral("w"),
                             QStringLiteral("anomaly %1").arg(total + 1));
        model.appendAnomalies(batch);
        QVERIFY(model.rowCount() <= maxRows);
    }
    QCOMPARE(model.rowCount(), rows);
    QCOMPARE(model.droppedCount(), qint64(total - rows));
    QCOMPARE(removed.count(), removeSignals);
    for (const QList<QVariant>& args : std::as_const(removed))
        QCOMPARE(args.at(1).toInt(), 0); // always the oldest
    // The newest are kept, and the No. column counts from the session's first anomaly.
    QCOMPARE(model.anomaly(rows - 1).message, QStringLiteral("anomaly %1").arg(total));
    QCOMPARE(model.index(0, AnomalyListModel::NumberColumn).data().toInt(), total - rows + 1);
    QCOMPARE(model.index(0, AnomalyListModel::MessageColumn).data().toString(),
             QStringLiteral("anomaly %1").arg(total - rows + 1));
    QCOMPARE(model.rowOfSerial(total - 1), rows - 1);
    QCOMPARE(model.rowOfSerial(total - rows), 0);
    QCOMPARE(model.rowOfSerial(total - rows - 1), -1);
    QCOMPARE(model.rowOfSerial(total), -1);
    model.clear();
    QCOMPARE(model.droppedCount(), qint64(0));
}

QTEST_MAIN(TestAnomalyListModel)
#include "tst_anomalylistmodel.moc"

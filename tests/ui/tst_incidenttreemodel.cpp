// IncidentTreeModel and its sort proxy: incidents upserted from updates made the way the engine
// makes them (IncidentGrouper), anomalies under their incident, children paged, the bound shared
// with the anomaly list, sorting, and QAbstractItemModelTester on both while updates arrive.
#include "SyntheticCluster.h"
#include "detect/IncidentGrouper.h"
#include "models/AnomalyListModel.h"
#include "models/IncidentSortProxy.h"
#include "models/IncidentTreeModel.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <map>

using namespace ws;
using namespace ws::test;

namespace {

// Plays the engine: groups each batch with the real IncidentGrouper and sends the incidents that
// opened or grew, whole, as EngineUpdate does.
class Engine {
public:
    EngineUpdate next(AnomalyList batch) {
        EngineUpdate u;
        std::map<std::int64_t, Incident> changed;
        for (Anomaly& a : batch) {
            const Incident& i = m_grouper.assign(a);
            changed[i.id] = i;
        }
        for (auto& [id, i] : changed)
            u.incidents.append(i);
        u.anomalies = std::move(batch);
        if (!u.anomalies.isEmpty())
            u.now = u.anomalies.constLast().time;
        return u;
    }

private:
    IncidentGrouper m_grouper;
};

Anomaly stale(TimeUs t, int key, const QString& watcher) {
    return anomaly(t, AnomalyKind::StaleObject, Severity::Error, QStringLiteral("pods"), 100 + key,
                   watcher, QStringLiteral("pod-%1 is gone").arg(key),
                   QStringLiteral("/registry/pods/default/pod-%1").arg(key));
}

Anomaly lag(TimeUs t, const QString& watcher) {
    return anomaly(t, AnomalyKind::WatcherLag, Severity::Warning, QStringLiteral("pods"), 90,
                   watcher, QStringLiteral("lag"));
}

Anomaly retry(TimeUs t, const QString& watcher) {
    return anomaly(t, AnomalyKind::RetryLoop, Severity::Error, QStringLiteral("configmaps"), 0,
                   watcher, QStringLiteral("504 again"));
}

// Many anomalies of one stale-object incident: `n` of them over `keys` keys and 4 watchers.
AnomalyList storm(TimeUs t, int n, int keys) {
    AnomalyList out;
    out.reserve(n);
    for (int i = 0; i < n; ++i)
        out.append(stale(t, i % keys, QStringLiteral("informer-%1").arg(i % 4)));
    return out;
}

void apply(IncidentTreeModel& model, const EngineUpdate& u, qint64 missing = 0) {
    model.applyUpdate(u.incidents, u.anomalies, missing);
}

QString cell(const IncidentTreeModel& model, int row, int column) {
    return model.index(row, column).data().toString();
}

// fetchMore() inserts its page from the event loop.
void fetch(QAbstractItemModel& model, const QModelIndex& parent) {
    model.fetchMore(parent);
    QCoreApplication::processEvents();
}

std::unique_ptr<QAbstractItemModelTester> tester(QAbstractItemModel* m) {
    return std::make_unique<QAbstractItemModelTester>(
        m, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

} // namespace

class TestIncidentTreeModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void incidentsUpsertAndGrow();
    void pagesChildren();
    void expandedIncidentShowsNewAnomalies();
    void largeIncidentExpandsAtOnce();
    void boundKeepsWhatTheListKeeps_data();
    void boundKeepsWhatTheListKeeps();
    void missingAnomaliesCountAsDropped();
    void sortsWorstFirstThenFirstTime();
    void sortsByColumn();
    void anomaliesWithoutIncident();
    void indexOfSerialFetchesItsPage();
    void testersWhileUpdatesArrive();
    void clearForgetsEverything();
};

void TestIncidentTreeModel::incidentsUpsertAndGrow() {
    IncidentTreeModel model;
    auto t = tester(&model);
    Engine engine;
    apply(model, engine.next({stale(seconds(5), 1, QStringLiteral("informer-0")),
                              stale(seconds(5), 2, QStringLiteral("informer-1"))}));
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.incident(0).count, 2);
    QCOMPARE(cell(model, 0, IncidentTreeModel::SeverityColumn), QStringLiteral("error"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::KindColumn), QStringLiteral("stale-object"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::ResourceColumn), QStringLiteral("pods"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::WatchersColumn), QStringLiteral("2 watchers"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::CountColumn), QStringLiteral("2"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::KeysColumn), QStringLiteral("2 keys"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::FirstColumn), QStringLiteral("5.000"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::MessageColumn), QStringLiteral("pod-1 is gone"));
    QVERIFY(model.index(0, 0).data(IncidentTreeModel::IsIncidentRole).toBool());
    QVERIFY(model.index(0, 0).data(Qt::DecorationRole).value<QColor>().isValid());

    // The same incident grows (one row, new counts), a new one opens.
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    apply(model, engine.next({stale(seconds(6), 3, QStringLiteral("informer-2")),
                              stale(seconds(7), 1, QStringLiteral("informer-2")),
                              lag(seconds(7), QStringLiteral("informer-3"))}));
    QCOMPARE(model.rowCount(), 2);
    QVERIFY(changed.count() >= 1);
    QCOMPARE(model.incident(0).count, 4);
    QCOMPARE(cell(model, 0, IncidentTreeModel::CountColumn), QStringLiteral("4"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::WatchersColumn), QStringLiteral("3 watchers"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::KeysColumn), QStringLiteral("3 keys"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::LastColumn), QStringLiteral("7.000"));
    QCOMPARE(model.listedAnomalies(0), 4);
    QCOMPARE(model.incident(1).kind, AnomalyKind::WatcherLag);
    // One watcher, one key or none: named, not counted.
    QCOMPARE(cell(model, 1, IncidentTreeModel::WatchersColumn), QStringLiteral("informer-3"));
    QCOMPARE(cell(model, 1, IncidentTreeModel::KeysColumn), QString());
    QVERIFY(model.index(1, 0).data(Qt::ToolTipRole).isNull());
    QCOMPARE(model.index(0, IncidentTreeModel::WatchersColumn).data(Qt::ToolTipRole).toString(),
             QStringLiteral("informer-0\ninformer-1\ninformer-2"));
    QCOMPARE(model.anomaliesSeen(), 5);
    // A per-watcher kind names its client as the scope.
    apply(model, engine.next({retry(seconds(8), QStringLiteral("agent-7"))}));
    QCOMPARE(cell(model, 2, IncidentTreeModel::WatchersColumn), QStringLiteral("agent-7"));
}

void TestIncidentTreeModel::pagesChildren() {
    IncidentTreeModel model;
    model.setPageSize(1000);
    Engine engine;
    apply(model, engine.next(storm(seconds(10), 2500, 250)));
    const QModelIndex incident = model.index(0, 0);
    QCOMPARE(model.incident(0).count, 2500);
    QCOMPARE(cell(model, 0, IncidentTreeModel::WatchersColumn), QStringLiteral("4 watchers"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::KeysColumn), QStringLiteral("250 keys"));
    QCOMPARE(cell(model, 0, IncidentTreeModel::CountColumn), QStringLiteral("2,500"));
    // Nothing is a row before it is asked for; the tree still shows it can expand.
    QVERIFY(model.hasChildren(incident));
    QCOMPARE(model.rowCount(incident), 0);
    QVERIFY(!model.index(0, 0, incident).isValid());
    QVERIFY(model.canFetchMore(incident));
    QVERIFY(!model.canFetchMore({}));
    QVERIFY(!model.hasChildren(model.index(0, 1))); // only column 0 has children
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.fetchMore(incident);
    // The page comes from the event loop (never nested in the caller's signal handling), and
    // asking again before it came asks for nothing more.
    QCOMPARE(model.rowCount(incident), 0);
    model.fetchMore(incident);
    QCoreApplication::processEvents();
    QCOMPARE(model.rowCount(incident), 1000);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(inserted.at(0).at(1).toInt(), 0);
    QCOMPARE(inserted.at(0).at(2).toInt(), 999);
    fetch(model, incident);
    fetch(model, incident);
    QCOMPARE(model.rowCount(incident), 2500);
    QVERIFY(!model.canFetchMore(incident));
    fetch(model, incident); // nothing left: no signal
    QCOMPARE(inserted.count(), 3);

    // An anomaly row: its own fields, its number in the session, its parent.
    const QModelIndex child = model.index(1234, 0, incident);
    QCOMPARE(child.parent(), incident);
    QCOMPARE(model.rowCount(child), 0);
    QCOMPARE(model.columnCount(child), 0);
    const Anomaly* a = model.anomaly(child);
    QVERIFY(a);
    QCOMPARE(a->key, QStringLiteral("/registry/pods/default/pod-234"));
    QCOMPARE(child.data(IncidentTreeModel::SerialRole).toLongLong(), 1234);
    QCOMPARE(child.siblingAtColumn(IncidentTreeModel::CountColumn).data().toString(),
             QStringLiteral("#1235"));
    QCOMPARE(child.siblingAtColumn(IncidentTreeModel::WatchersColumn).data().toString(),
             QStringLiteral("informer-2"));
    // Its kind and resource are its incident's: said once, on the incident.
    QVERIFY(child.siblingAtColumn(IncidentTreeModel::KindColumn).data().toString().isEmpty());
    QCOMPARE(child.siblingAtColumn(IncidentTreeModel::KindColumn)
                 .data(IncidentTreeModel::SortRole)
                 .toString(),
             QStringLiteral("stale-object"));
    QCOMPARE(child.siblingAtColumn(IncidentTreeModel::LastColumn).data().toString(),
             QStringLiteral("RV 334"));
    QCOMPARE(child.data(IncidentTreeModel::AnomalyRole).value<Anomaly>().message,
             QStringLiteral("pod-234 is gone"));
    QVERIFY(!child.data(IncidentTreeModel::IsIncidentRole).toBool());
    qint64 serial = -1;
    QCOMPARE(model.firstAnomaly(0, &serial)->key, QStringLiteral("/registry/pods/default/pod-0"));
    QCOMPARE(serial, 0);
    QCOMPARE(incident.data(IncidentTreeModel::SerialRole).toLongLong(), 0);
}

void TestIncidentTreeModel::expandedIncidentShowsNewAnomalies() {
    IncidentTreeModel model;
    model.setPageSize(10);
    Engine engine;
    apply(model, engine.next(storm(seconds(1), 5, 5)));
    apply(model, engine.next({lag(seconds(1), QStringLiteral("w"))}));
    const QModelIndex expanded = model.index(0, 0);
    const QModelIndex closed = model.index(1, 0);
    fetch(model, expanded);
    QCOMPARE(model.rowCount(expanded), 5);
    // All shown: what comes is shown, a page per update at most; a closed one stays closed.
    apply(model,
          engine.next(storm(seconds(2), 3, 5) + AnomalyList{lag(seconds(2), QStringLiteral("w"))}));
    QCOMPARE(model.rowCount(expanded), 8);
    QCOMPARE(model.rowCount(closed), 0);
    QCOMPARE(model.listedAnomalies(1), 2);
    apply(model, engine.next(storm(seconds(3), 25, 5)));
    QCOMPARE(model.rowCount(expanded), 18);
    QVERIFY(model.canFetchMore(expanded));
    // Rows not all shown: the reader scrolls (fetchMore) for more; an update adds none.
    apply(model, engine.next(storm(seconds(4), 1, 5)));
    QCOMPARE(model.rowCount(expanded), 18);
    QCOMPARE(model.incident(0).count, 34);
}

void TestIncidentTreeModel::largeIncidentExpandsAtOnce() {
    // 100,000 anomalies in one incident: grouping them and expanding it are both quick, and
    // expanding makes one page of rows, through the sort proxy as a view would.
    IncidentTreeModel model;
    IncidentSortProxy proxy;
    proxy.setSourceModel(&model);
    proxy.sort(IncidentTreeModel::SeverityColumn, Qt::DescendingOrder);
    Engine engine;
    QElapsedTimer timer;
    timer.start();
    for (int u = 0; u < 10; ++u)
        apply(model, engine.next(storm(seconds(10 + u), 10000, 264)));
    const qint64 feedMs = timer.elapsed();
    QCOMPARE(model.incident(0).count, 100000);
    QCOMPARE(model.listedAnomalies(0), 100000);
    timer.restart();
    const QModelIndex incident = proxy.index(0, 0);
    QVERIFY(proxy.hasChildren(incident));
    QVERIFY(proxy.canFetchMore(incident));
    fetch(proxy, incident);
    QCOMPARE(proxy.rowCount(incident), IncidentTreeModel::kDefaultPageSize);
    const qint64 expandMs = timer.elapsed();
    QVERIFY2(expandMs < 500, qPrintable(QString::number(expandMs)));
    QVERIFY2(feedMs < 5000, qPrintable(QString::number(feedMs)));
    // In the order they came (one severity, one time: by arrival).
    QCOMPARE(proxy.index(999, 0, incident).data(IncidentTreeModel::SerialRole).toLongLong(), 999);
    timer.restart();
    for (int page = 1; page < 100; ++page)
        fetch(proxy, incident);
    QCOMPARE(proxy.rowCount(incident), 100000);
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
}

void TestIncidentTreeModel::boundKeepsWhatTheListKeeps_data() {
    QTest::addColumn<int>("maxRows");
    QTest::addColumn<int>("dropBatch");
    QTest::addColumn<int>("perUpdate");
    QTest::addColumn<int>("updates");
    QTest::newRow("small batches") << 10 << 4 << 3 << 12;
    QTest::newRow("batch larger than the bound") << 10 << 4 << 25 << 3;
    QTest::newRow("exactly full") << 12 << 3 << 4 << 3;
}

void TestIncidentTreeModel::boundKeepsWhatTheListKeeps() {
    QFETCH(int, maxRows);
    QFETCH(int, dropBatch);
    QFETCH(int, perUpdate);
    QFETCH(int, updates);
    IncidentTreeModel model;
    model.setMaxAnomalies(maxRows, dropBatch);
    model.setPageSize(4);
    AnomalyListModel list;
    list.setMaxRows(maxRows, dropBatch);
    Engine engine;
    int n = 0;
    for (int u = 0; u < updates; ++u) {
        AnomalyList batch;
        for (int i = 0; i < perUpdate; ++i, ++n) // two incidents, interleaved
            batch.append(n % 3 == 0 ? lag(seconds(u), QStringLiteral("w%1").arg(n))
                                    : stale(seconds(u), n, QStringLiteral("informer-0")));
        // One of them expanded, so kept rows are rows too.
        if (u == 1)
            fetch(model, model.index(0, 0));
        const EngineUpdate e = engine.next(batch);
        apply(model, e);
        list.appendAnomalies(e.anomalies);
        QVERIFY(model.anomaliesKept() <= maxRows);
    }
    QCOMPARE(model.anomaliesSeen(), qint64(n));
    QCOMPARE(model.anomaliesDropped(), list.droppedCount());
    QCOMPARE(model.anomaliesKept(), qint64(list.rowCount()));
    // The same anomalies, by number, under their incidents; the incidents' counts stay exact.
    QSet<qint64> kept;
    qint64 counted = 0;
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex incident = model.index(row, 0);
        while (model.canFetchMore(incident))
            fetch(model, incident);
        QCOMPARE(model.rowCount(incident), model.listedAnomalies(row));
        for (int c = 0; c < model.rowCount(incident); ++c)
            kept.insert(
                model.index(c, 0, incident).data(IncidentTreeModel::SerialRole).toLongLong());
        counted += model.incident(row).count;
        QCOMPARE(model.droppedAnomalies(row),
                 model.incident(row).count - model.listedAnomalies(row));
        if (model.droppedAnomalies(row) > 0)
            QCOMPARE(cell(model, row, IncidentTreeModel::CountColumn),
                     QStringLiteral("%1 (%2 listed)")
                         .arg(model.incident(row).count)
                         .arg(model.listedAnomalies(row)));
    }
    QCOMPARE(counted, qint64(n));
    QSet<qint64> expected;
    for (int r = 0; r < list.rowCount(); ++r)
        expected.insert(list.serialOf(r));
    QCOMPARE(kept, expected);
}

void TestIncidentTreeModel::missingAnomaliesCountAsDropped() {
    // A paused view held only the newest: the ones it dropped come as a count.
    IncidentTreeModel model;
    auto t = tester(&model);
    Engine engine;
    apply(model, engine.next(storm(seconds(1), 6, 6)));
    fetch(model, model.index(0, 0));
    engine.next(storm(seconds(2), 4, 6)); // held, then dropped: never given
    // The held update carries the incident as it is now (all 13 anomalies counted).
    const EngineUpdate held = engine.next(storm(seconds(3), 3, 6));
    QCOMPARE(held.incidents.value(0).count, 13);
    model.applyUpdate(held.incidents, held.anomalies, 4);
    QCOMPARE(model.anomaliesSeen(), 13);
    QCOMPARE(model.anomaliesDropped(), 10);
    QCOMPARE(model.listedAnomalies(0), 3);
    QCOMPARE(model.droppedAnomalies(0), 10);
    QCOMPARE(model.firstAnomaly(0)->time, seconds(3));
    QCOMPARE(model.index(0, IncidentTreeModel::CountColumn).data().toString(),
             QStringLiteral("13 (3 listed)"));
    QVERIFY(model.index(0, IncidentTreeModel::CountColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("newest 3")));
}

void TestIncidentTreeModel::sortsWorstFirstThenFirstTime() {
    IncidentTreeModel model;
    IncidentSortProxy proxy;
    proxy.setSourceModel(&model);
    auto t = tester(&proxy);
    proxy.sort(IncidentTreeModel::SeverityColumn, Qt::DescendingOrder);
    Engine engine;
    apply(model, engine.next({anomaly(seconds(1), AnomalyKind::StuckWatcher, Severity::Info,
                                      QStringLiteral("leases"), 1, QStringLiteral("a"),
                                      QStringLiteral("info"))}));
    apply(model, engine.next({stale(seconds(5), 1, QStringLiteral("informer-0"))}));
    apply(model, engine.next({lag(seconds(2), QStringLiteral("w"))}));
    apply(model, engine.next({retry(seconds(3), QStringLiteral("agent"))}));
    const auto order = [&] {
        QStringList kinds;
        for (int r = 0; r < proxy.rowCount(); ++r)
            kinds << proxy.index(r, IncidentTreeModel::KindColumn).data().toString();
        return kinds.join(QLatin1Char(' '));
    };
    QCOMPARE(order(), QStringLiteral("retry-loop stale-object watcher-lag stuck-watcher"));
    // An incident that gets worse moves up.
    apply(model, engine.next({anomaly(seconds(6), AnomalyKind::StuckWatcher, Severity::Error,
                                      QStringLiteral("leases"), 1, QStringLiteral("a"),
                                      QStringLiteral("now an error"))}));
    QCOMPARE(order(), QStringLiteral("stuck-watcher retry-loop stale-object watcher-lag"));
    // Ascending: least severe first, and still the earliest first among equals.
    proxy.sort(IncidentTreeModel::SeverityColumn, Qt::AscendingOrder);
    QCOMPARE(order(), QStringLiteral("watcher-lag stuck-watcher retry-loop stale-object"));
}

void TestIncidentTreeModel::sortsByColumn() {
    IncidentTreeModel model;
    IncidentSortProxy proxy;
    proxy.setSourceModel(&model);
    auto t = tester(&proxy);
    Engine engine;
    apply(model, engine.next(storm(seconds(1), 30, 10)));
    apply(model, engine.next(
                     {lag(seconds(2), QStringLiteral("w")), lag(seconds(2), QStringLiteral("v"))}));
    apply(model, engine.next({retry(seconds(3), QStringLiteral("agent"))}));
    proxy.sort(IncidentTreeModel::CountColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, IncidentTreeModel::CountColumn).data().toString(),
             QStringLiteral("30"));
    QCOMPARE(proxy.index(2, IncidentTreeModel::CountColumn).data().toString(), QStringLiteral("1"));
    // Counts compare as numbers, not as text ("30" < "4").
    apply(model, engine.next(AnomalyList(3, retry(seconds(4), QStringLiteral("agent")))));
    QCOMPARE(proxy.index(1, IncidentTreeModel::CountColumn).data().toString(), QStringLiteral("4"));
    proxy.sort(IncidentTreeModel::FirstColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, IncidentTreeModel::KindColumn).data().toString(),
             QStringLiteral("stale-object"));
    // Anomalies sort too: by key, within their incident.
    proxy.sort(IncidentTreeModel::KeysColumn, Qt::AscendingOrder);
    const QModelIndex storms = proxy.index(proxy.rowCount() - 1, 0);
    QCOMPARE(storms.siblingAtColumn(IncidentTreeModel::KindColumn).data().toString(),
             QStringLiteral("stale-object")); // "10 keys" sorts as 10, last
    fetch(proxy, storms);
    QCOMPARE(proxy.rowCount(storms), 30);
    QCOMPARE(proxy.index(0, IncidentTreeModel::KeysColumn, storms).data().toString(),
             QStringLiteral("/registry/pods/default/pod-0"));
    QCOMPARE(proxy.index(3, IncidentTreeModel::KeysColumn, storms).data().toString(),
             QStringLiteral("/registry/pods/default/pod-1"));
}

void TestIncidentTreeModel::anomaliesWithoutIncident() {
    // A source that groups nothing (incident 0): grouped here by kind, resource and, for a
    // client's own failures, watcher.
    IncidentTreeModel model;
    auto t = tester(&model);
    model.applyUpdate({}, {stale(seconds(1), 1, QStringLiteral("informer-0")),
                           stale(seconds(2), 2, QStringLiteral("informer-1")),
                           retry(seconds(2), QStringLiteral("a")),
                           retry(seconds(3), QStringLiteral("b"))});
    model.applyUpdate({}, {stale(seconds(4), 1, QStringLiteral("informer-1")),
                           retry(seconds(4), QStringLiteral("a"))});
    QCOMPARE(model.rowCount(), 3);
    const Incident& s = model.incident(0);
    QCOMPARE(s.kind, AnomalyKind::StaleObject);
    QCOMPARE(s.count, 3);
    QCOMPARE(s.keyCount, 2);
    QCOMPARE(s.watcherCount, 2);
    QCOMPARE(s.first, seconds(1));
    QCOMPARE(s.last, seconds(4));
    QVERIFY(s.scope.isEmpty());
    QCOMPARE(model.incident(1).scope, QStringLiteral("a"));
    QCOMPARE(model.incident(1).count, 2);
    QCOMPARE(model.incident(2).scope, QStringLiteral("b"));
    QCOMPARE(model.listedAnomalies(0), 3);

    // An anomaly naming an incident that has not come is counted under that id until it comes.
    Anomaly early = lag(seconds(5), QStringLiteral("w"));
    early.incident = 42;
    model.applyUpdate({}, {early});
    QCOMPARE(model.rowOfIncident(42), 3);
    QCOMPARE(model.incident(3).count, 1);
    Incident real;
    real.id = 42;
    real.kind = AnomalyKind::WatcherLag;
    real.resource = QStringLiteral("pods");
    real.severity = Severity::Error;
    real.count = 7;
    model.applyUpdate({real}, {});
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.incident(3).count, 7);
    QCOMPARE(model.incident(3).severity, Severity::Error);
}

void TestIncidentTreeModel::indexOfSerialFetchesItsPage() {
    IncidentTreeModel model;
    model.setPageSize(100);
    model.setMaxAnomalies(1000, 100);
    Engine engine;
    AnomalyList mixed;
    for (int i = 0; i < 900; ++i)
        mixed.append(i % 2 ? stale(seconds(1), i, QStringLiteral("informer-0"))
                           : lag(seconds(1), QStringLiteral("w")));
    apply(model, engine.next(mixed));
    const QModelIndex found = model.indexOfSerial(501); // the 251st stale-object
    QVERIFY(found.isValid());
    QCOMPARE(found.row(), 250);
    QCOMPARE(found.parent().row(), model.rowOfIncident(model.incident(1).id));
    QCOMPARE(found.data(IncidentTreeModel::SerialRole).toLongLong(), 501);
    QCOMPARE(model.rowCount(found.parent()), 300); // whole pages up to it
    QCOMPARE(model.rowCount(model.index(0, 0)), 0);
    QVERIFY(!model.indexOfSerial(900).isValid()); // not there yet
    apply(model, engine.next(storm(seconds(2), 300, 10)));
    QVERIFY(!model.indexOfSerial(5).isValid()); // dropped
    QVERIFY(model.indexOfSerial(1199).isValid());
}

void TestIncidentTreeModel::testersWhileUpdatesArrive() {
    // Both the model and the proxy under the tester (which fetches every page it can) while
    // updates grow incidents, open new ones and drop the oldest anomalies.
    IncidentTreeModel model;
    model.setPageSize(7);
    model.setMaxAnomalies(60, 9);
    IncidentSortProxy proxy;
    proxy.setSourceModel(&model);
    proxy.sort(IncidentTreeModel::SeverityColumn, Qt::DescendingOrder);
    auto modelTester = tester(&model);
    auto proxyTester = tester(&proxy);
    Engine engine;
    qint64 total = 0;
    for (int u = 0; u < 40; ++u) {
        AnomalyList batch;
        for (int i = 0; i < (u % 5) * 4 + 1; ++i) {
            const TimeUs t = seconds(u) + i;
            switch ((u + i) % 4) {
            case 0:
                batch.append(stale(t, i, QStringLiteral("informer-%1").arg(i % 3)));
                break;
            case 1:
                batch.append(lag(t, QStringLiteral("w%1").arg(i)));
                break;
            case 2:
                batch.append(retry(t, QStringLiteral("agent-%1").arg(u % 3)));
                break;
            default:
                batch.append(anomaly(t, AnomalyKind::TooOldRv, Severity::Warning,
                                     QStringLiteral("leases"), 5, QStringLiteral("kubelet"),
                                     QStringLiteral("410")));
            }
        }
        total += batch.size();
        apply(model, engine.next(batch));
        if (u == 20) // a pause dropped some
            model.applyUpdate({}, {}, 5);
    }
    QCOMPARE(model.anomaliesSeen(), total + 5);
    QVERIFY(model.anomaliesKept() <= 60);
    qint64 counted = 0;
    for (int r = 0; r < model.rowCount(); ++r)
        counted += model.incident(r).count;
    QCOMPARE(counted, total);
}

void TestIncidentTreeModel::clearForgetsEverything() {
    IncidentTreeModel model;
    auto t = tester(&model);
    Engine engine;
    apply(model, engine.next(storm(seconds(1), 20, 5)));
    fetch(model, model.index(0, 0));
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.clear();
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.anomaliesSeen(), 0);
    QCOMPARE(model.anomaliesDropped(), 0);
    QVERIFY(!model.indexOfSerial(0).isValid());
    model.applyUpdate({}, {lag(seconds(1), QStringLiteral("w"))});
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, 0).data(IncidentTreeModel::SerialRole).toLongLong(), 0);
}

QTEST_GUILESS_MAIN(TestIncidentTreeModel)
#include "tst_incidenttreemodel.moc"

// ResourceTreeModel (the resource tree by API group: objects, events/s, health badge, groups
// aggregating their resources) and RingBufferModel (every apiserver's ring buffer of a resource,
// with evictions and resizes), fed a synthetic EngineUpdate sequence, with
// QAbstractItemModelTester watching throughout; and the tree written as CSV.
#include "SyntheticCluster.h"
#include "models/AnomalyListModel.h"
#include "models/CacheTableModel.h"
#include "models/ResourceTreeModel.h"
#include "models/RingBufferModel.h"
#include "viewexport/ViewExport.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>
#include <algorithm>

using namespace ws;
using namespace ws::test;

namespace {

const QString kPods = QStringLiteral("pods");
const QString kConfigMaps = QStringLiteral("configmaps");
const QString kDeployments = QStringLiteral("deployments.apps");
const QString kJobs = QStringLiteral("jobs.batch");

Incident incident(std::int64_t id, AnomalyKind kind, Severity severity, const QString& resource,
                  TimeUs first, TimeUs last) {
    Incident i;
    i.id = id;
    i.kind = kind;
    i.severity = severity;
    i.resource = resource;
    i.first = first;
    i.last = last;
    i.count = 1;
    return i;
}

// One update at `now` (seconds) with these event counters and object counts per resource.
EngineUpdate at(double seconds, const QHash<QString, qint64>& events,
                const QHash<QString, qint64>& objects = {}) {
    EngineUpdate u;
    u.now = TimeUs(seconds * double(kUsPerSecond));
    for (auto it = events.cbegin(); it != events.cend(); ++it)
        u.resources.append(ResourceSnapshot{it.key(), it.value()});
    for (auto it = objects.cbegin(); it != objects.cend(); ++it) {
        CacheSnapshot c = cache(it.key(), QStringLiteral("apiserver-0"), 100, 100, 10, 100);
        c.objects = it.value();
        u.caches.append(c);
    }
    return u;
}

QString text(const QModelIndex& i, int column) {
    return i.siblingAtColumn(column).data().toString();
}

CacheSnapshot ring(const QString& apiserver, qint64 used, qint64 capacity, ResourceVersion oldest) {
    CacheSnapshot c = cache(kPods, apiserver, 1000, 1000, used, capacity);
    c.bufferOldestRv = oldest;
    return c;
}

} // namespace

class TestResourceTreeModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void groupsByApiGroup();
    void countsAndRates();
    void counterStartingAgainGivesNoRate();
    void healthBadgeFromOpenIncidents();
    void quietUpdateChangesNothing();
    void testerThroughUpdatesAndClear();
    void treeExportsAsCsv();
    void ringsOfEveryApiserver();
    void evictionsAndResizes();
    void unknownUsedIsNotZero();
    void clusterObjectsAreTheInformersUntilCounted();
};

void TestResourceTreeModel::groupsByApiGroup() {
    QCOMPARE(ResourceTreeModel::groupOf(kPods), QString());
    QCOMPARE(ResourceTreeModel::groupOf(kDeployments), QStringLiteral("apps"));
    QCOMPARE(ResourceTreeModel::groupOf(kJobs), QStringLiteral("batch"));
    QCOMPARE(ResourceTreeModel::groupOf(QStringLiteral("leases.coordination.k8s.io")),
             QStringLiteral("coordination.k8s.io"));
    QCOMPARE(ResourceTreeModel::groupLabel(QString()), QStringLiteral("core"));

    ResourceTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.addResources({kPods, kDeployments});
    model.applyUpdate(at(1, {{kConfigMaps, 5}, {kJobs, 1}, {kPods, 3}}));
    QCOMPARE(model.rowCount(), 3); // core, apps, batch
    QCOMPARE(model.resourceCount(), 4);
    const QModelIndex core = model.indexOfGroup(QString());
    QCOMPARE(core.data().toString(), QStringLiteral("core"));
    QCOMPARE(model.rowCount(core), 2);
    QCOMPARE(model.resourcesOf(core), QStringList({kPods, kConfigMaps}));
    const QModelIndex apps = model.indexOfGroup(QStringLiteral("apps"));
    QCOMPARE(apps.data().toString(), QStringLiteral("apps"));
    QCOMPARE(model.resourcesOf(apps), QStringList({kDeployments}));
    const QModelIndex deployments = model.indexOfResource(kDeployments);
    QCOMPARE(deployments.parent(), apps);
    QCOMPARE(deployments.data(ResourceTreeModel::ResourceRole).toString(), kDeployments);
    QCOMPARE(apps.data(ResourceTreeModel::ResourceRole).toString(), QString());
    QCOMPARE(model.resourcesOf(deployments), QStringList({kDeployments}));

    // Sorted by name, core comes first, then the groups by name.
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ResourceTreeModel::SortRole);
    proxy.sort(ResourceTreeModel::NameColumn);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("core"));
    QCOMPARE(proxy.index(1, 0).data().toString(), QStringLiteral("apps"));
    QCOMPARE(proxy.index(2, 0).data().toString(), QStringLiteral("batch"));
    QCOMPARE(proxy.index(0, 0, proxy.index(0, 0)).data().toString(), kConfigMaps);
}

void TestResourceTreeModel::countsAndRates() {
    ResourceTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.applyUpdate(at(1.0, {{kPods, 100}, {kConfigMaps, 10}}, {{kPods, 400}, {kConfigMaps, 7}}));
    const QModelIndex pods = model.indexOfResource(kPods);
    QCOMPARE(text(pods, ResourceTreeModel::ObjectsColumn), QStringLiteral("400"));
    // One sample is no rate yet.
    QCOMPARE(model.eventRate(kPods), -1.0);
    QCOMPARE(text(pods, ResourceTreeModel::EventRateColumn), QStringLiteral("—"));
    // Half a second later: still within the rate window.
    model.applyUpdate(at(1.5, {{kPods, 130}, {kConfigMaps, 12}}));
    QCOMPARE(model.eventRate(kPods), -1.0);
    // Objects stay what the caches said last when an update carries no cache.
    QCOMPARE(model.objects(kPods), qint64(400));
    model.applyUpdate(at(2.0, {{kPods, 160}, {kConfigMaps, 15}}, {{kPods, 410}, {kConfigMaps, 9}}));
    QCOMPARE(model.eventRate(kPods), 60.0);
    QCOMPARE(model.eventRate(kConfigMaps), 5.0);
    QCOMPARE(text(pods, ResourceTreeModel::EventRateColumn), QStringLiteral("60"));
    QCOMPARE(text(model.indexOfResource(kConfigMaps), ResourceTreeModel::EventRateColumn),
             QStringLiteral("5.0"));
    // The group sums its resources.
    const QModelIndex core = model.indexOfGroup(QString());
    QCOMPARE(text(core, ResourceTreeModel::ObjectsColumn), QStringLiteral("419"));
    QCOMPARE(text(core, ResourceTreeModel::EventRateColumn), QStringLiteral("65"));
    QCOMPARE(core.siblingAtColumn(ResourceTreeModel::EventRateColumn)
                 .data(ResourceTreeModel::SortRole)
                 .toDouble(),
             65.0);

    // Two apiservers that disagree: the larger count.
    EngineUpdate two = at(3.0, {{kPods, 220}});
    CacheSnapshot a = cache(kPods, QStringLiteral("apiserver-0"), 1, 1, 1, 10);
    a.objects = 380;
    CacheSnapshot b = cache(kPods, QStringLiteral("apiserver-1"), 1, 1, 1, 10);
    b.objects = 420;
    two.caches = {a, b};
    model.applyUpdate(two);
    QCOMPARE(model.objects(kPods), qint64(420));
    QCOMPARE(model.eventRate(kPods), 60.0);
}

void TestResourceTreeModel::counterStartingAgainGivesNoRate() {
    ResourceTreeModel model;
    model.applyUpdate(at(1.0, {{kPods, 1000}}));
    model.applyUpdate(at(2.0, {{kPods, 1100}}));
    QCOMPARE(model.eventRate(kPods), 100.0);
    // A counter that went down (a source started again) must not give a negative rate.
    model.applyUpdate(at(3.0, {{kPods, 5}}));
    QCOMPARE(model.eventRate(kPods), 100.0);
    model.applyUpdate(at(4.0, {{kPods, 25}}));
    QCOMPARE(model.eventRate(kPods), 20.0);
}

void TestResourceTreeModel::healthBadgeFromOpenIncidents() {
    ResourceTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.applyUpdate(at(1, {{kPods, 1}, {kConfigMaps, 1}, {kDeployments, 1}}));
    const QModelIndex pods = model.indexOfResource(kPods);
    QCOMPARE(text(pods, ResourceTreeModel::HealthColumn), QStringLiteral("OK"));
    QCOMPARE(pods.siblingAtColumn(ResourceTreeModel::HealthColumn)
                 .data(ResourceTreeModel::SeverityRole)
                 .toInt(),
             -1);

    EngineUpdate u = at(10, {{kPods, 2}});
    u.incidents = {
        incident(1, AnomalyKind::WatcherLag, Severity::Warning, kPods, seconds(8), seconds(9)),
        incident(2, AnomalyKind::StaleObject, Severity::Error, kPods, seconds(9), seconds(10)),
        incident(3, AnomalyKind::WatcherLag, Severity::Warning, kDeployments, seconds(9),
                 seconds(9))};
    model.applyUpdate(u);
    // Worst first: the error's kind leads.
    QCOMPARE(text(pods, ResourceTreeModel::HealthColumn), QStringLiteral("stale-object +1"));
    QCOMPARE(model.health(kPods).worst, std::optional<Severity>(Severity::Error));
    const QModelIndex podsHealth = pods.siblingAtColumn(ResourceTreeModel::HealthColumn);
    // The tooltip names them all, worst first.
    QVERIFY2(
        podsHealth.data(Qt::ToolTipRole)
            .toString()
            .startsWith(QStringLiteral("2 incidents: stale-object, watcher-lag; worst: error")),
        qPrintable(podsHealth.data(Qt::ToolTipRole).toString()));
    QCOMPARE(podsHealth.data(ResourceTreeModel::SeverityRole).toInt(), int(Severity::Error));
    QCOMPARE(podsHealth.data(Qt::DecorationRole).value<QColor>(),
             AnomalyListModel::severityColor(Severity::Error));
    QCOMPARE(text(model.indexOfResource(kDeployments), ResourceTreeModel::HealthColumn),
             QStringLiteral("watcher-lag"));
    QCOMPARE(text(model.indexOfResource(kConfigMaps), ResourceTreeModel::HealthColumn),
             QStringLiteral("OK"));
    // The core group shows its worst resource's badge; apps its own.
    QCOMPARE(text(model.indexOfGroup(QString()), ResourceTreeModel::HealthColumn),
             QStringLiteral("stale-object +1"));
    QCOMPARE(model.indexOfGroup(QString(), ResourceTreeModel::HealthColumn)
                 .data(ResourceTreeModel::SeverityRole)
                 .toInt(),
             int(Severity::Error));
    QCOMPARE(text(model.indexOfGroup(QStringLiteral("apps")), ResourceTreeModel::HealthColumn),
             QStringLiteral("watcher-lag"));

    // A grown incident replaces itself (by id), it is not counted twice.
    EngineUpdate grown = at(20, {{kPods, 3}});
    grown.incidents = {
        incident(2, AnomalyKind::StaleObject, Severity::Error, kPods, seconds(9), seconds(20))};
    model.applyUpdate(grown);
    QCOMPARE(model.health(kPods).open, 2);

    // A minute without an anomaly closes an incident: the watcher-lag ones (last at 9 s) are
    // closed at 69 s, the stale-object one (last at 20 s) at 80 s.
    model.applyUpdate(at(69.5, {{kPods, 4}}));
    QCOMPARE(text(pods, ResourceTreeModel::HealthColumn), QStringLiteral("stale-object"));
    QCOMPARE(text(model.indexOfResource(kDeployments), ResourceTreeModel::HealthColumn),
             QStringLiteral("OK"));
    model.applyUpdate(at(80.0, {{kPods, 5}}));
    QCOMPARE(text(pods, ResourceTreeModel::HealthColumn), QStringLiteral("OK"));
    QCOMPARE(text(model.indexOfGroup(QString()), ResourceTreeModel::HealthColumn),
             QStringLiteral("OK"));
}

void TestResourceTreeModel::quietUpdateChangesNothing() {
    // An update that changes no cell emits no dataChanged: views repaint only for changes.
    ResourceTreeModel model;
    model.applyUpdate(at(1.0, {{kPods, 10}}, {{kPods, 4}}));
    model.applyUpdate(at(2.0, {{kPods, 20}}, {{kPods, 4}}));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.applyUpdate(at(2.2, {{kPods, 22}}, {{kPods, 4}})); // inside the rate window
    QCOMPARE(changed.count(), 0);
    model.applyUpdate(at(3.0, {{kPods, 30}}, {{kPods, 5}})); // the same rate, one more object
    QCOMPARE(changed.count(), 2);                            // the row and its group
    const auto first = changed.at(0).at(0).value<QModelIndex>();
    const auto last = changed.at(0).at(1).value<QModelIndex>();
    QCOMPARE(first.column(), int(ResourceTreeModel::ObjectsColumn));
    QCOMPARE(last.column(), int(ResourceTreeModel::ObjectsColumn));
}

void TestResourceTreeModel::testerThroughUpdatesAndClear() {
    ResourceTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ResourceTreeModel::SortRole);
    proxy.setDynamicSortFilter(true);
    proxy.sort(ResourceTreeModel::EventRateColumn, Qt::DescendingOrder);
    QAbstractItemModelTester proxyTester(&proxy,
                                         QAbstractItemModelTester::FailureReportingMode::Fatal);
    SyntheticCluster cluster;
    const QStringList more = {kDeployments, kJobs, QStringLiteral("leases.coordination.k8s.io")};
    qint64 events = 0;
    for (int i = 0; i < 60; ++i) {
        EngineUpdate u = cluster.next();
        events += 7 * i;
        for (int r = 0; r < std::min<int>(int(more.size()), i / 10); ++r)
            u.resources.append(ResourceSnapshot{more[r], events * (r + 1)});
        u.resources.append(ResourceSnapshot{kPods, events});
        if (i == 30)
            u.incidents = {
                incident(1, AnomalyKind::TooOldRv, Severity::Warning, kJobs, u.now, u.now)};
        model.applyUpdate(u);
    }
    QCOMPARE(model.resourceCount(), 5);
    QVERIFY(model.eventRate(kPods) > 0);
    QCOMPARE(model.health(kJobs).open, 1);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    model.applyUpdate(cluster.next());
    QVERIFY(model.rowCount() > 0);
}

void TestResourceTreeModel::treeExportsAsCsv() {
    ResourceTreeModel model;
    model.applyUpdate(at(1.0, {{kPods, 10}, {kDeployments, 1}}, {{kPods, 4}, {kDeployments, 2}}));
    EngineUpdate u = at(2.0, {{kPods, 20}, {kDeployments, 3}}, {{kPods, 4}, {kDeployments, 2}});
    u.incidents = {
        incident(1, AnomalyKind::StaleObject, Severity::Error, kPods, seconds(2), seconds(2)),
        incident(2, AnomalyKind::WatcherLag, Severity::Warning, kPods, seconds(2), seconds(2))};
    model.applyUpdate(u);
    // As the window exports it: through the view's sorting proxy (core first).
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ResourceTreeModel::SortRole);
    proxy.sort(ResourceTreeModel::NameColumn);
    const QString csv = ViewExport::tableCsv(&proxy);
    const QStringList lines = csv.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
    QCOMPARE(lines.value(0), QStringLiteral("Parent,Resource,Objects,Events/s,Health"));
    QCOMPARE(lines.value(1),
             QStringLiteral(",core,4,10,\"2 incidents: stale-object, watcher-lag\""));
    QCOMPARE(lines.value(2),
             QStringLiteral("core,pods,4,10,\"2 incidents: stale-object, watcher-lag\""));
    QCOMPARE(lines.value(3), QStringLiteral(",apps,2,2.0,OK"));
    QCOMPARE(lines.value(4), QStringLiteral("apps,deployments.apps,2,2.0,OK"));
    QCOMPARE(lines.size(), 5);
}

void TestResourceTreeModel::ringsOfEveryApiserver() {
    RingBufferModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QCOMPARE(model.fullestText(), QStringLiteral("no data"));
    model.setResource(kPods);
    model.applySnapshots({ring(QStringLiteral("apiserver-0"), 50, 100, 900),
                          ring(QStringLiteral("apiserver-1"), 80, 100, 920),
                          cache(kConfigMaps, QStringLiteral("apiserver-0"), 1, 1, 5, 100)},
                         seconds(1));
    QCOMPARE(model.rowCount(), 2); // the shown resource's apiservers only
    QCOMPARE(model.apiservers(),
             QStringList({QStringLiteral("apiserver-0"), QStringLiteral("apiserver-1")}));
    QCOMPARE(model.index(1, RingBufferModel::UsedColumn).data().toString(),
             QStringLiteral("80 / 100 (80%)"));
    QCOMPARE(model.index(0, RingBufferModel::OldestRvColumn).data().toString(),
             QStringLiteral("900"));
    QCOMPARE(model.fullestText(), QStringLiteral("80 / 100 (80%)"));
    model.setResource(kConfigMaps);
    QCOMPARE(model.rowCount(), 1);
    model.setResource(kPods);
    QCOMPARE(model.rowCount(), 2);
}

void TestResourceTreeModel::evictionsAndResizes() {
    RingBufferModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setResource(kPods);
    QSignalSpy marks(&model, &RingBufferModel::marksChanged);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    const QString a0 = QStringLiteral("apiserver-0");
    const QString a1 = QStringLiteral("apiserver-1");
    model.applySnapshots({ring(a0, 90, 100, 900), ring(a1, 100, 100, 900)}, seconds(1));
    // apiserver-1 full and its oldest RV advancing: an eviction episode begins.
    model.applySnapshots({ring(a0, 100, 100, 900), ring(a1, 100, 100, 905)}, seconds(2));
    model.applySnapshots({ring(a0, 100, 100, 900), ring(a1, 100, 100, 911)}, seconds(3));
    const RingBufferModel::Ring* r1 = model.ring(kPods, a1);
    QCOMPARE(r1->evictionEpisodes, qint64(1)); // one episode, however many updates it lasts
    QVERIFY(r1->evicting);
    QCOMPARE(model.index(1, RingBufferModel::EvictionsColumn).data().toString(),
             QStringLiteral("1 (evicting)"));
    // The views heard of it: the row's change spans the evictions cell.
    QVERIFY(std::any_of(changed.cbegin(), changed.cend(), [](const QList<QVariant>& args) {
        const auto first = args.at(0).value<QModelIndex>();
        const auto last = args.at(1).value<QModelIndex>();
        return first.row() == 1 && first.column() <= RingBufferModel::EvictionsColumn &&
               last.column() >= RingBufferModel::EvictionsColumn;
    }));
    QCOMPARE(r1->marks.size(), 1);
    QCOMPARE(r1->marks[0].kind, RingBufferModel::Mark::Eviction);
    QCOMPARE(r1->marks[0].time, seconds(2));
    // apiserver-0 filled up but dropped nothing: no eviction.
    QCOMPARE(model.ring(kPods, a0)->evictionEpisodes, qint64(0));
    QCOMPARE(marks.count(), 1);

    // The ring grows (1.19+'s resize): a resize, marked at the new capacity; the episode ends.
    model.applySnapshots({ring(a0, 100, 100, 900), ring(a1, 100, 200, 911)}, seconds(4));
    QCOMPARE(r1->resizes, qint64(1));
    QVERIFY(!r1->evicting);
    QCOMPARE(model.index(1, RingBufferModel::ResizesColumn).data().toString(),
             QStringLiteral("1 (last 100 → 200)"));
    QCOMPARE(model.index(1, RingBufferModel::EvictionsColumn).data().toString(),
             QStringLiteral("1"));
    QCOMPARE(r1->marks.size(), 2);
    QCOMPARE(r1->marks[1].kind, RingBufferModel::Mark::Resize);
    QCOMPARE(r1->marks[1].value, qint64(200));
    QCOMPARE(marks.count(), 2);
    // The resized ring fills and evicts again: a second episode.
    model.applySnapshots({ring(a0, 100, 100, 900), ring(a1, 200, 200, 911)}, seconds(5));
    model.applySnapshots({ring(a0, 100, 100, 900), ring(a1, 200, 200, 950)}, seconds(6));
    QCOMPARE(r1->evictionEpisodes, qint64(2));
    // A snapshot that repeats the previous one (nothing written) does not end the episode.
    model.applySnapshots({ring(a0, 100, 100, 900), ring(a1, 200, 200, 950)}, seconds(7));
    QVERIFY(r1->evicting);
    model.applySnapshots({ring(a0, 100, 100, 900), ring(a1, 200, 200, 960)}, seconds(8));
    QCOMPARE(r1->evictionEpisodes, qint64(2));
    // The first capacity seen is no resize.
    QCOMPARE(model.ring(kPods, a0)->resizes, qint64(0));
}

void TestResourceTreeModel::unknownUsedIsNotZero() {
    // A cluster source: the capacity from /metrics, how full it is unknown.
    RingBufferModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setResource(kConfigMaps);
    CacheSnapshot c = cache(kConfigMaps, QStringLiteral("apiserver-0"), 500, 500, 0, 1024);
    c.bufferUsed = CacheSnapshot::kUnknown;
    c.bufferOldestRv = 0;
    model.applySnapshots({c}, seconds(1));
    model.applySnapshots({c}, seconds(2));
    QCOMPARE(model.index(0, RingBufferModel::UsedColumn).data().toString(),
             QStringLiteral("unknown / 1,024"));
    QCOMPARE(model.index(0, RingBufferModel::OldestRvColumn).data().toString(),
             QStringLiteral("unknown"));
    QCOMPARE(model.index(0, RingBufferModel::EvictionsColumn).data().toString(),
             QStringLiteral("unknown"));
    QCOMPARE(model.fullestText(), QStringLiteral("unknown / 1,024"));
    // The cache table says the same.
    CacheTableModel table;
    table.applySnapshots({c});
    QCOMPARE(table.index(0, CacheTableModel::BufferColumn).data().toString(),
             QStringLiteral("unknown / 1,024"));
}

void TestResourceTreeModel::clusterObjectsAreTheInformersUntilCounted() {
    // A cluster source: its informer holds 12 configmaps; the apiserver's /metrics were read (the
    // cache's capacity) but have no object count yet.
    ResourceTreeModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    EngineUpdate u = at(1.0, {{kConfigMaps, 5}});
    WatcherSnapshot informer;
    informer.id = QStringLiteral("informer/configmaps");
    informer.resource = kConfigMaps;
    informer.objects = 12;
    u.watchers = {informer};
    CacheSnapshot scraped =
        cache(kConfigMaps, QStringLiteral("apiserver-0"), 500, 500, CacheSnapshot::kUnknown, 1024);
    scraped.objects = CacheSnapshot::kUnknown;
    u.caches = {scraped};
    model.applyUpdate(u);
    const QModelIndex row = model.indexOfResource(kConfigMaps);
    QCOMPARE(model.objects(kConfigMaps), qint64(12));
    QCOMPARE(text(row, ResourceTreeModel::ObjectsColumn), QStringLiteral("12"));
    QCOMPARE(text(model.indexOfGroup(QString()), ResourceTreeModel::ObjectsColumn),
             QStringLiteral("12"));
    // Once the apiserver counts them, its count.
    scraped.objects = 14;
    u = at(2.0, {{kConfigMaps, 6}});
    u.watchers = {informer};
    u.caches = {scraped};
    model.applyUpdate(u);
    QCOMPARE(text(row, ResourceTreeModel::ObjectsColumn), QStringLiteral("14"));

    // Nothing counts them (an informer that keeps no store, a cache without a count): unknown.
    ResourceTreeModel none;
    EngineUpdate nothing = at(1.0, {{kPods, 1}});
    scraped.resource = kPods;
    scraped.objects = CacheSnapshot::kUnknown;
    informer.resource = kPods;
    informer.objects = WatcherSnapshot::kUnknown;
    nothing.caches = {scraped};
    nothing.watchers = {informer};
    none.applyUpdate(nothing);
    QCOMPARE(none.objects(kPods), qint64(-1));
    QCOMPARE(text(none.indexOfResource(kPods), ResourceTreeModel::ObjectsColumn),
             QStringLiteral("—"));
    // The cache table says unknown too, not 0.
    CacheTableModel table;
    table.applySnapshots({scraped});
    QCOMPARE(table.index(0, CacheTableModel::ObjectsColumn).data().toString(),
             QStringLiteral("unknown"));
}

QTEST_MAIN(TestResourceTreeModel)
#include "tst_resourcetreemodel.moc"

// The cacher's dispatch and bookmark rules in kube/CacherRules.h, the ones the simulator plays.
#include "kube/CacherRules.h"
#include "kube/ServerProfile.h"

#include <QTest>

using namespace ws;

class TestCacherRules : public QObject {
    Q_OBJECT
private slots:
    // cacher.go at v1.24.0: 10, or 1000 for an indexed resource's watcher without the trigger.
    // watch_cache.go suggestedWatchChannelSize at v1.25.0 / v1.30.0: ceil(capacity / 75 s)
    // clamped to [10, 10 | 1000 | 100] by index use.
    void watcherChannelSize_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<int>("index");
        QTest::addColumn<qulonglong>("ring");
        QTest::addColumn<qulonglong>("channel");
        const int none = int(cacher::WatcherIndex::None);
        const int noTrigger = int(cacher::WatcherIndex::IndexWithoutTrigger);
        const int trigger = int(cacher::WatcherIndex::IndexAndTrigger);
        // Before 1.25 the ring's size does not matter.
        QTest::newRow("1.24 no index, small ring") << "1.24" << none << 100ull << 10ull;
        QTest::newRow("1.24 no index, big ring") << "1.24" << none << 102400ull << 10ull;
        QTest::newRow("1.24 index, no trigger") << "1.24" << noTrigger << 100ull << 1000ull;
        QTest::newRow("1.24 index and trigger") << "1.24" << trigger << 102400ull << 10ull;
        QTest::newRow("1.25 no index, floor") << "1.25" << none << 750ull << 10ull;
        QTest::newRow("1.25 no index, rounds up") << "1.25" << none << 751ull << 11ull;
        QTest::newRow("1.25 no index, capped at 100") << "1.25" << none << 102400ull << 100ull;
        QTest::newRow("1.25 index, no trigger, small ring")
            << "1.25" << noTrigger << 100ull << 10ull;
        QTest::newRow("1.25 index, no trigger, middle") << "1.25" << noTrigger << 7500ull << 100ull;
        QTest::newRow("1.25 index, no trigger, capped at 1000")
            << "1.25" << noTrigger << 102400ull << 1000ull;
        QTest::newRow("1.25 index and trigger, capped at 10")
            << "1.25" << trigger << 102400ull << 10ull;
        QTest::newRow("1.30 no index, middle") << "1.30" << none << 3000ull << 40ull;
        QTest::newRow("1.30 index and trigger") << "1.30" << trigger << 3000ull << 10ull;
    }
    void watcherChannelSize() {
        QFETCH(QString, version);
        QFETCH(int, index);
        QFETCH(qulonglong, ring);
        QFETCH(qulonglong, channel);
        const ServerProfile p = *ServerProfile::fromVersion(version, nullptr);
        QCOMPARE(qulonglong(cacher::watcherChannelSize(p.adjustableWatchChannelSize(),
                                                       cacher::WatcherIndex(index), ring,
                                                       p.eventFreshDuration)),
                 channel);
    }

    // The registries' TriggerFunc: pods by spec.nodeName, nodes/secrets/configmaps by name.
    void watcherIndexByResourceAndSelector_data() {
        QTest::addColumn<QString>("resource");
        QTest::addColumn<QStringList>("pinned");
        QTest::addColumn<int>("index");
        const int none = int(cacher::WatcherIndex::None);
        const int noTrigger = int(cacher::WatcherIndex::IndexWithoutTrigger);
        const int trigger = int(cacher::WatcherIndex::IndexAndTrigger);
        const QStringList nodeName{"spec.nodeName"}, name{"metadata.name"};
        QTest::newRow("kubelet pods") << "pods" << nodeName << trigger;
        QTest::newRow("informer pods") << "pods" << QStringList() << noTrigger;
        QTest::newRow("pods by name") << "pods" << name << noTrigger;
        QTest::newRow("kubelet configmap") << "configmaps" << name << trigger;
        QTest::newRow("configmaps by node") << "configmaps" << nodeName << noTrigger;
        QTest::newRow("secret by name") << "secrets" << name << trigger;
        QTest::newRow("node by name") << "nodes" << name << trigger;
        QTest::newRow("leases") << "leases" << name << none;
        QTest::newRow("deployments.apps") << "deployments.apps" << QStringList() << none;
        QTest::newRow("endpointslices") << "endpointslices" << nodeName << none;
    }
    void watcherIndexByResourceAndSelector() {
        QFETCH(QString, resource);
        QFETCH(QStringList, pinned);
        QFETCH(int, index);
        QCOMPARE(int(cacher::watcherIndex(resource, pinned)), index);
    }

    // A bookmark goes out only above the RV the watcher started from (cache_watcher.go
    // process); the equal RV is dropped.
    void bookmarkReachesOnlyAboveTheStart() {
        QVERIFY(!cacher::bookmarkReaches(100, 100));
        QVERIFY(!cacher::bookmarkReaches(99, 100));
        QVERIFY(cacher::bookmarkReaches(101, 100));
    }

    // cachesize.go NewHeuristicWatchCacheSizes (1.16-1.18), dynamic from 1.19; events never.
    void watchCacheSizes_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("resource");
        QTest::addColumn<qulonglong>("size");
        QTest::newRow("1.18 pods") << "1.18"
                                   << "pods" << 1000ull;
        QTest::newRow("1.18 nodes") << "1.18"
                                    << "nodes" << 1000ull;
        QTest::newRow("1.18 endpoints") << "1.18"
                                        << "endpoints" << 1000ull;
        QTest::newRow("1.18 services") << "1.18"
                                       << "services" << 1000ull;
        QTest::newRow("1.18 configmaps") << "1.18"
                                         << "configmaps" << 100ull;
        QTest::newRow("1.18 events") << "1.18"
                                     << "events" << 0ull;
        QTest::newRow("1.16 leases") << "1.16"
                                     << "leases" << 100ull;
        QTest::newRow("1.17 leases") << "1.17"
                                     << "leases" << 1000ull;
        QTest::newRow("1.16 endpointslices") << "1.16"
                                             << "endpointslices" << 100ull;
        QTest::newRow("1.17 endpointslices") << "1.17"
                                             << "endpointslices.discovery.k8s.io" << 1000ull;
        // From 1.19 every cached resource has the dynamic ring (non-zero: cached).
        QTest::newRow("1.19 pods") << "1.19"
                                   << "pods" << 100ull;
        QTest::newRow("1.19 configmaps") << "1.19"
                                         << "configmaps" << 100ull;
        QTest::newRow("1.19 events") << "1.19"
                                     << "events" << 0ull;
        QTest::newRow("1.30 events") << "1.30"
                                     << "events" << 0ull;
    }
    void watchCacheSizes() {
        QFETCH(QString, version);
        QFETCH(QString, resource);
        QFETCH(qulonglong, size);
        const ServerProfile p = *ServerProfile::fromVersion(version, nullptr);
        QCOMPARE(qulonglong(p.watchCacheSize(resource)), size);
    }

    void budgetRunsOutAfterAboutATenthOfASecondBlocked() {
        cacher::DispatchBudget budget;
        int ticks = 0;
        while (!budget.tick(0.01, true))
            ++ticks;
        QCOMPARE(ticks, 10); // the 11th 10 ms tick blocked exhausts it
        QCOMPARE(budget.seconds(), 0.0);
        // Unblocked, it refills at 50 ms a second up to 100 ms.
        for (int i = 0; i < 100; ++i)
            QVERIFY(!budget.tick(0.01, false));
        QVERIFY(qFuzzyCompare(budget.seconds(), 0.05));
        for (int i = 0; i < 1000; ++i)
            budget.tick(0.01, false);
        QCOMPARE(budget.seconds(), 0.1);
    }

    void bookmarks() {
        // 1.19+: every interval, at least 1 s ahead, no later than 2 s before the deadline.
        QCOMPARE(cacher::nextBookmarkTime(0, seconds(300), true, seconds(60)), seconds(60));
        QCOMPARE(cacher::nextBookmarkTime(seconds(250), seconds(300), true, seconds(60)),
                 seconds(298));
        QCOMPARE(cacher::nextBookmarkTime(seconds(299), seconds(300), true, seconds(60)),
                 seconds(300));
        // Before 1.19: once, 2 s before the deadline.
        QCOMPARE(cacher::nextBookmarkTime(0, seconds(300), false, seconds(60)), seconds(298));
    }
};

QTEST_GUILESS_MAIN(TestCacherRules)
#include "tst_cacherrules.moc"

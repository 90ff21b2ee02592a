// The cacher's dispatch in the simulated apiserver (reference §4): per-watcher buffer sizes by
// version and index use, one blocked watcher holding every watcher of its resource until the
// budget closes it, bookmarks only above a watcher's start, the terminated-watchers count, the
// fixed cache sizes up to 1.18 and the uncached events served from etcd.
#include "SimHarness.h"

#include <QTest>

using namespace ws;
using namespace ws::test;

namespace {

std::shared_ptr<ServerWatch> openWatch(SimHarness& h, ResourceVersion rv, int selectorGroup = -1,
                                       bool bookmarks = false, TimeUs timeout = seconds(300)) {
    ApiServer::WatchOptions options;
    options.resource = h.resource;
    options.rv = rv;
    options.selectorGroup = selectorGroup;
    options.allowBookmarks = bookmarks;
    options.timeout = timeout;
    ApiStatus error;
    auto w = h.server->watch(options, &error);
    if (!w)
        qFatal("watch refused: %d %s", error.code, qPrintable(error.message));
    return w;
}

std::vector<WatchDelivery> drain(ServerWatch& w) {
    std::vector<WatchDelivery> out;
    while (!w.buffer.empty()) {
        out.push_back(std::move(w.buffer.front()));
        w.buffer.pop_front();
    }
    return out;
}

} // namespace

class TestCacherDispatch : public QObject {
    Q_OBJECT
private slots:
    // Input + result channels of a watcher on a ring grown to 12800 events: 1.24 (cacher.go)
    // gives 10, or 1000 to an indexed resource's watcher without the trigger; 1.25
    // (suggestedWatchChannelSize) gives ceil(12800/75) = 171 clamped to 10 / 1000 / 100.
    void watcherBufferByVersionAndIndex_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("resource");
        QTest::addColumn<int>("selectorGroup");
        QTest::addColumn<qulonglong>("capacity");
        QTest::newRow("1.24 kubelet pods (index and trigger)") << "1.24"
                                                               << "pods" << 1 << 20ull;
        QTest::newRow("1.25 kubelet pods (index and trigger)") << "1.25"
                                                               << "pods" << 1 << 20ull;
        QTest::newRow("1.24 pods informer (index, no trigger)") << "1.24"
                                                                << "pods" << -1 << 2000ull;
        QTest::newRow("1.25 pods informer (index, no trigger)") << "1.25"
                                                                << "pods" << -1 << 342ull;
        QTest::newRow("1.24 leases (no index)") << "1.24"
                                                << "leases" << -1 << 20ull;
        QTest::newRow("1.25 leases (no index)") << "1.25"
                                                << "leases" << -1 << 200ull;
    }
    void watcherBufferByVersionAndIndex() {
        QFETCH(QString, version);
        QFETCH(QString, resource);
        QFETCH(int, selectorGroup);
        QFETCH(qulonglong, capacity);
        SimHarness h(version, 10, resource);
        h.runFor(milliseconds(100));
        for (int i = 0; i < 10000; ++i) { // 10000 events within a second: the ring doubles
            h.write(i);
            if (i % 100 == 99)
                h.tick();
        }
        h.runFor(milliseconds(100));
        QCOMPARE(qulonglong(h.server->cacher(h.resource)->cache().ring().capacity()), 12800ull);
        auto w = openWatch(h, h.etcd.currentRevision(), selectorGroup);
        QCOMPARE(qulonglong(w->capacity), capacity);
    }

    // One watcher that does not read holds the dispatch of every watcher of the resource: the
    // reading one gets nothing newer until the shared budget (100 ms) runs out and the blocked
    // one is closed; then everything that waited arrives, in order and complete.
    void blockedWatcherHoldsEveryWatcher_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("slowReads");
        QTest::newRow("1.16 blocked") << "1.16" << false;
        QTest::newRow("1.30 blocked") << "1.30" << false;
        QTest::newRow("1.30 both keep up") << "1.30" << true;
    }
    void blockedWatcherHoldsEveryWatcher() {
        QFETCH(QString, version);
        QFETCH(bool, slowReads);
        // leases: no trigger index, so 10-event channels in every version.
        SimHarness h(version, 10, QStringLiteral("leases"));
        h.runFor(milliseconds(100));
        Cacher& cacher = *h.server->cacher(h.resource);
        const ResourceVersion start = h.etcd.currentRevision();
        auto slow = openWatch(h, start);
        auto fast = openWatch(h, start);
        // Reads as fast as events come, concurrently with the dispatcher (what the simulated
        // clients announce each tick); the slow one reads nothing, or keeps up the same way.
        fast->readAllowance = std::size_t(1) << 40;
        if (slowReads)
            slow->readAllowance = std::size_t(1) << 40;
        std::vector<ResourceVersion> fastSeen;
        TimeUs blockedFor = 0;
        ResourceVersion maxBehind = 0; // how far the fast watcher's newest event trails etcd
        int writes = 0;
        for (int t = 0; t < 100; ++t) { // 1 s at 300 writes/s
            for (int k = 0; k < 3; ++k)
                h.write(writes++);
            h.tick();
            if (cacher.dispatchBlocked())
                blockedFor += h.ctx.dt;
            for (const WatchDelivery& d : drain(*fast))
                fastSeen.push_back(d.rv);
            if (slowReads)
                drain(*slow);
            const ResourceVersion newest = fastSeen.empty() ? start : fastSeen.back();
            maxBehind = std::max(maxBehind, h.etcd.currentRevision() - newest);
        }
        // Every write reached the fast watcher once, in order.
        QCOMPARE(fastSeen.size(), std::size_t(writes));
        for (std::size_t i = 0; i < fastSeen.size(); ++i)
            QCOMPARE(fastSeen[i], start + 1 + ResourceVersion(i));
        QCOMPARE(cacher.pendingEvents(), std::size_t(0));
        if (slowReads) {
            QCOMPARE(blockedFor, TimeUs(0));
            QCOMPARE(maxBehind, ResourceVersion(0));
            QVERIFY(!slow->closed);
            QCOMPARE(cacher.terminatedWatchers(), 0);
            return;
        }
        QVERIFY(slow->closed);
        QCOMPARE(slow->closeReason, WatchCloseReason::ServerClosed);
        QVERIFY(!slow->error);
        QCOMPARE(cacher.terminatedWatchers(), 1);
        // The budget: 100 ms full, refilling 0.5 ms a tick while spent: about 11 ticks.
        QVERIFY2(blockedFor >= milliseconds(100) && blockedFor <= milliseconds(120),
                 qPrintable(QString::number(blockedFor)));
        // ... and the reading watcher waited about as long for its events: 3 writes a tick
        // over the 9 full ticks between the block's start and the cut.
        QVERIFY2(maxBehind >= 27, qPrintable(QString::number(maxBehind)));
        QVERIFY(!fast->closed);
    }

    // A periodic bookmark carries the RV the dispatcher last processed and reaches a watcher
    // only above the RV it started from (cache_watcher.go process, the same in 1.19, 1.27 and
    // 1.33): none on a quiet resource, one after an event, even at the RV of that event.
    void bookmarkOnlyAboveTheWatchStart_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("fromZero"); // RV=0 watch: initial state, then events
        QTest::newRow("1.19 RV=N") << "1.19" << false;
        QTest::newRow("1.27 RV=N") << "1.27" << false;
        QTest::newRow("1.33 RV=N") << "1.33" << false;
        QTest::newRow("1.27 RV=0") << "1.27" << true;
        QTest::newRow("1.33 RV=0") << "1.33" << true;
    }
    void bookmarkOnlyAboveTheWatchStart() {
        QFETCH(QString, version);
        QFETCH(bool, fromZero);
        SimHarness h(version);
        h.runFor(milliseconds(100));
        const ResourceVersion head = h.etcd.currentRevision();
        auto w = openWatch(h, fromZero ? 0 : head, -1, true);
        drain(*w);              // the initial state, if any
        h.runFor(seconds(130)); // two bookmark periods, nothing written
        QVERIFY(drain(*w).empty());
        QCOMPARE(w->lastRv, head);
        h.write(0);
        h.runFor(seconds(65));
        const std::vector<WatchDelivery> got = drain(*w);
        QCOMPARE(got.size(), std::size_t(2));
        QCOMPARE(got[0].type, WatchEventType::Modified);
        QCOMPARE(got[1].type, WatchEventType::Bookmark);
        QCOMPARE(got[1].rv, head + 1); // the RV the watcher already has: still sent
    }

    // Before 1.19 the one bookmark comes 2 s before the deadline, under the same rule.
    void preTimeoutBookmarkOnlyAboveTheWatchStart_data() {
        QTest::addColumn<bool>("write");
        QTest::newRow("1.18 quiet: none") << false;
        QTest::newRow("1.18 after an event: one") << true;
    }
    void preTimeoutBookmarkOnlyAboveTheWatchStart() {
        QFETCH(bool, write);
        SimHarness h(QStringLiteral("1.18"));
        h.runFor(milliseconds(100));
        const ResourceVersion head = h.etcd.currentRevision();
        auto w = openWatch(h, head, -1, true, seconds(30));
        if (write)
            h.write(0);
        h.runFor(seconds(29));
        std::vector<WatchDelivery> got = drain(*w);
        QCOMPARE(got.size(), std::size_t(write ? 2 : 0));
        if (write) {
            QCOMPARE(got[1].type, WatchEventType::Bookmark);
            QCOMPARE(got[1].rv, head + 1);
        }
    }

    // apiserver_terminated_watchers_total counts the budget cut-off only: a cacher
    // re-initialization (its etcd watch compacted away, then a relist) closes every watcher
    // without an ERROR event too, but is not counted.
    void terminatedCountsTheCutOffNotTheReinitialization() {
        SimHarness h(QStringLiteral("1.30"));
        h.runFor(milliseconds(100));
        Cacher& cacher = *h.server->cacher(h.resource);
        auto slow = openWatch(h, h.etcd.currentRevision());
        for (int i = 0; i < 300; ++i) { // 1 s at 300 writes/s, nobody reads
            for (int k = 0; k < 3; ++k)
                h.write(i * 3 + k);
            h.tick();
        }
        QVERIFY(slow->closed);
        QCOMPARE(slow->closeReason, WatchCloseReason::ServerClosed);
        QCOMPARE(cacher.terminatedWatchers(), 1);

        auto other = openWatch(h, h.etcd.currentRevision());
        h.etcd.watches().setStreamStalled(h.server->cacheStream(h.resource), true);
        for (int i = 0; i < 20; ++i)
            h.write(i);
        QVERIFY(h.etcd.compact(h.etcd.currentRevision()));
        h.etcd.watches().setStreamStalled(h.server->cacheStream(h.resource), false);
        for (int i = 0; i < 500 && !other->closed; ++i) {
            h.tick();
            drain(*other);
        }
        QVERIFY(other->closed);
        QCOMPARE(other->closeReason, WatchCloseReason::CacheReinitialized);
        QVERIFY(!other->error);
        QCOMPARE(cacher.terminatedWatchers(), 1);
    }

    // cachesize.go up to 1.18: pods get 1000 events, the rest 100; from 1.19 the ring starts at
    // 100 and grows. Events have no watch cache on either side: lists and watches go to etcd.
    void cacheSizesAroundTheDynamicRing_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("resource");
        QTest::addColumn<bool>("cached");
        QTest::addColumn<qulonglong>("capacityAfter2000");
        QTest::newRow("1.18 pods") << "1.18"
                                   << "pods" << true << 1000ull;
        QTest::newRow("1.19 pods") << "1.19"
                                   << "pods" << true << 3200ull;
        QTest::newRow("1.18 configmaps") << "1.18"
                                         << "configmaps" << true << 100ull;
        QTest::newRow("1.19 configmaps") << "1.19"
                                         << "configmaps" << true << 3200ull;
        QTest::newRow("1.18 events") << "1.18"
                                     << "events" << false << 0ull;
        QTest::newRow("1.19 events") << "1.19"
                                     << "events" << false << 0ull;
    }
    void cacheSizesAroundTheDynamicRing() {
        QFETCH(QString, version);
        QFETCH(QString, resource);
        QFETCH(bool, cached);
        QFETCH(qulonglong, capacityAfter2000);
        SimHarness h(version, 10, resource);
        h.runFor(milliseconds(100));
        for (int i = 0; i < 2000; ++i) {
            h.write(i);
            if (i % 100 == 99)
                h.tick();
        }
        h.runFor(milliseconds(100));
        QCOMPARE(h.server->cacher(h.resource) != nullptr, cached);
        if (cached)
            QCOMPARE(qulonglong(h.server->cacher(h.resource)->cache().ring().capacity()),
                     capacityAfter2000);

        std::optional<ApiServer::ListResult> list;
        ApiServer::ListOptions lo;
        lo.resource = h.resource;
        lo.rv = 0; // RV=0: the cache when there is one
        h.server->list(lo, [&](ApiServer::ListResult r) { list = std::move(r); });
        QVERIFY(list && list->ok);
        QCOMPARE(list->fromCache, cached);
        QCOMPARE(list->items.size(), std::size_t(10));

        // An RV=0 watch: the current state, then the changes, from either path.
        auto w = openWatch(h, 0);
        QCOMPARE(w->fromEtcd, !cached);
        std::vector<WatchDelivery> got = drain(*w);
        QCOMPARE(got.size(), std::size_t(10));
        for (const WatchDelivery& d : got)
            QVERIFY(d.initial && d.type == WatchEventType::Added);
        h.write(3);
        h.runFor(milliseconds(50));
        got = drain(*w);
        QCOMPARE(got.size(), std::size_t(1));
        QCOMPARE(got[0].rv, h.etcd.currentRevision());
        QVERIFY(!got[0].initial);

        // An RV=N watch resumes after N on either path.
        const ResourceVersion n = h.etcd.currentRevision();
        h.write(4);
        h.write(5);
        auto resumed = openWatch(h, n);
        h.runFor(milliseconds(50));
        got = drain(*resumed);
        QCOMPARE(got.size(), std::size_t(2));
        QCOMPARE(got[0].rv, n + 1);
        QCOMPARE(got[1].rv, n + 2);
    }

    // The 410 of a watch from a compacted RV: the cache says Gone up to 1.16 and Expired from
    // 1.17; the etcd path (events, uncached) says Expired in every version
    // (etcd3/errors.go interpretWatchError).
    void tooOldReasonByPath_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("resource");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<bool>("fromEtcd");
        QTest::newRow("1.16 cache") << "1.16"
                                    << "configmaps"
                                    << "Gone" << false;
        QTest::newRow("1.17 cache") << "1.17"
                                    << "configmaps"
                                    << "Expired" << false;
        QTest::newRow("1.16 etcd (events)") << "1.16"
                                            << "events"
                                            << "Expired" << true;
        QTest::newRow("1.17 etcd (events)") << "1.17"
                                            << "events"
                                            << "Expired" << true;
    }
    void tooOldReasonByPath() {
        QFETCH(QString, version);
        QFETCH(QString, resource);
        QFETCH(QString, reason);
        QFETCH(bool, fromEtcd);
        SimHarness h(version, 10, resource);
        h.runFor(milliseconds(100));
        const ResourceVersion before = h.etcd.currentRevision();
        for (int i = 0; i < 300; ++i) { // beyond the 100-event ring; then compacted
            h.write(i);
            h.runFor(milliseconds(100));
        }
        QVERIFY(h.etcd.compact(h.etcd.currentRevision()));
        h.runFor(milliseconds(100));
        auto w = openWatch(h, before);
        for (int i = 0; i < 100 && !w->closed; ++i)
            h.tick();
        QCOMPARE(w->fromEtcd, fromEtcd);
        QVERIFY(w->closed);
        QVERIFY(w->error);
        QCOMPARE(w->error->code, 410);
        QCOMPARE(w->error->reason, reason);
        if (fromEtcd)
            QCOMPARE(w->error->message,
                     QStringLiteral("The resourceVersion for the provided watch is too old."));
        else
            QVERIFY(w->error->message.startsWith(QStringLiteral("too old resource version: ")));
    }
};

QTEST_GUILESS_MAIN(TestCacherDispatch)
#include "tst_cacherdispatch.moc"

// The cacher's restart and readiness (reference §6, §9; cacher.go, ready.go, util.go at v1.26.0,
// v1.27.0, v1.30.0, v1.31.0, v1.33.0, v1.34.0, v1.36.0): a cache is not ready until its list is
// in it; meanwhile watches block (<= 1.26), block then 503 (1.27-1.30) or get 429 "storage is
// (re)initializing" (1.31+) whose Retry-After is 1 s (1.31-1.32) or grows with the downtime
// (1.33+); RV=0 lists go to etcd; the cacher relists on a fixed 1 s period; a re-initialization
// closes the cache's watchers without counting them as terminated.
#include "SimHarness.h"
#include "kube/CacherRules.h"

#include <QTest>
#include <cmath>

using namespace ws;
using namespace ws::test;

namespace {

constexpr TimeUs kListTakes = seconds(40);

struct WatchAnswer {
    std::shared_ptr<ServerWatch> watch;
    ApiStatus error;
};

WatchAnswer watchNow(SimHarness& h, TimeUs timeout) {
    ApiServer::WatchOptions o;
    o.resource = h.resource;
    o.rv = h.etcd.currentRevision();
    o.allowBookmarks = true;
    o.timeout = timeout;
    WatchAnswer a;
    a.watch = h.server->watch(o, &a.error);
    return a;
}

ApiServer::ListResult listNow(SimHarness& h, ApiServer::ListOptions o) {
    o.resource = h.resource;
    std::optional<ApiServer::ListResult> result;
    h.server->list(o, [&](ApiServer::ListResult r) { result = std::move(r); });
    if (!result)
        qFatal("the list did not answer at once");
    return *result;
}

QByteArray tooManyRequestsBody(int retryAfter) {
    return QByteArray("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                      "\"Failure\",\"message\":\"storage is (re)initializing\",\"reason\":"
                      "\"TooManyRequests\",\"details\":{\"retryAfterSeconds\":") +
           QByteArray::number(retryAfter) + "},\"code\":429}";
}

} // namespace

class TestCacheInit : public QObject {
    Q_OBJECT
private slots:
    // The 429's Retry-After: util.go calculateRetryAfterForUnreadyCache (1.33+), int(clamp(e^(0.06
    // x s), 1, 30)); a fixed 1 before.
    void retryAfterFormula() {
        QCOMPARE(cacher::retryAfterForUnreadyCache(0, true), 1);
        QCOMPARE(cacher::retryAfterForUnreadyCache(seconds(11), true), 1); // e^0.66 = 1.93
        QCOMPARE(cacher::retryAfterForUnreadyCache(seconds(12), true), 2); // e^0.72 = 2.05
        QCOMPARE(cacher::retryAfterForUnreadyCache(seconds(30), true), 6); // e^1.8 = 6.05
        QCOMPARE(cacher::retryAfterForUnreadyCache(seconds(56), true), 28);
        QCOMPARE(cacher::retryAfterForUnreadyCache(seconds(57), true), 30); // e^3.42 = 30.6
        QCOMPARE(cacher::retryAfterForUnreadyCache(seconds(3600), true), 30);
        QCOMPARE(cacher::retryAfterForUnreadyCache(seconds(3600), false), 1);
    }

    void gatesByVersion_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("resilient");
        QTest::addColumn<bool>("deadline");
        QTest::addColumn<bool>("grows");
        QTest::addColumn<bool>("readyzHook");
        QTest::newRow("1.26") << "1.26" << false << false << false << false;
        QTest::newRow("1.27") << "1.27" << false << true << false << false;
        QTest::newRow("1.30") << "1.30" << false << true << false << false;
        QTest::newRow("1.31") << "1.31" << true << true << false << false;
        QTest::newRow("1.32") << "1.32" << true << true << false << false;
        QTest::newRow("1.33") << "1.33" << true << true << true << false;
        QTest::newRow("1.35") << "1.35" << true << true << true << false;
        QTest::newRow("1.36") << "1.36" << true << true << true << true;
    }
    void gatesByVersion() {
        QFETCH(QString, version);
        QFETCH(bool, resilient);
        QFETCH(bool, deadline);
        QFETCH(bool, grows);
        QFETCH(bool, readyzHook);
        const ServerProfile p = *ServerProfile::fromVersion(version, nullptr);
        QCOMPARE(p.resilientWatchCacheInitialization, resilient);
        QCOMPARE(p.notReadyWaitHasDeadline(), deadline);
        QCOMPARE(p.retryAfterGrowsWithDowntime(), grows);
        QCOMPARE(p.watchCacheInitializationPostStartHook, readyzHook);
    }

    // A watch while the cache's first list is still being decoded (40 s).
    void watchWhileNotReady_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("mode"); // block | block-503 | 429-fixed | 429-grows
        QTest::newRow("1.26 blocks") << "1.26"
                                     << "block";
        QTest::newRow("1.27 blocks then 503") << "1.27"
                                              << "block-503";
        QTest::newRow("1.30 blocks then 503") << "1.30"
                                              << "block-503";
        QTest::newRow("1.31 429, Retry-After 1") << "1.31"
                                                 << "429-fixed";
        QTest::newRow("1.32 429, Retry-After 1") << "1.32"
                                                 << "429-fixed";
        QTest::newRow("1.33 429, Retry-After grows") << "1.33"
                                                     << "429-grows";
        QTest::newRow("1.34 429, Retry-After grows") << "1.34"
                                                     << "429-grows";
        QTest::newRow("1.36 429, Retry-After grows") << "1.36"
                                                     << "429-grows";
    }
    void watchWhileNotReady() {
        QFETCH(QString, version);
        QFETCH(QString, mode);
        SimHarness h(version, 10, kListTakes);
        Cacher& c = *h.server->cacher(h.resource);
        h.runFor(milliseconds(100));
        QVERIFY(!c.ready());
        if (mode.startsWith(QLatin1String("429"))) {
            const WatchAnswer first = watchNow(h, seconds(300));
            QVERIFY(!first.watch);
            QCOMPARE(first.error.toJson(), tooManyRequestsBody(1));
            h.runFor(seconds(30));
            const WatchAnswer later = watchNow(h, seconds(300));
            QVERIFY(!later.watch);
            // 30.1 s down: e^(0.06 x 30.1) = 6.1 on 1.33+; always 1 on 1.31-1.32.
            const int expected = mode == QLatin1String("429-grows") ? 6 : 1;
            QCOMPARE(later.error.retryAfterSeconds, expected);
            QCOMPARE(later.error.toJson(), tooManyRequestsBody(expected));
            h.runFor(seconds(9));
            QCOMPARE(watchNow(h, seconds(300)).error.retryAfterSeconds,
                     mode == QLatin1String("429-grows") ? 10 : 1); // e^2.35 = 10.4
        } else {
            // The request waits: no answer, not even headers.
            const WatchAnswer a = watchNow(h, seconds(10));
            QVERIFY(a.watch);
            QVERIFY(a.watch->pending);
            h.runFor(milliseconds(9800));
            QVERIFY(a.watch->pending);
            h.runFor(milliseconds(300)); // the watch's 10 s deadline passed
            if (mode == QLatin1String("block-503")) {
                QVERIFY(!a.watch->pending);
                QVERIFY(a.watch->rejection);
                QCOMPARE(a.watch->rejection->toJson(),
                         QByteArray("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                                    "\"status\":\"Failure\",\"message\":\"context deadline "
                                    "exceeded\",\"reason\":\"ServiceUnavailable\",\"code\":503}"));
            } else {
                // 1.26: ready.wait() has no context; it waits as long as the cache takes.
                QVERIFY(a.watch->pending);
                QVERIFY(!a.watch->rejection);
                h.runFor(kListTakes - seconds(10));
                QVERIFY(c.ready());
                QVERIFY(!a.watch->pending);
                QVERIFY(!a.watch->rejection);
            }
            // A watch with a longer timeout is served once the cache is ready.
            const WatchAnswer b = watchNow(h, seconds(300));
            QVERIFY(b.watch);
            h.runFor(kListTakes);
            QVERIFY(c.ready());
            QVERIFY(!b.watch->pending);
            QVERIFY(!b.watch->rejection);
            QVERIFY(!b.watch->closed);
        }
        h.runFor(kListTakes);
        QVERIFY(c.ready());
        const WatchAnswer served = watchNow(h, seconds(300));
        QVERIFY(served.watch);
        QVERIFY(!served.watch->pending);
        QCOMPARE(served.error.code, 0);
    }

    // Lists while the cache is not ready: RV=0 from etcd before 1.31; from 1.31 only a list with
    // a limit and no selector goes to etcd (shouldDelegateListOnNotReadyCache), the rest 429.
    void listWhileNotReady_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("rv"); // "" or "0"
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<int>("selector");
        QTest::addColumn<int>("code"); // 0: served by etcd
        QTest::newRow("1.30 RV=0") << "1.30"
                                   << "0" << qint64(0) << -1 << 0;
        QTest::newRow("1.30 RV=0 limit") << "1.30"
                                         << "0" << qint64(500) << -1 << 0;
        QTest::newRow("1.30 RV=0 selector") << "1.30"
                                            << "0" << qint64(0) << 1 << 0;
        QTest::newRow("1.30 RV=\"\"") << "1.30"
                                      << "" << qint64(0) << -1 << 0;
        QTest::newRow("1.31 RV=0") << "1.31"
                                   << "0" << qint64(0) << -1 << 429;
        QTest::newRow("1.31 RV=0 limit") << "1.31"
                                         << "0" << qint64(500) << -1 << 0;
        QTest::newRow("1.31 RV=0 limit selector") << "1.31"
                                                  << "0" << qint64(500) << 1 << 429;
        QTest::newRow("1.31 RV=\"\" (consistent read)") << "1.31"
                                                        << "" << qint64(0) << -1 << 429;
        QTest::newRow("1.31 RV=\"\" limit") << "1.31"
                                            << "" << qint64(500) << -1 << 0;
        QTest::newRow("1.34 RV=0 limit") << "1.34"
                                         << "0" << qint64(500) << -1 << 0;
        QTest::newRow("1.34 RV=0") << "1.34"
                                   << "0" << qint64(0) << -1 << 429;
    }
    void listWhileNotReady() {
        QFETCH(QString, version);
        QFETCH(QString, rv);
        QFETCH(qint64, limit);
        QFETCH(int, selector);
        QFETCH(int, code);
        SimHarness h(version, 10, kListTakes);
        h.runFor(seconds(1));
        for (int i = 0; i < 3; ++i)
            h.write(i); // etcd moves on; the cache is still decoding its list
        h.runFor(milliseconds(50));
        ApiServer::ListOptions o;
        o.rvEmpty = rv.isEmpty();
        o.rv = 0;
        o.limit = limit;
        o.selectorGroup = selector;
        const ApiServer::ListResult r = listNow(h, o);
        if (code == 0) {
            QVERIFY(r.ok);
            QVERIFY(!r.fromCache);
            QCOMPARE(r.rv, h.etcd.currentRevision());
        } else {
            QVERIFY(!r.ok);
            QCOMPARE(r.status.code, code);
            QVERIFY(r.status.isStorageInitializing());
        }
        // Once ready, an RV=0 list is the cache's.
        h.runFor(kListTakes);
        ApiServer::ListOptions zero;
        zero.rv = 0;
        const ApiServer::ListResult cached = listNow(h, zero);
        QVERIFY(cached.ok);
        QVERIFY(cached.fromCache);
    }

    // wait.Until(startCaching, 1 s): a cacher cut off from etcd retries its list every second,
    // no backoff, no jitter; from 1.33 the 429 names the list's error.
    void relistPeriodIsFixed_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("message");
        QTest::newRow("1.20") << "1.20"
                              << "";
        QTest::newRow("1.31") << "1.31"
                              << "storage is (re)initializing";
        QTest::newRow("1.34") << "1.34"
                              << "storage is (re)initializing: etcdserver: request timed out";
    }
    void relistPeriodIsFixed() {
        QFETCH(QString, version);
        QFETCH(QString, message);
        SimHarness h(version);
        h.runFor(milliseconds(100));
        Cacher& c = *h.server->cacher(h.resource);
        QVERIFY(c.ready());
        h.server->setPartitioned(true);
        h.server->restart(milliseconds(500));
        std::vector<TimeUs> starts;
        std::int64_t seen = c.listsStarted();
        const TimeUs end = h.ctx.now + seconds(12);
        while (h.ctx.now < end) {
            h.tick();
            if (c.listsStarted() != seen) {
                seen = c.listsStarted();
                starts.push_back(h.ctx.now);
            }
        }
        QVERIFY(!c.ready());
        QVERIFY2(starts.size() >= 11, qPrintable(QString::number(starts.size())));
        for (std::size_t i = 1; i < starts.size(); ++i)
            QCOMPARE(starts[i] - starts[i - 1], cacher::kRelistPeriod);
        if (!message.isEmpty()) {
            const WatchAnswer a = watchNow(h, seconds(300));
            QVERIFY(!a.watch);
            QCOMPARE(a.error.code, 429);
            QCOMPARE(a.error.message, message);
        }
        h.server->setPartitioned(false);
        h.runFor(seconds(1.5));
        QVERIFY(c.ready());
    }

    // A list that takes longer than etcd keeps the list's revision: the watch from it is
    // compacted, the cacher relists, again and again (kubernetes #136950). A faster list makes it.
    void slowListOutlivesCompaction_data() {
        QTest::addColumn<double>("listSeconds");
        QTest::addColumn<bool>("everReady");
        QTest::newRow("2.5 s list, compaction every 1 s") << 2.5 << false;
        QTest::newRow("0.5 s list, compaction every 1 s") << 0.5 << true;
    }
    void slowListOutlivesCompaction() {
        QFETCH(double, listSeconds);
        QFETCH(bool, everReady);
        SimHarness h(QStringLiteral("1.34"), 10, seconds(listSeconds));
        Cacher& c = *h.server->cacher(h.resource);
        bool wasReady = false;
        ResourceVersion compactTo = h.etcd.currentRevision();
        for (int s = 0; s < 20; ++s) {
            for (int i = 0; i < 10; ++i) {
                h.write(s * 10 + i);
                h.runFor(milliseconds(100));
                // Ready and fed by its etcd watch (the cache RV moved past its list RV): it took.
                wasReady = wasReady || (c.ready() && c.cache().resourceVersion() >
                                                         c.cache().listResourceVersion());
            }
            // kube-apiserver's compactor: every interval, to the revision seen an interval ago.
            h.etcd.compact(compactTo);
            compactTo = h.etcd.currentRevision();
        }
        QCOMPARE(wasReady, everReady);
        if (!everReady) {
            QVERIFY2(c.listsStarted() >= 5, qPrintable(QString::number(c.listsStarted())));
            const WatchAnswer a = watchNow(h, seconds(300));
            QVERIFY(!a.watch);
            QVERIFY(a.error.isStorageInitializing());
        }
    }

    // terminateAllWatchers at the next startCaching closes the cache's watchers without an ERROR
    // event; that is no slow-watcher cut-off: apiserver_terminated_watchers_total stays 0.
    void reinitializationIsNotATermination() {
        SimHarness h(QStringLiteral("1.34"));
        h.runFor(milliseconds(100));
        Cacher& c = *h.server->cacher(h.resource);
        const WatchAnswer a = watchNow(h, seconds(300));
        QVERIFY(a.watch);
        QVERIFY(!a.watch->closed);
        // The cacher's etcd watch is cancelled as compacted: ListAndWatch ends.
        EtcdWatchResponse cancel;
        cancel.watchId = c.etcdWatchId();
        cancel.headerRevision = h.etcd.currentRevision();
        cancel.canceled = true;
        cancel.compactRevision = h.etcd.currentRevision();
        c.onEtcdWatchResponse(cancel);
        QVERIFY(!c.ready());
        const std::int64_t lists = c.listsStarted();
        h.runFor(milliseconds(990));
        QCOMPARE(c.listsStarted(), lists); // the next list a second later
        h.runFor(milliseconds(20));
        QCOMPARE(c.listsStarted(), lists + 1);
        QVERIFY(a.watch->closed);
        QCOMPARE(a.watch->closeReason, WatchCloseReason::CacheReinitialized);
        QVERIFY(!a.watch->error);
        QCOMPARE(c.terminatedWatchers(), std::int64_t(0));
        QVERIFY(c.ready());
        QCOMPARE(c.initializations(), std::int64_t(2));
    }
};

QTEST_GUILESS_MAIN(TestCacheInit)
#include "tst_cacheinit.moc"

#include "SimHarness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ws;
using namespace ws::test;

class TestApiServer : public QObject {
    Q_OBJECT
private slots:
    // reference §1: a list with RV=N beyond the cache waits 3 s, then 504 in the version's shape
    // with retryAfterSeconds 1. A list with a limit goes to etcd, which answers at once; from 1.19
    // without retryAfterSeconds (etcd3/store.go validateMinimumResourceVersion:
    // storage.NewTooLargeResourceVersionError(rv, current, 0)).
    void tooLargeAfterThreeSeconds_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("hasCauses");
        QTest::addColumn<QString>("causeReason");
        QTest::addColumn<bool>("limited"); // limit=500: the etcd path
        QTest::newRow("1.16: no causes") << "1.16" << false << "" << false;
        QTest::newRow("1.17: cause with message only") << "1.17" << true << "" << false;
        QTest::newRow("1.18.5: cause with message only") << "1.18.5" << true << "" << false;
        QTest::newRow("1.18.6: ResourceVersionTooLarge")
            << "1.18.6" << true << "ResourceVersionTooLarge" << false;
        QTest::newRow("1.30: ResourceVersionTooLarge")
            << "1.30" << true << "ResourceVersionTooLarge" << false;
        QTest::newRow("1.19 etcd: no Retry-After")
            << "1.19" << true << "ResourceVersionTooLarge" << true;
        QTest::newRow("1.30 etcd: no Retry-After")
            << "1.30" << true << "ResourceVersionTooLarge" << true;
    }
    void tooLargeAfterThreeSeconds() {
        QFETCH(QString, version);
        QFETCH(bool, hasCauses);
        QFETCH(QString, causeReason);
        QFETCH(bool, limited);
        SimHarness h(version);
        h.runFor(milliseconds(100));
        const ResourceVersion requested = h.etcd.currentRevision() + 1000;
        std::optional<ApiServer::ListResult> result;
        TimeUs answeredAt = 0;
        ApiServer::ListOptions options;
        options.resource = h.resource;
        options.rv = requested;
        options.limit = limited ? 500 : 0;
        const TimeUs askedAt = h.ctx.now;
        h.server->list(options, [&](ApiServer::ListResult r) {
            result = std::move(r);
            answeredAt = h.ctx.now;
        });
        if (!limited) {
            h.runFor(seconds(2.9));
            QVERIFY(!result); // still waiting for the cache
            h.runFor(seconds(0.2));
        }
        QVERIFY(result);
        QCOMPARE(answeredAt - askedAt, limited ? 0 : seconds(3));
        QCOMPARE(result->status.code, 504);
        const QJsonObject body = QJsonDocument::fromJson(result->status.toJson()).object();
        QCOMPARE(body.value("code").toInt(), 504);
        QCOMPARE(body.value("reason").toString(), QStringLiteral("Timeout"));
        QCOMPARE(body.value("message").toString(),
                 QStringLiteral("Timeout: Too large resource version: %1, current: %2")
                     .arg(requested)
                     .arg(h.etcd.currentRevision()));
        const QJsonObject details = body.value("details").toObject();
        QCOMPARE(details.value("retryAfterSeconds").toInt(), limited ? 0 : 1);
        QCOMPARE(details.contains("retryAfterSeconds"), !limited);
        QCOMPARE(result->status.retryAfterSeconds, limited ? 0 : 1);
        QCOMPARE(details.contains("causes"), hasCauses);
        if (hasCauses) {
            const QJsonObject cause = details.value("causes").toArray().first().toObject();
            QCOMPARE(cause.value("message").toString(),
                     QStringLiteral("Too large resource version"));
            QCOMPARE(cause.value("reason").toString(), causeReason);
        }
    }

    void listCatchesUpWithinThreeSeconds() {
        SimHarness h("1.30");
        h.runFor(milliseconds(100));
        const ResourceVersion requested = h.etcd.currentRevision() + 5;
        std::optional<ApiServer::ListResult> result;
        ApiServer::ListOptions options;
        options.resource = h.resource;
        options.rv = requested;
        h.server->list(options, [&](ApiServer::ListResult r) { result = std::move(r); });
        h.runFor(seconds(1));
        for (int i = 0; i < 5; ++i)
            h.write(i);
        h.runFor(milliseconds(50));
        QVERIFY(result);
        QVERIFY(result->ok);
        QVERIFY(result->rv >= requested);
    }

    // reference §3: a watch with resourceVersion="" is served by etcd in 1.27.0-1.27.12 (and
    // 1.28.0-1.28.8, 1.29.0-1.29.3), later only with WatchFromStorageWithoutResourceVersion
    // (1.27.13+; gone in 1.36), else by the cache. Either way it starts with an ADDED per object:
    // the cache's legacy RV=0 start, or etcd3/watcher.go sync() at revision 0 (v1.27.0).
    void rvEmptyWatchPath_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("gate"); // WatchFromStorageWithoutResourceVersion set to true
        QTest::addColumn<bool>("fromEtcd");
        QTest::newRow("1.26: cache") << "1.26" << false << false;
        QTest::newRow("1.27.0: etcd") << "1.27.0" << false << true;
        QTest::newRow("1.27.12: etcd") << "1.27.12" << false << true;
        QTest::newRow("1.27.13: cache") << "1.27.13" << false << false;
        QTest::newRow("1.27.13 + gate: etcd") << "1.27.13" << true << true;
        QTest::newRow("1.28.8: etcd") << "1.28.8" << false << true;
        QTest::newRow("1.28.9: cache") << "1.28.9" << false << false;
        QTest::newRow("1.29.3: etcd") << "1.29.3" << false << true;
        QTest::newRow("1.29.4: cache") << "1.29.4" << false << false;
        QTest::newRow("1.36 + gate field: cache (the gate is gone)") << "1.36" << true << false;
    }
    void rvEmptyWatchPath() {
        QFETCH(QString, version);
        QFETCH(bool, gate);
        QFETCH(bool, fromEtcd);
        // Set unchecked: on 1.36 FeatureGates::rejection refuses the gate, as kube-apiserver does.
        QMap<QString, bool> gates;
        if (gate)
            gates.insert(QStringLiteral("WatchFromStorageWithoutResourceVersion"), true);
        SimHarness h(version, 10, QStringLiteral("configmaps"), 0, gates);
        h.runFor(milliseconds(100));
        h.write(0); // one object at a later revision than the rest
        h.runFor(milliseconds(100));
        const ResourceVersion head = h.etcd.currentRevision();
        ApiServer::WatchOptions options;
        options.resource = h.resource;
        options.rvEmpty = true;
        ApiStatus error;
        auto w = h.server->watch(options, &error);
        QVERIFY(w);
        QCOMPARE(w->fromEtcd, fromEtcd);
        h.runFor(milliseconds(50));
        QCOMPARE(w->buffer.size(), h.keys.size());
        std::map<KeyId, ResourceVersion> added;
        for (std::size_t i = 0; i < w->buffer.size(); ++i) {
            const WatchDelivery& d = w->buffer[i];
            QCOMPARE(d.type, WatchEventType::Added);
            QVERIFY(d.initial);
            added[d.key] = d.rv;
        }
        QCOMPARE(added.size(), h.keys.size());
        QCOMPARE(added[h.keys[0]], head);     // its mod revision: rewritten last
        QCOMPARE(added[h.keys[1]], head - 9); // created second, at revision 3
        w->buffer.clear();
        h.write(1);
        h.runFor(milliseconds(50));
        QCOMPARE(w->buffer.size(), std::size_t(1));
        QCOMPARE(w->buffer.front().type, WatchEventType::Modified);
        QCOMPARE(w->buffer.front().rv, head + 1);
        QVERIFY(!w->buffer.front().initial);
    }

    // With the WatchList gate on (1.32, 1.34+; any 1.27+ that turns it on) the handlers default
    // a plain watch at RV ""/"0" to a watch-list (SetListOptionsDefaults, PR #115402): the
    // initial ADDEDs end with the k8s.io/initial-events-end bookmark when the client allows
    // bookmarks, and an RV="" watch is no longer "SendInitialEvents == nil", so it stays in
    // the cache even with WatchFromStorageWithoutResourceVersion (cacher.go Watch, v1.32.0).
    void plainWatchDefaultsToWatchList_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QStringList>("gates");
        QTest::addColumn<bool>("rvZero"); // RV="0", else ""
        QTest::addColumn<bool>("bookmarks");
        QTest::addColumn<bool>("endBookmark");
        QTest::addColumn<bool>("fromEtcd");
        const QStringList none;
        QTest::newRow("1.31 off") << "1.31" << none << false << true << false << false;
        QTest::newRow("1.32 on") << "1.32" << none << false << true << true << false;
        QTest::newRow("1.32 on, RV=0") << "1.32" << none << true << true << true << false;
        QTest::newRow("1.33 off") << "1.33" << none << false << true << false << false;
        QTest::newRow("1.34 on") << "1.34" << none << false << true << true << false;
        QTest::newRow("1.34 on, no allowWatchBookmarks")
            << "1.34" << none << false << false << false << false;
        QTest::newRow("1.36 on, RV=0") << "1.36" << none << true << true << true << false;
        QTest::newRow("1.33 + WatchList")
            << "1.33" << QStringList{"WatchList"} << false << true << true << false;
        QTest::newRow("1.27.0 + WatchList: cache, not etcd")
            << "1.27.0" << QStringList{"WatchList"} << false << true << true << false;
        QTest::newRow("1.32 + WatchFromStorageWithoutResourceVersion: still the cache")
            << "1.32" << QStringList{"WatchFromStorageWithoutResourceVersion"} << false << true
            << true << false;
        QTest::newRow("1.32 + that gate, WatchList off: etcd")
            << "1.32" << QStringList{"WatchFromStorageWithoutResourceVersion", "WatchList=false"}
            << false << true << false << true;
    }
    void plainWatchDefaultsToWatchList() {
        QFETCH(QString, version);
        QFETCH(QStringList, gates);
        QFETCH(bool, rvZero);
        QFETCH(bool, bookmarks);
        QFETCH(bool, endBookmark);
        QFETCH(bool, fromEtcd);
        QMap<QString, bool> set;
        const ServerProfile defaults = *ServerProfile::fromVersion(version, nullptr);
        for (const QString& g : gates) {
            QString name, why;
            bool on = false;
            QVERIFY2(FeatureGates::parse(g, &name, &on, &why), qPrintable(why));
            const auto rejected = FeatureGates::rejection(defaults, name, on);
            QVERIFY2(!rejected, qPrintable(rejected.value_or(QString())));
            set.insert(name, on);
        }
        SimHarness h(version, 10, QStringLiteral("configmaps"), 0, set);
        h.runFor(milliseconds(100));
        ApiServer::WatchOptions options;
        options.resource = h.resource;
        options.rvEmpty = !rvZero;
        options.allowBookmarks = bookmarks;
        ApiStatus error;
        auto w = h.server->watch(options, &error);
        QVERIFY2(w, qPrintable(error.message));
        h.runFor(milliseconds(50));
        QCOMPARE(w->fromEtcd, fromEtcd);
        QCOMPARE(w->buffer.size(), h.keys.size() + (endBookmark ? 1 : 0));
        for (std::size_t i = 0; i < h.keys.size(); ++i)
            QCOMPARE(w->buffer[i].type, WatchEventType::Added);
        if (endBookmark) {
            const WatchDelivery& end = w->buffer.back();
            QCOMPARE(end.type, WatchEventType::Bookmark);
            QVERIFY(end.initialEventsEnd);
            QCOMPARE(end.rv, h.etcd.currentRevision());
        }
    }

    // A watch from an RV that fell out of the ring: HTTP 200, one ERROR event (410) and EOF.
    void watchTooOld_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("reason");
        // NewGone up to 1.16, NewResourceExpired from 1.17.0 (reference §1).
        QTest::newRow("1.16 Gone") << "1.16"
                                   << "Gone";
        QTest::newRow("1.17 Expired") << "1.17"
                                      << "Expired";
        QTest::newRow("1.18 Expired") << "1.18"
                                      << "Expired";
    }
    void watchTooOld() {
        QFETCH(QString, version);
        QFETCH(QString, reason);
        SimHarness h(version);
        h.runFor(milliseconds(100));
        const ResourceVersion before = h.etcd.currentRevision();
        for (int i = 0; i < 300; ++i) { // 300 events 1 s apart: the ring (100) evicts
            h.write(i);
            h.runFor(seconds(1));
        }
        ApiServer::WatchOptions options;
        options.resource = h.resource;
        options.rv = before;
        ApiStatus error;
        auto w = h.server->watch(options, &error);
        QVERIFY(w);
        QCOMPARE(w->buffer.size(), std::size_t(1));
        QCOMPARE(w->buffer.front().type, WatchEventType::Error);
        QVERIFY(w->closed);
        QCOMPARE(w->error->code, 410);
        QCOMPARE(w->error->reason, reason);
        const ResourceVersion oldest = h.server->cacher(h.resource)->cache().oldestRv();
        QCOMPARE(w->error->message,
                 QStringLiteral("too old resource version: %1 (%2)").arg(before).arg(oldest - 1));
    }

    // reference §4: a watcher that does not drain its buffer exhausts the dispatcher's shared
    // budget (100 ms, refilling 50 ms/s) and is closed without an ERROR event; one that reads
    // keeps its watch.
    void dispatchTermination_data() {
        QTest::addColumn<int>("readPerTick"); // events the client reads per 10 ms tick
        QTest::addColumn<bool>("terminated");
        QTest::newRow("never reads") << 0 << true;
        QTest::newRow("reads 1 per tick (100/s) < 300/s") << 1 << true;
        QTest::newRow("reads 5 per tick (500/s) > 300/s") << 5 << false;
    }
    void dispatchTermination() {
        QFETCH(int, readPerTick);
        QFETCH(bool, terminated);
        SimHarness h("1.30");
        h.runFor(milliseconds(100));
        ApiServer::WatchOptions options;
        options.resource = h.resource;
        options.rv = h.etcd.currentRevision();
        ApiStatus error;
        auto w = h.server->watch(options, &error);
        QVERIFY(w);
        for (int i = 0; i < 600; ++i) { // 300 writes/s for 2 s
            for (int k = 0; k < 3; ++k)
                h.write(i * 3 + k);
            h.tick();
            for (int r = 0; r < readPerTick && !w->buffer.empty(); ++r)
                w->buffer.pop_front();
        }
        QCOMPARE(w->closed, terminated);
        if (terminated) {
            QCOMPARE(w->closeReason, WatchCloseReason::ServerClosed);
            QVERIFY(!w->error); // no ERROR event
            QCOMPARE(h.server->cacher(h.resource)->terminatedWatchers(), 1);
        }
    }
};

QTEST_GUILESS_MAIN(TestApiServer)
#include "tst_apiserver.moc"

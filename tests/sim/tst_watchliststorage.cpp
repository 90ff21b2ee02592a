// Watch-lists against the storage under the simulated apiserver, by version: from 1.31 the
// cacher refuses a watch-list with bookmarks at once when its etcd's progress answers cannot be
// trusted (< 3.4.31 / 3.5.13; cacher.go Watch, the feature support checker) and asks etcd for
// progress while a watch-list waits for a fresher cache, so a quiet resource is answered at
// once; a resource without a watch cache gets its watch-list from etcd's own watcher, which ends
// the initial state with the initial-events-end bookmark from 1.29 (etcd3/watcher.go).
#include "SimHarness.h"
#include "sources/sim/client/ClientReflector.h"

#include <QTest>

using namespace ws;
using ws::test::SimHarness;

namespace {

std::function<void(ApiServerConfig&)> etcdAt(const QString& version) {
    return [version](ApiServerConfig& c) { c.etcd = EtcdFacts(version); };
}

QMap<QString, bool> gatesFrom(const QStringList& on) {
    QMap<QString, bool> gates;
    for (const QString& g : on)
        gates.insert(g, true);
    return gates;
}

std::shared_ptr<ServerWatch> openWatchList(SimHarness& h, bool bookmarks) {
    ApiServer::WatchOptions o;
    o.resource = h.resource;
    o.rvEmpty = true;
    o.sendInitialEvents = true;
    o.explicitInitialEvents = true;
    o.allowBookmarks = bookmarks;
    ApiStatus error;
    auto w = h.server->watch(o, &error);
    if (!w)
        qFatal("watch-list refused: %d %s", error.code, qPrintable(error.message));
    return w;
}

struct Outcome {
    int added = 0;
    bool endBookmark = false;
    int errorCode = 0;
    QString errorMessage;
};

// Reads the watch as a client does until it has what it waits for or `limit` has passed;
// returns when it was reached.
TimeUs readUntilDone(SimHarness& h, ServerWatch& w, Outcome& out, TimeUs limit) {
    const TimeUs start = h.ctx.now;
    while (h.ctx.now - start < limit) {
        while (!w.buffer.empty()) {
            const WatchDelivery d = std::move(w.buffer.front());
            w.buffer.pop_front();
            out.added += d.type == WatchEventType::Added;
            out.endBookmark = out.endBookmark || d.initialEventsEnd;
        }
        if (w.error) {
            out.errorCode = w.error->code;
            out.errorMessage = w.error->message;
        }
        if (out.endBookmark || out.errorCode != 0)
            return h.ctx.now - start;
        h.tick();
    }
    return limit;
}

} // namespace

class TestWatchListStorage : public QObject {
    Q_OBJECT
private slots:
    void refusedWithoutProgressSupport_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QStringList>("gates");
        QTest::addColumn<QString>("etcd");
        QTest::addColumn<bool>("bookmarks");
        QTest::addColumn<QString>("expect"); // synced, refused, served (no end bookmark asked)
        const QStringList none;
        QTest::newRow("1.34 over etcd 3.5.13") << "1.34" << none << "3.5.13" << true << "synced";
        QTest::newRow("1.34 over etcd 3.5.12") << "1.34" << none << "3.5.12" << true << "refused";
        QTest::newRow("1.35 over etcd 3.4.23") << "1.35" << none << "3.4.23" << true << "refused";
        QTest::newRow("1.32 over etcd 3.5.12") << "1.32" << none << "3.5.12" << true << "refused";
        QTest::newRow("1.34 over etcd 3.6.0") << "1.34" << none << "3.6.0" << true << "synced";
        // Not a watch-list in the checker's sense without bookmarks (isListWatchRequest).
        QTest::newRow("1.34 over etcd 3.5.12, no bookmarks")
            << "1.34" << none << "3.5.12" << false << "served";
        // No checker before 1.31: the gate alone decides.
        QTest::newRow("1.30 +WatchList over etcd 3.5.12")
            << "1.30" << QStringList{"WatchList"} << "3.5.12" << true << "synced";
    }
    void refusedWithoutProgressSupport() {
        QFETCH(QString, server);
        QFETCH(QStringList, gates);
        QFETCH(QString, etcd);
        QFETCH(bool, bookmarks);
        QFETCH(QString, expect);
        SimHarness h(server, 10, QStringLiteral("configmaps"), 0, gatesFrom(gates), etcdAt(etcd));
        h.runFor(milliseconds(200));
        auto w = openWatchList(h, bookmarks);
        Outcome out;
        readUntilDone(h, *w, out, seconds(2));
        if (expect == QLatin1String("refused")) {
            QCOMPARE(out.errorCode, 500);
            QCOMPARE(out.added, 0);
            QVERIFY2(out.errorMessage.contains(QLatin1String(
                         "required storage feature RequestWatchProgress is disabled")),
                     qPrintable(out.errorMessage));
        } else {
            QCOMPARE(out.errorCode, 0);
            QCOMPARE(out.added, 10);
            QCOMPARE(out.endBookmark, expect == QLatin1String("synced"));
        }
    }

    // client-go 0.35 on a 1.34 apiserver over etcd 3.5.12: the refused watch-list falls back to
    // LIST + WATCH (0.29+ on any error) and the informer syncs; nothing stalls.
    void informerFallsBackToList() {
        SimHarness h(QStringLiteral("1.34"), 10, QStringLiteral("configmaps"), 0, {},
                     etcdAt(QStringLiteral("3.5.12")));
        ClientConfig config;
        config.id = QStringLiteral("informer");
        config.resource = h.resource;
        QString error;
        config.profile = *ClientProfile::fromName(QStringLiteral("0.35"), &error);
        ClientReflector client(h.ctx, std::vector<ApiServer*>{h.server.get()}, config);
        const auto synced = [&] {
            return client.store().size() == 10 && client.resourceVersion() > 0;
        };
        for (int i = 0; i < 500 && !synced(); ++i) {
            h.tick();
            client.tick();
            h.hub.tick(h.ctx.now);
        }
        QVERIFY(synced());
        QVERIFY(h.server->listRequests() >= 1);
        for (const Anomaly& a : h.anomalies)
            QVERIFY2(a.kind != AnomalyKind::InitialEventsStalled, qPrintable(a.message));
    }

    // A quiet resource while etcd's revision moves (another resource is written): a watch-list
    // from RV="" waits for the cache to reach etcd's current revision. 1.31+ asks etcd for
    // progress during that wait and answers within a few progress periods (100 ms); 1.30 waits
    // for etcd's periodic progress notification (10 min by default) and answers 504 after 3 s.
    void quietResourceAnsweredAtOnce_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QStringList>("gates");
        QTest::addColumn<int>("errorCode");
        QTest::newRow("1.34") << "1.34" << QStringList{} << 0;
        QTest::newRow("1.32") << "1.32" << QStringList{} << 0;
        QTest::newRow("1.30 +WatchList") << "1.30" << QStringList{"WatchList"} << 504;
    }
    void quietResourceAnsweredAtOnce() {
        QFETCH(QString, server);
        QFETCH(QStringList, gates);
        QFETCH(int, errorCode);
        SimHarness h(server, 10, QStringLiteral("configmaps"), 0, gatesFrom(gates));
        EtcdWatchHubConfig hubConfig = h.etcd.watches().config();
        hubConfig.progressInterval = seconds(600);
        h.etcd.watches().setConfig(hubConfig);
        const int other = h.keyspace.addResource(QStringLiteral("leases"));
        const KeyId lease =
            h.keyspace.addKey(other, QStringLiteral("default"), QStringLiteral("lease-0"), 0);
        for (int i = 0; i < 100; ++i) { // 1 s of writes elsewhere: etcd moves, the cache not
            h.etcd.put(h.ctx.now, lease, std::string(100, 'l'));
            h.tick();
        }
        const ResourceVersion cacheRv = h.server->cacher(h.resource)->cache().resourceVersion();
        QVERIFY(cacheRv < h.etcd.currentRevision());
        auto w = openWatchList(h, true);
        Outcome out;
        const TimeUs took = readUntilDone(h, *w, out, seconds(5));
        QCOMPARE(out.errorCode, errorCode);
        if (errorCode == 0) {
            QVERIFY(out.endBookmark);
            QVERIFY2(took <= milliseconds(500), qPrintable(QString::number(took)));
        } else {
            QVERIFY2(took >= seconds(3), qPrintable(QString::number(took)));
        }
    }

    // events (no watch cache): the watch-list is served by etcd's watcher; its initial state
    // ends with the bookmark from 1.29 when bookmarks are asked for.
    void uncachedResourceFromEtcd_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QStringList>("gates");
        QTest::addColumn<bool>("bookmarks");
        QTest::addColumn<bool>("endBookmark");
        QTest::newRow("1.34") << "1.34" << QStringList{} << true << true;
        QTest::newRow("1.34 without bookmarks") << "1.34" << QStringList{} << false << false;
        QTest::newRow("1.29 +WatchList") << "1.29" << QStringList{"WatchList"} << true << true;
        QTest::newRow("1.28 +WatchList") << "1.28" << QStringList{"WatchList"} << true << false;
    }
    void uncachedResourceFromEtcd() {
        QFETCH(QString, server);
        QFETCH(QStringList, gates);
        QFETCH(bool, bookmarks);
        QFETCH(bool, endBookmark);
        SimHarness h(server, 10, QStringLiteral("events"), 0, gatesFrom(gates),
                     etcdAt(QStringLiteral("3.5.12")));
        QVERIFY(!h.server->cacher(h.resource));
        h.runFor(milliseconds(100));
        auto w = openWatchList(h, bookmarks);
        QVERIFY(w->fromEtcd);
        Outcome out;
        readUntilDone(h, *w, out, milliseconds(500));
        QCOMPARE(out.errorCode, 0);
        QCOMPARE(out.added, 10);
        QCOMPARE(out.endBookmark, endBookmark);
    }
};

QTEST_GUILESS_MAIN(TestWatchListStorage)
#include "tst_watchliststorage.moc"

// The LIST path of the simulated apiserver by version (reference §3, §9): consistent reads from
// the cache after etcd's progress notification (KEP-2340, 1.31+ with etcd 3.4.31+/3.5.13+),
// pages and continue tokens with their 410 once etcd compacted them, client-go's pager falling
// back to a full list, and Exact / continue lists from the cache's snapshots (1.34,
// ListFromCacheSnapshot) until the cache compactor follows etcd's compaction.

#include "ScenarioRun.h"
#include "SimHarness.h"
#include "kube/FeatureGates.h"
#include "sources/sim/client/ClientReflector.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <algorithm>

using namespace ws;
using namespace ws::test;
using From = ApiServer::ListServedFrom;

Q_DECLARE_METATYPE(ApiServer::ListServedFrom)

namespace {

// The harness's apiserver with these gates over the version's defaults and this etcd.
std::function<void(ApiServerConfig&)> withGates(const QString& etcd, const QStringList& gates) {
    return [etcd, gates](ApiServerConfig& c) {
        c.etcd = EtcdFacts(etcd);
        QMap<QString, bool> set;
        for (const QString& g : gates)
            set.insert(g.section(u'=', 0, 0), g.section(u'=', 1) == QLatin1String("true"));
        FeatureGates::apply(c.profile, set);
    };
}

// Waits (on the virtual clock) for the answer of one list request.
std::optional<ApiServer::ListResult> listAndWait(SimHarness& h, const ApiServer::ListOptions& o,
                                                 TimeUs* took = nullptr,
                                                 TimeUs limit = seconds(10)) {
    std::optional<ApiServer::ListResult> result;
    const TimeUs asked = h.ctx.now;
    h.server->list(o, [&](ApiServer::ListResult r) { result = std::move(r); });
    while (!result && h.ctx.now - asked < limit)
        h.tick();
    if (took)
        *took = h.ctx.now - asked;
    return result;
}

QStringList names(const SimHarness& h, const std::vector<KeyValuePtr>& items) {
    QStringList out;
    for (const auto& kv : items)
        out << h.keyspace.nameOf(kv->key);
    out.sort();
    return out;
}

QStringList etcdNamesAt(SimHarness& h, ResourceVersion rev) {
    std::vector<KeyValuePtr> items;
    if (!h.etcd.rangeAt(h.resource, rev, &items))
        return {QStringLiteral("<compacted>")};
    return names(h, items);
}

// A key of another resource: its writes move etcd's head but not this cache's RV.
KeyId otherKey(SimHarness& h) {
    const int other = h.keyspace.addResource(QStringLiteral("secrets"));
    return h.keyspace.addKey(other, QStringLiteral("default"), QStringLiteral("s"), -1);
}

} // namespace

class TestLists : public QObject {
    Q_OBJECT
private slots:
    // RV="" (consistent) lists by version, etcd and gate: the cache behind etcd's head (writes
    // to another resource) is served only after a progress notification brought it there.
    void consistentRead_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("etcd");
        QTest::addColumn<QStringList>("gates");
        QTest::addColumn<From>("from");
        QTest::newRow("1.30: gate off, etcd") << "1.30"
                                              << "3.5.13" << QStringList() << From::Etcd;
        QTest::newRow("1.30 gate on (alpha): no etcd check, cache")
            << "1.30"
            << "3.5.12" << QStringList{"ConsistentListFromCache=true"} << From::Cache;
        QTest::newRow("1.31, etcd 3.5.13: cache") << "1.31"
                                                  << "3.5.13" << QStringList() << From::Cache;
        QTest::newRow("1.31, etcd 3.5.12: etcd") << "1.31"
                                                 << "3.5.12" << QStringList() << From::Etcd;
        QTest::newRow("1.31, etcd 3.4.30: etcd") << "1.31"
                                                 << "3.4.30" << QStringList() << From::Etcd;
        QTest::newRow("1.31, etcd 3.4.31: cache") << "1.31"
                                                  << "3.4.31" << QStringList() << From::Cache;
        QTest::newRow("1.31, etcd 3.6.0: cache") << "1.31"
                                                 << "3.6.0" << QStringList() << From::Cache;
        QTest::newRow("1.31 ConsistentListFromCache=false: etcd")
            << "1.31"
            << "3.5.13" << QStringList{"ConsistentListFromCache=false"} << From::Etcd;
        QTest::newRow("1.34, etcd 3.5.13: cache") << "1.34"
                                                  << "3.5.13" << QStringList() << From::Cache;
    }
    void consistentRead() {
        QFETCH(QString, version);
        QFETCH(QString, etcd);
        QFETCH(QStringList, gates);
        QFETCH(From, from);
        SimHarness h(version, 10, QStringLiteral("configmaps"), 0, {}, withGates(etcd, gates));
        h.runFor(milliseconds(200));
        const KeyId other = otherKey(h);
        for (int i = 0; i < 5; ++i)
            h.etcd.put(h.ctx.now, other, std::string(100, 'x'));
        const ResourceVersion head = h.etcd.currentRevision();
        Cacher* c = h.server->cacher(h.resource);
        QVERIFY(c->cache().resourceVersion() < head);
        const std::int64_t requestsBefore = h.etcd.watches().progressRequests();
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rvEmpty = true;
        TimeUs took = 0;
        const auto r = listAndWait(h, o, &took);
        QVERIFY(r && r->ok);
        QCOMPARE(r->servedFrom, from);
        QCOMPARE(r->fromCache, from != From::Etcd);
        QCOMPARE(r->rv, head);
        QCOMPARE(names(h, r->items), etcdNamesAt(h, head));
        if (from == From::Cache) {
            // Asked for progress at once, the notification came through the cacher's stream
            // within a tick or two.
            QVERIFY(h.etcd.watches().progressRequests() > requestsBefore);
            QVERIFY2(took <= milliseconds(30), qPrintable(QString::number(took)));
            QCOMPARE(c->cache().resourceVersion(), head);
            QCOMPARE(c->consistentReads(true, false), 1);
        } else {
            QCOMPARE(took, TimeUs(0));
            QCOMPARE(h.etcd.watches().progressRequests(), requestsBefore);
            QCOMPARE(c->consistentReads(true, false), 0);
        }
        QCOMPARE(c->consistentReads(true, true), 0);
    }

    // A cache that cannot catch up within 3 s: its etcd stream drains 10 events/s behind a
    // burst of 500 (the 128 responses its channel holds alone take 12.8 s). After 3 s the list
    // falls back to etcd, counted {success=true,fallback=true}.
    void consistentReadFallsBackAfterThreeSeconds() {
        SimHarness h("1.31", 10, QStringLiteral("configmaps"), 0, {}, [](ApiServerConfig& c) {
            c.etcd = EtcdFacts(QStringLiteral("3.5.13"));
            c.etcdStreamEventsPerSecond = 10;
        });
        h.runFor(milliseconds(200));
        for (int i = 0; i < 500; ++i)
            h.write(i);
        const ResourceVersion head = h.etcd.currentRevision();
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rvEmpty = true;
        TimeUs took = 0;
        const auto r = listAndWait(h, o, &took);
        QVERIFY(r && r->ok);
        QCOMPARE(took, seconds(3));
        QCOMPARE(r->servedFrom, From::Etcd);
        QVERIFY(r->rv >= head);
        Cacher* c = h.server->cacher(h.resource);
        QVERIFY(c->cache().resourceVersion() < head); // still behind
        QCOMPARE(c->consistentReads(true, true), 1);
        QCOMPARE(c->consistentReads(true, false), 0);
    }

    // ConsistentListFromCache as an alpha (1.28-1.30, gate set): the same wait, but no fallback
    // to etcd - the client gets the 504 "Too large resource version" after 3 s.
    void consistentReadAlphaHasNoFallback() {
        SimHarness h("1.30", 10, QStringLiteral("configmaps"), 0,
                     {{QStringLiteral("ConsistentListFromCache"), true}}, [](ApiServerConfig& c) {
                         c.etcd = EtcdFacts(QStringLiteral("3.5.13"));
                         c.etcdStreamEventsPerSecond = 10;
                     });
        h.runFor(milliseconds(200));
        for (int i = 0; i < 500; ++i)
            h.write(i);
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rvEmpty = true;
        TimeUs took = 0;
        const auto r = listAndWait(h, o, &took);
        QVERIFY(r && !r->ok);
        QCOMPARE(took, seconds(3));
        QCOMPARE(r->status.code, 504);
        QVERIFY2(r->status.message.contains(QLatin1String("Too large resource version")),
                 qPrintable(r->status.message));
    }

    // A paged list whose continue revision etcd compacted: 410 Expired with etcd3's message and
    // a fresh token (rv -1, the same start key), in 1.16 as in 1.34 (where the continue is
    // served from a cache snapshot until the cache compactor, 15 s later, drops it). From 1.31
    // the first page of a consistent read comes from the cache (PR #125405).
    void continueAcrossCompaction_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<From>("firstPage");
        QTest::newRow("1.16: etcd pages") << "1.16" << From::Etcd;
        QTest::newRow("1.30: etcd pages (a limit sends RV=\"\" there)") << "1.30" << From::Etcd;
        QTest::newRow("1.31: the cache pages, etcd continues") << "1.31" << From::Cache;
        QTest::newRow("1.34: the cache pages, its snapshots continue") << "1.34" << From::Cache;
    }
    void continueAcrossCompaction() {
        QFETCH(QString, version);
        QFETCH(From, firstPage);
        SimHarness h(version, 10);
        h.runFor(milliseconds(200));
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rvEmpty = true;
        o.limit = 4;
        const auto first = listAndWait(h, o);
        QVERIFY(first && first->ok);
        QCOMPARE(first->servedFrom, firstPage);
        QCOMPARE(names(h, first->items), (QStringList{"cm-0", "cm-1", "cm-2", "cm-3"}));
        QCOMPARE(first->remainingItemCount, 6);
        QString why;
        const auto token = ContinueToken::decode(first->continueToken, &why);
        QVERIFY2(token, qPrintable(why));
        QCOMPARE(token->rv, first->rv);
        QCOMPARE(QByteArray::fromStdString(token->start), QByteArray("default/cm-3\0", 13));

        for (int i = 0; i < 10; ++i)
            h.write(i);
        QVERIFY(h.etcd.compact(h.etcd.currentRevision()));
        ApiServer::ListOptions next;
        next.resource = h.resource;
        next.limit = 4;
        next.continueToken = first->continueToken;
        if (version == QLatin1String("1.34")) {
            // The snapshot at the token's RV outlives etcd's history until the compactor runs.
            const auto cached = listAndWait(h, next);
            QVERIFY(cached && cached->ok);
            QCOMPARE(cached->servedFrom, From::CacheSnapshot);
            QCOMPARE(cached->rv, first->rv);
            QCOMPARE(names(h, cached->items), (QStringList{"cm-4", "cm-5", "cm-6", "cm-7"}));
            Cacher* c = h.server->cacher(h.resource);
            const TimeUs until = h.ctx.now + seconds(16);
            while (c->compactorRevision() != h.etcd.compactRevision() && h.ctx.now < until)
                h.tick();
            QCOMPARE(c->compactorRevision(), h.etcd.compactRevision());
        }
        const auto expired = listAndWait(h, next);
        QVERIFY(expired);
        QVERIFY(!expired->ok);
        QCOMPARE(expired->servedFrom, From::Etcd);
        const QByteArray fresh =
            QByteArray("{\"v\":\"meta.k8s.io/v1\",\"rv\":-1,\"start\":\"default/cm-3\\u0000\"}")
                .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
        const QByteArray expected =
            QByteArray("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{\"continue\":\"") +
            fresh +
            "\"},\"status\":\"Failure\",\"message\":\"The provided continue parameter is too old "
            "to "
            "display a consistent list result. You can start a new list without the continue "
            "parameter, or use the continue token in this response to retrieve the remainder "
            "of the results. Continuing with the provided token results in an inconsistent "
            "list - objects that were created, modified, or deleted between the time the "
            "first chunk was returned and now may show up in the list.\",\"reason\":\"Expired\","
            "\"code\":410}";
        QCOMPARE(expired->status.toJson(), expected);
        // The fresh token continues at the head from the same key.
        next.continueToken = QString::fromLatin1(fresh);
        const auto resumed = listAndWait(h, next);
        QVERIFY(resumed && resumed->ok);
        QCOMPARE(names(h, resumed->items), (QStringList{"cm-4", "cm-5", "cm-6", "cm-7"}));
        QCOMPARE(resumed->rv, h.etcd.currentRevision());
    }

    // client-go's pager over a 1.30 cache that is not ready (its RV="0" list goes to etcd, in
    // pages of 500, one a tick): the pages add up to the list at page 1's RV while writes go
    // on; with etcd compacted after page 1, page 2 gets 410 Expired and the pager lists
    // everything at once with the first request's RV ("0").
    void pager_data() {
        QTest::addColumn<int>("objects");
        QTest::addColumn<bool>("compactAfterFirstPage");
        QTest::newRow("1200 objects: 500 + 500 + 200 at page 1's RV") << 1200 << false;
        QTest::newRow("1200 objects, compacted: page 1, 410, one full list") << 1200 << true;
    }
    void pager() {
        QFETCH(int, objects);
        QFETCH(bool, compactAfterFirstPage);
        SimHarness h("1.30", objects, QStringLiteral("configmaps"), seconds(60));
        ClientConfig config;
        config.id = QStringLiteral("informer");
        config.resource = h.resource;
        config.profile = *ClientProfile::fromName(QStringLiteral("0.30"), nullptr);
        ClientReflector client(h.ctx, {h.server.get()}, config);
        const std::int64_t before = h.server->listRequests();
        const ResourceVersion head = h.etcd.currentRevision();
        for (int i = 0; i < 10 && client.stateName() != QLatin1String("watching"); ++i) {
            h.tick();
            client.tick();
            h.write(i); // the head moves between pages
            if (i == 0 && compactAfterFirstPage)
                QVERIFY(h.etcd.compact(h.etcd.currentRevision()));
        }
        QCOMPARE(client.stateName(), QStringLiteral("watching"));
        QCOMPARE(h.server->listRequests() - before, 3);
        QCOMPARE(client.store().size(), std::size_t(objects));
        if (compactAfterFirstPage)
            QCOMPARE(client.resourceVersion(), head + 1); // the full list, after one write
        else
            QCOMPARE(client.resourceVersion(), head);
    }

    // resourceVersionMatch=Exact lists by version and gate: from the snapshot at that RV with
    // ListFromCacheSnapshot (beta on 1.34, alpha 1.33), from etcd otherwise; the same objects.
    void exactList_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QStringList>("gates");
        QTest::addColumn<From>("from");
        QTest::newRow("1.32: etcd") << "1.32" << QStringList() << From::Etcd;
        QTest::newRow("1.33: gate off by default, etcd") << "1.33" << QStringList() << From::Etcd;
        QTest::newRow("1.33 ListFromCacheSnapshot=true: snapshot")
            << "1.33" << QStringList{"ListFromCacheSnapshot=true"} << From::CacheSnapshot;
        QTest::newRow("1.34: snapshot") << "1.34" << QStringList() << From::CacheSnapshot;
        QTest::newRow("1.34 ListFromCacheSnapshot=false: etcd")
            << "1.34" << QStringList{"ListFromCacheSnapshot=false"} << From::Etcd;
    }
    void exactList() {
        QFETCH(QString, version);
        QFETCH(QStringList, gates);
        QFETCH(From, from);
        SimHarness h(version, 10, QStringLiteral("configmaps"), 0, {}, withGates("3.5.13", gates));
        h.runFor(milliseconds(200));
        h.etcd.remove(h.ctx.now, h.keys[2]);
        h.runFor(milliseconds(50));
        const ResourceVersion rv = h.etcd.currentRevision();
        h.etcd.remove(h.ctx.now, h.keys[5]);
        h.etcd.put(h.ctx.now, h.keys[2], std::string(10, 'n'));
        h.runFor(milliseconds(50));
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rv = rv;
        o.exact = true;
        const auto r = listAndWait(h, o);
        QVERIFY(r && r->ok);
        QCOMPARE(r->servedFrom, from);
        QCOMPARE(r->rv, rv);
        QCOMPARE(names(h, r->items), etcdNamesAt(h, rv));
        QVERIFY(!names(h, r->items).contains(QStringLiteral("cm-2")));
        QVERIFY(names(h, r->items).contains(QStringLiteral("cm-5")));
    }

    // A limit with RV=N is the legacy exact match (etcd before snapshots) unless the request
    // says resourceVersionMatch=NotOlderThan: then the cache serves it whole, limit ignored.
    void limitWithRv_data() {
        QTest::addColumn<bool>("notOlderThan");
        QTest::addColumn<From>("from");
        QTest::newRow("limit, RV=N: exact, etcd") << false << From::Etcd;
        QTest::newRow("limit, RV=N, NotOlderThan: cache") << true << From::Cache;
    }
    void limitWithRv() {
        QFETCH(bool, notOlderThan);
        QFETCH(From, from);
        SimHarness h("1.30", 10);
        h.runFor(milliseconds(200));
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rv = h.etcd.currentRevision();
        o.limit = 4;
        o.notOlderThan = notOlderThan;
        const auto r = listAndWait(h, o);
        QVERIFY(r && r->ok);
        QCOMPARE(r->servedFrom, from);
        QCOMPARE(r->items.size(), std::size_t(from == From::Etcd ? 4 : 10));
        QCOMPARE(r->continueToken.isEmpty(), from == From::Cache);
    }

    // An Exact RV etcd compacted: the snapshot still serves it until the cache compactor reads
    // the compaction (every 15 s); then the cacher has no snapshot, the list goes to etcd and
    // gets etcd's 410.
    void exactOlderThanCacheCompactor() {
        SimHarness h("1.34", 10);
        h.runFor(milliseconds(200));
        const ResourceVersion rv = h.etcd.currentRevision();
        for (int i = 0; i < 5; ++i)
            h.write(i);
        h.runFor(milliseconds(50));
        QVERIFY(h.etcd.compact(h.etcd.currentRevision()));
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rv = rv;
        o.exact = true;
        const auto cached = listAndWait(h, o);
        QVERIFY(cached && cached->ok);
        QCOMPARE(cached->servedFrom, From::CacheSnapshot);
        Cacher* c = h.server->cacher(h.resource);
        QVERIFY(c->compactorRevision() < h.etcd.compactRevision());
        const TimeUs until = h.ctx.now + seconds(16);
        while (c->compactorRevision() != h.etcd.compactRevision() && h.ctx.now < until)
            h.tick();
        QCOMPARE(c->compactorRevision(), h.etcd.compactRevision());
        const auto expired = listAndWait(h, o);
        QVERIFY(expired && !expired->ok);
        QCOMPARE(expired->servedFrom, From::Etcd);
        const QByteArray expected(
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":"
            "\"The resourceVersion for the provided list is too old.\",\"reason\":\"Expired\","
            "\"code\":410}");
        QCOMPARE(expired->status.toJson(), expected);
    }

    // DetectCacheInconsistency's verdict turns the snapshots off (MarkConsistent(false),
    // v1.34.0): once the check failed, an Exact list at the cache's own RV goes to etcd. The
    // cache is made to lose a DELETE the way 1.27.0 did (cacher-retry-stale-object): 20 more
    // watches of its resource on its etcd stream over etcd 3.5.12, a write burst and compaction
    // every 10 s - the test puts them there itself, as no 1.34 path sends pods watches to etcd.
    void inconsistentCacheListsFromEtcd() {
        SimHarness h("1.34", 300, QStringLiteral("pods"), 0, {}, [](ApiServerConfig& c) {
            c.etcd = EtcdFacts(QStringLiteral("3.5.12"));
            c.etcdStreamEventsPerSecond = 250;
        });
        h.runFor(milliseconds(200));
        struct Ignore : EtcdWatchReceiver {
            void onEtcdWatchResponse(const EtcdWatchResponse&) override {}
        } ignore;
        for (int i = 0; i < 20; ++i) {
            EtcdWatchOptions o;
            o.resource = h.resource;
            o.prevKv = true;
            h.etcd.watches().watch(h.server->cacheStream(h.resource), o, &ignore);
        }
        std::vector<ResourceVersion> revisionAt; // etcd's revision each second
        int n = 0;
        const TimeUs end = seconds(480);
        while (h.ctx.now < end) {
            const bool burst = h.ctx.now >= seconds(10) && h.ctx.now < seconds(30);
            // 80 writes a second in the burst, 10 outside; every tenth one a DELETE.
            if (burst || n % 8 == 0) {
                const KeyId k = h.keys[static_cast<std::size_t>(n * 7) % h.keys.size()];
                if (n % 10 == 0 && h.etcd.exists(k))
                    h.etcd.remove(h.ctx.now, k);
                else
                    h.etcd.put(h.ctx.now, k, std::string(300, 'w'));
            }
            ++n;
            h.tick();
            if (h.ctx.now % seconds(1) == 0) {
                revisionAt.push_back(h.etcd.currentRevision());
                // The apiserver's compactor: every 10 s, the revision of 10 s before.
                if (revisionAt.size() > 10 && revisionAt.size() % 10 == 0)
                    h.etcd.compact(revisionAt[revisionAt.size() - 11]);
            }
        }
        QVERIFY(std::any_of(h.anomalies.begin(), h.anomalies.end(), [](const Anomaly& a) {
            return a.kind == AnomalyKind::CacheInconsistent;
        }));
        Cacher* c = h.server->cacher(h.resource);
        QVERIFY(c->consistencyChecker() && !c->consistencyChecker()->markedConsistent());
        QVERIFY(!c->snapshotsUsable());
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rv = c->cache().resourceVersion();
        o.exact = true;
        std::optional<ApiServer::ListResult> r;
        h.server->list(o, [&](ApiServer::ListResult result) { r = std::move(result); });
        QVERIFY(r && r->ok);
        QCOMPARE(r->servedFrom, From::Etcd);
    }

    // Snapshots go with the ring: once the ring is full the oldest event's RV bounds them.
    void snapshotsFollowTheRing() {
        SimHarness h("1.34", 10);
        h.runFor(milliseconds(200));
        const ResourceVersion listed = h.etcd.currentRevision();
        const WatchCache& cache = h.server->cacher(h.resource)->cache();
        QCOMPARE(cache.snapshotAtOrBelow(listed), listed);
        QCOMPARE(cache.snapshotAtOrBelow(listed - 1), ResourceVersion(0));
        for (int i = 0; i < 400; ++i) { // 1 s apart: the 100-event ring evicts
            h.write(i);
            h.runFor(seconds(1));
        }
        QCOMPARE(cache.snapshotAtOrBelow(listed), ResourceVersion(0));
        const ResourceVersion oldest = cache.ring().at(cache.ring().startIndex()).rv;
        QCOMPARE(cache.snapshotAtOrBelow(oldest), oldest);
        QCOMPARE(cache.snapshotAtOrBelow(oldest - 1), ResourceVersion(0));
    }
};

QTEST_GUILESS_MAIN(TestLists)
#include "tst_lists.moc"

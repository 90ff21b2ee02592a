// The memory a simulated apiserver's lists hold while they are served (kube/ListMemoryRules.h,
// sim ListPressure): by the path that answers them and by version, the request-timeout 504 of a
// list that outlives --request-timeout (its memory held until the handler ends), the OOM kill
// above the memory limit that breaks every list in flight, a paged list held a page at a time,
// and a watch-list's initial state streamed with one object held. `serve` runs this ApiServer.
#include "SimHarness.h"
#include "kube/ListMemoryRules.h"

#include <QTest>

using namespace ws;
using ws::test::SimHarness;

namespace {

// 40 configmaps of 300 bytes (12,000), 10 of them in selector group 0 (3,000).
constexpr std::int64_t kAll = 12000, kGroup = 3000, kObject = 300;

struct Harness : SimHarness {
    explicit Harness(const QString& version, ListMemoryConfig memory,
                     TimeUs requestTimeout = seconds(60))
        : SimHarness(version, 40) {
        ApiServerConfig config;
        config.profile = *ServerProfile::fromVersion(version, nullptr);
        config.profile.requestTimeout = requestTimeout;
        config.memory = memory;
        // An etcd with consistent-read support (3.5.13+), so 1.31+ RV="" lists may use the cache.
        config.etcd = EtcdFacts(QStringLiteral("3.5.13"));
        server = std::make_unique<ApiServer>(ctx, config, std::vector<int>{resource});
        server->start();
        runFor(seconds(1)); // the cache is ready
    }
    // Ticks the virtual clock until `done` holds (at most a virtual minute).
    template <class F> bool runUntil(F done) {
        const TimeUs end = ctx.now + seconds(60);
        while (!done() && ctx.now < end)
            tick();
        return done();
    }
    struct Answer {
        bool done = false;
        ApiServer::ListResult result;
        TimeUs at = 0;
    };
    std::shared_ptr<Answer> list(bool rvEmpty, int selectorGroup = 0) {
        ApiServer::ListOptions o;
        o.resource = resource;
        o.rvEmpty = rvEmpty;
        o.selectorGroup = selectorGroup;
        return list(o);
    }
    std::shared_ptr<Answer> list(const ApiServer::ListOptions& o) {
        auto answer = std::make_shared<Answer>();
        server->list(o, [this, answer](ApiServer::ListResult r) {
            answer->done = true;
            answer->result = std::move(r);
            answer->at = ctx.now;
        });
        return answer;
    }
};

ListMemoryConfig memory(double bytesPerSecond, std::int64_t limit = 0) {
    ListMemoryConfig m;
    m.enabled = true;
    m.baselineBytes = 1000000;
    m.limitBytes = limit;
    m.listBytesPerSecond = bytesPerSecond;
    m.restartAfter = seconds(5);
    return m;
}

} // namespace

class TestListMemory : public QObject {
    Q_OBJECT
private slots:
    void heldBytesByPathAndVersion_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QStringList>("gates");
        QTest::addColumn<bool>("protobuf");
        QTest::addColumn<int>("path");
        QTest::addColumn<qint64>("held");
        const int etcd = int(listmemory::Path::Etcd), cache = int(listmemory::Path::Cache),
                  watchList = int(listmemory::Path::WatchList);
        const QStringList none;
        // etcd: the range read + the objects decoded from it + the encoded response.
        QTest::newRow("1.30 etcd") << "1.30" << none << false << etcd << qint64(2 * kAll + kGroup);
        QTest::newRow("1.32 cache") << "1.32" << none << true << cache << qint64(kGroup);
        // Streaming encoding from 1.33 (beta, on; kube_features.go@v1.33.0): the response is not
        // built in one buffer, for either wire.
        QTest::newRow("1.33 etcd") << "1.33" << none << false << etcd << qint64(2 * kAll + kObject);
        QTest::newRow("1.33 cache, JSON") << "1.33" << none << false << cache << qint64(kObject);
        QTest::newRow("1.33 cache, protobuf") << "1.33" << none << true << cache << qint64(kObject);
        // A gate turned off on 1.33 only changes its own wire.
        QTest::newRow("1.33 cache, JSON streaming off")
            << "1.33" << QStringList{"StreamingCollectionEncodingToJSON"} << false << cache
            << qint64(kGroup);
        QTest::newRow("1.33 cache, protobuf, JSON streaming off")
            << "1.33" << QStringList{"StreamingCollectionEncodingToJSON"} << true << cache
            << qint64(kObject);
        QTest::newRow("1.34 cache") << "1.34" << none << false << cache << qint64(kObject);
        QTest::newRow("1.34 watch-list") << "1.34" << none << false << watchList << qint64(kObject);
    }
    void heldBytesByPathAndVersion() {
        QFETCH(QString, version);
        QFETCH(int, path);
        QFETCH(QStringList, gates);
        QFETCH(bool, protobuf);
        QFETCH(qint64, held);
        ServerProfile p = *ServerProfile::fromVersion(version, nullptr);
        QMap<QString, bool> off;
        for (const QString& g : gates)
            off.insert(g, false);
        FeatureGates::apply(p, off);
        QCOMPARE(listmemory::heldBytes(static_cast<listmemory::Path>(path), {kAll, kGroup, kObject},
                                       p.streamingListEncoding(protobuf)),
                 held);
    }

    // 1.30: RV="" goes to etcd and holds 2 x 12,000 + 3,000 for the second it takes.
    void etcdListHeldWhileServed() {
        Harness h(QStringLiteral("1.30"), memory(kAll));
        auto a = h.list(true);
        h.tick();
        QVERIFY(!a->done);
        QCOMPARE(h.server->listPressure().heldBytes(), 2 * kAll + kGroup);
        QCOMPARE(h.server->listPressure().memoryBytes(), 1000000 + 2 * kAll + kGroup);
        QCOMPARE(h.server->listPressure().countsOf(h.resource).inflight, 1);
        QCOMPARE(h.server->listPressure().countsOf(h.resource).lists, 1);
        QVERIFY(h.runUntil([&] { return a->done; }));
        QVERIFY(a->result.ok);
        QCOMPARE(a->result.servedFrom, ApiServer::ListServedFrom::Etcd);
        QCOMPARE(a->result.items.size(), std::size_t(10));
        QCOMPARE(h.server->listPressure().heldBytes(), 0);
        QVERIFY2(a->at >= seconds(2) && a->at <= seconds(2) + milliseconds(20),
                 qPrintable(QString::number(a->at)));
    }

    // 1.31: the same RV="" list is a consistent read from the cache: only its selection.
    void consistentListFromCacheHoldsTheSelection() {
        Harness h(QStringLiteral("1.31"), memory(kAll));
        auto a = h.list(true);
        h.tick();
        QCOMPARE(h.server->listPressure().heldBytes(), kGroup);
        QVERIFY(h.runUntil([&] { return a->done; }));
        QCOMPARE(a->result.servedFrom, ApiServer::ListServedFrom::Cache);
        QVERIFY(a->at <= seconds(1) + milliseconds(300)); // 3,000 bytes at 12,000/s
    }

    // Past --request-timeout the client gets the timeout filter's 504; the handler runs on and
    // holds its memory until it is done.
    void requestTimeoutAnswers504AndKeepsTheMemory() {
        Harness h(QStringLiteral("1.30"), memory(kAll / 2), milliseconds(500));
        auto a = h.list(true);
        QVERIFY(h.runUntil([&] { return a->done; }));
        QVERIFY(!a->result.ok);
        QCOMPARE(a->result.status.code, 504);
        QCOMPARE(a->result.status.reason, QStringLiteral("Timeout"));
        QCOMPARE(a->result.status.message,
                 QStringLiteral("Timeout: request did not complete within the allotted timeout"));
        QVERIFY(a->at >= seconds(1) + milliseconds(500) && a->at < seconds(1) + milliseconds(520));
        QCOMPARE(h.server->listPressure().heldBytes(), 2 * kAll + kGroup);
        h.runFor(seconds(2));
        QCOMPARE(h.server->listPressure().heldBytes(), 0);
    }

    // Above the limit the apiserver is OOM-killed: every list in flight breaks (connection
    // reset), it is down, and back after restartAfter with nothing held.
    void oomKillBreaksTheListsInFlight() {
        Harness h(QStringLiteral("1.30"), memory(kAll, 1000000 + 2 * (2 * kAll + kGroup) - 1));
        auto a = h.list(true);
        h.tick();
        QVERIFY(h.server->up());
        auto b = h.list(true);
        h.tick();
        QVERIFY(!h.server->up());
        QCOMPARE(h.server->oomKills(), 1);
        QCOMPARE(h.server->lastOomKill().listBytes, 2 * (2 * kAll + kGroup));
        QCOMPARE(h.server->lastOomKill().lists, 2);
        for (const auto& answer : {a, b}) {
            QVERIFY(answer->done && !answer->result.ok);
            QCOMPARE(answer->result.status.code, 0);
        }
        QCOMPARE(h.server->listPressure().heldBytes(), 0);
        h.runFor(seconds(5));
        QVERIFY(h.server->up());
        // One list alone fits.
        auto c = h.list(true);
        h.runFor(seconds(2));
        QVERIFY(c->done && c->result.ok);
        QCOMPARE(h.server->oomKills(), 1);
    }

    // A paged list is a response per page (1.30: RV="" with a limit goes to etcd): each page holds
    // what its read covered, 10 objects here, not the whole resource, and takes that long.
    void pagedListHoldsAPageAtATime() {
        Harness h(QStringLiteral("1.30"), memory(kAll));
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rvEmpty = true;
        o.limit = 10;
        o.selectorGroup = -1;
        constexpr std::int64_t kPage = 10 * kObject;
        QString continueToken;
        for (int page = 1; page <= 4; ++page) {
            o.continueToken = continueToken;
            const TimeUs asked = h.ctx.now;
            auto a = h.list(o);
            h.tick();
            QCOMPARE(h.server->listPressure().heldBytes(), 2 * kPage + kPage);
            QCOMPARE(h.server->listPressure().countsOf(h.resource).inflight, 1);
            QVERIFY(h.runUntil([&] { return a->done; }));
            QVERIFY(a->result.ok);
            QCOMPARE(a->result.items.size(), std::size_t(10));
            QCOMPARE(h.server->listPressure().heldBytes(), 0);
            // 3,000 bytes at 12,000/s.
            QVERIFY2(a->at - asked <= milliseconds(280),
                     qPrintable(QString::number(a->at - asked)));
            QCOMPARE(a->result.continueToken.isEmpty(), page == 4);
            continueToken = a->result.continueToken;
        }
        QCOMPARE(h.server->listPressure().countsOf(h.resource).lists, 4);
    }

    // A paged node-scoped list reads the range in chunks of its limit, doubled after each
    // chunk that did not fill the page (store.go GetList: 10, 20, then the 10 left of 40), and
    // frees each chunk as it decodes it: it holds its largest chunk twice, not the range.
    void pagedSelectiveListHoldsItsLargestChunk() {
        Harness h(QStringLiteral("1.30"), memory(kAll));
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rvEmpty = true;
        o.limit = 10;
        o.selectorGroup = 0;
        auto a = h.list(o);
        h.tick();
        QCOMPARE(h.server->listPressure().heldBytes(), 2 * (20 * kObject) + kGroup);
        QVERIFY(h.runUntil([&] { return a->done; }));
        QCOMPARE(a->result.items.size(), std::size_t(10));
        QCOMPARE(a->result.scannedBytes, kAll);
        QCOMPARE(a->result.largestReadBytes, 20 * kObject);
    }

    // A node-scoped page with few matches reads the whole range to fill itself: it pays for
    // every object, as an unpaged list does (the field selector runs on decoded objects).
    void selectivePageReadsTheWholeRange() {
        Harness h(QStringLiteral("1.30"), memory(kAll));
        ApiServer::ListOptions o;
        o.resource = h.resource;
        o.rvEmpty = true;
        o.limit = 500;
        o.selectorGroup = 0;
        auto a = h.list(o);
        h.tick();
        QCOMPARE(h.server->listPressure().heldBytes(), 2 * kAll + kGroup);
        QVERIFY(h.runUntil([&] { return a->done; }));
        QVERIFY(a->result.ok && a->result.continueToken.isEmpty());
        QCOMPARE(a->result.items.size(), std::size_t(10));
    }

    // A watch-list (1.34) streams its initial state from the cache: one object held while the
    // selection's 3,000 bytes go out (a second at 3,000/s), counted as a list in flight; then
    // nothing. Its requests count as watches, not lists.
    void watchListHoldsOneObjectWhileItStreams() {
        Harness h(QStringLiteral("1.34"), memory(kGroup));
        ApiServer::WatchOptions w;
        w.resource = h.resource;
        w.rvEmpty = true;
        w.sendInitialEvents = true;
        w.explicitInitialEvents = true;
        w.allowBookmarks = true;
        w.selectorGroup = 0;
        w.timeout = seconds(300);
        ApiStatus error;
        const auto watch = h.server->watch(w, &error);
        QVERIFY2(watch, qPrintable(error.message));
        const ListPressure& p = h.server->listPressure();
        QVERIFY(h.runUntil([&] { return p.heldBytes() > 0; }));
        const TimeUs started = h.ctx.now;
        QCOMPARE(p.heldBytes(), kObject);
        QCOMPARE(p.memoryBytes(), 1000000 + kObject);
        QCOMPARE(p.countsOf(h.resource).inflight, 1);
        QVERIFY(h.runUntil([&] { return p.heldBytes() == 0; }));
        QVERIFY2(h.ctx.now - started >= milliseconds(950) && h.ctx.now - started <= seconds(1.1),
                 qPrintable(QString::number(h.ctx.now - started)));
        QCOMPARE(p.countsOf(h.resource).inflight, 0);
        QCOMPARE(p.countsOf(h.resource).watches, 1);
        QCOMPARE(p.countsOf(h.resource).lists, 0);
        QVERIFY(!watch->closed);
    }

    // Without server.memory nothing changes: lists are answered at once.
    void withoutAModelListsAreInstant() {
        Harness h(QStringLiteral("1.30"), ListMemoryConfig{});
        auto a = h.list(true);
        QVERIFY(a->done && a->result.ok);
        QCOMPARE(h.server->listPressure().heldBytes(), 0);
        QCOMPARE(h.server->listPressure().countsOf(h.resource).lists, 1);
    }
};

QTEST_GUILESS_MAIN(TestListMemory)
#include "tst_listmemory.moc"

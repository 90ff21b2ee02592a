// The engine behaviours the built-in scenarios rely on, one at a time: bookmarks and watch-cache
// sizing by server version, and what a client does when its apiserver is gone with and without
// a load balancer in front.
#include "scenario/ScenarioLoader.h"
#include "sim/SimHarness.h"
#include "sources/sim/Simulation.h"

#include <QSet>
#include <QTest>

using namespace ws;
using ws::test::SimHarness;

namespace {

QSet<QString> runKinds(const Scenario& scenario, std::uint64_t seed) {
    QString error;
    Pipeline pipeline;
    auto sim = Simulation::create(scenario, seed, pipeline, &error);
    if (!sim)
        qFatal("%s", qPrintable(error));
    QSet<QString> kinds;
    sim->hub().setSink([&](const Anomaly& a) { kinds.insert(kindName(a.kind)); });
    while (!sim->finished())
        sim->step();
    return kinds;
}

Scenario load(const QString& name) {
    QString error;
    auto s = ScenarioLoader::load(name, &error);
    if (!s)
        qFatal("%s", qPrintable(error));
    return *s;
}

} // namespace

class CountingReceiver : public EtcdWatchReceiver {
public:
    void onEtcdWatchResponse(const EtcdWatchResponse&) override { ++responses; }
    int responses = 0;
};

class TestScenarioEngine : public QObject {
    Q_OBJECT
private slots:
    // A watcher whose compacted cancel is already queued, then cancelled by its owner (which
    // goes away): the queued response must not reach the old receiver.
    void cancelledWatcherGetsNothingQueued() {
        SimHarness h(QStringLiteral("1.30"));
        for (int i = 0; i < 20; ++i)
            h.write(i);
        QVERIFY(h.etcd.compact(h.etcd.currentRevision()));
        auto& hub = h.etcd.watches();
        const int stream = hub.openStream(0);
        hub.setStreamStalled(stream, true);
        CountingReceiver receiver;
        EtcdWatchOptions options;
        options.resource = h.resource;
        options.startRevision = 2; // below the compact revision: unsynced, then cancelled
        const int id = hub.watch(stream, options, &receiver);
        h.runFor(milliseconds(200)); // syncWatchers queues the compacted response
        QCOMPARE(hub.queuedResponses(stream), 1);
        hub.cancel(id);
        hub.setStreamStalled(stream, false);
        h.runFor(milliseconds(100));
        QCOMPARE(hub.queuedResponses(stream), 0);
        QCOMPARE(receiver.responses, 0);
    }

    // cacheWatcher.nextBookmarkTime: 2 s before the deadline only up to 1.18; about every minute
    // (and before the deadline) from 1.19.
    void bookmarksByVersion_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<int>("before200s");
        QTest::addColumn<int>("byDeadline");
        QTest::newRow("1.16") << "1.16" << 0 << 1;
        QTest::newRow("1.18") << "1.18" << 0 << 1;
        QTest::newRow("1.19") << "1.19" << 3 << 5;
        QTest::newRow("1.30") << "1.30" << 3 << 5;
    }
    void bookmarksByVersion() {
        QFETCH(QString, version);
        QFETCH(int, before200s);
        QFETCH(int, byDeadline);
        SimHarness h(version);
        h.runFor(milliseconds(100));
        ApiServer::WatchOptions options;
        options.resource = h.resource;
        options.rv = h.etcd.currentRevision();
        options.allowBookmarks = true;
        options.timeout = seconds(300);
        ApiStatus error;
        auto w = h.server->watch(options, &error);
        QVERIFY(w);
        int bookmarks = 0;
        auto drainFor = [&](TimeUs d) {
            const TimeUs end = h.ctx.now + d;
            while (h.ctx.now < end) {
                if (h.ctx.now % seconds(1) == 0)
                    h.write(static_cast<int>(h.ctx.now / seconds(1)));
                h.tick();
                for (const auto& item : w->buffer)
                    bookmarks += item.type == WatchEventType::Bookmark ? 1 : 0;
                w->buffer.clear();
            }
        };
        drainFor(seconds(200));
        QCOMPARE(bookmarks, before200s);
        drainFor(seconds(99) + milliseconds(500)); // up to just before the 300 s deadline
        QCOMPARE(bookmarks, byDeadline);
    }

    // Before 1.19 the ring buffer has a fixed capacity (--default-watch-cache-size, 100); from
    // 1.19 it grows to hold 75 s of events.
    void ringCapacityByVersion_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("grows");
        QTest::newRow("1.16") << "1.16" << false;
        QTest::newRow("1.18") << "1.18" << false;
        QTest::newRow("1.19") << "1.19" << true;
        QTest::newRow("1.30") << "1.30" << true;
    }
    void ringCapacityByVersion() {
        QFETCH(QString, version);
        QFETCH(bool, grows);
        SimHarness h(version);
        h.runFor(milliseconds(100));
        for (int i = 0; i < 1000; ++i) { // 100 events a second for 10 s
            h.write(i);
            h.runFor(milliseconds(10));
        }
        const auto& cache = h.server->cacher(h.resource)->cache();
        QCOMPARE(cache.ring().capacity() > 100, grows);
        if (!grows) {
            QCOMPARE(cache.ring().size(), std::size_t(100));
            QVERIFY(cache.oldestRv() > h.etcd.currentRevision() - 101);
        }
    }

    // Without a load balancer a dead apiserver refuses the re-watch: client-go backs off and
    // re-watches (on the other apiserver, where a future RV just waits for events). Behind a
    // load balancer the request is reset instead, the reflector relists with its last RV and the
    // lagging cache answers 504.
    void loadBalancerTurnsTheSwitchIntoARelist() {
        Scenario s = load(QStringLiteral("too-large-rv-loop"));
        QVERIFY(s.server.loadBalancer);
        QVERIFY(runKinds(s, s.seed).contains(QStringLiteral("too-large-rv")));
        s.server.loadBalancer = false;
        const QSet<QString> kinds = runKinds(s, s.seed);
        QVERIFY2(!kinds.contains(QStringLiteral("too-large-rv")),
                 qPrintable(QStringList(kinds.cbegin(), kinds.cend()).join(", ")));
    }

    // From 0.22 the REST client sends a reset watch request again itself (up to ten times, on
    // new connections): the re-watch lands on a live apiserver, the reflector never relists, and
    // no client meets the lagging cache's 504 at all, whether or not it would recognise it.
    void watchRetriesAvoidTheRelist_data() {
        QTest::addColumn<QString>("clientGo");
        QTest::newRow("0.21 relists and loops") << "0.21";
        QTest::newRow("0.22") << "0.22";
        QTest::newRow("0.26 (does not recognise the 1.16 body)") << "0.26";
        QTest::newRow("current") << "current";
    }
    void watchRetriesAvoidTheRelist() {
        QFETCH(QString, clientGo);
        Scenario s = load(QStringLiteral("too-large-rv-loop"));
        for (auto& c : s.clients)
            c.clientGo = clientGo;
        const QSet<QString> kinds = runKinds(s, s.seed);
        const QString got = QStringList(kinds.cbegin(), kinds.cend()).join(", ");
        const bool retriesWatches = clientGo != QLatin1String("0.21");
        QVERIFY2(kinds.contains(QStringLiteral("too-large-rv")) != retriesWatches, qPrintable(got));
        QVERIFY2(kinds.contains(QStringLiteral("retry-loop")) != retriesWatches, qPrintable(got));
    }

    // The restart storm needs the kubelets' RVs to lag: informers that see every pod event resume
    // within the fresh cache's window and never get 410.
    void unfilteredInformersRideOutTheRollingRestart() {
        Scenario s = load(QStringLiteral("restart-relist-storm"));
        QVERIFY(runKinds(s, s.seed).contains(QStringLiteral("too-old-rv")));
        for (auto& c : s.clients)
            c.selectorGroup = -1;
        const QSet<QString> kinds = runKinds(s, s.seed);
        QVERIFY2(!kinds.contains(QStringLiteral("too-old-rv")),
                 qPrintable(QStringList(kinds.cbegin(), kinds.cend()).join(", ")));
    }

    // The selector watcher's 410 comes from the fixed 1.18 ring: on 1.19 the ring keeps 75 s and
    // bookmarks carry the RV forward, so the same resume succeeds.
    void selectorWatcherResumesOn119() {
        Scenario s = load(QStringLiteral("selector-watch-too-old"));
        QVERIFY(runKinds(s, s.seed).contains(QStringLiteral("too-old-rv")));
        s.server.version = QStringLiteral("1.19");
        const QSet<QString> kinds = runKinds(s, s.seed);
        QVERIFY2(kinds.isEmpty(), qPrintable(QStringList(kinds.cbegin(), kinds.cend()).join(", ")));
    }

    void watchOnlyClientsAreNotCheckedForConsistency() {
        Scenario s = load(QStringLiteral("cacher-retry-stale-object"));
        // Only the agents: whatever their RV="" watches miss, they keep no consistent store.
        std::erase_if(s.clients, [](const ClientSpec& c) { return !c.watchOnly; });
        QVERIFY(!s.clients.empty());
        s.server.version = QStringLiteral("1.28.8"); // RV="" from etcd, SeparateCacheWatchRPC on
        const QSet<QString> kinds = runKinds(s, s.seed);
        QVERIFY(kinds.contains(QStringLiteral("prevkv-nil")));
        QVERIFY(!kinds.contains(QStringLiteral("stale-object")));
    }
};

QTEST_GUILESS_MAIN(TestScenarioEngine)
#include "tst_scenarioengine.moc"

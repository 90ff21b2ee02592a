// Which etcd watches share a gRPC stream in the simulated apiserver: each resource's storage has
// its own etcd client (storagebackend/factory/etcd3.go newETCD3Storage, once per resource), so a
// cacher shares its stream only with etcd-served watches of its own resource, and with none of
// them when SeparateCacheWatchRPC gives it a stream of its own. A flood of another resource's
// watches (events, which have no watch cache) cannot hold a cacher back; its own resource's
// RV="" watches on 1.27.0 can.
#include "detect/DetectorHub.h"
#include "kube/FeatureGates.h"
#include "sources/sim/SimContext.h"
#include "sources/sim/apiserver/ApiServer.h"
#include "sources/sim/etcd/EtcdWatchHub.h"
#include "sources/sim/etcd/SimEtcd.h"
#include "sources/sim/etcd/SimKeyspace.h"
#include "util/SeededRandom.h"

#include <QTest>

using namespace ws;

namespace {

// pods (cached) and events (no watch cache: every watch served by etcd) on one apiserver whose
// etcd streams each carry at most 100 events a second.
struct TwoResources {
    explicit TwoResources(const QString& version, const QMap<QString, bool>& gates = {})
        : etcd(keyspace), hub(keyspace.keys()), ctx{keyspace, etcd, hub, rng, 0, milliseconds(10)} {
        pods = keyspace.addResource(QStringLiteral("pods"));
        events = keyspace.addResource(QStringLiteral("events"));
        for (int i = 0; i < 50; ++i) {
            podKeys.push_back(keyspace.addKey(pods, QStringLiteral("default"),
                                              QStringLiteral("pod-%1").arg(i), 0));
            eventKeys.push_back(keyspace.addKey(events, QStringLiteral("default"),
                                                QStringLiteral("ev-%1").arg(i), 0));
        }
        for (KeyId k : podKeys)
            etcd.put(0, k, std::string(300, 'p'));
        for (KeyId k : eventKeys)
            etcd.put(0, k, std::string(300, 'e'));
        ApiServerConfig config;
        config.profile = *ServerProfile::fromVersion(version, nullptr);
        FeatureGates::apply(config.profile, gates);
        config.etcd = EtcdFacts(QStringLiteral("3.5.13"));
        config.etcdStreamEventsPerSecond = 100;
        server = std::make_unique<ApiServer>(ctx, config, std::vector<int>{pods, events});
        server->start();
    }
    void tick() {
        ctx.now += ctx.dt;
        etcd.watches().tick(ctx.now);
        server->tick();
        for (auto& w : watches) // clients that read everything at once
            w->buffer.clear();
    }
    void watchFromEtcd(int resource, int count) {
        for (int i = 0; i < count; ++i) {
            ApiServer::WatchOptions options;
            options.resource = resource;
            options.rvEmpty = true;
            ApiStatus error;
            auto w = server->watch(options, &error);
            QVERIFY2(w, qPrintable(error.message));
            QVERIFY(w->fromEtcd);
            watches.push_back(w);
        }
    }
    ResourceVersion writePod(int i) {
        return etcd.put(ctx.now, podKeys[static_cast<std::size_t>(i) % podKeys.size()],
                        std::string(300, 'q'));
    }
    void write(int resource, int i) {
        const auto& keys = resource == pods ? podKeys : eventKeys;
        etcd.put(ctx.now, keys[static_cast<std::size_t>(i) % keys.size()], std::string(300, 'w'));
    }

    KeyTable keyTable;
    SimKeyspace keyspace{keyTable};
    SimEtcd etcd;
    DetectorHub hub;
    SeededRandom rng{7};
    SimContext ctx;
    int pods = -1, events = -1;
    std::vector<KeyId> podKeys, eventKeys;
    std::unique_ptr<ApiServer> server;
    std::vector<std::shared_ptr<ServerWatch>> watches;
};

} // namespace

class TestEtcdStreams : public QObject {
    Q_OBJECT
private slots:
    // A stream per resource; the cacher's watch and its resource's etcd-served watches on one
    // stream unless SeparateCacheWatchRPC is on.
    void streamPerResource_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("separate");
        QTest::newRow("1.27.0 (no gate yet)") << "1.27.0" << false;
        QTest::newRow("1.28.8 (gate on)") << "1.28.8" << true;
        QTest::newRow("1.30 (gate on)") << "1.30" << true;
        QTest::newRow("1.34 (gate off from 1.33)") << "1.34" << false;
    }
    void streamPerResource() {
        QFETCH(QString, version);
        QFETCH(bool, separate);
        TwoResources c(version);
        const int podsCache = c.server->cacheStream(c.pods);
        const int podsClient = c.server->clientStream(c.pods);
        const int eventsClient = c.server->clientStream(c.events);
        QVERIFY(podsCache >= 0 && podsClient >= 0 && eventsClient >= 0);
        QVERIFY(eventsClient != podsCache);
        QVERIFY(eventsClient != podsClient);
        QCOMPARE(podsClient != podsCache, separate);
        // events have no cacher: one stream, the store's own client.
        QCOMPARE(c.server->cacheStream(c.events), eventsClient);
        QCOMPARE(c.server->cacheStream(99), -1);
    }

    // 20 etcd-served watches over a stream of 100 events/s, their resource written 33 times a
    // second for 3 s, beside the pods cacher: the cacher keeps up unless those watches are on
    // its own stream.
    void floodOnlyHoldsItsOwnStream_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("flooded");
        QTest::addColumn<bool>("cacherHeldBack");
        QTest::newRow("1.34: events watches beside the pods cacher") << "1.34"
                                                                     << "events" << false;
        QTest::newRow("1.27.0: events watches beside the pods cacher") << "1.27.0"
                                                                       << "events" << false;
        QTest::newRow("1.27.0: RV=\"\" pods watches on the pods cacher's stream") << "1.27.0"
                                                                                  << "pods" << true;
        QTest::newRow("1.28.8: RV=\"\" pods watches, SeparateCacheWatchRPC on") << "1.28.8"
                                                                                << "pods" << false;
    }
    void floodOnlyHoldsItsOwnStream() {
        QFETCH(QString, version);
        QFETCH(QString, flooded);
        QFETCH(bool, cacherHeldBack);
        TwoResources c(version);
        for (int i = 0; i < 20 && !c.server->cacher(c.pods)->ready(); ++i)
            c.tick();
        QVERIFY(c.server->cacher(c.pods)->ready());
        const int floodedResource = flooded == QLatin1String("pods") ? c.pods : c.events;
        c.watchFromEtcd(floodedResource, 20);
        const int floodStream = c.server->clientStream(floodedResource);
        ResourceVersion lastPod = 0;
        int maxBacklog = 0;
        for (int t = 0; t < 300; ++t) {
            // The flooded resource about 33 times a second (what its stream could carry for
            // one watch, not for 21); pods 10 times a second unless they are the flooded one.
            if (t % 3 == 0) {
                c.write(floodedResource, t);
                if (floodedResource == c.pods)
                    lastPod = c.etcd.currentRevision();
            }
            if (floodedResource != c.pods && t % 10 == 0)
                lastPod = c.writePod(t);
            c.tick();
            maxBacklog = std::max(maxBacklog, c.etcd.watches().queuedResponses(floodStream));
        }
        // The flooded stream is far behind either way (the load is real).
        QVERIFY2(maxBacklog >= 100, qPrintable(QString::number(maxBacklog)));
        const ResourceVersion cacheRv = c.server->cacher(c.pods)->cache().resourceVersion();
        // Held back: the cacher has not even seen the last pod write (10 ticks old); else it
        // has.
        QVERIFY2((cacheRv < lastPod) == cacherHeldBack,
                 qPrintable(QStringLiteral("cache %1, last pod %2").arg(cacheRv).arg(lastPod)));
    }
};

QTEST_GUILESS_MAIN(TestEtcdStreams)
#include "tst_etcdstreams.moc"

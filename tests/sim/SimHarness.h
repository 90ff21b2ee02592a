#pragma once

// A small cluster for tests: the real simulated etcd, detectors and one apiserver, driven tick by
// tick on the virtual clock.
#include "detect/DetectorHub.h"
#include "kube/FeatureGates.h"
#include "sources/sim/SimContext.h"
#include "sources/sim/apiserver/ApiServer.h"
#include "sources/sim/etcd/EtcdWatchHub.h"
#include "sources/sim/etcd/SimEtcd.h"
#include "sources/sim/etcd/SimKeyspace.h"
#include "util/SeededRandom.h"

#include <memory>

namespace ws::test {

struct SimHarness {
    // cacherListDuration: how long the cacher's list takes to land in the cache (not ready
    // meanwhile, from the start).
    SimHarness(const QString& serverVersion, int objects, TimeUs cacherListDuration)
        : SimHarness(serverVersion, objects, QStringLiteral("configmaps"), cacherListDuration) {}
    // gates: feature gates set on the profile as given (FeatureGates::apply, unchecked).
    explicit SimHarness(const QString& serverVersion, int objects = 10,
                        const QString& resourceName = QStringLiteral("configmaps"),
                        TimeUs cacherListDuration = 0, const QMap<QString, bool>& gates = {})
        : etcd(keyspace), hub(keyspace.keys()), ctx{keyspace, etcd, hub, rng, 0, milliseconds(10)} {
        hub.setSink([this](const Anomaly& a) { anomalies.push_back(a); });
        resource = keyspace.addResource(resourceName);
        for (int i = 0; i < objects; ++i)
            keys.push_back(keyspace.addKey(resource, QStringLiteral("default"),
                                           QStringLiteral("cm-%1").arg(i), i % 4));
        for (KeyId k : keys)
            etcd.put(0, k, std::string(300, 'v'));
        ApiServerConfig config;
        config.profile = *ServerProfile::fromVersion(serverVersion, nullptr);
        FeatureGates::apply(config.profile, gates);
        config.cacherListDurations = {cacherListDuration};
        server = std::make_unique<ApiServer>(ctx, config, std::vector<int>{resource});
        server->start();
    }
    void tick() {
        ctx.now += ctx.dt;
        etcd.watches().tick(ctx.now);
        server->tick();
    }
    void runFor(TimeUs d) {
        const TimeUs end = ctx.now + d;
        while (ctx.now < end)
            tick();
    }
    void write(int i) {
        etcd.put(ctx.now, keys[static_cast<size_t>(i) % keys.size()], std::string(300, 'w'));
    }

    KeyTable keyTable;
    SimKeyspace keyspace{keyTable};
    SimEtcd etcd;
    DetectorHub hub;
    SeededRandom rng{7};
    SimContext ctx;
    int resource = -1;
    std::vector<KeyId> keys;
    std::unique_ptr<ApiServer> server;
    AnomalyList anomalies;
};

} // namespace ws::test

#pragma once

#include "RecordedEtcdStream.h"
#include "model/ResourceVersion.h"

#include <QMap>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace ws {

// A scenario file (resources/scenarios/*.yaml) as data: the cluster, the server and client
// profiles and the timed faults. It says nothing about which anomalies to expect: those come
// from the simulated machinery.

struct ResourceSpec {
    QString name;      // plural: configmaps, pods
    int objects = 100; // objects kept alive (creates and deletes balance around it)
    double writesPerSecond = 10;
    int valueBytes = 1024;     // serialized object size
    double deleteShare = 0.05; // share of writes that delete (an equal share creates)
    int namespaces = 3;
    int selectorGroups = 10; // objects spread over node-0..node-N-1 (field selector targets)
    // How long each apiserver's cacher takes from reading this resource from etcd until the
    // list is in its watch cache (decoding, CRD conversion of every object): the cache is not
    // ready meanwhile, and its watch starts from the list's RV only then.
    TimeUs cacherListDuration = 0;
};

struct EtcdSpec {
    QString version = QStringLiteral("3.4.23");
    TimeUs progressNotifyInterval = seconds(5);
    TimeUs compactionInterval = seconds(300); // kube-apiserver --etcd-compaction-interval
    double streamEventsPerSecond = 0;         // how fast one gRPC watch stream drains (0: no limit)
};

// server.memory: the apiservers account for the memory their lists hold (kube/ListMemoryRules.h)
// and record the list-pressure series; with a limit an apiserver above it is OOM-killed.
struct ServerMemorySpec {
    bool enabled = false;              // the key is present
    std::int64_t baselineBytes = 0;    // what an idle apiserver holds (caches, heap)
    std::int64_t limitBytes = 0;       // 0: no limit
    double listBytesPerSecond = 0;     // how fast one list moves its bytes; 0: lists are instant
    TimeUs restartAfter = seconds(30); // an OOM-killed apiserver is back after this
};

struct ServerSpec {
    QString version = QStringLiteral("1.30");
    int count = 1;
    // The apiservers sit behind a load balancer: a request to one that is down is accepted and
    // dropped (EOF / connection reset) instead of refused, and the retry lands on another.
    bool loadBalancer = false;
    TimeUs requestTimeout = seconds(60); // --request-timeout (sizes the 1.33+ event history)
    // Gates set explicitly (kube/FeatureGates.h names them); the others take the version's
    // default.
    QMap<QString, bool> featureGates;
    ServerMemorySpec memory;
};

struct ClientSpec {
    QString name; // id prefix: <name>-<n>
    QString resource;
    int count = 1;
    QString clientGo = QStringLiteral("current");
    double readEventsPerSecond = 0; // 0: reads as fast as events come
    int selectorGroup = -1;         // -1: none; watches spec.nodeName=node-<group>; with
                                    // count > 1, instance n watches node-<group+n>
    int apiserver = -1;             // -1: spread over the apiservers
    TimeUs startAt = 0;
    TimeUs startSpread = 0; // with count > 1, instance n starts at startAt + n * spread / count
    // Watches with resourceVersion="" and never lists (kubectl get -w, falco): keeps no
    // consistent store, so its store is not checked against etcd.
    bool watchOnly = false;
    // Lists with resourceVersion="" (a plain List() with default options, a consistent read)
    // until it has synced once, as node agents that list then watch without an informer do.
    bool consistentFirstList = false;
    // via: proxy-without-initial-events-end: its watches go through a proxy / aggregated API
    // server that accepts sendInitialEvents but never sends the initial-events-end bookmark.
    bool viaInitialEventsProxy = false;
    // Through a proxy that passes the watch-list request on but drops every BOOKMARK event of
    // the stream, the initial-events-end one included (Teleport's kube agent, #64188).
    bool viaBookmarkDroppingProxy = false;
};

struct FaultSpec {
    TimeUs at = 0;
    QString kind; // compact, restart-apiserver, partition-apiserver, stall-stream,
                  // restart-client, slow-reader, write-burst
    int apiserver = 0;
    QString client;   // client name prefix (all its instances) for client faults
    QString resource; // write-burst: its resource; stall-stream: one resource's (empty: all)
    TimeUs duration = 0;
    double rate = 0;     // slow-reader: events/s; write-burst: writes/s
    int toApiserver = 0; // restart-client: where it reconnects
    TimeUs stagger = 0;  // restart-apiserver with count>1: one after the other
};

struct Scenario {
    QString name;
    QString description; // one line
    QString explanation; // what happens, why, which versions, the upstream fix, what to do
    TimeUs duration = seconds(60);
    std::uint64_t seed = 1;
    EtcdSpec etcd;
    ServerSpec server;
    std::vector<ResourceSpec> resources;
    std::vector<ClientSpec> clients;
    std::vector<FaultSpec> faults;
    QString sourcePath; // where it was loaded from
    QByteArray yaml;    // the text it was parsed from (a capture keeps it to run it again)
    // Set for a what-if of an etcd capture: the recorded writes replace the generated workload
    // (the resources' rates and sizes are then unused).
    std::shared_ptr<const RecordedEtcdStream> recorded;

    QStringList resourceNames() const;
};

} // namespace ws

#pragma once

#include "EtcdClient.h"

#include <QString>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace ws {

struct EtcdLoadOptions {
    EtcdConnectOptions connect;
    double rate = 100; // writes per second over all writers; <= 0: as fast as etcd takes them
    std::chrono::milliseconds duration{30000}; // 0: until maxWrites or stop()
    std::int64_t maxWrites = 0;                // 0: no limit
    int objects = 100;                         // distinct objects the writes cycle through
    // Every compactEvery, compact to the revision seen one period earlier (as kube-apiserver's
    // compactor does); 0: never.
    std::chrono::milliseconds compactEvery{0};
    std::string prefix = "/registry/";
    std::string namespace_ = "default";
    double customResourceShare = 0.25; // share of objects that are JSON CronTabs
    int valueBytes = 500;              // approximate size of each stored value
    double deleteShare = 0.1;          // of writes to an existing object
    int concurrency = 1;               // parallel writers (each with its own objects)
    // Writes a writer sends as one Txn (distinct objects, one revision): what lets one etcd on a
    // small machine take tens of thousands of writes a second. 1: a Put or Delete each.
    int batch = 1;
    std::uint64_t seed = 1;
};

struct EtcdLoadStats {
    std::int64_t creates = 0;
    std::int64_t updates = 0;
    std::int64_t deletes = 0;
    std::int64_t compactions = 0;
    std::int64_t errors = 0;
    ResourceVersion firstRevision = 0;
    ResourceVersion lastRevision = 0;
    ResourceVersion compactRevision = 0;
    QString lastError;
    std::int64_t writes() const { return creates + updates + deletes; }
};

// Writes Kubernetes-shaped objects into etcd: ConfigMaps in the "k8s\0" protobuf envelope (as
// kube-apiserver stores built-in kinds) and CronTabs of the stable.example.com custom resource as
// JSON, with a create/update/delete mix at a given rate, and optional periodic compaction.
class EtcdLoadGenerator {
public:
    explicit EtcdLoadGenerator(EtcdLoadOptions options);
    ~EtcdLoadGenerator();

    // Blocks until the duration, maxWrites or stop(). False with one clear line in *error when
    // etcd cannot be reached at the start; write errors later are counted and retried.
    bool run(QString* error);
    void stop() { m_stop = true; }
    EtcdLoadStats stats() const;
    // Called about once a second from run()'s thread.
    std::function<void(const EtcdLoadStats&)> onProgress;

    // The stored forms, also used by tests.
    static std::string configMapKey(const std::string& prefix, const std::string& ns,
                                    const std::string& name);
    static std::string cronTabKey(const std::string& prefix, const std::string& ns,
                                  const std::string& name);
    static std::string configMapValue(const std::string& name, const std::string& ns,
                                      const std::string& uid, std::int64_t generation,
                                      int valueBytes);
    static std::string cronTabValue(const std::string& name, const std::string& ns,
                                    const std::string& uid, std::int64_t generation,
                                    int valueBytes);

private:
    void writer(int index, EtcdClient& client);
    void record(ResourceVersion rev, int kind, const QString& error);

    EtcdLoadOptions m_options;
    std::atomic_bool m_stop{false};
    std::atomic<std::int64_t> m_budget{0}; // writes handed out (maxWrites)
    mutable std::mutex m_mutex;
    EtcdLoadStats m_stats;
    std::chrono::steady_clock::time_point m_start;
};

} // namespace ws

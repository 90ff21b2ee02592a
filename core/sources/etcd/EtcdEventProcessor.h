#pragma once

#include "EtcdWatchStream.h"
#include "detect/DetectorHub.h"
#include "detect/RevisionAccount.h"
#include "kube/KubernetesKeyDecoder.h"
#include "model/Anomaly.h"
#include "model/KeyTable.h"

#include <QString>
#include <QStringList>
#include <QVector>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ws {

class Pipeline;

// Per Kubernetes resource, what the etcd stream showed.
struct EtcdResourceStats {
    QString resource;
    qint64 objects = 0; // keys currently present
    qint64 creates = 0;
    qint64 updates = 0;
    qint64 deletes = 0;
    ResourceVersion lastRv = 0; // revision of the latest event of this resource
    // kube-apiserver's watch cache for this resource, fed from the stream (Options::watchCache).
    bool cacheReady = false;
    ResourceVersion cacheRv = 0;
    qint64 bufferUsed = 0;
    qint64 bufferCapacity = 0;
    ResourceVersion bufferOldestRv = 0;
    qint64 cacheObjects = 0;
};

struct EtcdProcessorStats {
    qint64 responses = 0;
    qint64 events = 0;
    qint64 revisions = 0;       // distinct revisions delivered by the watch
    qint64 revisionsByList = 0; // revisions covered by a relist after a compacted cancel
    qint64 progressNotifications = 0;
    qint64 lists = 0; // completed lists, the first one included
    qint64 compactedCancels = 0;
    qint64 brokenStreams = 0;
    qint64 protobufValues = 0;
    qint64 jsonValues = 0;
    qint64 encryptedValues = 0;
    qint64 undecodableValues = 0;
    qint64 bytes = 0;                  // key + value bytes of events and listed kvs
    ResourceVersion firstRevision = 0; // first event revision delivered
    ResourceVersion lastRevision = 0;  // highest event revision delivered
    ResourceVersion position = 0;      // what the processor is synced to (events, lists, progress)
    ResourceVersion listRevision = 0;
    ResourceVersion compactRevision = 0;
    ResourceVersion headRevision = 0;
    QString endpoint;
    QString state;     // "listing", "watching", "reconnecting", "relisting"
    QString lastError; // one line, no credentials
};

// The etcd decoder on the session thread: turns what the stream received (EtcdFrameDecoder
// feeds it, from live frames or a capture) into observations for the pipeline's DetectorHub:
// keys and values decoded (Kubernetes resources, kinds), undecodable values reported, the
// content of every event handed on for the hub's key-history checks (IsCreate, PrevKV), and
// kube-apiserver's watch cache run per resource over the stream (Options::watchCache).
// Single-threaded except stats() / resourceStats() / resources(), which other threads may read.
class EtcdEventProcessor : public EtcdWatchListener {
public:
    struct Options {
        std::string prefix = "/registry/"; // only keys under it are shown as resources
        QString watcherId = QStringLiteral("watchscope/etcd");
        bool seesEveryRevision = true; // the watch covers the whole keyspace
        std::int64_t pageSize = 1000;
        bool decodeValues = true;
        int maxUndecodableReports = 100;
        // Runs kube-apiserver's WatchCache per resource over the stream (ring buffer, capacity,
        // cache RV as the cacher would have them); costs a copy of every value.
        bool watchCache = false;
    };
    using Clock = std::function<TimeUs()>;

    // Observations go to the pipeline's DetectorHub, keys to its KeyTable; anomalies of the
    // whole-keyspace watcher get the resource of their key. `clock` is session time (default:
    // since construction). The pipeline must outlive the processor's last observation.
    explicit EtcdEventProcessor(Options options, Pipeline& pipeline, Clock clock = {});
    ~EtcdEventProcessor() override;

    // The head revision from Status polling (progress notifications update it too).
    void noteHead(ResourceVersion head);
    void noteCompactRevision(ResourceVersion rev);
    void noteError(const QString& line);

    // Samples the watcher's position into the hub (lag, stuck) and runs its timers.
    void tick();

    EtcdProcessorStats stats() const;
    // The books of every revision the watch was responsible for (issue 14): from the first
    // list's revision + 1 (or the start revision) to the newest head heard of, each revision seen
    // (an event, or a progress notification proving there was none) or lost (a relist after a
    // compacted cancel, raised as revision-gap; a skipped revision, raised by the hub's
    // ReliabilityChecker). A copy, for any thread.
    RevisionAccount revisionAccount() const;
    QVector<EtcdResourceStats> resourceStats() const;
    QStringList resources() const;
    // The resource a key belongs to ("(other)" under the prefix without one; empty outside it).
    // Session thread only.
    QString resourceOfKey(const QString& key) const;
    double lagSeconds() const;
    TimeUs now() const;
    WatcherId watcher() const;

    // EtcdWatchListener
    void listStarted(bool relist) override;
    void listPage(const WireRangeResponse& page) override;
    void listCompleted(ResourceVersion listRevision, std::int64_t items) override;
    void listFailed(const QString& message, bool compacted) override;
    void watchOpened(ResourceVersion startRevision, const QString& endpoint) override;
    void watchResponse(const WireWatchResponse& response) override;
    void watchProgress(ResourceVersion revision) override;
    void watchCompacted(ResourceVersion startRevision, ResourceVersion compactRevision) override;
    void watchBroken(const QString& message, bool transport,
                     std::chrono::milliseconds retryIn) override;

private:
    struct KeyState;
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace ws

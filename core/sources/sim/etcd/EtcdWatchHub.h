#pragma once

#include "kube/KeyValue.h"
#include "util/RingQueue.h"

#include <span>
#include <vector>

namespace ws {

class SimEtcd;

// An event as a watch stream puts it on the wire: prev_kv is looked up at send time, so it is
// absent when compaction passed mod_revision-1 while the event waited (etcd v3rpc sendLoop).
// Both pointers are valid during onEtcdWatchResponse only; event->prev is not set.
struct SentEvent {
    const MvccEvent* event = nullptr;
    const KeyValuePtr* prevKv = nullptr; // null: no prev_kv on the wire
};

struct EtcdWatchResponse {
    int watchId = -1;
    ResourceVersion headerRevision = 0;
    bool canceled = false;
    ResourceVersion compactRevision = 0;
    std::span<const SentEvent> events;

    bool isProgress() const { return events.empty() && !canceled && compactRevision == 0; }
};

class EtcdWatchReceiver {
public:
    virtual ~EtcdWatchReceiver() = default;
    virtual void onEtcdWatchResponse(const EtcdWatchResponse& response) = 0;
};

struct EtcdWatchOptions {
    int resource = -1;                 // the key prefix /registry/<resource>/
    ResourceVersion startRevision = 0; // 0: current revision + 1
    bool prevKv = false;
    bool progressNotify = false;
};

struct EtcdWatchHubConfig {
    int channelSlots = 128;          // chanBufLen: shared by all watchers of one stream
    int maxRevisionsPerBatch = 1000; // watchBatchMaxRevs
    TimeUs victimRetry = milliseconds(10);
    TimeUs syncInterval = milliseconds(100);
    TimeUs progressInterval = seconds(10); // --experimental-watch-progress-notify-interval
    // etcd < 3.4.31 / 3.5.13 (issue #17529): an unsynced watcher whose start revision was
    // compacted while its stream's channel was full is moved past the compacted revisions
    // without a compacted response, silently losing events. Debian's 3.4.23 has it.
    bool compactedWatcherSkipBug = true;
};

// The watch side of the simulated etcd: gRPC watch streams, each multiplexing several watchers
// over one bounded channel with one send loop; synced, unsynced and victim watchers as in
// mvcc/watchable_store.go.
class EtcdWatchHub {
public:
    explicit EtcdWatchHub(const SimEtcd& etcd);

    void setConfig(const EtcdWatchHubConfig& config) { m_config = config; }
    const EtcdWatchHubConfig& config() const { return m_config; }

    // eventsPerSecond: how fast the stream's receiver drains it (0: as fast as sent).
    int openStream(double eventsPerSecond);
    void setStreamStalled(int stream, bool stalled);
    void closeStream(int stream);

    int watch(int stream, const EtcdWatchOptions& options, EtcdWatchReceiver* receiver);
    void cancel(int watchId);

    // A WatchRequest_ProgressRequest on the stream (clientv3 RequestProgress): when every
    // watcher of the stream is synced, a progress notification at the current revision goes
    // to each of them through the stream's channel (watchableStore.progressAll, 3.4.31+/3.5.13+
    // behaviour); otherwise nothing, and the requester asks again.
    void requestProgress(int stream);
    std::int64_t progressRequests() const { return m_progressRequests; }

    void notify(const MvccEvent& event); // called by SimEtcd for every revision
    void tick(TimeUs now);

    int queuedResponses(int stream) const;
    int victimCount() const;
    int unsyncedCount() const;
    std::int64_t skippedRevisions() const { return m_skippedRevisions; }

private:
    enum class WatcherState : std::uint8_t { Synced, Unsynced, Victim, Done };
    struct Watcher {
        int id = -1;
        int stream = -1;
        EtcdWatchOptions options;
        EtcdWatchReceiver* receiver = nullptr;
        WatcherState state = WatcherState::Synced;
        ResourceVersion minRev = 0;
        std::vector<MvccEvent> victimBatch;
        ResourceVersion victimMoreRev = 0;
    };
    // What waits in a stream's channel: the events without their previous versions, which the
    // send loop reads from the history when it sends (and which would otherwise be touched,
    // cold, once more per queued copy).
    struct Response {
        int watchId = -1;
        ResourceVersion header = 0;
        ResourceVersion compactRevision = 0;
        // A live notification carries one event: keep it inline and save an allocation per
        // event; catch-up batches use the vector.
        bool hasSingle = false;
        MvccEvent single;
        std::vector<MvccEvent> events;

        std::size_t size() const { return hasSingle ? 1 : events.size(); }
        const MvccEvent* begin() const { return hasSingle ? &single : events.data(); }
        const MvccEvent* end() const { return begin() + size(); }
    };
    struct Stream {
        RingQueue<Response> channel;
        double eventsPerSecond = 0;
        double credit = 0;
        // Responses the send loop will put on the wire during the current tick: the channel
        // can take that many beyond its slots, as the sender drains it concurrently.
        std::size_t allowance = std::size_t(1) << 40;
        bool stalled = false;
        bool open = true;
        std::vector<int> watchers;
    };

    bool trySend(Watcher& w, Response&& response);
    void setState(Watcher& w, WatcherState state);
    void moveVictims();
    void syncWatchers();
    void sendProgress();
    void drain(Stream& stream, int streamId, double dtSeconds);
    std::vector<MvccEvent> historyFor(const Watcher& w, ResourceVersion from,
                                      ResourceVersion& moreRev) const;

    const SimEtcd& m_etcd;
    EtcdWatchHubConfig m_config;
    std::vector<Stream> m_streams;
    std::vector<Watcher> m_watchers;
    std::vector<std::vector<int>> m_syncedByResource;
    std::vector<int> m_unsynced;
    std::vector<int> m_victims;
    std::vector<SentEvent> m_sendBuffer;
    TimeUs m_now = 0;
    TimeUs m_lastVictimRetry = 0;
    TimeUs m_lastSync = 0;
    TimeUs m_lastProgress = 0;
    std::int64_t m_skippedRevisions = 0;
    std::int64_t m_progressRequests = 0;
};

} // namespace ws

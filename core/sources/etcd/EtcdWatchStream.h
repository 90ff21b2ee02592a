#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace grpc {
class Channel;
class ClientContext;
} // namespace grpc

namespace ws {

class EtcdClient;
class WireRangeResponse;
class WireWatchResponse;

struct EtcdWatchOptions {
    // The watched range: [key, rangeEnd). Defaults to the whole keyspace ("\0", "\0"), which sees
    // every revision (the apiserver's compactor writes compact_rev_key outside /registry/).
    std::string key = std::string(1, '\0');
    std::string rangeEnd = std::string(1, '\0');
    // 0: list first (paged Range pinned to one revision), then watch from list revision + 1.
    // >0: watch from this revision (1 replays the whole retained history) without a list.
    ResourceVersion startRevision = 0;
    std::int64_t pageSize = 1000;
    bool prevKv = true;
    bool progressNotify = true;
    bool fragment = true;
    std::chrono::milliseconds backoffInitial{800};
    std::chrono::milliseconds backoffMax{30000};
};

// What the stream's thread receives, as it receives it, in order: the capture seam. Every
// WatchResponse and every RangeResponse page is handed over with its bytes as they arrived
// (created, canceled and fragment pieces included); the rest are the stream's own actions.
class EtcdTransportSink {
public:
    virtual ~EtcdTransportSink() = default;
    virtual void listStarted(bool relist) = 0;
    virtual void rangePage(const WireRangeResponse& page) = 0; // page.bytes(): as received
    virtual void listCompleted(ResourceVersion listRevision, std::int64_t items) = 0;
    virtual void listFailed(const QString& message, bool compacted) = 0;
    // A create request was sent (start revision as sent; 0 = from now).
    virtual void watchCreateSent(ResourceVersion startRevision, const QString& endpoint) = 0;
    virtual void watchReceived(const WireWatchResponse& response) = 0; // response.bytes()
    virtual void watchBroken(const QString& message, bool transport,
                             std::chrono::milliseconds retryIn) = 0;
};

// What a decoder makes of those (EtcdFrameDecoder), in order. Fragments are merged before
// watchResponse(); a response handed over has at least one event.
class EtcdWatchListener {
public:
    virtual ~EtcdWatchListener() = default;
    virtual void listStarted(bool relist) = 0;
    virtual void listPage(const WireRangeResponse& page) = 0;
    virtual void listCompleted(ResourceVersion listRevision, std::int64_t items) = 0;
    virtual void listFailed(const QString& message, bool compacted) = 0;
    // The create request was accepted (start revision as sent; 0 = from now).
    virtual void watchOpened(ResourceVersion startRevision, const QString& endpoint) = 0;
    virtual void watchResponse(const WireWatchResponse& response) = 0;
    virtual void watchProgress(ResourceVersion revision) = 0;
    // The watch was canceled because startRevision is below the compact revision.
    virtual void watchCompacted(ResourceVersion startRevision, ResourceVersion compactRevision) = 0;
    // The stream ended for any other reason (server cancel, transport failure); the stream
    // reconnects after retryIn and resumes from the last revision + 1.
    virtual void watchBroken(const QString& message, bool transport,
                             std::chrono::milliseconds retryIn) = 0;
};

// One etcd bidi Watch stream on its own thread, kept alive across failures: it resumes from the
// last delivered revision + 1 after a broken stream (backoff 800 ms -> 30 s, moving to the next
// endpoint), and relists (paged, pinned) when etcd cancels it as compacted: at the compact
// revision itself, the oldest one etcd still has, so that only the compacted revisions are
// lost (at the head when that revision is compacted too by the time the list reads it).
class EtcdWatchStream {
public:
    EtcdWatchStream(EtcdClient& client, EtcdWatchOptions options, EtcdTransportSink& sink);
    ~EtcdWatchStream();
    EtcdWatchStream(const EtcdWatchStream&) = delete;
    EtcdWatchStream& operator=(const EtcdWatchStream&) = delete;

    void start(); // returns at once; the stream runs on its own thread
    void stop();  // cancels the stream and joins the thread
    void run();   // the loop itself (blocking), for callers that bring their own thread

    // Asks etcd for a progress notification (answered with watch_id -1). Thread-safe.
    bool requestProgress();
    // Breaks the current stream as a network failure would; the stream resumes after backoff.
    void interrupt();
    // While held, the stream does not reconnect (tests: make room for a compaction).
    void setHold(bool hold);

    ResourceVersion nextRevision() const { return m_nextRevision.load(); }
    std::int64_t reconnects() const { return m_reconnects.load(); }
    std::int64_t relists() const { return m_relists.load(); }
    bool connected() const { return m_connected.load(); }

private:
    void sleepFor(std::chrono::milliseconds d);
    void sleepUntilReconnected(std::chrono::milliseconds d, grpc::Channel& channel);
    void waitWhileHeld();
    bool listOnce(bool relist, ResourceVersion atRevision);

    EtcdClient& m_client;
    EtcdWatchOptions m_options;
    EtcdTransportSink& m_sink;
    std::thread m_thread;
    std::atomic_bool m_stopping{false};
    std::atomic<ResourceVersion> m_nextRevision{0};
    std::atomic<std::int64_t> m_reconnects{0};
    std::atomic<std::int64_t> m_relists{0};
    std::atomic_bool m_connected{false};

    struct Live;
    std::mutex m_mutex; // guards m_live and m_hold; never held across a blocking call
    std::condition_variable m_wake;
    std::shared_ptr<Live> m_live;
    bool m_hold = false;
};

} // namespace ws

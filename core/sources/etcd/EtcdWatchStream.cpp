#include "EtcdWatchStream.h"

#include "EtcdClient.h"
#include "EtcdRawMessage.h"
#include "EtcdWireRangeResponse.h"
#include "EtcdWireWatchResponse.h"
#include "rpc.grpc.pb.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/rpc_method.h>
#include <grpcpp/support/sync_stream.h>

#include <pthread.h>
#include <random>

namespace ws {

struct EtcdWatchStream::Live {
    grpc::ClientContext context;
    std::mutex writeMutex; // one writer at a time (the create request, progress requests)
    bool finished = false; // set under writeMutex before Finish(): no more writes
    // Responses arrive as bytes (RawMessage) and are decoded here by WireWatchResponse (views,
    // no per-field allocation); requests stay generated protobuf messages.
    std::unique_ptr<grpc::ClientReaderWriter<etcdserverpb::WatchRequest, RawMessage>> stream;
};

EtcdWatchStream::EtcdWatchStream(EtcdClient& client, EtcdWatchOptions options,
                                 EtcdTransportSink& sink)
    : m_client(client), m_options(std::move(options)), m_sink(sink) {
    m_nextRevision = m_options.startRevision;
}

EtcdWatchStream::~EtcdWatchStream() {
    stop();
}

void EtcdWatchStream::start() {
    if (m_thread.joinable())
        return;
    m_stopping = false;
    m_thread = std::thread([this] {
        pthread_setname_np(pthread_self(), "ws-etcd-watch");
        run();
    });
}

void EtcdWatchStream::stop() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_hold = false;
        if (m_live)
            m_live->context.TryCancel();
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

bool EtcdWatchStream::requestProgress() {
    std::shared_ptr<Live> live;
    {
        std::lock_guard lock(m_mutex);
        live = m_live;
    }
    if (!live || !live->stream)
        return false;
    // A write may block on flow control; it holds only this stream's write mutex, so stop()
    // and interrupt() can still cancel the stream (which makes the write return).
    std::lock_guard writeLock(live->writeMutex);
    if (live->finished)
        return false;
    etcdserverpb::WatchRequest req;
    req.mutable_progress_request();
    return live->stream->Write(req);
}

void EtcdWatchStream::interrupt() {
    std::lock_guard lock(m_mutex);
    if (m_live)
        m_live->context.TryCancel();
}

void EtcdWatchStream::setHold(bool hold) {
    {
        std::lock_guard lock(m_mutex);
        m_hold = hold;
    }
    m_wake.notify_all();
}

void EtcdWatchStream::sleepFor(std::chrono::milliseconds d) {
    std::unique_lock lock(m_mutex);
    m_wake.wait_for(lock, d, [this] { return m_stopping.load(); });
}

void EtcdWatchStream::sleepUntilReconnected(std::chrono::milliseconds d, grpc::Channel& channel) {
    // The backoff spares etcd a storm of retries; it is not there to wait for the network.
    // After failed attempts (a stall, an etcd restart) it has grown to many seconds, so once
    // the channel has been down and has a connection again, the watch resumes at once. A
    // channel that never went down (another endpoint, already connected) waits the backoff.
    constexpr std::chrono::milliseconds kPoll{100};
    const auto until = std::chrono::steady_clock::now() + d;
    bool wasDown = false;
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= until)
            return;
        m_wake.wait_for(lock, std::min<std::chrono::steady_clock::duration>(until - now, kPoll),
                        [this] { return m_stopping.load(); });
        lock.unlock();
        const grpc_connectivity_state state = channel.GetState(true); // connects an idle channel
        lock.lock();
        if (state != GRPC_CHANNEL_READY)
            wasDown = true;
        else if (wasDown)
            return;
    }
}

void EtcdWatchStream::waitWhileHeld() {
    std::unique_lock lock(m_mutex);
    m_wake.wait(lock, [this] { return !m_hold || m_stopping.load(); });
}

bool EtcdWatchStream::listOnce(bool relist, ResourceVersion atRevision) {
    m_sink.listStarted(relist);
    std::int64_t items = 0;
    QString error;
    bool compacted = false;
    const ResourceVersion rev = m_client.rangeAll(
        m_options.key, m_options.rangeEnd, m_options.pageSize,
        [&](const WireRangeResponse& page) {
            items += static_cast<std::int64_t>(page.kvs.size());
            m_sink.rangePage(page);
        },
        &error, &compacted, atRevision);
    if (rev == 0) {
        m_sink.listFailed(error, compacted);
        return false;
    }
    m_sink.listCompleted(rev, items);
    m_nextRevision = rev + 1;
    return true;
}

void EtcdWatchStream::run() {
    std::mt19937 rng(std::random_device{}());
    auto backoff = m_options.backoffInitial;
    auto nextBackoff = [&] {
        // client-go style: the delay doubles up to the cap, with up to +100% jitter.
        std::uniform_real_distribution<double> jitter(1.0, 2.0);
        const auto d = std::chrono::milliseconds(
            static_cast<std::int64_t>(static_cast<double>(backoff.count()) * jitter(rng)));
        backoff = std::min(backoff * 2, m_options.backoffMax);
        return std::min(d, m_options.backoffMax);
    };
    bool needList = m_nextRevision.load() == 0;
    bool listedOnce = false;
    ResourceVersion listAt = 0; // the compact revision of the cancel that asked for the relist
    int lostInARow = 0;         // connections lost with no response received in between

    while (!m_stopping) {
        if (needList) {
            if (listedOnce)
                ++m_relists;
            const bool listed = listOnce(listedOnce, listAt);
            listAt = 0; // compacted further meanwhile, or failed: the next try lists at the head
            if (!listed) {
                sleepFor(nextBackoff());
                continue;
            }
            listedOnce = true;
            needList = false;
        }
        waitWhileHeld();
        if (m_stopping)
            break;

        int channelIndex = 0;
        auto channel = m_client.channel(&channelIndex);
        const QString endpoint = m_client.currentEndpoint();
        const grpc::internal::RpcMethod method("/etcdserverpb.Watch/Watch",
                                               grpc::internal::RpcMethod::BIDI_STREAMING, channel);
        auto live = std::make_shared<Live>();
        // As clientv3.WithRequireLeader: a member cut off from the leader cancels the watch.
        live->context.AddMetadata("hasleader", "true");
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping)
                break;
            live->stream.reset(
                grpc::internal::ClientReaderWriterFactory<etcdserverpb::WatchRequest,
                                                          RawMessage>::Create(channel.get(), method,
                                                                              &live->context));
            m_live = live;
        }

        const ResourceVersion startRevision = m_nextRevision.load();
        {
            etcdserverpb::WatchRequest req;
            auto* create = req.mutable_create_request();
            create->set_key(m_options.key);
            create->set_range_end(m_options.rangeEnd);
            create->set_start_revision(startRevision);
            create->set_progress_notify(m_options.progressNotify);
            create->set_prev_kv(m_options.prevKv);
            create->set_fragment(m_options.fragment);
            std::lock_guard writeLock(live->writeMutex);
            m_sink.watchCreateSent(startRevision, endpoint);
            live->stream->Write(req);
        }

        bool compacted = false;
        bool canceled = false;
        QString cancelReason;
        RawMessage raw;
        WireWatchResponse resp;
        QString malformed;
        ResourceVersion fragmentRevision = 0; // last revision of an unfinished fragmented response
        while (live->stream->Read(&raw)) {
            if (!resp.parse(std::move(raw.bytes))) {
                malformed = QString::fromStdString(resp.error());
                break;
            }
            // Every response goes to the sink as it arrived; the decoder on the session thread
            // merges fragments and makes events of it. Here only what steers the stream.
            m_sink.watchReceived(resp);
            lostInARow = 0;
            if (resp.created)
                m_connected = true;
            if (resp.canceled) {
                if (resp.compactRevision > 0) {
                    compacted = true;
                    listAt = resp.compactRevision;
                } else {
                    canceled = true;
                    cancelReason = QString::fromStdString(resp.cancelReason);
                }
                break;
            }
            if (!resp.events.empty())
                fragmentRevision = resp.events.back().kv.modRevision;
            if (resp.fragment)
                continue; // resume from the start of a revision that has not fully arrived
            if (fragmentRevision > 0) {
                m_nextRevision = fragmentRevision + 1;
                fragmentRevision = 0;
                backoff = m_options.backoffInitial;
            } else if (resp.headerRevision != 0 && resp.compactRevision == 0 && !resp.created) {
                backoff = m_options.backoffInitial;
            }
        }

        m_connected = false;
        {
            std::lock_guard lock(m_mutex);
            m_live = nullptr;
        }
        if (compacted || canceled || !malformed.isEmpty())
            live->context.TryCancel();
        {
            std::lock_guard writeLock(live->writeMutex); // waits out a progress request
            live->finished = true;
        }
        const grpc::Status status = live->stream->Finish();
        if (m_stopping)
            break;
        if (compacted) {
            needList = true; // relist at once; the listener already reported the cancel
            continue;
        }
        ++m_reconnects;
        const auto wait = nextBackoff();
        bool transport = false;
        QString message;
        if (!malformed.isEmpty()) {
            message = QStringLiteral("etcd at %1: %2").arg(endpoint, malformed);
        } else if (canceled) {
            message =
                QStringLiteral("etcd canceled the watch: %1")
                    .arg(cancelReason.isEmpty() ? QStringLiteral("no reason given") : cancelReason);
        } else {
            transport = status.error_code() == grpc::StatusCode::UNAVAILABLE ||
                        status.error_code() == grpc::StatusCode::CANCELLED ||
                        status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
            message = EtcdClient::describeFailure(endpoint, static_cast<int>(status.error_code()),
                                                  status.error_message());
        }
        m_sink.watchBroken(message, transport, wait);
        if (status.error_code() != grpc::StatusCode::CANCELLED || canceled || !malformed.isEmpty())
            m_client.failover(channelIndex);
        const bool connectionLost = !canceled && malformed.isEmpty() &&
                                    (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
                                     status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED);
        if (connectionLost) {
            // The second lost connection in a row with nothing received in between: the
            // channel starts afresh rather than trusting its own reconnection.
            if (++lostInARow >= 2)
                m_client.renewChannel(channelIndex);
            sleepUntilReconnected(wait, *m_client.channel());
        } else {
            lostInARow = 0;
            sleepFor(wait);
        }
    }
}

} // namespace ws

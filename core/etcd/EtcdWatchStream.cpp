#include "EtcdWatchStream.h"

#include "EtcdClient.h"
#include "rpc.grpc.pb.h"

#include <google/protobuf/arena.h>
#include <grpcpp/grpcpp.h>

#include <pthread.h>
#include <random>

namespace ws {

struct EtcdWatchStream::Live {
    grpc::ClientContext context;
    std::unique_ptr<
        grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>>
        stream;
};

EtcdWatchStream::EtcdWatchStream(EtcdClient& client, EtcdWatchOptions options,
                                 EtcdWatchListener& listener)
    : m_client(client), m_options(std::move(options)), m_listener(listener) {
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
    std::lock_guard lock(m_mutex);
    if (!m_live || !m_live->stream)
        return false;
    etcdserverpb::WatchRequest req;
    req.mutable_progress_request();
    return m_live->stream->Write(req);
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

void EtcdWatchStream::waitWhileHeld() {
    std::unique_lock lock(m_mutex);
    m_wake.wait(lock, [this] { return !m_hold || m_stopping.load(); });
}

bool EtcdWatchStream::listOnce(bool relist) {
    m_listener.listStarted(relist);
    std::int64_t items = 0;
    QString error;
    bool compacted = false;
    const ResourceVersion rev = m_client.rangeAll(
        m_options.key, m_options.rangeEnd, m_options.pageSize,
        [&](const std::vector<const mvccpb::KeyValue*>& kvs) {
            items += static_cast<std::int64_t>(kvs.size());
            m_listener.listPage(kvs);
        },
        &error, &compacted);
    if (rev == 0) {
        m_listener.listFailed(error, compacted);
        return false;
    }
    m_listener.listCompleted(rev, items);
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
    // A catch-up response holds up to 1000 revisions with their prev_kv (~1 MB at 500 B values).
    std::vector<char> arenaBlock(4 << 20);
    google::protobuf::ArenaOptions arenaOptions;
    arenaOptions.initial_block = arenaBlock.data();
    arenaOptions.initial_block_size = arenaBlock.size();
    arenaOptions.max_block_size = 8 << 20;
    google::protobuf::Arena arena(arenaOptions);
    bool listedOnce = false;

    while (!m_stopping) {
        if (needList) {
            if (listedOnce)
                ++m_relists;
            if (!listOnce(listedOnce)) {
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
        auto stub = etcdserverpb::Watch::NewStub(channel);
        auto live = std::make_unique<Live>();
        // As clientv3.WithRequireLeader: a member cut off from the leader cancels the watch.
        live->context.AddMetadata("hasleader", "true");
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping)
                break;
            live->stream = stub->Watch(&live->context);
            m_live = live.get();
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
            std::lock_guard lock(m_mutex);
            live->stream->Write(req);
        }

        bool compacted = false;
        bool canceled = false;
        QString cancelReason;
        etcdserverpb::WatchResponse merged;
        bool inFragment = false;
        for (;;) {
            // Each response is parsed into the arena and dropped at once: no per-string
            // malloc/free for keys and values.
            arena.Reset();
            auto* respPtr =
                google::protobuf::Arena::CreateMessage<etcdserverpb::WatchResponse>(&arena);
            if (!live->stream->Read(respPtr))
                break;
            const etcdserverpb::WatchResponse& resp = *respPtr;
            if (resp.created()) {
                m_connected = true;
                m_listener.watchOpened(startRevision, endpoint);
                if (resp.events_size() == 0 && !resp.canceled())
                    continue;
            }
            if (resp.canceled()) {
                if (resp.compact_revision() > 0) {
                    compacted = true;
                    m_listener.watchCompacted(m_nextRevision.load(), resp.compact_revision());
                } else {
                    canceled = true;
                    cancelReason = QString::fromStdString(resp.cancel_reason());
                }
                break;
            }
            const etcdserverpb::WatchResponse* deliver = &resp;
            if (resp.fragment()) {
                if (!inFragment) {
                    merged.Clear();
                    inFragment = true;
                }
                merged.mutable_events()->MergeFrom(resp.events());
                continue;
            }
            if (inFragment) {
                merged.mutable_events()->MergeFrom(resp.events());
                *merged.mutable_header() = resp.header();
                merged.set_watch_id(resp.watch_id());
                deliver = &merged;
                inFragment = false;
            }
            if (deliver->events_size() > 0) {
                m_nextRevision =
                    deliver->events(deliver->events_size() - 1).kv().mod_revision() + 1;
                m_listener.watchResponse(*deliver);
                backoff = m_options.backoffInitial;
            } else if (deliver->header().revision() != 0 && deliver->compact_revision() == 0) {
                m_listener.watchProgress(deliver->header().revision());
                backoff = m_options.backoffInitial;
            }
        }

        m_connected = false;
        {
            std::lock_guard lock(m_mutex);
            m_live = nullptr;
        }
        if (compacted || canceled)
            live->context.TryCancel();
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
        if (canceled) {
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
        m_listener.watchBroken(message, transport, wait);
        if (status.error_code() != grpc::StatusCode::CANCELLED || canceled)
            m_client.failover(channelIndex);
        sleepFor(wait);
    }
}

} // namespace ws

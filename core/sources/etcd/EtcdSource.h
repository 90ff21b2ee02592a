#pragma once

#include "EtcdClient.h"
#include "EtcdEventProcessor.h"
#include "engine/FrameQueue.h"
#include "engine/Source.h"
#include "engine/SourceSpec.h"

#include <QElapsedTimer>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace ws {

class EtcdFrameConsumer;
class EtcdFrameRecorder;
class EtcdWatchStream;

// A live etcd as a source. A transport thread asks Status (the first answer is the connection
// check: it fails the source with one clear line), then runs the bidi watch (EtcdWatchStream,
// its own thread) and keeps polling Status for the head revision; everything they receive
// becomes frames (EtcdFrameRecorder). On the session thread, poll() hands the frames to an
// EtcdFrameConsumer (decoder -> EtcdEventProcessor -> the pipeline's DetectorHub), and every
// 10 ms a Tick frame of its own (detectors ticked, SPEC §3 series sampled when due): a capture
// holds the ticks too, so its replay does exactly what the live session did. Nothing here blocks
// the thread that builds or opens it.
class EtcdSource : public Source {
public:
    EtcdSource(EtcdSourceSpec spec, std::optional<TimeUs> duration);
    ~EtcdSource() override;

    QString description() const override;
    QString kind() const override { return QStringLiteral("etcd"); }
    bool keepsSecrets() const override { return m_spec.keepSecrets; }
    QJsonObject replayInfo() const override;
    bool prepare(QString* error) override;
    bool open(Pipeline& pipeline, QString* error) override;
    TimeUs poll(Pipeline& pipeline) override;
    bool finished() const override;
    QString failure() const override;
    QString state() const override;
    void close(Pipeline& pipeline) override;
    QStringList resources() const override;
    TimeUs now() const override;
    qint64 totalEvents() const override;
    const FrameQueue* frameQueue() const override { return &m_queue; }
    void snapshot(QVector<CacheSnapshot>& caches,
                  QVector<WatcherSnapshot>& watchers) const override;
    void resourceSnapshot(QVector<ResourceSnapshot>& resources) const override;
    // etcd's version from its first Status answer (empty before).
    VersionContext versions() const override;
    QVector<SourceRevisionAccount> revisionAccounts() const override;

    // Synchronously checks that some endpoint answers Status; on failure one clear line (the
    // CLI's `load` prints it and exits non-zero). Blocks: never call it on the GUI thread.
    static bool probe(const EtcdConnectOptions& options, QString* error,
                      EtcdStatus* status = nullptr);
    static EtcdConnectOptions connectOptions(const EtcdSourceSpec& spec);
    // The decoder settings of this spec: a replay of the source's frames uses the same.
    static EtcdEventProcessor::Options processorOptions(const EtcdSourceSpec& spec);

    // Thread-safe views for tests: the decoder's statistics, and the live stream (null before
    // it connected and after close()), which tests break to exercise resumption.
    EtcdProcessorStats stats() const;
    EtcdWatchStream* stream() const;

private:
    void transport(); // the transport thread
    void stopTransport();
    void decodeQueued(Pipeline& pipeline);
    void openConnection(Pipeline& pipeline);
    void tick(Pipeline& pipeline, TimeUs t, bool final);

    EtcdSourceSpec m_spec;
    std::optional<TimeUs> m_duration;
    EtcdConnectOptions m_connect;
    std::unique_ptr<EtcdClient> m_client;
    std::unique_ptr<EtcdFrameConsumer> m_consumer; // decodes, ticks, samples: as a replay does
    std::unique_ptr<EtcdFrameRecorder> m_recorder;
    FrameQueue m_queue;
    std::vector<Frame> m_frames; // drained, being decoded
    QElapsedTimer m_clock;       // session time of this source: since open()
    TimeUs m_lastTick = 0;
    std::thread m_transport;
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_connected{false};
    std::atomic<bool> m_closed{false};
    mutable std::mutex m_mutex; // guards m_stream, m_failure, m_version
    std::unique_ptr<EtcdWatchStream> m_stream;
    QString m_failure;
    QString m_version; // of the etcd that answered the first Status
    int m_connection = 0;
    bool m_connectionOpened = false; // session thread
};

} // namespace ws

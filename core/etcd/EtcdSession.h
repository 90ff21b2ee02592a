#pragma once

#include "EtcdClient.h"
#include "EtcdEventProcessor.h"
#include "engine/Session.h"
#include "engine/SessionOutputs.h"

#include <QStringList>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

namespace ws {

class EtcdWatchStream;

struct EtcdSessionOptions {
    EtcdConnectOptions connect;
    // Only keys under it are shown. "/registry/" (the default), "/" or "" watch the whole
    // keyspace, which sees every revision; a narrower prefix watches just that range.
    std::string prefix = "/registry/";
    QStringList
        resources; // plural names to show ("pods", "crontabs.stable.example.com"); empty: all
    SessionOutputs outputs;
    // 0: list, then watch from the list revision + 1 (as kube-apiserver's cacher does).
    // >0: replay from this revision without a list (1: the whole retained history).
    ResourceVersion startRevision = 0;
    std::chrono::milliseconds statusInterval{100};
    std::chrono::milliseconds duration{0}; // 0: until stop()
    bool watchCache = true; // run kube-apiserver's watch cache per resource over the stream
};

// A live etcd as a Session: a bidi watch (EtcdWatchStream) decoded and validated
// (EtcdEventProcessor -> DetectorHub), the head revision polled with Status, per-resource
// timelines, anomalies and timelines streamed to SessionOutputs, and batched EngineUpdates at
// most 30 times a second. Connection problems after a successful start are retried forever and
// shown in the watcher state; only a failed start emits failed().
class EtcdSession : public Session {
    Q_OBJECT
public:
    explicit EtcdSession(EtcdSessionOptions options, QObject* parent = nullptr);
    ~EtcdSession() override;

    QString description() const override;
    QStringList resources() const override;
    void start() override;
    void stop() override;

    // Synchronously checks that some endpoint answers Status; on failure one clear line (the CLI
    // prints it and exits non-zero).
    static bool probe(const EtcdConnectOptions& options, QString* error,
                      EtcdStatus* status = nullptr);

    // Thread-safe views for the CLI and tests.
    EtcdProcessorStats stats() const;
    AnomalyList anomalies() const;
    bool running() const { return m_running.load(); }
    QString failure() const; // the message of failed(), if any
    // The live stream (null before start / after stop): tests break it to exercise resumption.
    EtcdWatchStream* stream() const { return m_stream.get(); }

private:
    void work();
    void statusLoop();

    EtcdSessionOptions m_options;
    std::unique_ptr<EtcdClient> m_client;
    std::unique_ptr<EtcdEventProcessor> m_processor;
    std::unique_ptr<EtcdWatchStream> m_stream;
    std::thread m_worker;
    std::thread m_status;
    std::atomic_bool m_stopping{false};
    std::atomic_bool m_running{false};
    mutable std::mutex m_mutex;
    QString m_failure;
};

} // namespace ws

#pragma once

#include "ClusterFrameConsumer.h"
#include "engine/FrameQueue.h"
#include "engine/Source.h"
#include "engine/SourceSpec.h"
#include "kubeconfig/ClusterTarget.h"

#include "kube/JsonSecretRedactor.h"

#include <QElapsedTimer>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace ws {

class ClusterHttpTransport;
class ExecCredentialRunner;

// A Kubernetes cluster reached as kubectl reaches it (a kubeconfig context, or --server URLs of
// the apiservers of one cluster): discovery, then per resource and apiserver a client-go
// reflector over real HTTP (ClusterReflector), and the apiservers' own /metrics (watch-cache
// capacity and RV, terminated watchers). Transport threads (ClusterHttpTransport, one per
// apiserver) turn the network into frames; poll() hands them, and a Tick frame of its clock, to
// the ClusterFrameConsumer on the session thread — the very consumer a capture replay feeds.
class ClusterSource : public Source, public ClusterRequestSink {
public:
    ClusterSource(SourceSpec spec, QString version = QStringLiteral("dev"));
    ~ClusterSource() override;

    QString description() const override;
    QString kind() const override { return QStringLiteral("cluster"); }
    bool keepsSecrets() const override { return m_spec.keepSecrets; }
    bool capturableMidway() const override { return false; }
    QJsonObject replayInfo() const override;
    bool prepare(QString* error) override;
    bool open(Pipeline& pipeline, QString* error) override;
    TimeUs poll(Pipeline& pipeline) override;
    bool finished() const override;
    QString failure() const override;
    QStringList securityWarnings() const override;
    QStringList sessionWarnings() const override;
    QString state() const override;
    void close(Pipeline& pipeline) override;
    QStringList resources() const override;
    TimeUs now() const override;
    qint64 totalEvents() const override;
    const FrameQueue* frameQueue() const override { return &m_queue; }
    // Its transports ring the bell for every frame they queue.
    bool setDoorbell(Doorbell* doorbell) override;
    void snapshot(QVector<CacheSnapshot>& caches,
                  QVector<WatcherSnapshot>& watchers) const override;
    void resourceSnapshot(QVector<ResourceSnapshot>& resources) const override;
    // --client-go's profile, and the apiserver's version once discovery found it.
    VersionContext versions() const override;
    // Copies taken after every poll: safe from any thread while the session runs.
    QVector<SourceRevisionAccount> revisionAccounts() const override;

    const std::vector<ClusterTarget>& targets() const { return m_targets; }

    // ClusterRequestSink: the consumer's requests go to the apiservers' transports.
    void send(int server, HttpRequest request) override;
    void cancel(int server, int requestId) override;

private:
    std::vector<ClusterServerInfo> serverInfos() const;
    ClusterScope scope() const;
    void consumeQueued(Pipeline& pipeline);
    void redactSecrets(Frame& frame);

    SourceSpec m_spec;
    QString m_version;
    std::vector<ClusterTarget> m_targets;
    ClientProfile m_profile;
    std::shared_ptr<ExecCredentialRunner> m_exec;
    std::vector<std::unique_ptr<ClusterHttpTransport>> m_transports; // one per apiserver
    std::unique_ptr<ClusterFrameConsumer> m_consumer;
    FrameQueue m_queue;
    std::vector<Frame> m_frames;
    QElapsedTimer m_clock;
    // The bodies of requests for core/v1 Secrets, redacted as they arrive (unless
    // --keep-secrets), before the consumer or a capture sees them. One salt per session.
    QByteArray m_secretSalt;
    std::map<int, JsonSecretRedactor> m_secretBodies; // by request id
    mutable std::mutex m_accountsMutex;
    QVector<SourceRevisionAccount> m_accounts;
};

} // namespace ws

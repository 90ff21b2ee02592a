#pragma once

#include "ClusterReflector.h"
#include "engine/FrameQueue.h"
#include "engine/Source.h"
#include "engine/SourceSpec.h"
#include "http/HttpResponseCollector.h"
#include "kubeconfig/ClusterTarget.h"
#include "metrics/WatchCacheMetrics.h"

#include <QElapsedTimer>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace ws {

class ApiDiscovery;
class ClusterHttpTransport;
class ExecCredentialRunner;

// A Kubernetes cluster reached as kubectl reaches it (a kubeconfig context, or --server URLs of
// the apiservers of one cluster): discovery, then per resource and apiserver a client-go
// reflector over real HTTP (ClusterReflector), and the apiservers' own /metrics (watch-cache
// capacity and RV, terminated watchers). Transport threads (ClusterHttpTransport, one per
// apiserver) turn the network into frames; poll() decodes them on the session thread.
class ClusterSource : public Source {
public:
    ClusterSource(SourceSpec spec, QString version = QStringLiteral("dev"));
    ~ClusterSource() override;

    QString description() const override;
    QString kind() const override { return QStringLiteral("cluster"); }
    bool prepare(QString* error) override;
    bool open(Pipeline& pipeline, QString* error) override;
    TimeUs poll(Pipeline& pipeline) override;
    bool finished() const override;
    QString failure() const override { return m_failure; }
    QString state() const override;
    void close(Pipeline& pipeline) override;
    QStringList resources() const override;
    TimeUs now() const override;
    qint64 totalEvents() const override;
    void snapshot(QVector<CacheSnapshot>& caches,
                  QVector<WatcherSnapshot>& watchers) const override;

    const std::vector<ClusterTarget>& targets() const { return m_targets; }
    QStringList warnings() const { return m_warnings; }

private:
    struct Server {
        QString name; // "apiserver-0 (127.0.0.1:6443)"
        QString endpoint;
        std::unique_ptr<ClusterHttpTransport> transport;
        QString version; // "kube-apiserver v1.31.2" once discovered
        std::unique_ptr<ApiDiscovery> discovery;
        bool metricsReadable = true;
        TimeUs nextScrape = 0;
        std::optional<WatchCacheMetrics> metrics;
    };
    enum class Purpose { Discovery, Metrics, Reflector };
    struct Pending {
        int server = 0;
        Purpose purpose = Purpose::Discovery;
        int reflector = -1;
        HttpResponseCollector response; // Metrics
    };

    void submit(int server, HttpRequest request, Purpose purpose, int reflector = -1);
    void handleFrame(const Frame& frame);
    void finishMetrics(Pending& p, HttpErrorKind error);
    void onDiscoveryProgress(int server);
    void startReflectors();
    void sample(TimeUs t);
    void fail(const QString& message);

    SourceSpec m_spec;
    QString m_version;
    std::vector<ClusterTarget> m_targets;
    ClientProfile m_profile;
    std::shared_ptr<ExecCredentialRunner> m_exec;
    std::vector<Server> m_servers;
    std::vector<std::unique_ptr<ClusterReflector>> m_reflectors;
    std::map<int, Pending> m_pending;
    FrameQueue m_queue;
    std::vector<Frame> m_frames;
    Pipeline* m_pipeline = nullptr;
    QElapsedTimer m_clock;
    TimeUs m_nextSample = 0;
    int m_nextRequestId = 1;
    bool m_reflectorsStarted = false;
    std::vector<ResourceInfo> m_chosen;
    QString m_failure;
    QStringList m_warnings;
    bool m_closed = false;
};

} // namespace ws

#pragma once

#include "ClusterReflector.h"
#include "ClusterScope.h"
#include "ListThrottle.h"
#include "WatcherLagClock.h"
#include "engine/EngineUpdate.h"
#include "engine/Source.h"
#include "http/HttpFrameKind.h"
#include "http/HttpResponseCollector.h"
#include "kube/ClientProfile.h"
#include "kube/ResourceCatalog.h"
#include "metrics/WatchCacheMetrics.h"
#include "model/Frame.h"
#include "model/VersionContext.h"

#include <QJsonObject>
#include <QStringList>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

namespace ws {

class ApiDiscovery;
class Pipeline;
struct HttpRequest;

// One apiserver of the cluster as the consumer knows it: never a credential.
struct ClusterServerInfo {
    QString name;     // "apiserver", "apiserver-1"
    QString endpoint; // "https://127.0.0.1:6443" (no user info)
    QString user;     // the kubeconfig user's name, for 401 messages
};

// Where the consumer's requests go: the HTTP transports live, nowhere in a replay (the capture
// holds what they answered).
class ClusterRequestSink {
public:
    virtual ~ClusterRequestSink() = default;
    virtual void send(int server, HttpRequest request) = 0;
    virtual void cancel(int server, int requestId) = 0;
};

// Everything the cluster source does with its frames, live or replayed from a capture:
// discovery, one client-go reflector per (apiserver, resource), /metrics scrapes, the SPEC §3
// series and snapshots. Its clock is the Tick frames: frames consumed between two ticks are
// handled at the later tick's time, then the reflectors, scrapes and detectors tick. Live and
// replay consume the same frames in the same order, and request ids and reflector jitter follow
// from them, so a replay makes the same requests, finds the same anomalies and samples the same
// timeline.
class ClusterFrameConsumer {
public:
    // The session's clock: a frame of this kind on this connection (no request has id 0)
    // holds `bool final` (QDataStream, Qt 6.4). The frames since the previous tick were handled
    // at its time, then the reflectors, the /metrics scrapes and the detectors ticked.
    static constexpr int kClockConnection = 0;
    static constexpr std::uint16_t kTickKind = 9; // after HttpFrameKind's 1..4

    ClusterFrameConsumer(std::vector<ClusterServerInfo> servers, QStringList wantedResources,
                         ClusterScope scope, ClientProfile profile, Pipeline& pipeline,
                         ClusterRequestSink* sink);
    ~ClusterFrameConsumer();
    ClusterFrameConsumer(const ClusterFrameConsumer&) = delete;
    ClusterFrameConsumer& operator=(const ClusterFrameConsumer&) = delete;

    // What a capture's header keeps to build this consumer again (docs/capture-format.md).
    static QJsonObject replayInfo(const std::vector<ClusterServerInfo>& servers,
                                  const QStringList& wantedResources, const ClusterScope& scope,
                                  const ClientProfile& profile);
    // The consumer a capture's replay info describes; nullptr and one line when it is damaged.
    static std::unique_ptr<ClusterFrameConsumer> fromReplayInfo(const QJsonObject& info,
                                                                Pipeline& pipeline, QString* error);

    static Frame tick(TimeUs t, bool final);
    static bool isTick(const Frame& frame) {
        return frame.connection == kClockConnection && frame.kind == kTickKind;
    }

    void start(); // discovery
    void consume(Frame frame);
    // When the next tick is needed if no frame comes before it: the next timeline sample (every
    // 100 ms), /metrics scrape, reflector timer (backoff, Retry-After, a watch past its
    // timeout), the end of the wait for the informers' first answers, and the detectors'
    // deadlines. A tick earlier does no harm; the live source ticks no later.
    TimeUs nextTickDue() const;

    TimeUs time() const { return m_time; }
    bool closed() const { return m_closed; }
    QString failure() const { return m_failure; }
    // What the session goes on without, and what the user should know about what was read, one
    // line each as it became known: group-versions discovery could not read, resources left out
    // or forbidden, resources watched in the context's namespace instead, a /metrics body cut at
    // the size limit. Only grows.
    const QStringList& warnings() const { return m_warnings; }
    bool reflectorsStarted() const { return m_reflectorsStarted; }
    const QString& profileName() const { return m_profile.name; }
    QStringList resources() const;
    qint64 totalEvents() const;
    void snapshot(QVector<CacheSnapshot>& caches, QVector<WatcherSnapshot>& watchers) const;
    // Per resource, the events its busiest informer received: every informer of a resource
    // watches all of it, so that is the resource's event count as far as the clients can tell.
    void resourceSnapshot(QVector<ResourceSnapshot>& resources) const;
    // The client-go profile the reflectors follow and the first apiserver's version once its
    // discovery answered /version ("v1.31.2").
    VersionContext versions() const;
    // Each reflector's revision account, named by its watcher id ("informer/configmaps").
    QVector<SourceRevisionAccount> revisionAccounts() const;

private:
    // What one scrape says of one resource's watch cache.
    struct ScrapedHead {
        ResourceVersion cacheRv = 0; // exact (cacheRvFromMetric); 0 when the metric is unusable
        // The cache received events of the resource since the previous scrape: the first RV
        // after that scrape's cacheRv, which an event of the resource reached. 0 when none.
        ResourceVersion eventAtOrAbove = 0;
        TimeUs at = 0;
    };
    struct Server {
        ClusterServerInfo info;
        QString version; // "kube-apiserver v1.31.2" once discovered
        int minor = -1;  // of its version; -1 unknown
        std::unique_ptr<ApiDiscovery> discovery;
        bool metricsReadable = true;
        bool cutBodyReported = false;
        TimeUs nextScrape = 0;
        std::optional<WatchCacheMetrics> metrics;
        std::map<QString, ScrapedHead> heads; // by resource, from the last scrape
        // The HTTP/2 connection its scrapes came over (0: HTTP/1.1, unknown), and the suffix of
        // its /metrics series: a scrape over a later connection may come from another apiserver
        // behind the URL, so it starts new rows, a new baseline of counters and heads.
        qint32 metricsConnection = 0;
        QString metricsSuffix;
    };
    // A watcher's lag as the last sample found it; unknown while no apiserver gives its
    // resource's cache RV.
    struct Lag {
        bool known = false;
        ResourceVersion head = 0;
        double seconds = 0;
    };
    enum class Purpose { Discovery, Metrics, Reflector };
    struct Pending {
        int server = 0;
        Purpose purpose = Purpose::Discovery;
        int reflector = -1;
        HttpResponseCollector response; // Metrics
    };

    void onTick(TimeUs t, bool final);
    void submit(int server, HttpRequest request, Purpose purpose, int reflector = -1);
    // Sends a request submit() registered: the connection is opened now.
    void dispatch(int server, HttpRequest request);
    void cancel(int server, int requestId);
    // A LIST ended: the next waiting ones go.
    void listEnded(int requestId);
    void handleFrame(const Frame& frame);
    void finishMetrics(Pending& p, HttpErrorKind error);
    void noteHeads(Server& s, const WatchCacheMetrics& now);
    // cache-inconsistent from a rise of apiserver_storage_consistency_checks_total{failure}.
    void reportConsistencyFailures(const Server& s, const WatchCacheMetrics& now);
    void onDiscoveryProgress(int server);
    void startReflectors();
    void addReflector(const ResourceInfo& resource, int server, bool roams, const QString& ns);
    // Forbidden resources: watched in the context's namespace instead where that may help, told
    // one line each once every informer had its first answer, or the session's end when every
    // informer was refused.
    void checkRejected();
    bool settled() const;
    // Whether the informer is one the user sees (not one a namespaced informer replaced).
    bool shown(std::size_t reflector) const { return !m_replaced[reflector]; }
    // Frames came within kStreamingFor: the samples ride on the ticks they bring.
    bool streaming() const;
    VersionContext computeVersions() const;
    void warn(const QString& line);
    void sample(TimeUs t);
    // The highest RV any reflector of `resource` has seen: the cluster's head as far as known.
    ResourceVersion highestSeen(const QString& resource) const;
    void fail(const QString& message);

    std::vector<Server> m_servers;
    QStringList m_wanted;
    ClusterScope m_scope;
    ClientProfile m_profile;
    Pipeline& m_pipeline;
    ClusterRequestSink* m_sink;
    std::vector<std::unique_ptr<ClusterReflector>> m_reflectors;
    std::vector<WatcherLagClock> m_lagClocks; // one per reflector
    struct SeenHead {
        ResourceVersion rv = 0; // highestSeen() of the resource
        TimeUs at = 0;          // when it first was
    };
    std::map<QString, SeenHead> m_seenHeads; // by resource
    std::vector<Lag> m_lags;                 // one per reflector
    std::vector<bool>
        m_replaced;           // per reflector: forbidden cluster-wide, a namespaced one took over
    std::set<QString> m_told; // watcher names whose refusal was told
    QStringList m_fellBack;   // resources watched in the fallback namespace, not told yet
    std::uint64_t m_nextSeed = 1;
    TimeUs m_reflectorsStartedAt = 0;
    bool m_settledOnce = false;
    QStringList m_warnings;
    std::map<int, Pending> m_pending;
    ListThrottle m_lists;     // the reflectors' LISTs, a few at a time
    std::vector<Frame> m_due; // consumed since the last tick
    std::vector<ResourceInfo> m_chosen;
    TimeUs m_time = 0;
    TimeUs m_nextSample = 0;
    TimeUs m_framesAt = -1;                // the last tick that brought transport frames
    std::uint64_t m_metricsGeneration = 0; // scrapes taken in
    struct VersionsCache {
        QString gitVersion;
        std::uint64_t metricsGeneration = 0;
        VersionContext versions;
    };
    mutable std::optional<VersionsCache> m_versions; // versions() of the state it was made in
    int m_nextRequestId = 1;
    bool m_reflectorsStarted = false;
    bool m_closed = false;
    QString m_failure;
};

} // namespace ws

#include "ClusterFrameConsumer.h"

#include "detect/DetectorHub.h"
#include "discovery/ApiDiscovery.h"
#include "engine/Pipeline.h"
#include "engine/SeriesNames.h"
#include "http/HttpRequest.h"
#include "kube/FeatureGates.h"
#include "kube/ReleaseVersion.h"
#include "kube/ServerProfile.h"
#include "metrics/CacheResourceVersion.h"

#include <QDataStream>
#include <QIODevice>
#include <QJsonArray>

namespace ws {

namespace {
constexpr TimeUs kSampleInterval = milliseconds(100);
// While frames come (a stream in the transport's paced rounds, HttpTransportWorker::kPace, also
// 100 ms apart), a sample is taken on the first tick within this much of when it is due, early
// or late: the samples then ride on the ticks the rounds bring instead of waking the session
// thread between them (about 150 µs of CPU a wake-up on this 2-core VM). A quiet session samples
// on time.
constexpr TimeUs kSampleSlack = milliseconds(50);
constexpr TimeUs kStreamingFor = milliseconds(250); // since the last frames: a stream is flowing
// /metrics is the most expensive endpoint of a large apiserver (every family of every resource
// and verb, histograms with their buckets), and Prometheus scrapes it every 30 s to 1 min
// (kube-prometheus: 30 s). Every 30 s adds one such reader; the cache RVs and capacities it gives
// move on that scale anyway (bookmarks come once a minute).
constexpr TimeUs kScrapeInterval = seconds(30);
constexpr qsizetype kMaxSmallBody = 32 * 1024 * 1024; // a /metrics body
// How long after a watch cache reached an RV a watcher of a quiet resource can still be short
// of it: the cacher sends each watcher a bookmark about once a minute (defaultBookmarkFrequency,
// pkg/storage/cacher/cacher.go), and kube-apiserver itself allows a minute and 15 s for one to
// have reached every watcher (DefaultEventFreshDuration). Events are sent at once.
constexpr TimeUs kBookmarkReach = seconds(75);
// Refusals are told once every informer had its first answer, or after this long: a user with no
// rights at all gets the one line that ends the session instead of one line per resource first.
constexpr TimeUs kSettleLimit = seconds(30);
} // namespace

ClusterFrameConsumer::ClusterFrameConsumer(std::vector<ClusterServerInfo> servers,
                                           QStringList wantedResources, ClusterScope scope,
                                           ClientProfile profile, Pipeline& pipeline,
                                           ClusterRequestSink* sink)
    : m_wanted(std::move(wantedResources)), m_scope(std::move(scope)),
      m_profile(std::move(profile)), m_pipeline(pipeline), m_sink(sink) {
    for (ClusterServerInfo& info : servers) {
        Server s;
        s.info = std::move(info);
        m_servers.push_back(std::move(s));
    }
}

ClusterFrameConsumer::~ClusterFrameConsumer() = default;

QJsonObject ClusterFrameConsumer::replayInfo(const std::vector<ClusterServerInfo>& servers,
                                             const QStringList& wantedResources,
                                             const ClusterScope& scope,
                                             const ClientProfile& profile) {
    QJsonArray list;
    for (const ClusterServerInfo& s : servers)
        list.append(QJsonObject{{QStringLiteral("name"), s.name},
                                {QStringLiteral("endpoint"), s.endpoint},
                                {QStringLiteral("user"), s.user}});
    QJsonObject o;
    o.insert(QStringLiteral("servers"), list);
    o.insert(QStringLiteral("resources"), QJsonArray::fromStringList(wantedResources));
    o.insert(QStringLiteral("clientGo"), profile.name);
    // Only when set: where the informers listed and watched.
    if (!scope.onlyNamespace.isEmpty())
        o.insert(QStringLiteral("namespace"), scope.onlyNamespace);
    if (!scope.forbiddenFallback.isEmpty())
        o.insert(QStringLiteral("forbiddenFallbackNamespace"), scope.forbiddenFallback);
    // Only when set: the watch timeouts the reflectors drew (and so when they cut a watch off).
    if (profile.minWatchTimeoutSeconds != ClientProfile().minWatchTimeoutSeconds)
        o.insert(QStringLiteral("minWatchTimeoutSeconds"), profile.minWatchTimeoutSeconds);
    // Only when set: what the watches asked for (a replay decodes by each answer's Content-Type).
    if (profile.protobufWire)
        o.insert(QStringLiteral("wire"), QStringLiteral("protobuf"));
    return o;
}

std::unique_ptr<ClusterFrameConsumer>
ClusterFrameConsumer::fromReplayInfo(const QJsonObject& info, Pipeline& pipeline, QString* error) {
    std::vector<ClusterServerInfo> servers;
    for (const QJsonValue& v : info.value(QLatin1String("servers")).toArray()) {
        const QJsonObject o = v.toObject();
        ClusterServerInfo s;
        s.name = o.value(QLatin1String("name")).toString();
        s.endpoint = o.value(QLatin1String("endpoint")).toString();
        s.user = o.value(QLatin1String("user")).toString();
        if (s.name.isEmpty() || s.endpoint.isEmpty()) {
            *error = QStringLiteral("its header names an apiserver without a name or endpoint");
            return nullptr;
        }
        servers.push_back(std::move(s));
    }
    if (servers.empty()) {
        *error = QStringLiteral("its header names no apiserver");
        return nullptr;
    }
    QStringList wanted;
    for (const QJsonValue& v : info.value(QLatin1String("resources")).toArray())
        wanted << v.toString();
    auto profile = ClientProfile::fromName(info.value(QLatin1String("clientGo")).toString(), error);
    if (!profile) {
        *error = QStringLiteral("its header's client-go: %1").arg(*error);
        return nullptr;
    }
    const double minWatchTimeout = info.value(QLatin1String("minWatchTimeoutSeconds")).toDouble(0);
    if (minWatchTimeout >= 1)
        profile->minWatchTimeoutSeconds = minWatchTimeout;
    profile->protobufWire =
        info.value(QLatin1String("wire")).toString() == QLatin1String("protobuf");
    ClusterScope scope;
    scope.onlyNamespace = info.value(QLatin1String("namespace")).toString();
    scope.forbiddenFallback = info.value(QLatin1String("forbiddenFallbackNamespace")).toString();
    return std::make_unique<ClusterFrameConsumer>(std::move(servers), std::move(wanted),
                                                  std::move(scope), std::move(*profile), pipeline,
                                                  nullptr);
}

namespace {
QByteArray tickRecord(bool final) {
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_4);
    out << final;
    return bytes;
}
} // namespace

Frame ClusterFrameConsumer::tick(TimeUs t, bool final) {
    // A session makes one at every poll that has something to do: the two records, once.
    static const QByteArray records[2] = {tickRecord(false), tickRecord(true)};
    Frame f;
    f.connection = kClockConnection;
    f.received = t;
    f.kind = kTickKind;
    f.bytes = records[final ? 1 : 0];
    return f;
}

void ClusterFrameConsumer::start() {
    for (int i = 0; i < static_cast<int>(m_servers.size()); ++i) {
        Server& s = m_servers[static_cast<std::size_t>(i)];
        s.discovery = std::make_unique<ApiDiscovery>(
            s.info.endpoint, s.info.user, [this] { return m_nextRequestId++; },
            [this, i](HttpRequest r) { submit(i, std::move(r), Purpose::Discovery); });
        s.discovery->start();
    }
}

void ClusterFrameConsumer::consume(Frame frame) {
    if (m_closed)
        return;
    if (!isTick(frame)) {
        m_due.push_back(std::move(frame));
        return;
    }
    QDataStream in(frame.bytes);
    in.setVersion(QDataStream::Qt_6_4);
    bool final = false;
    in >> final;
    onTick(std::max(m_time, frame.received), final);
}

void ClusterFrameConsumer::onTick(TimeUs t, bool final) {
    m_time = t;
    if (!m_due.empty())
        m_framesAt = t;
    // handleFrame may submit requests; they never add to m_due (that takes a transport frame).
    for (const Frame& f : m_due)
        handleFrame(f);
    m_due.clear();
    if (final) {
        for (auto& r : m_reflectors)
            r->stop(t);
        m_closed = true;
        return;
    }
    for (auto& r : m_reflectors)
        r->tick(t);
    checkRejected();
    for (int i = 0; i < static_cast<int>(m_servers.size()); ++i) {
        Server& s = m_servers[static_cast<std::size_t>(i)];
        if (m_reflectorsStarted && s.metricsReadable && t >= s.nextScrape) {
            s.nextScrape = t + kScrapeInterval;
            HttpRequest r;
            r.pathAndQuery = QStringLiteral("/metrics");
            r.accept = "text/plain";
            submit(i, r, Purpose::Metrics);
        }
    }
    if (t >= m_nextSample - (streaming() ? kSampleSlack : 0)) {
        m_nextSample = t + kSampleInterval;
        sample(t);
    }
    m_pipeline.hub().tick(t);
    // Whatever else comes to depend on time goes into nextTickDue() too.
}

TimeUs ClusterFrameConsumer::nextTickDue() const {
    TimeUs due = m_nextSample + (streaming() ? kSampleSlack : 0);
    for (const auto& r : m_reflectors)
        due = std::min(due, r->nextDue());
    for (const Server& s : m_servers)
        if (m_reflectorsStarted && s.metricsReadable)
            due = std::min(due, s.nextScrape);
    if (!m_reflectors.empty() && m_time < m_reflectorsStartedAt + kSettleLimit)
        due = std::min(due, m_reflectorsStartedAt + kSettleLimit);
    return std::min(due, m_pipeline.hub().nextDue());
}

bool ClusterFrameConsumer::streaming() const {
    return m_framesAt >= 0 && m_time - m_framesAt < kStreamingFor;
}

void ClusterFrameConsumer::warn(const QString& line) {
    if (!m_warnings.contains(line))
        m_warnings << line;
}

bool ClusterFrameConsumer::settled() const {
    if (m_time - m_reflectorsStartedAt >= kSettleLimit)
        return true;
    for (std::size_t i = 0; i < m_reflectors.size(); ++i)
        if (shown(i) && !m_reflectors[i]->answered())
            return false;
    return true;
}

void ClusterFrameConsumer::checkRejected() {
    if (m_reflectors.empty() || !m_failure.isEmpty())
        return;
    // Forbidden at the cluster scope: a user whose rights end at the context's namespace can
    // still list and watch there, as kubectl does in that namespace.
    const std::size_t count = m_reflectors.size();
    for (std::size_t i = 0; i < count; ++i) {
        const ClusterReflector& r = *m_reflectors[i];
        const ClusterReflector::Config& c = r.config();
        if (!shown(i) || !r.rejected() || r.rejected()->code != 403 || !c.ns.isEmpty() ||
            !c.resource.namespaced || m_scope.forbiddenFallback.isEmpty())
            continue;
        m_replaced[i] = true;
        addReflector(c.resource, c.firstServer, c.roams, m_scope.forbiddenFallback);
        m_reflectors.back()->start(m_time);
        if (!m_fellBack.contains(c.resource.qualifiedName()))
            m_fellBack << c.resource.qualifiedName();
    }
    // Every informer refused (RBAC, expired credentials): nothing left to watch.
    const ClusterReflector* rejected = nullptr;
    bool allRejected = true;
    for (std::size_t i = 0; i < m_reflectors.size() && allRejected; ++i) {
        if (!shown(i))
            continue;
        allRejected = m_reflectors[i]->rejected().has_value();
        if (allRejected && !rejected)
            rejected = m_reflectors[i].get();
    }
    if (allRejected && rejected) {
        fail(QStringLiteral("%1: %2 %3: %4")
                 .arg(m_servers[static_cast<std::size_t>(rejected->serverIndex())].info.endpoint,
                      QString::number(rejected->rejected()->code),
                      rejected->rejected()->code == 401 ? QStringLiteral("Unauthorized")
                                                        : QStringLiteral("Forbidden"),
                      rejected->rejected()->message));
        return;
    }
    if (!settled())
        return;
    if (!m_fellBack.isEmpty()) {
        m_fellBack.sort();
        warn(QStringLiteral("forbidden at the cluster scope, so listed and watched in namespace "
                            "%1 (the context's) instead: %2")
                 .arg(m_scope.forbiddenFallback, m_fellBack.join(QStringLiteral(", "))));
        m_fellBack.clear();
    }
    for (std::size_t i = 0; i < m_reflectors.size(); ++i) {
        const ClusterReflector& r = *m_reflectors[i];
        if (!shown(i) || !r.rejected())
            continue;
        const ClusterReflector::Config& c = r.config();
        const QString what =
            c.ns.isEmpty()
                ? c.resource.qualifiedName()
                : QStringLiteral("%1 in namespace %2").arg(c.resource.qualifiedName(), c.ns);
        if (!m_told.insert(what).second)
            continue;
        warn(QStringLiteral("not watching %1: %2 %3: %4")
                 .arg(what, QString::number(r.rejected()->code),
                      r.rejected()->code == 401 ? QStringLiteral("Unauthorized")
                                                : QStringLiteral("Forbidden"),
                      r.rejected()->message));
    }
}

void ClusterFrameConsumer::submit(int server, HttpRequest request, Purpose purpose, int reflector) {
    if (request.id == 0)
        request.id = m_nextRequestId++;
    Pending p;
    p.server = server;
    p.purpose = purpose;
    p.reflector = reflector;
    m_pending[request.id] = p;
    if (purpose == Purpose::Reflector && !request.streaming && !m_lists.admit(server, request))
        return; // its turn comes when a LIST in flight ends
    dispatch(server, std::move(request));
}

void ClusterFrameConsumer::dispatch(int server, HttpRequest request) {
    const Pending& p = m_pending.at(request.id);
    const Server& s = m_servers[static_cast<std::size_t>(server)];
    ConnectionInfo c;
    c.id = request.id;
    c.sourceKind = QStringLiteral("cluster");
    c.endpoint = s.info.endpoint + request.pathAndQuery;
    if (p.reflector >= 0)
        c.resource =
            m_reflectors[static_cast<std::size_t>(p.reflector)]->config().resource.qualifiedName();
    c.versions = QStringLiteral("%1, client-go %2").arg(s.version, m_profile.name);
    m_pipeline.connectionOpened(c);
    if (m_sink)
        m_sink->send(server, std::move(request));
}

void ClusterFrameConsumer::cancel(int server, int requestId) {
    if (m_lists.forget(requestId)) {
        // Never sent: nothing will answer it.
        m_pending.erase(requestId);
        return;
    }
    if (m_sink)
        m_sink->cancel(server, requestId);
}

void ClusterFrameConsumer::listEnded(int requestId) {
    m_lists.forget(requestId);
    for (ListThrottle::Waiting& w : m_lists.due())
        dispatch(w.server, std::move(w.request));
}

void ClusterFrameConsumer::fail(const QString& message) {
    if (m_failure.isEmpty())
        m_failure = message;
}

void ClusterFrameConsumer::handleFrame(const Frame& frame) {
    const auto it = m_pending.find(frame.connection);
    if (it == m_pending.end())
        return;
    Pending& p = it->second;
    const TimeUs t = m_time;
    const bool ended = static_cast<HttpFrameKind>(frame.kind) == HttpFrameKind::ResponseEnd;
    if (p.purpose == Purpose::Reflector) {
        const int reflector = p.reflector;
        if (ended)
            m_pending.erase(it);
        // The place is free before the reflector asks for its next page or its WATCH.
        if (ended)
            listEnded(frame.connection);
        m_reflectors[static_cast<std::size_t>(reflector)]->onFrame(frame, t);
        return;
    }
    if (p.purpose == Purpose::Discovery) {
        const int server = p.server;
        if (ended)
            m_pending.erase(it);
        m_servers[static_cast<std::size_t>(server)].discovery->onFrame(frame);
        if (ended)
            onDiscoveryProgress(server);
        return;
    }
    if (!p.response.add(frame, kMaxSmallBody))
        return;
    Pending done = std::move(p);
    m_pending.erase(it);
    finishMetrics(done, done.response.end.error);
}

void ClusterFrameConsumer::finishMetrics(Pending& p, HttpErrorKind error) {
    Server& s = m_servers[static_cast<std::size_t>(p.server)];
    if (error != HttpErrorKind::None || p.response.status != 200) {
        // Not readable with these credentials (403), or not there: stop asking.
        if (error == HttpErrorKind::None)
            s.metricsReadable = false;
        return;
    }
    const std::string_view body(p.response.body.constData(),
                                static_cast<std::size_t>(p.response.body.size()));
    QString warning;
    auto metrics = p.response.bodyOverLimit ? WatchCacheMetrics::fromCutText(body, &warning)
                                            : WatchCacheMetrics::fromText(body, &warning);
    if (p.response.bodyOverLimit && !s.cutBodyReported) {
        s.cutBodyReported = true;
        warn(QStringLiteral("%1/metrics is over %2 MiB: %3")
                 .arg(s.info.endpoint)
                 .arg(kMaxSmallBody / (1024 * 1024))
                 .arg(metrics.isValid() ? warning : QStringLiteral("nothing before the cut read")));
    }
    if (!metrics.isValid()) {
        s.metricsReadable = false;
        return;
    }
    // Every answer of one HTTP/2 connection comes from one apiserver; no response names the
    // apiserver (kube-apiserver 1.35's headers are the same from every one of a cluster). A
    // scrape over a new connection is compared with nothing the old one gave.
    const qint32 connection = p.response.connection;
    const bool switched = s.metrics && connection != 0 && connection != s.metricsConnection;
    if (switched) {
        s.metrics.reset();
        s.heads.clear();
        s.metricsSuffix = series::connectionSuffix(connection);
    }
    if (connection != 0)
        s.metricsConnection = connection;
    if (!switched)
        reportConsistencyFailures(s, metrics);
    noteHeads(s, metrics);
    s.metrics = std::move(metrics);
    ++m_metricsGeneration;
}

void ClusterFrameConsumer::noteHeads(Server& s, const WatchCacheMetrics& now) {
    for (const ResourceInfo& r : m_chosen) {
        const QString resource = r.qualifiedName();
        const ResourceCacheMetrics* m = now.find(resource);
        ScrapedHead head;
        head.at = m_time;
        if (m && m->resourceVersion)
            head.cacheRv =
                cacheRvFromMetric(*m->resourceVersion, s.minor, highestSeen(resource)).value_or(0);
        // The cache counts an event before it records the event's RV, and takes them in RV
        // order: events counted since the last scrape are above the RV that scrape gave.
        const ResourceCacheMetrics* before = s.metrics ? s.metrics->find(resource) : nullptr;
        const auto previous = s.heads.find(resource);
        if (m && before && m->eventsReceived && before->eventsReceived &&
            *m->eventsReceived > *before->eventsReceived && previous != s.heads.end() &&
            previous->second.cacheRv > 0 && head.cacheRv > previous->second.cacheRv)
            head.eventAtOrAbove = previous->second.cacheRv + 1;
        s.heads[resource] = head;
    }
}

void ClusterFrameConsumer::reportConsistencyFailures(const Server& s,
                                                     const WatchCacheMetrics& now) {
    // DetectCacheInconsistency (1.34+) counts each failed check; a rise (or failures already
    // counted at the first scrape) means that apiserver's cache differs from etcd.
    const WatchCacheMetrics* before = s.metrics ? &*s.metrics : nullptr;
    for (const auto& rise : now.consistencyFailuresSince(before)) {
        Anomaly a;
        a.time = m_time;
        a.kind = AnomalyKind::CacheInconsistent;
        a.severity = Severity::Error;
        a.source = AnomalySource::Apiserver;
        a.resource = rise.resource;
        a.watcher = QStringLiteral("cacher/%1@%2").arg(rise.resource, s.info.name);
        const QString counter =
            QStringLiteral("apiserver_storage_consistency_checks_total{status=\"failure\"}");
        a.message = (before ? QStringLiteral("Cache consistency check failed: %1 rose from %2 to "
                                             "%3 on %4")
                                  .arg(counter)
                                  .arg(rise.before)
                                  .arg(rise.now)
                                  .arg(s.info.name)
                            : QStringLiteral("Cache consistency check failed: %1 is %2 on %3 at "
                                             "the first scrape")
                                  .arg(counter)
                                  .arg(rise.now)
                                  .arg(s.info.name)) +
                    QStringLiteral("; the cache is not relisted");
        m_pipeline.hub().report(a);
    }
}

void ClusterFrameConsumer::onDiscoveryProgress(int server) {
    Server& s = m_servers[static_cast<std::size_t>(server)];
    if (!s.discovery->done())
        return;
    if (!s.discovery->succeeded()) {
        fail(s.discovery->failure());
        return;
    }
    s.version = QStringLiteral("kube-apiserver %1").arg(s.discovery->gitVersion());
    if (const ReleaseVersion v = ReleaseVersion::parse(s.discovery->gitVersion()); v.valid())
        s.minor = v.minor;
    for (const QString& w : s.discovery->warnings())
        warn(w);
    for (const Server& other : m_servers)
        if (!other.discovery->succeeded())
            return;
    if (!m_reflectorsStarted)
        startReflectors();
}

void ClusterFrameConsumer::startReflectors() {
    m_reflectorsStarted = true;
    const Server& first = m_servers.front();
    if (m_wanted.isEmpty()) {
        m_chosen = first.discovery->resources();
    } else {
        for (const QString& wanted : m_wanted) {
            const ResourceInfo* match = nullptr;
            for (const ResourceInfo& r : first.discovery->resources())
                if (r.qualifiedName() == wanted ||
                    (r.plural == wanted && (!match || r.group.isEmpty())))
                    match = &r;
            if (!match) {
                QStringList names;
                for (const ResourceInfo& r : first.discovery->resources())
                    names << r.qualifiedName();
                names.sort();
                fail(QStringLiteral("--resources: %1 does not serve '%2' (it serves %3%4)")
                         .arg(first.info.endpoint, wanted,
                              names.mid(0, 12).join(QStringLiteral(", ")),
                              names.size() > 12 ? QStringLiteral(", ...") : QString()));
                return;
            }
            m_chosen.push_back(*match);
        }
    }
    if (!m_scope.onlyNamespace.isEmpty()) {
        // As kubectl -n: a namespace holds no cluster-scoped objects.
        QStringList clusterScoped;
        std::erase_if(m_chosen, [&](const ResourceInfo& r) {
            if (!r.namespaced)
                clusterScoped << r.qualifiedName();
            return !r.namespaced;
        });
        if (m_chosen.empty()) {
            fail(QStringLiteral("--namespace %1: every resource chosen is cluster-scoped (%2)")
                     .arg(m_scope.onlyNamespace, clusterScoped.join(QStringLiteral(", "))));
            return;
        }
        if (!clusterScoped.isEmpty())
            warn(QStringLiteral("--namespace %1: %2 cluster-scoped resource%3 left out (%4)")
                     .arg(m_scope.onlyNamespace, QString::number(clusterScoped.size()),
                          clusterScoped.size() == 1 ? QString() : QStringLiteral("s"),
                          clusterScoped.join(QStringLiteral(", "))));
    }
    m_reflectorsStartedAt = m_time;
    for (const ResourceInfo& r : m_chosen) {
        for (int i = 0; i < static_cast<int>(m_servers.size()); ++i)
            addReflector(r, i, false, m_scope.onlyNamespace);
        // Behind a load balancer one client meets every apiserver in turn: time travel shows.
        if (m_servers.size() > 1)
            addReflector(r, 0, true, m_scope.onlyNamespace);
    }
    for (auto& r : m_reflectors)
        r->start(m_time);
}

void ClusterFrameConsumer::addReflector(const ResourceInfo& resource, int server, bool roams,
                                        const QString& ns) {
    QStringList serverNames;
    for (const Server& s : m_servers)
        serverNames << s.info.name;
    ClusterReflector::Config c;
    c.resource = resource;
    c.ns = ns;
    c.profile = m_profile;
    c.servers = serverNames;
    c.firstServer = server;
    c.roams = roams;
    c.journal = m_pipeline.journal().enabled() ? &m_pipeline.journal() : nullptr;
    c.id = QStringLiteral("informer/%1%2")
               .arg(ns.isEmpty() ? QString() : QStringLiteral("namespaces/%1/").arg(ns),
                    resource.qualifiedName());
    if (roams)
        c.id += QStringLiteral("@any");
    else if (m_servers.size() > 1)
        c.id += u'@' + serverNames[server];
    const int index = static_cast<int>(m_reflectors.size());
    m_reflectors.push_back(std::make_unique<ClusterReflector>(
        c, m_pipeline.hub(), m_pipeline.keys(),
        [this, index](int srv, HttpRequest req) {
            submit(srv, std::move(req), Purpose::Reflector, index);
        },
        [this](int srv, int id) { cancel(srv, id); }, [this] { return m_nextRequestId++; },
        m_nextSeed++));
    m_replaced.push_back(false);
    m_lagClocks.emplace_back();
    m_lags.emplace_back();
}

ResourceVersion ClusterFrameConsumer::highestSeen(const QString& resource) const {
    ResourceVersion head = 0;
    for (const auto& refl : m_reflectors)
        if (refl->config().resource.qualifiedName() == resource)
            head = std::max(head, refl->highestSeen());
    return head;
}

void ClusterFrameConsumer::sample(TimeUs t) {
    TimelineStore& timeline = m_pipeline.timeline();
    for (const ResourceInfo& r : m_chosen) {
        const QString resource = r.qualifiedName();
        // The head is what an apiserver's watch cache reached (1.31+, /metrics readable).
        ResourceVersion cacheHead = 0;
        for (std::size_t i = 0; i < m_servers.size(); ++i) {
            const Server& s = m_servers[i];
            const auto scraped = s.heads.find(resource);
            if (scraped == s.heads.end())
                continue;
            const QString suffix = series::apiserverSuffix(static_cast<int>(i)) + s.metricsSuffix;
            if (scraped->second.cacheRv > 0) {
                cacheHead = std::max(cacheHead, scraped->second.cacheRv);
                timeline.append(timeline.series(resource, series::cacheRv(suffix)), t,
                                double(scraped->second.cacheRv));
            }
            const ResourceCacheMetrics* m = s.metrics ? s.metrics->find(resource) : nullptr;
            if (m && m->capacity)
                timeline.append(timeline.series(resource, series::bufferCapacity(suffix)), t,
                                *m->capacity);
        }
        // With several apiservers the informers of one resource are each other's head: what one
        // received, from an event or a bookmark, the cluster had. One informer alone is always
        // at its own highest: no head.
        int informers = 0;
        for (std::size_t k = 0; k < m_reflectors.size(); ++k)
            informers += shown(k) && m_reflectors[k]->config().resource.qualifiedName() == resource;
        SeenHead& seen = m_seenHeads[resource];
        if (const ResourceVersion highest = highestSeen(resource); highest > seen.rv)
            seen = SeenHead{highest, t};
        const bool known = cacheHead > 0 || informers > 1;
        const ResourceVersion head = known ? std::max(cacheHead, seen.rv) : 0;
        if (known)
            timeline.append(timeline.series(resource, series::headRv()), t, double(head));
        // An event of the resource that one informer received, any other could have too.
        ResourceVersion eventHead = 0;
        TimeUs eventSeenAt = t;
        for (const auto& refl : m_reflectors)
            if (refl->config().resource.qualifiedName() == resource &&
                refl->highestEvent() > eventHead) {
                eventHead = refl->highestEvent();
                eventSeenAt = refl->highestEventAt();
            }
        for (std::size_t k = 0; k < m_reflectors.size(); ++k) {
            const ClusterReflector& refl = *m_reflectors[k];
            if (!shown(k) || refl.config().resource.qualifiedName() != resource)
                continue;
            const ResourceVersion rv = refl.resourceVersion();
            const QString& id = refl.config().id;
            WatcherLagClock& clock = m_lagClocks[k];
            clock.reached(rv);
            clock.head(eventHead, eventSeenAt);
            clock.head(seen.rv, seen.at + kBookmarkReach);
            for (const Server& s : m_servers) {
                const auto scraped = s.heads.find(resource);
                if (scraped == s.heads.end())
                    continue;
                clock.head(scraped->second.cacheRv, scraped->second.at + kBookmarkReach);
                clock.head(scraped->second.eventAtOrAbove, scraped->second.at);
            }
            Lag& lag = m_lags[k];
            lag.known = known;
            lag.head = head;
            lag.seconds = known ? clock.lagSeconds(t) : 0;
            timeline.append(timeline.series(resource, series::watcherRv(id)), t, double(rv));
            if (known) {
                timeline.append(timeline.series(resource, series::watcherLag(id)), t,
                                double(head > rv ? head - rv : 0));
                timeline.append(timeline.series(resource, series::watcherLagSeconds(id)), t,
                                lag.seconds);
            }
            if (rv > 0)
                m_pipeline.hub().watcherPosition(refl.hubId(), t, rv, head,
                                                 known ? lag.seconds : DetectorHub::kLagUnknown);
        }
    }
}

QStringList ClusterFrameConsumer::resources() const {
    QStringList out;
    for (const ResourceInfo& r : m_chosen)
        out << r.qualifiedName();
    return out;
}

qint64 ClusterFrameConsumer::totalEvents() const {
    qint64 n = 0;
    for (const auto& r : m_reflectors)
        n += r->eventsReceived();
    return n;
}

void ClusterFrameConsumer::snapshot(QVector<CacheSnapshot>& caches,
                                    QVector<WatcherSnapshot>& watchers) const {
    for (const ResourceInfo& r : m_chosen) {
        const QString resource = r.qualifiedName();
        ResourceVersion head = highestSeen(resource);
        for (const Server& s : m_servers) {
            const ResourceCacheMetrics* m = s.metrics ? s.metrics->find(resource) : nullptr;
            if (!m)
                continue;
            CacheSnapshot c;
            c.resource = resource;
            c.apiserver = s.info.name;
            const auto scraped = s.heads.find(resource);
            c.cacheRv = scraped == s.heads.end() ? 0 : scraped->second.cacheRv;
            c.headRv = std::max(head, c.cacheRv);
            c.bufferCapacity = static_cast<qint64>(m->capacity.value_or(0));
            // No metric tells how much of the ring is in use (or its oldest RV): unknown, not 0.
            c.bufferUsed = CacheSnapshot::kUnknown;
            // apiserver_storage_objects (apiserver_resource_objects from 1.34) comes with the
            // storage's periodic count, not with the cache: until then unknown, not 0.
            c.objects = m->storageObjects ? static_cast<qint64>(*m->storageObjects)
                                          : CacheSnapshot::kUnknown;
            caches.push_back(c);
        }
        for (std::size_t k = 0; k < m_reflectors.size(); ++k) {
            const auto& refl = m_reflectors[k];
            if (!shown(k) || refl->config().resource.qualifiedName() != resource)
                continue;
            WatcherSnapshot w;
            w.id = refl->config().id;
            w.resource = resource;
            w.apiserver = refl->serverName();
            w.profile = m_profile.name;
            w.detail = refl->stateName();
            w.rv = refl->resourceVersion();
            // As the last sample found it (the watcher_lag series); unknown without a head.
            const Lag& lag = m_lags[k];
            w.lagRevisions = !lag.known        ? WatcherSnapshot::kUnknown
                             : lag.head > w.rv ? lag.head - w.rv
                                               : 0;
            w.lagSeconds = lag.known ? lag.seconds : double(WatcherSnapshot::kUnknown);
            w.eventsReceived = refl->eventsReceived();
            w.relists = refl->relists();
            w.httpRetries = refl->httpRetries();
            w.objects = refl->objects();
            watchers.push_back(w);
        }
    }
}

void ClusterFrameConsumer::resourceSnapshot(QVector<ResourceSnapshot>& resources) const {
    for (const ResourceInfo& r : m_chosen) {
        ResourceSnapshot s;
        s.resource = r.qualifiedName();
        for (const auto& refl : m_reflectors)
            if (refl->config().resource.qualifiedName() == s.resource)
                s.events = std::max<qint64>(s.events, refl->eventsReceived());
        resources.push_back(s);
    }
}

QVector<SourceRevisionAccount> ClusterFrameConsumer::revisionAccounts() const {
    QVector<SourceRevisionAccount> out;
    for (std::size_t i = 0; i < m_reflectors.size(); ++i)
        if (shown(i))
            out.push_back({m_reflectors[i]->config().id, m_reflectors[i]->account()});
    return out;
}

VersionContext ClusterFrameConsumer::versions() const {
    // Asked for at every update (4 to 30 a second); what it reads changes only with discovery
    // and with a scrape.
    QString gitVersion;
    for (const Server& s : m_servers)
        if (s.discovery && !s.discovery->gitVersion().isEmpty()) {
            gitVersion = s.discovery->gitVersion();
            break;
        }
    if (!m_versions || m_versions->gitVersion != gitVersion ||
        m_versions->metricsGeneration != m_metricsGeneration)
        m_versions = VersionsCache{gitVersion, m_metricsGeneration, computeVersions()};
    return m_versions->versions;
}

VersionContext ClusterFrameConsumer::computeVersions() const {
    VersionContext v;
    v.clientGo = m_profile.name;
    for (const Server& s : m_servers)
        if (s.discovery && !s.discovery->gitVersion().isEmpty()) {
            v.kubeApiserver = s.discovery->gitVersion();
            // kubernetes_feature_enabled: the gates the explanations model, where they differ
            // from that version's defaults (all of them when the version is not one modelled).
            if (s.metrics) {
                QString error;
                const auto defaults = ServerProfile::fromVersion(v.kubeApiserver, &error);
                const QMap<QString, bool>& enabled = s.metrics->featureGates();
                for (auto it = enabled.constBegin(); it != enabled.constEnd(); ++it) {
                    const FeatureGate* gate = FeatureGates::find(it.key());
                    if (gate && (!defaults || (*defaults).*(gate->field) != it.value()))
                        v.featureGates.insert(it.key(), it.value());
                }
            }
            break;
        }
    return v;
}

} // namespace ws

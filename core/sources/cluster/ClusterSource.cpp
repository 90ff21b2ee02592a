#include "ClusterSource.h"

#include "ClusterTargets.h"
#include "discovery/ApiDiscovery.h"

#include "engine/Pipeline.h"
#include "engine/SeriesNames.h"
#include "http/ClusterHttpTransport.h"
#include "http/HttpFrameKind.h"
#include "http/HttpFrameRecords.h"
#include "kubeconfig/ExecCredentialRunner.h"

namespace ws {

namespace {
constexpr TimeUs kSampleInterval = milliseconds(100);
constexpr TimeUs kScrapeInterval = seconds(5);
constexpr qsizetype kMaxSmallBody = 32 * 1024 * 1024; // a /metrics body

} // namespace

ClusterSource::ClusterSource(SourceSpec spec, QString version)
    : m_spec(std::move(spec)), m_version(std::move(version)) {}

ClusterSource::~ClusterSource() {
    for (Server& s : m_servers)
        if (s.transport)
            s.transport->stop();
    // Taking the queue's lock once more orders the transports' last pushes before its
    // destruction in a way ThreadSanitizer sees (QThread::wait is not instrumented).
    m_queue.drain(m_frames);
}

QString ClusterSource::description() const {
    QString what;
    if (m_spec.kind == SourceSpec::Kind::Kubeconfig && !m_targets.empty())
        what = QStringLiteral("cluster %1").arg(m_targets.front().describe());
    else {
        QStringList urls;
        for (const ClusterTarget& t : m_targets)
            urls << t.server.toString(QUrl::RemoveUserInfo);
        what = QStringLiteral("apiservers %1").arg(urls.join(QStringLiteral(", ")));
    }
    return QStringLiteral("%1, client-go %2").arg(what, m_profile.name);
}

bool ClusterSource::prepare(QString* error) {
    const QString clientGo = m_spec.clientGo.isEmpty() ? QStringLiteral("0.35") : m_spec.clientGo;
    auto profile = ClientProfile::fromName(clientGo, error);
    if (!profile) {
        *error = QStringLiteral("--client-go: %1").arg(*error);
        return false;
    }
    m_profile = *profile;
    auto targets = resolveClusterTargets(m_spec, error);
    if (!targets)
        return false;
    m_targets = std::move(*targets);
    for (const ClusterTarget& t : m_targets)
        if (t.exec && !m_exec)
            m_exec = std::make_shared<ExecCredentialRunner>();
    return true;
}

bool ClusterSource::open(Pipeline& pipeline, QString* error) {
    m_pipeline = &pipeline;
    m_clock.start();
    for (std::size_t i = 0; i < m_targets.size(); ++i) {
        const ClusterTarget& t = m_targets[i];
        Server s;
        s.endpoint = t.server.toString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
        s.name = m_targets.size() == 1 ? QStringLiteral("apiserver")
                                       : QStringLiteral("apiserver-%1").arg(i);
        s.transport = std::make_unique<ClusterHttpTransport>(
            t, m_queue, [this] { return now(); }, credentialProviderFor(t, m_exec), m_version);
        if (!s.transport->start(error))
            return false;
        m_warnings << s.transport->warnings();
        m_servers.push_back(std::move(s));
    }
    for (int i = 0; i < static_cast<int>(m_servers.size()); ++i) {
        Server& s = m_servers[static_cast<std::size_t>(i)];
        s.discovery = std::make_unique<ApiDiscovery>(
            s.endpoint, m_targets[static_cast<std::size_t>(i)].user,
            [this] { return m_nextRequestId++; },
            [this, i](HttpRequest r) { submit(i, std::move(r), Purpose::Discovery); });
        s.discovery->start();
    }
    return true;
}

void ClusterSource::submit(int server, HttpRequest request, Purpose purpose, int reflector) {
    if (request.id == 0)
        request.id = m_nextRequestId++;
    Pending p;
    p.server = server;
    p.purpose = purpose;
    p.reflector = reflector;
    m_pending[request.id] = p;
    ConnectionInfo c;
    c.id = request.id;
    c.sourceKind = kind();
    c.endpoint = m_servers[static_cast<std::size_t>(server)].endpoint + request.pathAndQuery;
    if (reflector >= 0)
        c.resource =
            m_reflectors[static_cast<std::size_t>(reflector)]->config().resource.qualifiedName();
    c.versions = QStringLiteral("%1, client-go %2")
                     .arg(m_servers[static_cast<std::size_t>(server)].version, m_profile.name);
    m_pipeline->connectionOpened(c);
    m_servers[static_cast<std::size_t>(server)].transport->submit(std::move(request));
}

void ClusterSource::fail(const QString& message) {
    if (m_failure.isEmpty())
        m_failure = message;
}

TimeUs ClusterSource::now() const {
    return m_clock.isValid() ? m_clock.nsecsElapsed() / 1000 : 0;
}

bool ClusterSource::finished() const {
    return m_closed || !m_failure.isEmpty() ||
           (m_spec.duration && m_clock.isValid() && now() >= *m_spec.duration);
}

QString ClusterSource::state() const {
    if (!m_reflectorsStarted && !m_servers.empty())
        return QStringLiteral("Connecting to %1").arg(m_servers.front().endpoint);
    return {};
}

TimeUs ClusterSource::poll(Pipeline& pipeline) {
    const TimeUs t = now();
    m_queue.drain(m_frames);
    for (const Frame& f : m_frames) {
        pipeline.frameReceived(f);
        handleFrame(f);
    }
    for (auto& r : m_reflectors)
        r->tick(t);
    if (!m_reflectors.empty() && m_failure.isEmpty()) {
        // Every informer refused (RBAC, expired credentials): nothing left to watch.
        const ClusterReflector* rejected = nullptr;
        bool all = true;
        for (const auto& r : m_reflectors) {
            if (r->rejected())
                rejected = rejected ? rejected : r.get();
            else
                all = false;
        }
        if (all && rejected)
            fail(QStringLiteral("%1: %2 %3: %4")
                     .arg(m_servers[static_cast<std::size_t>(rejected->serverIndex())].endpoint,
                          QString::number(rejected->rejected()->code),
                          rejected->rejected()->code == 401 ? QStringLiteral("Unauthorized")
                                                            : QStringLiteral("Forbidden"),
                          rejected->rejected()->message));
    }
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
    if (t >= m_nextSample) {
        m_nextSample = t + kSampleInterval;
        sample(t);
    }
    pipeline.hub().tick(t);
    return m_frames.empty() ? milliseconds(5) : 0;
}

void ClusterSource::handleFrame(const Frame& frame) {
    const auto it = m_pending.find(frame.connection);
    if (it == m_pending.end())
        return;
    Pending& p = it->second;
    const TimeUs t = now();
    const bool ended = static_cast<HttpFrameKind>(frame.kind) == HttpFrameKind::ResponseEnd;
    if (p.purpose == Purpose::Reflector) {
        m_reflectors[static_cast<std::size_t>(p.reflector)]->onFrame(frame, t);
        if (ended)
            m_pending.erase(it);
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

void ClusterSource::finishMetrics(Pending& p, HttpErrorKind error) {
    Server& s = m_servers[static_cast<std::size_t>(p.server)];
    if (error != HttpErrorKind::None || p.response.status != 200) {
        // Not readable with these credentials (403), or not there: stop asking.
        if (error == HttpErrorKind::None)
            s.metricsReadable = false;
        return;
    }
    QString warning;
    auto metrics = WatchCacheMetrics::fromText(
        std::string_view(p.response.body.constData(),
                         static_cast<std::size_t>(p.response.body.size())),
        &warning);
    if (metrics.isValid())
        s.metrics = std::move(metrics);
    else
        s.metricsReadable = false;
}

void ClusterSource::onDiscoveryProgress(int server) {
    Server& s = m_servers[static_cast<std::size_t>(server)];
    if (!s.discovery->done())
        return;
    if (!s.discovery->succeeded()) {
        fail(s.discovery->failure());
        return;
    }
    s.version = QStringLiteral("kube-apiserver %1").arg(s.discovery->gitVersion());
    for (const Server& other : m_servers)
        if (!other.discovery->succeeded())
            return;
    if (!m_reflectorsStarted)
        startReflectors();
}

void ClusterSource::startReflectors() {
    m_reflectorsStarted = true;
    const Server& first = m_servers.front();
    if (m_spec.resources.isEmpty()) {
        m_chosen = first.discovery->resources();
    } else {
        for (const QString& wanted : m_spec.resources) {
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
                         .arg(first.endpoint, wanted, names.mid(0, 12).join(QStringLiteral(", ")),
                              names.size() > 12 ? QStringLiteral(", ...") : QString()));
                return;
            }
            m_chosen.push_back(*match);
        }
    }
    QStringList serverNames;
    for (const Server& s : m_servers)
        serverNames << s.name;
    const TimeUs t = now();
    std::uint64_t seed = 1;
    auto add = [&](const ResourceInfo& r, int server, bool roams) {
        ClusterReflector::Config c;
        c.resource = r;
        c.profile = m_profile;
        c.servers = serverNames;
        c.firstServer = server;
        c.roams = roams;
        c.id = QStringLiteral("informer/%1").arg(r.qualifiedName());
        if (roams)
            c.id += QStringLiteral("@any");
        else if (m_servers.size() > 1)
            c.id += u'@' + serverNames[server];
        const int index = static_cast<int>(m_reflectors.size());
        m_reflectors.push_back(std::make_unique<ClusterReflector>(
            c, m_pipeline->hub(), m_pipeline->keys(),
            [this, index](int srv, HttpRequest req) {
                submit(srv, std::move(req), Purpose::Reflector, index);
            },
            [this](int srv, int id) {
                m_servers[static_cast<std::size_t>(srv)].transport->cancel(id);
            },
            [this] { return m_nextRequestId++; }, seed++));
    };
    for (const ResourceInfo& r : m_chosen) {
        for (int i = 0; i < static_cast<int>(m_servers.size()); ++i)
            add(r, i, false);
        // Behind a load balancer one client meets every apiserver in turn: time travel shows.
        if (m_servers.size() > 1)
            add(r, 0, true);
    }
    for (auto& r : m_reflectors)
        r->start(t);
}

void ClusterSource::sample(TimeUs t) {
    if (!m_pipeline)
        return;
    TimelineStore& timeline = m_pipeline->timeline();
    for (const ResourceInfo& r : m_chosen) {
        const QString resource = r.qualifiedName();
        ResourceVersion head = 0;
        for (const auto& refl : m_reflectors)
            if (refl->config().resource.qualifiedName() == resource)
                head = std::max(head, refl->highestSeen());
        for (std::size_t i = 0; i < m_servers.size(); ++i) {
            const Server& s = m_servers[i];
            if (!s.metrics)
                continue;
            if (const ResourceCacheMetrics* m = s.metrics->find(resource)) {
                const QString suffix = series::apiserverSuffix(static_cast<int>(i));
                if (m->resourceVersion) {
                    head = std::max(head, static_cast<ResourceVersion>(*m->resourceVersion));
                    timeline.append(timeline.series(resource, series::cacheRv(suffix)), t,
                                    *m->resourceVersion);
                }
                if (m->capacity)
                    timeline.append(timeline.series(resource, series::bufferCapacity(suffix)), t,
                                    *m->capacity);
            }
        }
        if (head == 0)
            continue;
        timeline.append(timeline.series(resource, series::headRv()), t, double(head));
        for (const auto& refl : m_reflectors) {
            if (refl->config().resource.qualifiedName() != resource)
                continue;
            const ResourceVersion rv = refl->resourceVersion();
            const QString& id = refl->config().id;
            const double lagSeconds = rv < head && refl->lastEventAt() > 0
                                          ? double(t - refl->lastEventAt()) / kUsPerSecond
                                          : 0.0;
            timeline.append(timeline.series(resource, series::watcherRv(id)), t, double(rv));
            timeline.append(timeline.series(resource, series::watcherLag(id)), t,
                            double(head > rv ? head - rv : 0));
            timeline.append(timeline.series(resource, series::watcherLagSeconds(id)), t,
                            lagSeconds);
            if (rv > 0)
                m_pipeline->hub().watcherPosition(refl->hubId(), t, rv, head, lagSeconds);
        }
    }
}

void ClusterSource::close(Pipeline&) {
    const TimeUs t = now();
    for (auto& r : m_reflectors)
        r->stop(t);
    for (Server& s : m_servers)
        if (s.transport)
            s.transport->stop();
    m_closed = true;
}

QStringList ClusterSource::resources() const {
    QStringList out;
    for (const ResourceInfo& r : m_chosen)
        out << r.qualifiedName();
    return out;
}

qint64 ClusterSource::totalEvents() const {
    qint64 n = 0;
    for (const auto& r : m_reflectors)
        n += r->eventsReceived();
    return n;
}

void ClusterSource::snapshot(QVector<CacheSnapshot>& caches,
                             QVector<WatcherSnapshot>& watchers) const {
    for (const ResourceInfo& r : m_chosen) {
        const QString resource = r.qualifiedName();
        ResourceVersion head = 0;
        for (const auto& refl : m_reflectors)
            if (refl->config().resource.qualifiedName() == resource)
                head = std::max(head, refl->highestSeen());
        for (const Server& s : m_servers) {
            const ResourceCacheMetrics* m = s.metrics ? s.metrics->find(resource) : nullptr;
            if (!m)
                continue;
            CacheSnapshot c;
            c.resource = resource;
            c.apiserver = s.name;
            c.cacheRv = static_cast<ResourceVersion>(m->resourceVersion.value_or(0));
            c.headRv = std::max(head, c.cacheRv);
            c.bufferCapacity = static_cast<qint64>(m->capacity.value_or(0));
            c.objects = static_cast<qint64>(m->storageObjects.value_or(0));
            caches.push_back(c);
        }
        for (const auto& refl : m_reflectors) {
            if (refl->config().resource.qualifiedName() != resource)
                continue;
            WatcherSnapshot w;
            w.id = refl->config().id;
            w.resource = resource;
            w.apiserver = refl->serverName();
            w.profile = m_profile.name;
            w.state = refl->stateName();
            w.rv = refl->resourceVersion();
            w.lagRevisions = head > w.rv ? head - w.rv : 0;
            w.eventsReceived = refl->eventsReceived();
            w.relists = refl->relists();
            watchers.push_back(w);
        }
    }
}

} // namespace ws

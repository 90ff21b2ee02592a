#include "ClusterSource.h"

#include "ClusterTargets.h"

#include "engine/Pipeline.h"
#include "http/ClusterHttpSettings.h"
#include "http/ClusterHttpTransport.h"
#include "http/HttpFrameKind.h"
#include "http/HttpRequest.h"
#include "kubeconfig/ExecCredentialRunner.h"

#include <algorithm>

namespace ws {

ClusterSource::ClusterSource(SourceSpec spec, QString version)
    : m_spec(std::move(spec)), m_version(std::move(version)) {}

ClusterSource::~ClusterSource() {
    m_queue.release(); // a transport waiting for room must not hold its stop
    for (auto& t : m_transports)
        t->stop();
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
    return QStringLiteral("%1, client-go %2%3")
        .arg(what, m_profile.name,
             m_profile.protobufWire
                 ? QStringLiteral(", protobuf lists and watches of built-in resources")
                 : QString());
}

bool ClusterSource::prepare(QString* error) {
    const QString clientGo = m_spec.clientGo.isEmpty() ? QStringLiteral("0.35") : m_spec.clientGo;
    auto profile = ClientProfile::fromName(clientGo, error);
    if (!profile) {
        *error = QStringLiteral("--client-go: %1").arg(*error);
        return false;
    }
    m_profile = *profile;
    if (m_spec.minWatchTimeout)
        m_profile.minWatchTimeoutSeconds =
            static_cast<double>(*m_spec.minWatchTimeout) / kUsPerSecond;
    if (m_spec.protobufWire)
        m_profile.protobufWire = *m_spec.protobufWire;
    auto targets = resolveClusterTargets(m_spec, error);
    if (!targets)
        return false;
    m_targets = std::move(*targets);
    for (const ClusterTarget& t : m_targets)
        if (t.exec && !m_exec)
            m_exec = std::make_shared<ExecCredentialRunner>();
    return true;
}

std::vector<ClusterServerInfo> ClusterSource::serverInfos() const {
    std::vector<ClusterServerInfo> out;
    for (std::size_t i = 0; i < m_targets.size(); ++i) {
        const ClusterTarget& t = m_targets[i];
        ClusterServerInfo s;
        s.endpoint = t.server.toString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
        s.name = m_targets.size() == 1 ? QStringLiteral("apiserver")
                                       : QStringLiteral("apiserver-%1").arg(i);
        s.user = t.user;
        out.push_back(std::move(s));
    }
    return out;
}

ClusterScope ClusterSource::scope() const {
    ClusterScope s;
    s.onlyNamespace = m_spec.namespaceScope;
    // Only a namespace the context names itself: "default" is no sign of where rights end.
    if (s.onlyNamespace.isEmpty() && !m_targets.empty() && m_targets.front().namespaceNamed)
        s.forbiddenFallback = m_targets.front().defaultNamespace;
    return s;
}

QJsonObject ClusterSource::replayInfo() const {
    return ClusterFrameConsumer::replayInfo(serverInfos(), m_spec.resources, scope(), m_profile);
}

bool ClusterSource::open(Pipeline& pipeline, QString* error) {
    m_clock.start();
    for (const ClusterTarget& t : m_targets) {
        auto transport = std::make_unique<ClusterHttpTransport>(
            t, m_queue, [this] { return now(); }, credentialProviderFor(t, m_exec), m_version);
        if (!transport->start(error))
            return false;
        m_transports.push_back(std::move(transport));
    }
    m_consumer = std::make_unique<ClusterFrameConsumer>(serverInfos(), m_spec.resources, scope(),
                                                        m_profile, pipeline, this);
    m_consumer->start();
    return true;
}

namespace {

// "/api/v1/secrets?...", "/api/v1/namespaces/NS/secrets[/NAME]?...": what returns Secrets.
bool requestsSecrets(const QString& pathAndQuery) {
    const QStringList parts = QStringView(pathAndQuery)
                                  .left(pathAndQuery.indexOf(u'?'))
                                  .toString()
                                  .split(u'/', Qt::SkipEmptyParts);
    if (parts.size() < 3 || parts[0] != QLatin1String("api") || parts[1] != QLatin1String("v1"))
        return false;
    if (parts.size() >= 5 && parts[2] == QLatin1String("namespaces"))
        return parts[4] == QLatin1String("secrets");
    return parts[2] == QLatin1String("secrets");
}

} // namespace

void ClusterSource::send(int server, HttpRequest request) {
    if (!m_spec.keepSecrets && requestsSecrets(request.pathAndQuery)) {
        if (m_secretSalt.isEmpty())
            m_secretSalt = SecretDigest::randomSalt();
        m_secretBodies.insert_or_assign(request.id, JsonSecretRedactor(m_secretSalt));
    }
    m_transports[static_cast<std::size_t>(server)]->submit(std::move(request));
}

void ClusterSource::cancel(int server, int requestId) {
    m_transports[static_cast<std::size_t>(server)]->cancel(requestId);
}

TimeUs ClusterSource::now() const {
    return m_clock.isValid() ? m_clock.nsecsElapsed() / 1000 : 0;
}

QStringList ClusterSource::securityWarnings() const {
    QStringList out;
    for (const ClusterTarget& t : m_targets)
        for (const QString& w : ClusterHttpSettings::warningsFor(t))
            if (!out.contains(w))
                out << w;
    return out;
}

QStringList ClusterSource::sessionWarnings() const {
    return m_consumer ? m_consumer->warnings() : QStringList();
}

QString ClusterSource::failure() const {
    return m_consumer ? m_consumer->failure() : QString();
}

bool ClusterSource::finished() const {
    return (m_consumer && (m_consumer->closed() || !m_consumer->failure().isEmpty())) ||
           (m_spec.duration && m_clock.isValid() && now() >= *m_spec.duration);
}

QString ClusterSource::state() const {
    if (m_consumer && !m_consumer->reflectorsStarted() && !m_targets.empty())
        return QStringLiteral("Connecting to %1")
            .arg(
                m_targets.front().server.toString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash));
    return {};
}

void ClusterSource::redactSecrets(Frame& f) {
    const auto it = m_secretBodies.find(f.connection);
    if (it == m_secretBodies.end())
        return;
    switch (static_cast<HttpFrameKind>(f.kind)) {
    case HttpFrameKind::RequestSent: // a retry: a new body follows
        it->second.reset();
        break;
    case HttpFrameKind::ResponseHead:
        break;
    case HttpFrameKind::BodyChunk:
        f.bytes = it->second.feed(f.bytes.constData(), static_cast<std::size_t>(f.bytes.size()));
        break;
    case HttpFrameKind::ResponseEnd:
        m_secretBodies.erase(it);
        break;
    }
}

void ClusterSource::consumeQueued(Pipeline& pipeline) {
    m_queue.drain(m_frames);
    for (Frame& f : m_frames) {
        redactSecrets(f);
        pipeline.frameReceived(f);
        m_consumer->consume(std::move(f));
    }
}

bool ClusterSource::setDoorbell(Doorbell* doorbell) {
    m_queue.setDoorbell(doorbell);
    return true;
}

TimeUs ClusterSource::poll(Pipeline& pipeline) {
    consumeQueued(pipeline);
    const bool received = !m_frames.empty();
    // A tick when frames came (they are handled at its time) or a timer is due, not on every
    // poll: a quiet session ticks ten times a second (the timeline's samples), and a capture
    // holds the same ticks, so its replay ticks exactly as the session did.
    const TimeUs t = now();
    const bool ticks = received || t >= m_consumer->nextTickDue();
    if (ticks) {
        // After the drain: every frame handled at this tick arrived before it.
        const Frame tick = ClusterFrameConsumer::tick(t, false);
        pipeline.frameReceived(tick);
        m_consumer->consume(tick);
    }
    if (received) {
        QVector<SourceRevisionAccount> accounts = m_consumer->revisionAccounts();
        const std::lock_guard lock(m_accountsMutex);
        m_accounts = std::move(accounts);
    }
    // The transports ring the session loop's bell for frames; until then, the next timer or
    // the end of --duration.
    TimeUs due = m_consumer->nextTickDue();
    if (m_spec.duration)
        due = std::min(due, *m_spec.duration);
    // A timer its tick could not clear at once (what it waits for comes as a frame) is looked
    // at again a millisecond later, not in a spin.
    return std::max<TimeUs>(ticks ? milliseconds(1) : 0, due - now());
}

QVector<SourceRevisionAccount> ClusterSource::revisionAccounts() const {
    const std::lock_guard lock(m_accountsMutex);
    return m_accounts;
}

void ClusterSource::close(Pipeline& pipeline) {
    m_queue.release(); // a transport waiting for room must not hold its stop
    for (auto& t : m_transports)
        t->stop();
    if (!m_consumer || m_consumer->closed())
        return;
    consumeQueued(pipeline);
    const Frame tick = ClusterFrameConsumer::tick(now(), true);
    pipeline.frameReceived(tick);
    m_consumer->consume(tick);
    QVector<SourceRevisionAccount> accounts = m_consumer->revisionAccounts();
    const std::lock_guard lock(m_accountsMutex);
    m_accounts = std::move(accounts);
}

QStringList ClusterSource::resources() const {
    return m_consumer ? m_consumer->resources() : QStringList();
}

qint64 ClusterSource::totalEvents() const {
    return m_consumer ? m_consumer->totalEvents() : 0;
}

void ClusterSource::snapshot(QVector<CacheSnapshot>& caches,
                             QVector<WatcherSnapshot>& watchers) const {
    if (m_consumer)
        m_consumer->snapshot(caches, watchers);
}

void ClusterSource::resourceSnapshot(QVector<ResourceSnapshot>& resources) const {
    if (m_consumer)
        m_consumer->resourceSnapshot(resources);
}

VersionContext ClusterSource::versions() const {
    if (m_consumer)
        return m_consumer->versions();
    VersionContext v;
    v.clientGo = m_profile.name;
    return v;
}

} // namespace ws

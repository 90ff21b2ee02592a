#include "EtcdSource.h"

#include "EtcdFrameConsumer.h"
#include "EtcdFrameRecorder.h"
#include "EtcdWatchStream.h"
#include "engine/Pipeline.h"
#include "engine/SeriesNames.h"

#include <QJsonArray>
#include <pthread.h>

namespace ws {

namespace {

bool wholeKeyspace(const QString& prefix) {
    return prefix.isEmpty() || prefix == QLatin1String("/") ||
           prefix == QLatin1String("/registry/") || prefix == QLatin1String("/registry");
}

constexpr TimeUs kTickInterval = milliseconds(10);

// Where kube-apiserver keeps Secrets under the watched prefix: <prefix>secrets/...; watching
// the whole keyspace ("/"), the default /registry/ layout.
std::string secretsPrefix(const QString& prefix) {
    if (prefix.isEmpty() || prefix == QLatin1String("/"))
        return "/registry/";
    return prefix.endsWith(u'/') ? prefix.toStdString() : prefix.toStdString() + '/';
}

} // namespace

EtcdSource::EtcdSource(EtcdSourceSpec spec, std::optional<TimeUs> duration)
    : m_spec(std::move(spec)), m_duration(duration) {
    if (m_spec.prefix.isEmpty())
        m_spec.prefix = QStringLiteral("/registry/");
    m_connect = connectOptions(m_spec);
}

EtcdSource::~EtcdSource() {
    stopTransport();
}

void EtcdSource::stopTransport() {
    m_stopping = true;
    m_queue.release(); // a transport waiting for room must not hold the stop

    {
        std::lock_guard lock(m_mutex);
        if (m_stream)
            m_stream->stop();
    }
    if (m_transport.joinable())
        m_transport.join();
}

EtcdConnectOptions EtcdSource::connectOptions(const EtcdSourceSpec& spec) {
    EtcdConnectOptions c;
    c.endpoints = spec.endpoints;
    c.tls.caFile = spec.caFile;
    c.tls.certFile = spec.certFile;
    c.tls.keyFile = spec.keyFile;
    return c;
}

QString EtcdSource::description() const {
    // Endpoint URLs only: never the TLS file contents.
    QString d = QStringLiteral("etcd %1, prefix %2")
                    .arg(m_spec.endpoints.join(QLatin1Char(',')), m_spec.prefix);
    if (m_spec.tls())
        d += QStringLiteral(", TLS");
    return d;
}

QJsonObject EtcdSource::replayInfo() const {
    // What the frames were decoded with; endpoints for the reader's information only.
    QJsonObject o;
    o.insert(QStringLiteral("prefix"), m_spec.prefix);
    o.insert(QStringLiteral("watchCache"), m_spec.watchCache);
    o.insert(QStringLiteral("endpoints"), QJsonArray::fromStringList(m_spec.endpoints));
    return o;
}

bool EtcdSource::prepare(QString* error) {
    // Validates the endpoints and reads the TLS files; no network.
    m_client = std::make_unique<EtcdClient>(m_connect);
    if (!m_client->ok()) {
        *error = m_client->error();
        return false;
    }
    return true;
}

EtcdEventProcessor::Options EtcdSource::processorOptions(const EtcdSourceSpec& spec) {
    EtcdEventProcessor::Options po;
    po.prefix = (spec.prefix.isEmpty() ? QStringLiteral("/registry/") : spec.prefix).toStdString();
    po.watcherId = EtcdFrameConsumer::watcherId();
    po.seesEveryRevision = wholeKeyspace(spec.prefix);
    po.watchCache = spec.watchCache;
    return po;
}

bool EtcdSource::open(Pipeline& pipeline, QString*) {
    m_consumer = std::make_unique<EtcdFrameConsumer>(m_spec, pipeline);
    m_clock.start();
    m_recorder = std::make_unique<EtcdFrameRecorder>(
        m_queue, m_connection, [this] { return now(); }, secretsPrefix(m_spec.prefix),
        !m_spec.keepSecrets);
    m_transport = std::thread([this] {
        pthread_setname_np(pthread_self(), "ws-etcd-conn");
        transport();
    });
    return true;
}

void EtcdSource::transport() {
    QString error;
    const auto first = m_client->status(&error);
    if (!first) {
        std::lock_guard lock(m_mutex);
        m_failure = error;
        return;
    }
    {
        // Before the first frame is queued: the session thread names the connection with it.
        std::lock_guard lock(m_mutex);
        m_version = first->version;
    }
    m_recorder->statusReceived(first->revision);
    m_connected = true;

    EtcdWatchOptions wo;
    const std::string prefix = m_spec.prefix.toStdString();
    if (!wholeKeyspace(m_spec.prefix)) {
        wo.key = prefix;
        wo.rangeEnd = EtcdClient::prefixEnd(prefix);
    }
    wo.startRevision = m_spec.startRevision;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return;
        m_stream = std::make_unique<EtcdWatchStream>(*m_client, wo, *m_recorder);
        m_stream->start();
    }
    // The head revision, for lag: Status every statusInterval.
    while (!m_stopping) {
        const TimeUs until = now() + m_spec.statusInterval;
        while (!m_stopping && now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (m_stopping)
            break;
        if (auto st = m_client->status(&error))
            m_recorder->statusReceived(st->revision);
    }
}

// The connection is announced with its first frame rather than in open(): only then is the
// etcd version known (the first Status answer is the first frame), and a source that never
// reached etcd has no connection to show.
void EtcdSource::openConnection(Pipeline& pipeline) {
    ConnectionInfo info;
    info.id = m_connection;
    info.sourceKind = kind();
    info.endpoint = m_spec.endpoints.join(QLatin1Char(','));
    {
        std::lock_guard lock(m_mutex);
        info.versions =
            m_version.isEmpty() ? QStringLiteral("etcd") : QStringLiteral("etcd %1").arg(m_version);
    }
    pipeline.connectionOpened(info);
    m_connectionOpened = true;
}

void EtcdSource::decodeQueued(Pipeline& pipeline) {
    m_queue.drain(m_frames);
    if (!m_frames.empty() && !m_connectionOpened)
        openConnection(pipeline);
    for (Frame& f : m_frames) {
        // Stamped on the transport thread before it was queued: a tick of this thread may
        // already have passed that time. Session time only moves forward.
        f.received = std::max(f.received, m_lastTick);
        pipeline.frameReceived(f);
        m_consumer->consume(f);
    }
    m_frames.clear();
}

TimeUs EtcdSource::poll(Pipeline& pipeline) {
    const bool any = m_queue.pending() > 0;
    decodeQueued(pipeline);
    const TimeUs t = now();
    if (t - m_lastTick >= kTickInterval)
        tick(pipeline, t, false);
    return any ? 0 : milliseconds(2);
}

void EtcdSource::tick(Pipeline& pipeline, TimeUs t, bool final) {
    m_lastTick = t;
    // Before the first frame there is no connection to hold the tick, and nothing to tick.
    if (!m_connectionOpened)
        return;
    const Frame f = EtcdFrameConsumer::tick(m_connection, t, final);
    pipeline.frameReceived(f);
    m_consumer->consume(f);
}

bool EtcdSource::finished() const {
    return m_closed || (m_duration && m_clock.isValid() && now() >= *m_duration);
}

QString EtcdSource::failure() const {
    std::lock_guard lock(m_mutex);
    return m_failure;
}

QString EtcdSource::state() const {
    if (!m_connected)
        return QStringLiteral("Connecting to %1").arg(m_spec.endpoints.join(QLatin1Char(',')));
    if (!m_consumer)
        return {};
    const EtcdProcessorStats st = m_consumer->stats();
    if (st.state == QLatin1String("watching"))
        return {};
    QString s = QStringLiteral("etcd: %1").arg(st.state);
    if (!st.lastError.isEmpty() && st.state.startsWith(QLatin1String("reconnecting")))
        s += QStringLiteral(" (%1)").arg(st.lastError);
    return s;
}

void EtcdSource::close(Pipeline& pipeline) {
    if (m_closed)
        return;
    stopTransport();
    if (m_consumer) {
        decodeQueued(pipeline); // what arrived before the stop
        tick(pipeline, now(), true);
    }
    std::lock_guard lock(m_mutex);
    m_stream.reset();
    m_closed = true;
}

QStringList EtcdSource::resources() const {
    return m_consumer ? m_consumer->resources() : QStringList();
}

TimeUs EtcdSource::now() const {
    return m_clock.isValid() ? m_clock.nsecsElapsed() / 1000 : 0;
}

qint64 EtcdSource::totalEvents() const {
    return m_consumer ? m_consumer->totalEvents() : 0;
}

void EtcdSource::snapshot(QVector<CacheSnapshot>& caches,
                          QVector<WatcherSnapshot>& watchers) const {
    if (m_consumer)
        m_consumer->snapshot(caches, watchers,
                             m_connected ? QString() : QStringLiteral("connecting"));
}

void EtcdSource::resourceSnapshot(QVector<ResourceSnapshot>& resources) const {
    if (m_consumer)
        m_consumer->resourceSnapshot(resources);
}

bool EtcdSource::probe(const EtcdConnectOptions& options, QString* error, EtcdStatus* status) {
    EtcdClient client(options);
    if (!client.ok()) {
        *error = client.error();
        return false;
    }
    auto st = client.status(error);
    if (!st)
        return false;
    if (status)
        *status = *st;
    return true;
}

EtcdProcessorStats EtcdSource::stats() const {
    return m_consumer ? m_consumer->stats() : EtcdProcessorStats{};
}

QVector<SourceRevisionAccount> EtcdSource::revisionAccounts() const {
    return m_consumer ? m_consumer->revisionAccounts() : QVector<SourceRevisionAccount>{};
}

EtcdWatchStream* EtcdSource::stream() const {
    std::lock_guard lock(m_mutex);
    return m_stream.get();
}

VersionContext EtcdSource::versions() const {
    VersionContext v;
    std::lock_guard lock(m_mutex);
    v.etcd = m_version;
    return v;
}

} // namespace ws

#include "EtcdSource.h"

#include "EtcdFrameDecoder.h"
#include "EtcdFrameRecorder.h"
#include "EtcdWatchStream.h"
#include "engine/Pipeline.h"
#include "engine/SeriesNames.h"

#include <pthread.h>

namespace ws {

namespace {

bool wholeKeyspace(const QString& prefix) {
    return prefix.isEmpty() || prefix == QLatin1String("/") ||
           prefix == QLatin1String("/registry/") || prefix == QLatin1String("/registry");
}

constexpr TimeUs kSampleInterval = milliseconds(90); // >= 10 samples a second
const QString kWatcherId = QStringLiteral("watchscope/etcd");

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
    po.watcherId = kWatcherId;
    po.seesEveryRevision = wholeKeyspace(spec.prefix);
    po.watchCache = spec.watchCache;
    return po;
}

bool EtcdSource::open(Pipeline& pipeline, QString*) {
    const EtcdEventProcessor::Options po = processorOptions(m_spec);
    m_processor =
        std::make_unique<EtcdEventProcessor>(po, pipeline, [this] { return m_decodeTime; });
    m_decoder = std::make_unique<EtcdFrameDecoder>(*m_processor);
    m_clock.start();
    m_recorder =
        std::make_unique<EtcdFrameRecorder>(m_queue, m_connection, [this] { return now(); });
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
    for (const Frame& f : m_frames) {
        pipeline.frameReceived(f);
        m_decodeTime = f.received;
        QString error;
        if (!m_decoder->decode(f, &error)) {
            Anomaly a;
            a.time = f.received;
            a.kind = AnomalyKind::StreamError;
            a.source = AnomalySource::Etcd;
            a.watcher = kWatcherId;
            a.message = error;
            pipeline.hub().report(a);
        }
    }
    m_frames.clear();
}

TimeUs EtcdSource::poll(Pipeline& pipeline) {
    const bool any = m_queue.pending() > 0;
    decodeQueued(pipeline);
    const TimeUs t = now();
    m_decodeTime = t;
    m_processor->tick();
    if (t >= m_nextSample) {
        m_nextSample = t + kSampleInterval;
        sample(pipeline, t);
    }
    return any ? 0 : milliseconds(2);
}

void EtcdSource::sample(Pipeline& pipeline, TimeUs t) {
    TimelineStore& timeline = pipeline.timeline();
    const EtcdProcessorStats st = m_processor->stats();
    if (st.headRevision == 0 && st.position == 0)
        return; // nothing known yet
    const ResourceVersion head = std::max(st.headRevision, st.position);
    const double lagSec = m_processor->lagSeconds();
    for (const EtcdResourceStats& r : m_processor->resourceStats()) {
        auto add = [&](const QString& name, double v) {
            timeline.append(timeline.series(r.resource, name), t, v);
        };
        add(series::headRv(), double(head));
        add(series::watcherRv(kWatcherId), double(st.position));
        add(series::watcherLag(kWatcherId), double(head - st.position));
        add(series::watcherLagSeconds(kWatcherId), lagSec);
        if (r.cacheReady) {
            add(series::cacheRv(), double(r.cacheRv));
            add(series::bufferUsed(), double(r.bufferUsed));
            add(series::bufferCapacity(), double(r.bufferCapacity));
            add(series::bufferOldestRv(), double(r.bufferOldestRv));
        }
    }
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
    if (!m_processor)
        return {};
    const EtcdProcessorStats st = m_processor->stats();
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
    if (m_processor) {
        decodeQueued(pipeline); // what arrived before the stop
        m_decodeTime = now();
        sample(pipeline, m_decodeTime);
    }
    std::lock_guard lock(m_mutex);
    m_stream.reset();
    m_closed = true;
}

QStringList EtcdSource::resources() const {
    return m_processor ? m_processor->resources() : QStringList();
}

TimeUs EtcdSource::now() const {
    return m_clock.isValid() ? m_clock.nsecsElapsed() / 1000 : 0;
}

qint64 EtcdSource::totalEvents() const {
    return m_processor ? m_processor->stats().events : 0;
}

void EtcdSource::snapshot(QVector<CacheSnapshot>& caches,
                          QVector<WatcherSnapshot>& watchers) const {
    if (!m_processor)
        return;
    const EtcdProcessorStats st = m_processor->stats();
    const ResourceVersion head = std::max(st.headRevision, st.position);
    const double lagSec = m_processor->lagSeconds();
    for (const EtcdResourceStats& r : m_processor->resourceStats()) {
        CacheSnapshot c;
        c.resource = r.resource;
        c.headRv = head;
        c.cacheRv = r.cacheReady ? r.cacheRv : 0;
        c.bufferUsed = r.bufferUsed;
        c.bufferCapacity = r.bufferCapacity;
        c.bufferOldestRv = r.bufferOldestRv;
        c.objects = r.objects;
        caches.push_back(c);
        WatcherSnapshot w;
        w.id = kWatcherId;
        w.resource = r.resource;
        w.profile = QStringLiteral("etcd watch");
        w.state = m_connected ? st.state : QStringLiteral("connecting");
        w.rv = st.position;
        w.lagRevisions = head - st.position;
        w.lagSeconds = lagSec;
        w.eventsReceived = r.creates + r.updates + r.deletes;
        w.relists = static_cast<int>(std::max<qint64>(0, st.lists - 1));
        watchers.push_back(w);
    }
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
    return m_processor ? m_processor->stats() : EtcdProcessorStats{};
}

EtcdWatchStream* EtcdSource::stream() const {
    std::lock_guard lock(m_mutex);
    return m_stream.get();
}

} // namespace ws

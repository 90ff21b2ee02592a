#include "EtcdSession.h"

#include "EtcdWatchStream.h"
#include "export/AnomalyJsonlWriter.h"
#include "export/TimelineWriter.h"
#include "timeline/TimelineStore.h"

#include <QDateTime>
#include <QHash>
#include <QSet>
#include <condition_variable>

namespace ws {

namespace {

bool wholeKeyspace(const std::string& prefix) {
    return prefix.empty() || prefix == "/" || prefix == "/registry/" || prefix == "/registry";
}

constexpr auto kPublishInterval = std::chrono::milliseconds(33); // <= 30 updates a second
constexpr auto kSampleInterval = std::chrono::milliseconds(90);  // >= 10 samples a second

} // namespace

EtcdSession::EtcdSession(EtcdSessionOptions options, QObject* parent)
    : Session(parent), m_options(std::move(options)) {
    if (m_options.prefix.empty())
        m_options.prefix = "/registry/";
}

EtcdSession::~EtcdSession() {
    stop();
}

QString EtcdSession::description() const {
    // Endpoint URLs only: never the TLS file contents.
    QString eps = m_options.connect.endpoints.join(QLatin1Char(','));
    QString d =
        QStringLiteral("etcd %1, prefix %2").arg(eps, QString::fromStdString(m_options.prefix));
    if (m_options.connect.tls.enabled())
        d += QStringLiteral(", TLS");
    return d;
}

QStringList EtcdSession::resources() const {
    QStringList all;
    if (m_processor)
        all = m_processor->resources();
    if (m_options.resources.isEmpty())
        return all;
    QStringList out;
    for (const QString& r : all)
        if (m_options.resources.contains(r))
            out << r;
    return out;
}

bool EtcdSession::probe(const EtcdConnectOptions& options, QString* error, EtcdStatus* status) {
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

EtcdProcessorStats EtcdSession::stats() const {
    std::lock_guard lock(m_mutex);
    return m_processor ? m_processor->stats() : EtcdProcessorStats{};
}

AnomalyList EtcdSession::anomalies() const {
    std::lock_guard lock(m_mutex);
    return m_processor ? m_processor->anomalies() : AnomalyList{};
}

QString EtcdSession::failure() const {
    std::lock_guard lock(m_mutex);
    return m_failure;
}

void EtcdSession::start() {
    if (m_worker.joinable())
        return;
    m_stopping = false;
    m_running = true;
    {
        std::lock_guard lock(m_mutex);
        m_client = std::make_unique<EtcdClient>(m_options.connect);
        EtcdEventProcessor::Options po;
        po.prefix = m_options.prefix;
        po.seesEveryRevision = wholeKeyspace(m_options.prefix);
        po.watchCache = m_options.watchCache;
        m_processor = std::make_unique<EtcdEventProcessor>(po);
    }
    m_worker = std::thread([this] { work(); });
}

void EtcdSession::stop() {
    m_stopping = true; // the worker stops the stream and the status poller itself
    if (m_worker.joinable())
        m_worker.join();
}

void EtcdSession::statusLoop() {
    while (!m_stopping) {
        QString error;
        if (auto st = m_client->status(&error)) {
            m_processor->noteHead(st->revision);
        }
        const auto until = std::chrono::steady_clock::now() + m_options.statusInterval;
        while (!m_stopping && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

void EtcdSession::work() {
    auto fail = [this](const QString& message) {
        {
            std::lock_guard lock(m_mutex);
            m_failure = message;
        }
        m_running = false;
        emit failed(message);
        emit finished();
    };
    if (!m_client->ok())
        return fail(m_client->error());
    QString error;
    const auto first = m_client->status(&error);
    if (!first)
        return fail(error);
    m_processor->noteHead(first->revision);

    const QDateTime wallStart = QDateTime::currentDateTimeUtc();
    std::unique_ptr<AnomalyJsonlWriter> anomalyWriter;
    if (!m_options.outputs.anomaliesPath.isEmpty()) {
        anomalyWriter = std::make_unique<AnomalyJsonlWriter>(wallStart);
        if (!anomalyWriter->open(m_options.outputs.anomaliesPath, &error))
            return fail(error);
    }
    TimelineStore timeline;
    std::unique_ptr<TimelineWriter> timelineWriter;
    if (!m_options.outputs.timelinePath.isEmpty()) {
        timelineWriter = std::make_unique<TimelineWriter>();
        if (!timelineWriter->open(m_options.outputs.timelinePath, &error))
            return fail(error);
        timelineWriter->attach(timeline);
    }
    // New samples since the last update, per series.
    QHash<SeriesId, QVector<QPointF>> pendingPoints;
    timeline.addListener([&](SeriesId id, TimeUs t, double v) {
        pendingPoints[id].append(QPointF(static_cast<double>(t) / kUsPerMs, v));
    });

    EtcdWatchOptions wo;
    if (!wholeKeyspace(m_options.prefix)) {
        wo.key = m_options.prefix;
        wo.rangeEnd = EtcdClient::prefixEnd(m_options.prefix);
    }
    wo.startRevision = m_options.startRevision;
    {
        std::lock_guard lock(m_mutex);
        m_stream = std::make_unique<EtcdWatchStream>(*m_client, wo, *m_processor);
    }
    m_stream->start();
    m_status = std::thread([this] { statusLoop(); });

    const QSet<QString> filter(m_options.resources.begin(), m_options.resources.end());
    auto shown = [&](const QString& r) { return filter.isEmpty() || filter.contains(r); };
    const QString watcherId = QStringLiteral("watchscope/etcd");
    const auto started = std::chrono::steady_clock::now();
    auto nextSample = started;
    qint64 lastEvents = 0;
    auto lastRateAt = started;
    double rate = 0;

    bool done = false;
    while (!done) {
        const auto now = std::chrono::steady_clock::now();
        done =
            m_stopping || (m_options.duration.count() > 0 && now - started >= m_options.duration);
        m_processor->tick();
        const TimeUs t = m_processor->now();
        const EtcdProcessorStats st = m_processor->stats();
        const QVector<EtcdResourceStats> rs = m_processor->resourceStats();
        const ResourceVersion head = std::max(st.headRevision, st.position);
        if (now >= nextSample || done) {
            nextSample = now + kSampleInterval;
            const double lagSec = m_processor->lagSeconds();
            for (const EtcdResourceStats& r : rs) {
                if (!shown(r.resource))
                    continue;
                timeline.append(timeline.series(r.resource, QStringLiteral("head_rv")), t,
                                static_cast<double>(head));
                timeline.append(
                    timeline.series(r.resource, QStringLiteral("watcher_rv:") + watcherId), t,
                    static_cast<double>(st.position));
                timeline.append(
                    timeline.series(r.resource, QStringLiteral("watcher_lag:") + watcherId), t,
                    static_cast<double>(head - st.position));
                timeline.append(
                    timeline.series(r.resource, QStringLiteral("watcher_lag_seconds:") + watcherId),
                    t, lagSec);
                if (r.cacheReady) {
                    timeline.append(timeline.series(r.resource, QStringLiteral("cache_rv")), t,
                                    static_cast<double>(r.cacheRv));
                    timeline.append(timeline.series(r.resource, QStringLiteral("buffer_used")), t,
                                    static_cast<double>(r.bufferUsed));
                    timeline.append(timeline.series(r.resource, QStringLiteral("buffer_capacity")),
                                    t, static_cast<double>(r.bufferCapacity));
                    timeline.append(timeline.series(r.resource, QStringLiteral("buffer_oldest_rv")),
                                    t, static_cast<double>(r.bufferOldestRv));
                }
            }
        }

        EngineUpdate u;
        u.now = t;
        u.finished = done;
        u.totalEvents = st.events;
        const double dt = std::chrono::duration<double>(now - lastRateAt).count();
        if (dt >= 0.5) {
            rate = static_cast<double>(st.events - lastEvents) / dt;
            lastEvents = st.events;
            lastRateAt = now;
        }
        u.eventsPerSecond = rate;
        for (const EtcdResourceStats& r : rs) {
            if (!shown(r.resource))
                continue;
            CacheSnapshot c;
            c.resource = r.resource;
            c.headRv = head;
            c.cacheRv = r.cacheReady ? r.cacheRv : 0;
            c.bufferUsed = r.bufferUsed;
            c.bufferCapacity = r.bufferCapacity;
            c.bufferOldestRv = r.bufferOldestRv;
            c.objects = r.objects;
            u.caches.push_back(c);
            WatcherSnapshot w;
            w.id = watcherId;
            w.resource = r.resource;
            w.profile = QStringLiteral("etcd watch");
            w.state = st.state;
            w.rv = st.position;
            w.lagRevisions = head - st.position;
            w.lagSeconds = m_processor->lagSeconds();
            w.eventsReceived = r.creates + r.updates + r.deletes;
            w.relists = static_cast<int>(std::max<qint64>(0, st.lists - 1));
            u.watchers.push_back(w);
        }
        for (const Anomaly& a : m_processor->takeNewAnomalies()) {
            if (!a.resource.isEmpty() && !shown(a.resource) &&
                a.resource != QLatin1String("(other)"))
                continue;
            if (anomalyWriter)
                anomalyWriter->write(a);
            if (timelineWriter)
                timelineWriter->addAnomaly(a);
            u.anomalies.push_back(a);
        }
        for (auto it = pendingPoints.begin(); it != pendingPoints.end(); ++it) {
            if (it.value().isEmpty())
                continue;
            SeriesDelta sd;
            sd.resource = timeline.resource(it.key());
            sd.series = timeline.name(it.key());
            sd.points = std::move(it.value());
            u.series.push_back(std::move(sd));
        }
        pendingPoints.clear();
        emit updated(u);
        if (!done) {
            const auto until = now + kPublishInterval;
            while (!m_stopping && std::chrono::steady_clock::now() < until)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }

    m_stopping = true;
    m_stream->stop();
    if (m_status.joinable())
        m_status.join();
    if (anomalyWriter && !anomalyWriter->close(&error))
        m_processor->noteError(error);
    if (timelineWriter && !timelineWriter->close(&error))
        m_processor->noteError(error);
    m_running = false;
    emit finished();
}

} // namespace ws

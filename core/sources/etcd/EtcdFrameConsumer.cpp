#include "EtcdFrameConsumer.h"

#include "EtcdFrameDecoder.h"
#include "EtcdFrameKind.h"
#include "EtcdSource.h"
#include "engine/Pipeline.h"
#include "engine/SeriesNames.h"

#include <QDataStream>
#include <QIODevice>

namespace ws {

namespace {
constexpr TimeUs kSampleInterval = milliseconds(90); // >= 10 samples a second
} // namespace

const QString& EtcdFrameConsumer::watcherId() {
    static const QString id = QStringLiteral("watchscope/etcd");
    return id;
}

EtcdFrameConsumer::EtcdFrameConsumer(const EtcdSourceSpec& spec, Pipeline& pipeline)
    : m_pipeline(pipeline) {
    EtcdEventProcessor::Options po = EtcdSource::processorOptions(spec);
    po.watcherId = watcherId();
    m_selector = QStringLiteral("prefix ") + QString::fromStdString(po.prefix);
    m_processor = std::make_unique<EtcdEventProcessor>(po, pipeline, [this] { return m_time; });
    m_decoder = std::make_unique<EtcdFrameDecoder>(*m_processor);
}

EtcdFrameConsumer::~EtcdFrameConsumer() = default;

Frame EtcdFrameConsumer::tick(int connection, TimeUs t, bool final) {
    Frame f;
    f.connection = connection;
    f.received = t;
    f.kind = static_cast<std::uint16_t>(EtcdFrameKind::Tick);
    QDataStream out(&f.bytes, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_4);
    out << final;
    return f;
}

void EtcdFrameConsumer::consume(const Frame& f) {
    m_time = f.received;
    if (static_cast<EtcdFrameKind>(f.kind) == EtcdFrameKind::Tick) {
        QDataStream in(f.bytes);
        in.setVersion(QDataStream::Qt_6_4);
        bool final = false;
        in >> final;
        m_processor->tick();
        if (final || f.received >= m_nextSample) {
            m_nextSample = f.received + kSampleInterval;
            sample(f.received);
        }
        return;
    }
    QString error;
    if (!m_decoder->decode(f, &error)) {
        Anomaly a;
        a.time = f.received;
        a.kind = AnomalyKind::StreamError;
        a.source = AnomalySource::Etcd;
        a.watcher = watcherId();
        a.message = error;
        m_pipeline.hub().report(a);
    }
}

void EtcdFrameConsumer::sample(TimeUs t) {
    TimelineStore& timeline = m_pipeline.timeline();
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
        add(series::watcherRv(watcherId()), double(st.position));
        add(series::watcherLag(watcherId()), double(head - st.position));
        add(series::watcherLagSeconds(watcherId()), lagSec);
        if (r.cacheReady) {
            add(series::cacheRv(), double(r.cacheRv));
            add(series::bufferUsed(), double(r.bufferUsed));
            add(series::bufferCapacity(), double(r.bufferCapacity));
            add(series::bufferOldestRv(), double(r.bufferOldestRv));
        }
    }
}

EtcdProcessorStats EtcdFrameConsumer::stats() const {
    return m_processor->stats();
}

QVector<SourceRevisionAccount> EtcdFrameConsumer::revisionAccounts() const {
    return {{QStringLiteral("etcd watch"), m_processor->revisionAccount()}};
}

QStringList EtcdFrameConsumer::resources() const {
    return m_processor->resources();
}

qint64 EtcdFrameConsumer::totalEvents() const {
    return m_processor->stats().events;
}

void EtcdFrameConsumer::resourceSnapshot(QVector<ResourceSnapshot>& resources) const {
    for (const EtcdResourceStats& r : m_processor->resourceStats())
        resources.push_back({r.resource, r.creates + r.updates + r.deletes});
}

void EtcdFrameConsumer::snapshot(QVector<CacheSnapshot>& caches, QVector<WatcherSnapshot>& watchers,
                                 const QString& state) const {
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
        w.id = watcherId();
        w.resource = r.resource;
        w.profile = QStringLiteral("etcd watch");
        w.selector = m_selector;
        w.detail = state.isEmpty() ? st.state : state;
        w.rv = st.position;
        w.lagRevisions = head - st.position;
        w.lagSeconds = lagSec;
        w.eventsReceived = r.creates + r.updates + r.deletes;
        w.relists = static_cast<int>(std::max<qint64>(0, st.lists - 1));
        watchers.push_back(w);
    }
}

} // namespace ws

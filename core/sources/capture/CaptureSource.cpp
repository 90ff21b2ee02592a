#include "CaptureSource.h"

#include "engine/Pipeline.h"
#include "sources/cluster/ClusterFrameConsumer.h"
#include "sources/etcd/EtcdFrameConsumer.h"

namespace ws {

namespace {
constexpr int kRecordsPerPoll = 4096; // at max speed: a slice, then the session may publish
} // namespace

CaptureSource::CaptureSource(QString path, double speed)
    : m_path(std::move(path)), m_pacer(speed) {}

CaptureSource::~CaptureSource() = default;

QString CaptureSource::description() const {
    const QString what = m_reader.header().description;
    return QStringLiteral("capture %1%2")
        .arg(m_path, what.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(what));
}

QDateTime CaptureSource::wallStart() const {
    return QDateTime::fromString(m_reader.header().createdUtc, Qt::ISODateWithMs);
}

bool CaptureSource::prepare(QString* error) {
    if (!m_reader.open(m_path, error))
        return false;
    const QString kind = m_reader.header().sourceKind;
    if (kind != QLatin1String("etcd") && kind != QLatin1String("cluster")) {
        *error = QStringLiteral("%1 is not a capture of etcd or of a cluster").arg(m_path);
        return false;
    }
    return true;
}

bool CaptureSource::open(Pipeline& pipeline, QString* error) {
    if (m_reader.header().sourceKind == QLatin1String("cluster")) {
        m_cluster = ClusterFrameConsumer::fromReplayInfo(m_reader.header().replay, pipeline, error);
        if (!m_cluster) {
            *error = QStringLiteral("%1 is damaged: %2").arg(m_path, *error);
            return false;
        }
        // Makes the same discovery requests, with the same ids, as the recorded session did.
        m_cluster->start();
        return true;
    }
    EtcdSourceSpec spec;
    const QJsonObject replay = m_reader.header().replay;
    spec.prefix = replay.value(QLatin1String("prefix")).toString(QStringLiteral("/registry/"));
    spec.watchCache = replay.value(QLatin1String("watchCache")).toBool(true);
    m_etcd = std::make_unique<EtcdFrameConsumer>(spec, pipeline);
    return true;
}

bool CaptureSource::feed(Pipeline& pipeline, const CaptureRecord& r) {
    switch (r.type) {
    case CaptureRecord::Type::Connection:
        m_versions.fillFrom(VersionContext::fromConnectionVersions(r.connection.versions));
        // A cluster replay opens its connections itself, as its reflectors decide again.
        if (m_etcd)
            pipeline.connectionOpened(r.connection);
        return true;
    case CaptureRecord::Type::Frame:
        m_time = std::max(m_time, r.frame.received);
        pipeline.frameReceived(r.frame);
        if (m_etcd)
            m_etcd->consume(r.frame);
        else
            m_cluster->consume(r.frame);
        return true;
    case CaptureRecord::Type::End:
        return false;
    }
    return false;
}

TimeUs CaptureSource::poll(Pipeline& pipeline) {
    const TimeUs due = m_pacer.due(m_time);
    for (int i = 0; i < kRecordsPerPoll && !m_done; ++i) {
        if (!m_hasPending) {
            if (!m_reader.next(&m_pending)) {
                m_done = true;
                break;
            }
            m_hasPending = true;
        }
        if (m_pending.type == CaptureRecord::Type::Frame && m_pending.frame.received > due)
            return m_pacer.waitFor(m_pending.frame.received);
        m_hasPending = false;
        if (!feed(pipeline, m_pending))
            m_done = true;
    }
    return 0; // the detectors tick on the recorded Tick frames only, as they did live
}

QString CaptureSource::state() const {
    if (m_done)
        return {};
    return QStringLiteral("Replaying %1 (%2 of %3 bytes)")
        .arg(m_path)
        .arg(m_reader.position())
        .arg(m_reader.size());
}

void CaptureSource::close(Pipeline&) {
    m_done = true;
}

QStringList CaptureSource::resources() const {
    if (m_cluster)
        return m_cluster->resources();
    return m_etcd ? m_etcd->resources() : QStringList();
}

qint64 CaptureSource::totalEvents() const {
    if (m_cluster)
        return m_cluster->totalEvents();
    return m_etcd ? m_etcd->totalEvents() : 0;
}

QStringList CaptureSource::sessionWarnings() const {
    return m_cluster ? m_cluster->warnings() : QStringList();
}

QString CaptureSource::warning() const {
    // The recorded session's own failure (every informer refused, ...) is part of what it saw.
    QStringList lines;
    if (!m_reader.warning().isEmpty())
        lines << m_reader.warning();
    if (!m_reader.droppedNote().isEmpty())
        lines << m_reader.droppedNote();
    if (m_cluster && !m_cluster->failure().isEmpty())
        lines << QStringLiteral("the recorded session failed: %1").arg(m_cluster->failure());
    return lines.join(QStringLiteral("; "));
}

void CaptureSource::snapshot(QVector<CacheSnapshot>& caches,
                             QVector<WatcherSnapshot>& watchers) const {
    if (m_etcd)
        m_etcd->snapshot(caches, watchers, QString());
    if (m_cluster)
        m_cluster->snapshot(caches, watchers);
}

void CaptureSource::resourceSnapshot(QVector<ResourceSnapshot>& resources) const {
    if (m_etcd)
        m_etcd->resourceSnapshot(resources);
    if (m_cluster)
        m_cluster->resourceSnapshot(resources);
}

VersionContext CaptureSource::versions() const {
    VersionContext v;
    if (m_cluster)
        v = m_cluster->versions();
    v.fillFrom(m_versions);
    return v;
}

QVector<SourceRevisionAccount> CaptureSource::revisionAccounts() const {
    if (m_etcd)
        return m_etcd->revisionAccounts();
    // A cluster capture: the reflectors keep their accounts again from the recorded frames.
    return m_cluster ? m_cluster->revisionAccounts() : QVector<SourceRevisionAccount>{};
}

} // namespace ws

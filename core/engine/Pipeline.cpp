#include "Pipeline.h"

#include "Source.h"
#include "capture/CaptureWriter.h"

namespace ws {

namespace {
// The pipeline's store hands every sample on as it comes (outputs, and the charts, which keep
// their own history: ui/charts); what it keeps of the past is read back by nothing but the
// latest value. Its history is bounded in total, not only per series, so that reading a long
// audit log (thousands of requested_rv series) holds the same memory as reading a short one:
// 65,536 buckets, 2 MiB of points. Its full-resolution window is a second, not two minutes:
// nothing reads it, and two minutes of an audit log's busy series (requests_watch, a point a
// request) were 5 MB that grew with the log's length up to two minutes of it.
TimelineLimits pipelineTimelineLimits() {
    TimelineLimits limits;
    limits.fullResolutionSpan = seconds(1);
    limits.totalBuckets = 65536;
    return limits;
}
} // namespace

Pipeline::Pipeline(PipelineOptions options)
    : m_options(std::move(options)), m_hub(m_keys), m_timeline(pipelineTimelineLimits()),
      m_journal(std::make_shared<EventJournal>(m_options.journal)),
      m_anomalies(std::make_shared<AnomalyStore>(m_options.anomalies)),
      m_wallStart(QDateTime::currentDateTimeUtc()) {
    if (!m_options.resources.all()) {
        const ResourceFilter filter = m_options.resources;
        m_timeline.setResourceFilter([filter](const QString& r) { return filter.shows(r); });
        m_journal->setResourceFilter([filter](const QString& r) { return filter.shows(r); });
    }
    m_hub.setSink([this](const Anomaly& a) { onAnomaly(a); });
    // A key forgotten (its object deleted everywhere, no journal row left): the detectors and
    // the journal drop what they kept under its id before the id names another key.
    m_keys.onForget([this](KeyId key) { m_hub.forgetKey(key); });
    m_journal->setKeyTable(&m_keys);
    m_timeline.addListener([this](SeriesId id, TimeUs t, double v) {
        const auto i = static_cast<std::size_t>(id);
        if (i >= m_pendingSeries.size())
            m_pendingSeries.resize(i + 1);
        m_pendingSeries[i].append(QPointF(static_cast<double>(t) / kUsPerMs, v));
    });
}

Pipeline::~Pipeline() {
    closeOutputs(0, nullptr);
    m_journal->setKeyTable(nullptr); // the journal may be read after the pipeline is gone
}

bool Pipeline::openOutputs(const CaptureHeader& capture, const QDateTime& wallStart,
                           QString* error) {
    // A replay starts when its capture did, so wall-clock times come out as they did live.
    m_wallStart = wallStart.isValid() ? wallStart.toUTC() : QDateTime::currentDateTimeUtc();
    CaptureHeader header = capture;
    header.createdUtc = m_wallStart.toString(Qt::ISODateWithMs);
    if (!m_recorder.open(m_options.outputs, m_wallStart, m_timeline, header, error))
        return false;
    if (FrameTap* tap = m_recorder.captureTap())
        addTap(tap);
    return true;
}

bool Pipeline::closeOutputs(TimeUs endTime, QString* error) {
    if (FrameTap* tap = m_recorder.captureTap())
        std::erase(m_taps, tap);
    QString captureError;
    const bool captured = stopCapture(endTime, &captureError);
    const bool ok = m_recorder.close(endTime, error);
    if (!captured && error)
        *error = captureError;
    return ok && captured;
}

bool Pipeline::startCapture(const QString& path, const CaptureHeader& header, QString* error) {
    if (m_liveCapture) {
        *error = QStringLiteral("a capture is already being written (%1)").arg(path);
        return false;
    }
    auto writer = std::make_unique<CaptureWriter>();
    CaptureHeader h = header;
    h.createdUtc = m_wallStart.toString(Qt::ISODateWithMs); // session time 0, as with --out
    if (!writer->open(path, h, error))
        return false;
    for (const auto& [id, connection] : m_connections)
        writer->writeConnection(connection);
    m_liveCapture = std::move(writer);
    addTap(m_liveCapture.get());
    return true;
}

bool Pipeline::stopCapture(TimeUs endTime, QString* error) {
    if (!m_liveCapture)
        return true;
    std::erase(m_taps, static_cast<FrameTap*>(m_liveCapture.get()));
    QString e;
    const bool ok = m_liveCapture->close(endTime, &e);
    m_pastCaptureFramesDropped += m_liveCapture->droppedFrames();
    m_pastCaptureBytesDropped += m_liveCapture->droppedFrameBytes();
    m_liveCapture.reset();
    if (!ok && error)
        *error = e;
    return ok;
}

void Pipeline::connectionOpened(const ConnectionInfo& connection) {
    m_connections[connection.id] = connection;
    for (FrameTap* t : m_taps)
        t->connectionOpened(connection);
}

void Pipeline::frameReceived(const Frame& frame) {
    ++m_frames;
    m_bytes += frame.bytes.size();
    for (FrameTap* t : m_taps)
        t->frameReceived(frame);
}

void Pipeline::onAnomaly(const Anomaly& in) {
    Anomaly anomaly = in;
    if (anomaly.resource.isEmpty() && !anomaly.key.isEmpty()) {
        for (const auto& resolve : m_resolvers) {
            anomaly.resource = resolve(anomaly.key);
            if (!anomaly.resource.isEmpty())
                break;
        }
    }
    if (!m_options.resources.showsAnomalyOf(anomaly.resource))
        return;
    const Incident& incident = m_incidents.assign(anomaly);
    m_changedIncidents.insert(incident.id);
    m_anomalies->add(anomaly);
    m_pending.push_back(anomaly);
    m_recorder.record(anomaly);
}

FlowStats Pipeline::flow(const std::vector<Source*>& sources) {
    if (FrameTap* tap = m_recorder.captureTap(); tap && m_recorder.stopFailedCapture())
        std::erase(m_taps, tap); // a full disk: the recording stops, the session goes on
    FlowStats f;
    for (const Source* s : sources)
        if (const FrameQueue* q = s->frameQueue()) {
            const FrameQueue::Stats qs = q->stats();
            f.frameQueueBytes += qs.queuedBytes;
            f.frameQueuePeakBytes += qs.peakBytes;
            f.transportStalls += qs.stalls;
            f.transportStalledMs += qs.stalledUs / 1000;
        }
    m_recorder.addFlow(f);
    f.anomaliesNotKept = m_anomalies->evicted();
    f.captureFramesDropped += m_pastCaptureFramesDropped;
    f.captureBytesDropped += m_pastCaptureBytesDropped;
    if (m_liveCapture) {
        f.captureFramesDropped += m_liveCapture->droppedFrames();
        f.captureBytesDropped += m_liveCapture->droppedFrameBytes();
        if (f.fileError.isEmpty())
            f.fileError = m_liveCapture->error();
    }
    return f;
}

EngineUpdate Pipeline::takeUpdate(const std::vector<Source*>& sources, bool finished,
                                  TimeUs wallNow) {
    EngineUpdate u;
    u.flow = flow(sources);
    u.finished = finished;
    QStringList states;
    for (const Source* s : sources) {
        u.now = std::max(u.now, s->now());
        u.totalEvents += s->totalEvents();
        QVector<CacheSnapshot> caches;
        QVector<WatcherSnapshot> watchers;
        s->snapshot(caches, watchers);
        for (CacheSnapshot& c : caches)
            if (m_options.resources.shows(c.resource))
                u.caches.push_back(std::move(c));
        for (WatcherSnapshot& w : watchers) {
            if (!m_options.resources.shows(w.resource))
                continue;
            // The state is the pipeline's, from the observations: the same rules for every
            // source. The selector is the watch's unless the source names one itself.
            const WatcherId id = m_hub.findWatcher(w.id);
            if (id >= 0) {
                const WatcherStatus status = m_hub.watcherStatus(id);
                w.state = status.state;
                w.errors = status.errors;
                if (w.selector.isEmpty())
                    w.selector = status.selector;
            }
            u.watchers.push_back(std::move(w));
        }
        QVector<ResourceSnapshot> resources;
        s->resourceSnapshot(resources);
        for (ResourceSnapshot& r : resources)
            if (m_options.resources.shows(r.resource))
                u.resources.push_back(std::move(r));
        const QString state = s->state();
        if (!state.isEmpty())
            states << state;
        u.versions.fillFrom(s->versions());
        u.accounts += s->revisionAccounts();
        u.warnings += s->sessionWarnings();
    }
    u.sourceState = states.join(QStringLiteral("; "));
    if (wallNow - m_rateWall >= kUsPerSecond / 2 || finished) {
        if (wallNow > m_rateWall)
            m_rate = static_cast<double>(u.totalEvents - m_rateEvents) * kUsPerSecond /
                     static_cast<double>(wallNow - m_rateWall);
        m_rateEvents = u.totalEvents;
        m_rateWall = wallNow;
    }
    u.eventsPerSecond = m_rate;
    u.anomalies = std::move(m_pending);
    m_pending.clear();
    for (const std::int64_t id : m_changedIncidents)
        u.incidents.push_back(*m_incidents.incident(id));
    m_changedIncidents.clear();
    for (std::size_t id = 0; id < m_pendingSeries.size(); ++id) {
        QVector<QPointF>& points = m_pendingSeries[id];
        if (points.isEmpty())
            continue;
        SeriesDelta d;
        d.resource = m_timeline.resource(static_cast<SeriesId>(id));
        d.series = m_timeline.name(static_cast<SeriesId>(id));
        d.points = std::move(points);
        points.clear();
        u.series.push_back(std::move(d));
    }
    return u;
}

} // namespace ws

#include "Session.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>

#include "SessionLoop.h"
#include "capture/CaptureWriter.h"

#include <QMetaObject>
#include <QThread>

namespace ws {

Session::Session(std::vector<std::unique_ptr<Source>> sources, PipelineOptions options,
                 QObject* parent)
    : QObject(parent), m_sources(std::move(sources)), m_pipeline(std::move(options)) {
    qRegisterMetaType<ws::EngineUpdate>();
    refreshResources(); // what the sources can say before prepare()
}

Session::~Session() {
    stop();
}

std::unique_ptr<Session> Session::prepared(std::vector<std::unique_ptr<Source>> sources,
                                           const SourceSpec& spec, const SessionOutputs& outputs,
                                           QString* error, EventJournalLimits journal) {
    if (sources.empty())
        return nullptr;
    PipelineOptions options;
    options.resources = ResourceFilter(spec.resources);
    options.outputs = outputs;
    options.journal = journal;
    auto session = std::make_unique<Session>(std::move(sources), std::move(options));
    if (!session->prepare(error))
        return nullptr;
    return session;
}

bool Session::prepare(QString* error) {
    if (m_prepared)
        return true;
    for (auto& s : m_sources)
        if (!s->prepare(error))
            return false;
    for (auto& s : m_sources)
        if (!s->open(m_pipeline, error))
            return false;
    refreshResources();
    const ResourceFilter& filter = m_pipeline.resources();
    if (!filter.all()) {
        // A live source learns its resources as it goes: only a source that knows them all up
        // front (the simulator) can say now that one is missing.
        QStringList offered;
        bool complete = true;
        for (auto& s : m_sources) {
            offered += s->resources();
            complete = complete && s->kind() == QLatin1String("simulator");
        }
        const QStringList missing = filter.missingFrom(offered);
        if (complete && !missing.isEmpty()) {
            *error = QStringLiteral("--resources: %1 has no resource '%2' (it has: %3)")
                         .arg(m_sources.size() == 1 ? QStringLiteral("scenario")
                                                    : QStringLiteral("the session"),
                              missing.constFirst(), offered.join(QStringLiteral(", ")));
            return false;
        }
    }
    if (!m_pipeline.options().outputs.capturePath.isEmpty())
        if (const QString refusal = captureRefusal(); !refusal.isEmpty()) {
            *error = QStringLiteral("--out: %1").arg(refusal);
            return false;
        }
    CaptureHeader& capture = m_captureHeader;
    capture.creator = QStringLiteral("WatchScope %1").arg(QCoreApplication::applicationVersion());
    capture.description = description();
    capture.resources = m_pipeline.resources().names();
    for (auto& s : m_sources)
        capture.secretsRedacted = capture.secretsRedacted && !s->keepsSecrets();
    if (!m_sources.empty()) {
        capture.sourceKind = m_sources.front()->kind();
        capture.replay = m_sources.front()->replayInfo();
    }
    QDateTime wallStart;
    for (auto& s : m_sources)
        if (!wallStart.isValid())
            wallStart = s->wallStart();
    if (!m_pipeline.openOutputs(capture, wallStart, error))
        return false;
    m_prepared = true;
    return true;
}

QString Session::captureRefusal() const {
    // A capture's header describes one source (docs/capture-format.md).
    if (m_sources.size() > 1)
        return QStringLiteral("a session of %1 sources cannot be captured into one file yet")
            .arg(m_sources.size());
    for (auto& s : m_sources) {
        if (s->kind() == QLatin1String("capture"))
            return QStringLiteral("this session replays a capture: it is a capture already "
                                  "(copy the file instead)");
        if (s->kind() == QLatin1String("audit"))
            return QStringLiteral("this session reads audit logs: they are its record already "
                                  "(copy the files instead)");
        if (s->replayInfo().isEmpty())
            return QStringLiteral("capturing a %1 source is not available yet").arg(s->kind());
    }
    return {};
}

QString Session::midwayCaptureRefusal() const {
    QString refusal = captureRefusal();
    for (auto& s : m_sources)
        if (refusal.isEmpty() && !s->capturableMidway())
            refusal = QStringLiteral("a %1 session is captured from its start only (its replay "
                                     "makes every request again from the first): use "
                                     "watchscope-cli record --out")
                          .arg(s->kind());
    return refusal;
}

void Session::startCapture(const QString& path) {
    if (const QString refusal = midwayCaptureRefusal(); !refusal.isEmpty()) {
        later([this, refusal] { emit captureFailed(refusal); });
        return;
    }
    std::lock_guard lock(m_mutex);
    if (!m_acceptsCaptures) {
        later([this] { emit captureFailed(QStringLiteral("the session has ended")); });
        return;
    }
    m_captureRequests.push_back({true, path});
    m_captureRequested = true;
    m_wake.ring();
}

void Session::stopCapture() {
    std::lock_guard lock(m_mutex);
    if (!m_acceptsCaptures)
        return; // the end of the session closes the capture (and says so)
    m_captureRequests.push_back({false, {}});
    m_captureRequested = true;
    m_wake.ring();
}

void Session::serveCaptureRequests() {
    if (m_captureRequested.exchange(false)) {
        std::vector<CaptureRequest> requests;
        {
            std::lock_guard lock(m_mutex);
            requests.swap(m_captureRequests);
        }
        TimeUs now = 0;
        for (auto& s : m_sources)
            now = std::max(now, s->now());
        for (const CaptureRequest& r : requests) {
            QString error;
            if (r.start) {
                if (!m_capturePath.isEmpty()) {
                    error = QStringLiteral("already recording to %1").arg(m_capturePath);
                } else if (m_pipeline.startCapture(r.path, m_captureHeader, &error)) {
                    m_capturePath = r.path;
                    m_captureBytes = m_pipeline.liveCapture()->fileBytes();
                    later([this, path = r.path] { emit captureStarted(path); });
                    continue;
                }
                later([this, error] { emit captureFailed(error); });
            } else if (!m_capturePath.isEmpty()) {
                m_pipeline.stopCapture(now, &error);
                endCaptures(error);
            }
        }
    }
    if (const CaptureWriter* w = m_pipeline.liveCapture()) {
        m_captureBytes = w->fileBytes();
        // A full disk stops the recording (one line, in captureStopped), not the session.
        if (const QString error = w->error(); !error.isEmpty()) {
            QString closeError;
            TimeUs now = 0;
            for (auto& s : m_sources)
                now = std::max(now, s->now());
            m_pipeline.stopCapture(now, &closeError);
            endCaptures(error);
        }
    }
}

void Session::endCaptures(const QString& why) {
    if (m_capturePath.isEmpty())
        return;
    const QString path = std::exchange(m_capturePath, QString());
    const qint64 bytes = QFileInfo(path).size();
    m_captureBytes = -1;
    later([this, path, bytes, why] { emit captureStopped(path, bytes, why); });
}

QString Session::description() const {
    QStringList d;
    for (auto& s : m_sources)
        d << s->description();
    return d.join(QStringLiteral("; "));
}

QStringList Session::securityWarnings() const {
    QStringList out;
    for (auto& s : m_sources)
        out << s->securityWarnings();
    return out;
}

QString Session::explanation() const {
    QStringList d;
    for (auto& s : m_sources)
        if (!s->explanation().isEmpty())
            d << s->explanation();
    return d.join(QStringLiteral("\n\n"));
}

QStringList Session::resources() const {
    std::lock_guard lock(m_mutex);
    return m_resources;
}

AnomalyList Session::anomalies() const {
    return m_pipeline.anomalies(); // the store is thread-safe
}

Session::DeliveryStats Session::deliveryStats() const {
    std::lock_guard lock(m_mutex);
    return m_delivery;
}

QString Session::failure() const {
    std::lock_guard lock(m_mutex);
    return m_failure;
}

void Session::refreshResources() {
    QStringList all;
    for (auto& s : m_sources)
        for (const QString& r : s->resources())
            if (!all.contains(r) && m_pipeline.resources().shows(r))
                all << r;
    std::lock_guard lock(m_mutex);
    m_resources = all;
}

void Session::publish(EngineUpdate&& update) {
    refreshResources();
    bool wasEmpty = false;
    {
        std::lock_guard lock(m_mutex);
        ++m_delivery.published;
        m_delivery.publishedAnomalies += update.anomalies.size();
        for (const SeriesDelta& d : update.series)
            m_delivery.publishedPoints += d.points.size();
        MergeDrops drops;
        if (m_waiting) {
            drops = mergeUpdate(*m_waiting, std::move(update), m_limits);
            ++m_delivery.merged;
        } else {
            m_waiting = std::move(update);
            drops = capUpdate(*m_waiting, m_limits);
            wasEmpty = true;
        }
        m_delivery.anomaliesDropped += drops.anomalies;
        m_delivery.pointsDropped += drops.points;
        FlowStats& flow = m_waiting->flow;
        flow.updatesMerged = m_delivery.merged;
        flow.anomaliesDropped = m_delivery.anomaliesDropped;
        flow.pointsDropped = m_delivery.pointsDropped;
        m_delivery.waitingAnomalies = m_waiting->anomalies.size();
        qint64 points = 0;
        for (const SeriesDelta& d : m_waiting->series)
            points += d.points.size();
        m_delivery.waitingPoints = points;
        m_delivery.peakWaitingAnomalies =
            std::max(m_delivery.peakWaitingAnomalies, m_delivery.waitingAnomalies);
        m_delivery.peakWaitingPoints = std::max(m_delivery.peakWaitingPoints, points);
    }
    // One queued call per waiting update: a GUI that falls behind finds one merged update.
    if (wasEmpty)
        QMetaObject::invokeMethod(this, &Session::deliver, Qt::QueuedConnection);
}

void Session::deliver() {
    std::optional<EngineUpdate> u;
    {
        std::lock_guard lock(m_mutex);
        u.swap(m_waiting);
        if (u)
            ++m_delivery.delivered;
        m_delivery.waitingAnomalies = m_delivery.waitingPoints = 0;
    }
    if (u)
        emit updated(*u);
}

void Session::work() {
    std::vector<Source*> sources;
    for (auto& s : m_sources)
        sources.push_back(s.get());
    SessionLoop loop(m_pipeline, sources, m_wake);
    loop.setBetweenPolls([this] { serveCaptureRequests(); });
    QString error;
    const bool ok = loop.run(
        m_stop, [this](EngineUpdate&& u) { publish(std::move(u)); }, &error);
    {
        // The loop has closed the outputs, a capture started from the window among them.
        std::lock_guard lock(m_mutex);
        m_acceptsCaptures = false;
        for (const CaptureRequest& r : std::exchange(m_captureRequests, {}))
            if (r.start)
                later([this] { emit captureFailed(QStringLiteral("the session has ended")); });
    }
    endCaptures(ok ? QString() : error);
    if (!ok) {
        {
            std::lock_guard lock(m_mutex);
            m_failure = error;
        }
        QMetaObject::invokeMethod(
            this, [this, error] { emit failed(error); }, Qt::QueuedConnection);
    }
    m_running = false;
    QMetaObject::invokeMethod(
        this, [this] { emit finished(); }, Qt::QueuedConnection);
}

void Session::start() {
    QString error;
    if (!prepare(&error)) {
        {
            std::lock_guard lock(m_mutex);
            m_failure = error;
        }
        emit failed(error);
        emit finished();
        return;
    }
    if (m_thread)
        return;
    m_stop = false;
    m_running = true;
    {
        std::lock_guard lock(m_mutex);
        m_acceptsCaptures = true;
    }
    m_thread = QThread::create([this] { work(); });
    m_thread->setObjectName(QStringLiteral("watchscope-engine"));
    m_thread->start();
}

void Session::stop() {
    m_stop = true;
    m_wake.ring();
    if (!m_thread)
        return;
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
}

void Session::stopLater() {
    m_stop = true;
    m_wake.ring();
    if (!m_thread || m_thread->isFinished()) {
        deleteLater();
        return;
    }
    connect(m_thread, &QThread::finished, this, &QObject::deleteLater);
}

bool Session::runHere(const std::function<void(const EngineUpdate&)>& publish, QString* error,
                      TimeUs publishInterval) {
    if (!prepare(error))
        return false;
    std::vector<Source*> sources;
    for (auto& s : m_sources)
        sources.push_back(s.get());
    SessionLoop loop(m_pipeline, sources, m_wake, publishInterval);
    m_running = true;
    const bool ok = loop.run(
        m_stop,
        [&](EngineUpdate&& u) {
            refreshResources();
            if (publish)
                publish(u);
        },
        error);
    m_running = false;
    return ok;
}

} // namespace ws

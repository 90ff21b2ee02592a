#include "Session.h"

#include <QCoreApplication>
#include <QDateTime>

#include "SessionLoop.h"

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
                                           QString* error) {
    if (sources.empty())
        return nullptr;
    PipelineOptions options;
    options.resources = ResourceFilter(spec.resources);
    options.outputs = outputs;
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
    if (!m_pipeline.options().outputs.capturePath.isEmpty()) {
        // A capture's header describes one source (docs/capture-format.md).
        if (m_sources.size() > 1) {
            *error = QStringLiteral("--out: a session of %1 sources cannot be captured into one "
                                    "file yet")
                         .arg(m_sources.size());
            return false;
        }
        for (auto& s : m_sources) {
            if (s->kind() == QLatin1String("capture")) {
                *error = QStringLiteral("--out: a replay is not recorded again (copy the capture "
                                        "file instead)");
                return false;
            }
            if (s->replayInfo().isEmpty()) {
                *error = QStringLiteral("--out: capturing a %1 source is not available yet")
                             .arg(s->kind());
                return false;
            }
        }
    }
    CaptureHeader capture;
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

QString Session::description() const {
    QStringList d;
    for (auto& s : m_sources)
        d << s->description();
    return d.join(QStringLiteral("; "));
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
    std::lock_guard lock(m_mutex);
    return m_published;
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
        m_published += update.anomalies;
        if (m_waiting) {
            mergeUpdate(*m_waiting, std::move(update));
        } else {
            m_waiting = std::move(update);
            wasEmpty = true;
        }
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
    }
    if (u)
        emit updated(*u);
}

void Session::work() {
    std::vector<Source*> sources;
    for (auto& s : m_sources)
        sources.push_back(s.get());
    SessionLoop loop(m_pipeline, sources);
    QString error;
    const bool ok = loop.run(
        m_stop, [this](EngineUpdate&& u) { publish(std::move(u)); }, &error);
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
    m_thread = QThread::create([this] { work(); });
    m_thread->setObjectName(QStringLiteral("watchscope-engine"));
    m_thread->start();
}

void Session::stop() {
    m_stop = true;
    if (!m_thread)
        return;
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
}

void Session::stopLater() {
    m_stop = true;
    if (!m_thread || m_thread->isFinished()) {
        deleteLater();
        return;
    }
    connect(m_thread, &QThread::finished, this, &QObject::deleteLater);
}

bool Session::runHere(const std::function<void(const EngineUpdate&)>& publish, QString* error) {
    if (!prepare(error))
        return false;
    std::vector<Source*> sources;
    for (auto& s : m_sources)
        sources.push_back(s.get());
    SessionLoop loop(m_pipeline, sources);
    m_running = true;
    const bool ok = loop.run(
        m_stop,
        [&](EngineUpdate&& u) {
            refreshResources();
            {
                std::lock_guard lock(m_mutex);
                m_published += u.anomalies;
            }
            if (publish)
                publish(u);
        },
        error);
    m_running = false;
    return ok;
}

} // namespace ws

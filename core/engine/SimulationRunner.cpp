#include "SimulationRunner.h"

#include "scenario/ScenarioLoader.h"
#include "sim/Simulation.h"

#include <QElapsedTimer>
#include <QThread>

namespace ws {

SimulationRunner::SimulationRunner() = default;
SimulationRunner::~SimulationRunner() = default;

bool SimulationRunner::prepare(const SimulationOptions& options, QString* error) {
    m_options = options;
    auto scenario = ScenarioLoader::load(options.scenario, error);
    if (!scenario)
        return false;
    m_sim = Simulation::create(*scenario, options.seed.value_or(scenario->seed), error);
    if (!m_sim)
        return false;
    if (options.duration)
        m_sim->setDuration(*options.duration);
    m_wallStart = QDateTime::currentDateTimeUtc();
    if (!m_recorder.open(options.outputs, m_wallStart, m_sim->timeline(), error))
        return false;
    m_sim->hub().setSink([this](const Anomaly& a) {
        m_all.push_back(a);
        m_pending.push_back(a);
        m_recorder.record(a);
    });
    m_sim->timeline().addListener([this](SeriesId id, TimeUs t, double v) {
        if (static_cast<size_t>(id) >= m_pendingSeries.size())
            m_pendingSeries.resize(static_cast<size_t>(id) + 1);
        m_pendingSeries[static_cast<size_t>(id)].points.append(
            QPointF(static_cast<double>(t) / kUsPerMs, v));
    });
    return true;
}

QString SimulationRunner::description() const {
    if (!m_sim)
        return {};
    const QString speed =
        m_options.speed <= 0 ? QStringLiteral("max") : QStringLiteral("%1x").arg(m_options.speed);
    return QStringLiteral("scenario %1, seed %2, speed %3")
        .arg(m_sim->scenario().name)
        .arg(m_options.seed.value_or(m_sim->scenario().seed))
        .arg(speed);
}

QStringList SimulationRunner::resources() const {
    return m_sim ? m_sim->scenario().resourceNames() : QStringList();
}

EngineUpdate SimulationRunner::makeUpdate(bool finished, double eventsPerSecond) {
    EngineUpdate u;
    u.now = m_sim->now();
    u.finished = finished;
    u.totalEvents = m_sim->totalWrites();
    u.eventsPerSecond = eventsPerSecond;
    u.caches = m_sim->cacheSnapshots();
    u.watchers = m_sim->watcherSnapshots();
    u.anomalies = std::move(m_pending);
    m_pending.clear();
    TimelineStore& store = m_sim->timeline();
    for (size_t id = 0; id < m_pendingSeries.size(); ++id) {
        auto& p = m_pendingSeries[id];
        if (p.points.isEmpty())
            continue;
        SeriesDelta d;
        d.resource = store.resource(static_cast<SeriesId>(id));
        d.series = store.name(static_cast<SeriesId>(id));
        d.points = std::move(p.points);
        p.points.clear();
        u.series.push_back(std::move(d));
    }
    return u;
}

bool SimulationRunner::run(const std::atomic<bool>& stop, const Publish& publish, QString* error,
                           TimeUs publishIntervalWall) {
    QElapsedTimer wall;
    wall.start();
    const bool maxSpeed = m_options.speed <= 0;
    TimeUs lastPublish = 0;
    std::int64_t lastWrites = m_sim->totalWrites();
    TimeUs lastRateWall = 0;
    double rate = 0;
    while (!m_sim->finished() && !stop.load(std::memory_order_relaxed)) {
        const TimeUs wallNow = wall.nsecsElapsed() / 1000;
        if (!maxSpeed) {
            const auto target = static_cast<TimeUs>(static_cast<double>(wallNow) * m_options.speed);
            if (m_sim->now() >= target) {
                QThread::usleep(2000); // ahead of the requested pace
                continue;
            }
        }
        m_sim->step();
        if (wallNow - lastPublish >= publishIntervalWall) {
            if (wallNow - lastRateWall >= kUsPerSecond / 2) {
                const std::int64_t writes = m_sim->totalWrites();
                rate = static_cast<double>(writes - lastWrites) * kUsPerSecond /
                       static_cast<double>(std::max<TimeUs>(1, wallNow - lastRateWall));
                lastWrites = writes;
                lastRateWall = wallNow;
            }
            lastPublish = wallNow;
            if (publish)
                publish(makeUpdate(false, rate));
        }
    }
    if (publish)
        publish(makeUpdate(true, rate));
    return m_recorder.close(error);
}

} // namespace ws

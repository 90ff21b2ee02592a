#include "SimSource.h"

#include "Simulation.h"
#include "scenario/ScenarioLoader.h"

namespace ws {

SimSource::SimSource(ScenarioSourceSpec spec, std::optional<TimeUs> duration)
    : m_spec(std::move(spec)), m_duration(duration), m_pacer(m_spec.speed) {}

SimSource::SimSource(Scenario scenario, ScenarioSourceSpec spec, std::optional<TimeUs> duration)
    : m_spec(std::move(spec)), m_duration(duration), m_scenario(std::move(scenario)),
      m_pacer(m_spec.speed) {}

SimSource::~SimSource() = default;

std::uint64_t SimSource::seed() const {
    return m_spec.seed.value_or(m_scenario ? m_scenario->seed : 0);
}

QString SimSource::description() const {
    const QString speed =
        m_spec.speed <= 0 ? QStringLiteral("max") : QStringLiteral("%1x").arg(m_spec.speed);
    return QStringLiteral("scenario %1, seed %2, speed %3")
        .arg(m_scenario ? m_scenario->name : m_spec.scenario)
        .arg(seed())
        .arg(speed);
}

QJsonObject SimSource::replayInfo() const {
    QJsonObject o;
    if (!m_scenario)
        return o;
    o.insert(QStringLiteral("scenario"), m_scenario->name);
    o.insert(QStringLiteral("scenarioFile"), m_scenario->sourcePath);
    o.insert(QStringLiteral("scenarioYaml"), QString::fromUtf8(m_scenario->yaml));
    o.insert(QStringLiteral("seed"), QString::number(seed())); // 64 bits: JSON numbers are not
    if (m_duration)
        o.insert(QStringLiteral("durationUs"), QString::number(*m_duration));
    return o;
}

QString SimSource::explanation() const {
    return m_scenario ? m_scenario->explanation : QString();
}

bool SimSource::prepare(QString* error) {
    if (m_scenario)
        return true;
    m_scenario = ScenarioLoader::load(m_spec.scenario, error);
    return m_scenario.has_value();
}

bool SimSource::open(Pipeline& pipeline, QString* error) {
    m_sim = Simulation::create(*m_scenario, seed(), pipeline, error);
    if (!m_sim)
        return false;
    if (m_duration)
        m_sim->setDuration(*m_duration);
    return true;
}

TimeUs SimSource::poll(Pipeline&) {
    // Ahead of the requested pace (or paused): wait until the wall clock catches up.
    if (m_sim->now() >= m_pacer.due(m_sim->now()))
        return m_pacer.waitFor(m_sim->now());
    m_sim->step();
    return 0;
}

bool SimSource::finished() const {
    return m_sim && m_sim->finished();
}

void SimSource::close(Pipeline&) {}

QStringList SimSource::resources() const {
    return m_scenario ? m_scenario->resourceNames() : QStringList();
}

TimeUs SimSource::now() const {
    return m_sim ? m_sim->now() : 0;
}

qint64 SimSource::totalEvents() const {
    return m_sim ? m_sim->totalWrites() : 0;
}

void SimSource::snapshot(QVector<CacheSnapshot>& caches, QVector<WatcherSnapshot>& watchers) const {
    if (!m_sim)
        return;
    caches = m_sim->cacheSnapshots();
    watchers = m_sim->watcherSnapshots();
}

void SimSource::resourceSnapshot(QVector<ResourceSnapshot>& resources) const {
    if (m_sim)
        resources = m_sim->resourceSnapshots();
}

VersionContext SimSource::versions() const {
    VersionContext v;
    if (!m_scenario)
        return v;
    const Scenario& s = *m_scenario;
    v.kubeApiserver = s.server.version;
    v.etcd = s.etcd.version;
    QStringList clientGo;
    for (const ClientSpec& c : s.clients) {
        v.clientGoByClient.insert(c.name, c.clientGo);
        if (!clientGo.contains(c.clientGo))
            clientGo << c.clientGo;
    }
    // One profile for every client: the session's; several: each client's own only.
    if (clientGo.size() == 1) {
        v.clientGo = clientGo.front();
        v.clientGoByClient.clear();
    }
    v.featureGates = s.server.featureGates;
    return v;
}

} // namespace ws

#include "Simulation.h"

#include "ObjectWriter.h"
#include "ScriptedWriter.h"
#include "engine/SeriesNames.h"
#include "kube/FeatureGates.h"
#include "sources/sim/apiserver/ApiServer.h"
#include "sources/sim/client/ClientReflector.h"
#include "sources/sim/client/InformerStoreTable.h"
#include "sources/sim/etcd/EtcdWatchHub.h"

#include <algorithm>

namespace ws {

Simulation::Simulation(const Scenario& scenario, std::uint64_t seed, Pipeline& pipeline)
    : m_scenario(scenario), m_duration(scenario.duration), m_rng(seed), m_keyspace(pipeline.keys()),
      m_etcd(m_keyspace), m_hub(pipeline.hub()),
      m_timeline(pipeline.timeline()), m_ctx{m_keyspace, m_etcd, m_hub, m_rng, 0, kTick} {
    m_etcd.setJournal(&pipeline.journal());
}

Simulation::~Simulation() {
    m_clients.clear();
    m_apiservers.clear();
}

std::unique_ptr<Simulation> Simulation::create(const Scenario& scenario, std::uint64_t seed,
                                               Pipeline& pipeline, QString* error,
                                               const Restore& restore) {
    std::unique_ptr<Simulation> sim(new Simulation(scenario, seed, pipeline));
    if (!sim->build(error, restore))
        return nullptr;
    return sim;
}

bool Simulation::build(QString* error, const Restore& restore) {
    auto profile = ServerProfile::fromVersion(m_scenario.server.version, error);
    if (!profile)
        return false;
    FeatureGates::apply(*profile, m_scenario.server.featureGates);
    profile->requestTimeout = m_scenario.server.requestTimeout;

    EtcdWatchHubConfig etcdConfig;
    etcdConfig.progressInterval = m_scenario.etcd.progressNotifyInterval;
    // #17529 is fixed in 3.4.31 and 3.5.13.
    const QStringList v = m_scenario.etcd.version.split(QLatin1Char('.'));
    const int minor = v.value(1).toInt(), patch = v.value(2).toInt();
    etcdConfig.compactedWatcherSkipBug =
        !(minor > 5 || (minor == 5 && patch >= 13) || (minor == 4 && patch >= 31));
    m_etcd.watches().setConfig(etcdConfig);

    std::vector<int> resources;
    for (const auto& r : m_scenario.resources) {
        if (m_keyspace.resourceIndex(r.name) >= 0) {
            *error = QStringLiteral("resource '%1' is listed twice").arg(r.name);
            return false;
        }
        resources.push_back(m_keyspace.addResource(r.name));
    }
    if (restore && !restore(m_keyspace, m_etcd, error))
        return false;
    if (m_scenario.recorded) {
        m_scripted = std::make_unique<ScriptedWriter>(m_keyspace, m_etcd, m_scenario.recorded);
        m_scripted->populate();
    } else {
        for (size_t i = 0; i < resources.size(); ++i) {
            m_writers.push_back(std::make_unique<ObjectWriter>(m_keyspace, m_etcd, resources[i],
                                                               m_scenario.resources[i]));
            if (restore)
                m_writers.back()->adopt();
            else
                m_writers.back()->populate(0, m_rng);
        }
    }
    for (int i = 0; i < m_scenario.server.count; ++i) {
        ApiServerConfig config;
        config.name = QStringLiteral("apiserver-%1").arg(i);
        config.profile = *profile;
        config.etcdStreamEventsPerSecond = m_scenario.etcd.streamEventsPerSecond;
        config.behindLoadBalancer = m_scenario.server.loadBalancer;
        config.etcd = EtcdFacts(m_scenario.etcd.version);
        for (const ResourceSpec& r : m_scenario.resources)
            config.cacherListDurations.push_back(r.cacherListDuration);
        const ServerMemorySpec& mem = m_scenario.server.memory;
        config.memory = {mem.enabled, mem.baselineBytes, mem.limitBytes, mem.listBytesPerSecond,
                         mem.restartAfter};
        m_apiservers.push_back(std::make_unique<ApiServer>(m_ctx, config, resources));
        m_apiservers.back()->start();
    }
    std::vector<ApiServer*> servers;
    for (auto& s : m_apiservers)
        servers.push_back(s.get());
    for (size_t i = 0; i < resources.size(); ++i)
        m_storeTables.push_back(std::make_unique<InformerStoreTable>());
    int spread = 0;
    for (size_t ci = 0; ci < m_scenario.clients.size(); ++ci) {
        const ClientSpec& spec = m_scenario.clients[ci];
        auto clientProfile = ClientProfile::fromName(spec.clientGo, error);
        if (!clientProfile)
            return false;
        if (spec.apiserver >= m_scenario.server.count) {
            *error = QStringLiteral("client '%1' uses apiserver %2 but the scenario has %3")
                         .arg(spec.name)
                         .arg(spec.apiserver)
                         .arg(m_scenario.server.count);
            return false;
        }
        for (int n = 0; n < spec.count; ++n) {
            ClientConfig config;
            config.id = spec.count == 1 ? spec.name : QStringLiteral("%1-%2").arg(spec.name).arg(n);
            config.flow = spec.name;
            config.resource = m_keyspace.resourceIndex(spec.resource);
            config.profile = *clientProfile;
            // Several instances with a selector are kubelets of consecutive nodes.
            config.selectorGroup = spec.selectorGroup < 0 ? -1 : spec.selectorGroup + n;
            config.readEventsPerSecond = spec.readEventsPerSecond;
            config.apiserver =
                spec.apiserver >= 0 ? spec.apiserver : spread++ % m_scenario.server.count;
            config.startAt = spec.startAt + spec.startSpread * n / spec.count;
            config.watchOnly = spec.watchOnly;
            config.consistentFirstList = spec.consistentFirstList;
            config.viaInitialEventsProxy = spec.viaInitialEventsProxy;
            config.viaBookmarkDroppingProxy = spec.viaBookmarkDroppingProxy;
            config.storeTable = m_storeTables[static_cast<size_t>(config.resource)].get();
            m_clients.push_back(std::make_unique<ClientReflector>(m_ctx, servers, config));
            m_clientSpecIndex.push_back(static_cast<int>(ci));
        }
    }

    // Faults become timed actions.
    auto forClients = [this](const QString& prefix, auto fn) {
        for (auto& c : m_clients)
            if (c->id() == prefix || c->id().startsWith(prefix + QLatin1Char('-')))
                fn(*c);
    };
    for (const FaultSpec& f : m_scenario.faults) {
        const int server = std::clamp(f.apiserver, 0, m_scenario.server.count - 1);
        if (f.kind == QLatin1String("compact")) {
            m_actions.push_back({f.at, [this] { m_etcd.compact(m_etcd.currentRevision()); }});
        } else if (f.kind == QLatin1String("restart-apiserver")) {
            if (f.stagger > 0) {
                for (int i = 0; i < m_scenario.server.count; ++i)
                    m_actions.push_back({f.at + i * f.stagger,
                                         [this, i, f] { m_apiservers[i]->restart(f.duration); }});
            } else {
                m_actions.push_back(
                    {f.at, [this, server, f] { m_apiservers[server]->restart(f.duration); }});
            }
        } else if (f.kind == QLatin1String("partition-apiserver")) {
            m_actions.push_back(
                {f.at, [this, server] { m_apiservers[server]->setPartitioned(true); }});
            if (f.duration > 0)
                m_actions.push_back({f.at + f.duration, [this, server] {
                                         m_apiservers[server]->setPartitioned(false);
                                     }});
        } else if (f.kind == QLatin1String("stall-stream")) {
            // One resource's cacher stream, or every resource's (the apiserver's receivers stuck).
            const int r = f.resource.isEmpty() ? -1 : m_keyspace.resourceIndex(f.resource);
            m_actions.push_back({f.at, [this, server, r] {
                                     m_apiservers[server]->setCacheStreamStalled(r, true);
                                 }});
            m_actions.push_back({f.at + f.duration, [this, server, r] {
                                     m_apiservers[server]->setCacheStreamStalled(r, false);
                                 }});
        } else if (f.kind == QLatin1String("restart-client")) {
            m_actions.push_back(
                {f.at, [forClients, f] {
                     forClients(f.client, [&](ClientReflector& c) { c.restart(f.toApiserver); });
                 }});
        } else if (f.kind == QLatin1String("slow-reader")) {
            m_actions.push_back({f.at, [forClients, f] {
                                     forClients(f.client,
                                                [&](ClientReflector& c) { c.setReadRate(f.rate); });
                                 }});
        } else if (f.kind == QLatin1String("write-burst")) {
            if (m_scripted)
                continue; // the recorded writes are the workload
            const int r = m_keyspace.resourceIndex(f.resource);
            if (r < 0) {
                *error = QStringLiteral("write-burst names unknown resource '%1'").arg(f.resource);
                return false;
            }
            m_actions.push_back({f.at, [this, r, f] { m_writers[r]->setRate(f.rate); }});
            m_actions.push_back({f.at + f.duration,
                                 [this, r] { m_writers[r]->setRate(m_writers[r]->baseRate()); }});
        }
    }
    std::stable_sort(m_actions.begin(), m_actions.end(),
                     [](const auto& a, const auto& b) { return a.at < b.at; });

    // Timeline series, created once (SPEC §3 names).
    for (int r : resources) {
        const QString res = m_keyspace.resourceName(r);
        ResourceSeries rs;
        rs.head = m_timeline.series(res, series::headRv());
        for (int a = 0; a < m_scenario.server.count; ++a) {
            const QString sfx = series::apiserverSuffix(a);
            rs.perApiserver.push_back({m_timeline.series(res, series::cacheRv(sfx)),
                                       m_timeline.series(res, series::bufferUsed(sfx)),
                                       m_timeline.series(res, series::bufferCapacity(sfx)),
                                       m_timeline.series(res, series::bufferOldestRv(sfx))});
        }
        if (m_scenario.server.memory.enabled) {
            // Only where the scenario models apiserver memory: the other scenarios' timelines
            // stay exactly as they were.
            rs.lists = {m_timeline.series(res, series::requestsList()),
                        m_timeline.series(res, series::requestsWatch()),
                        m_timeline.series(res, series::listInflight()),
                        m_timeline.series(res, series::listBytesInflight())};
            for (int a = 0; a < m_scenario.server.count; ++a)
                rs.memory.push_back(m_timeline.series(
                    res, series::apiserverMemoryBytes(series::apiserverSuffix(a))));
        }
        m_resourceSeries.push_back(rs);
    }
    auto watcherSeries = [this](const QString& res, const QString& id) {
        return WatcherSeries{m_timeline.series(res, series::watcherRv(id)),
                             m_timeline.series(res, series::watcherLag(id)),
                             m_timeline.series(res, series::watcherLagSeconds(id))};
    };
    for (auto& s : m_apiservers)
        for (auto& c : s->cachers())
            m_cacherSeries.push_back(watcherSeries(m_keyspace.resourceName(c->resource()),
                                                   m_hub.watcher(c->hubId()).id));
    for (auto& c : m_clients) {
        const QString res = m_keyspace.resourceName(c->config().resource);
        m_clientSeries.push_back(watcherSeries(res, c->id()));
        if (m_scenario.server.memory.enabled)
            m_requestedRvSeries.push_back(m_timeline.series(res, series::requestedRv(c->id())));
    }
    // Compaction like kube-apiserver's compactor: every interval, compact to the revision seen
    // at the previous interval.
    m_nextCompaction = m_scenario.etcd.compactionInterval;
    m_compactTarget = m_etcd.currentRevision();
    m_oomKillsSeen.assign(m_apiservers.size(), 0);
    m_lastRequestedRv.assign(m_requestedRvSeries.size(), -1);
    return true;
}

void Simulation::applyFaults() {
    while (m_nextAction < m_actions.size() && m_actions[m_nextAction].at <= m_ctx.now)
        m_actions[m_nextAction++].run();
}

void Simulation::step() {
    m_ctx.now += kTick;
    m_ctx.dt = kTick;
    applyFaults();
    for (auto& w : m_writers)
        w->tick(m_ctx.now, kTick, m_rng);
    if (m_scripted)
        m_scripted->tick(m_ctx.now);
    if (m_scenario.etcd.compactionInterval > 0 && m_ctx.now >= m_nextCompaction) {
        m_etcd.compact(m_compactTarget);
        m_compactTarget = m_etcd.currentRevision();
        m_nextCompaction += m_scenario.etcd.compactionInterval;
    }
    m_etcd.watches().tick(m_ctx.now);
    for (auto& s : m_apiservers)
        s->tick();
    for (auto& c : m_clients)
        c->beginTick();
    m_reading.clear();
    for (auto& c : m_clients)
        m_reading.push_back(c.get());
    while (!m_reading.empty()) {
        std::size_t keep = 0;
        for (ClientReflector* c : m_reading)
            if (c->readSome(ClientReflector::kReadBatch) > 0)
                m_reading[keep++] = c;
        m_reading.resize(keep);
    }
    for (auto& c : m_clients)
        c->endTick();
    if (m_ctx.now >= m_nextSample) {
        m_nextSample = m_ctx.now + kSampleInterval;
        sample();
    }
    if (m_ctx.now >= m_nextConsistency) {
        m_nextConsistency = m_ctx.now + kConsistencyInterval;
        checkConsistency();
    }
    m_hub.tick(m_ctx.now);
}

void Simulation::sampleListPressure() {
    const TimeUs now = m_ctx.now;
    for (std::size_t a = 0; a < m_apiservers.size(); ++a) {
        const ApiServer& s = *m_apiservers[a];
        const ListPressure& p = s.listPressure();
        ApiserverMemory m;
        m.apiserver = s.name();
        const int heaviest = p.heaviestResource();
        m.resource = m_keyspace.resourceName(heaviest >= 0 ? heaviest : 0);
        m.limitBytes = p.config().limitBytes;
        m.oomKilled = s.oomKills() > m_oomKillsSeen[a];
        if (m.oomKilled) {
            // What it held when it was killed, not the empty process after.
            m_oomKillsSeen[a] = s.oomKills();
            const ApiServer::OomKill& k = s.lastOomKill();
            m.memoryBytes = k.memoryBytes;
            m.listBytesInflight = k.listBytes;
            m.listsInflight = k.lists;
            if (k.heaviestResource >= 0)
                m.resource = m_keyspace.resourceName(k.heaviestResource);
            // The peak on the chart too, just before the sample of the dead process.
            for (const ResourceSeries& rs : m_resourceSeries)
                m_timeline.append(rs.memory[a], now - 1, static_cast<double>(k.memoryBytes));
        } else {
            m.memoryBytes = p.memoryBytes();
            m.listBytesInflight = p.heldBytes();
            m.listsInflight = p.inflight();
        }
        m_hub.apiserverMemory(now, m);
    }
    for (std::size_t r = 0; r < m_resourceSeries.size(); ++r) {
        const ResourceSeries& rs = m_resourceSeries[r];
        ListPressure::ResourceCounts sum;
        for (auto& s : m_apiservers) {
            const auto c = s->listPressure().countsOf(static_cast<int>(r));
            sum.lists += c.lists;
            sum.watches += c.watches;
            sum.inflight += c.inflight;
            sum.bytesInflight += c.bytesInflight;
        }
        m_timeline.append(rs.lists[0], now, static_cast<double>(sum.lists));
        m_timeline.append(rs.lists[1], now, static_cast<double>(sum.watches));
        m_timeline.append(rs.lists[2], now, static_cast<double>(sum.inflight));
        m_timeline.append(rs.lists[3], now, static_cast<double>(sum.bytesInflight));
        for (std::size_t a = 0; a < m_apiservers.size(); ++a)
            m_timeline.append(
                rs.memory[a], now,
                m_apiservers[a]->up()
                    ? static_cast<double>(m_apiservers[a]->listPressure().memoryBytes())
                    : 0.0);
    }
}

void Simulation::sample() {
    const TimeUs now = m_ctx.now;
    const ResourceVersion head = m_etcd.currentRevision();
    for (auto& rs : m_resourceSeries)
        m_timeline.append(rs.head, now, static_cast<double>(head));
    if (m_scenario.server.memory.enabled)
        sampleListPressure();
    size_t ci = 0;
    for (size_t a = 0; a < m_apiservers.size(); ++a) {
        for (auto& c : m_apiservers[a]->cachers()) {
            const WatchCache& cache = c->cache();
            const auto& series =
                m_resourceSeries[static_cast<size_t>(c->resource())].perApiserver[a];
            m_timeline.append(series[0], now, static_cast<double>(cache.resourceVersion()));
            m_timeline.append(series[1], now, static_cast<double>(cache.ring().size()));
            m_timeline.append(series[2], now, static_cast<double>(cache.ring().capacity()));
            m_timeline.append(series[3], now, static_cast<double>(cache.oldestRv()));
            const double lagSeconds = static_cast<double>(c->lag()) / kUsPerSecond;
            const WatcherSeries& ws = m_cacherSeries[ci++];
            m_timeline.append(ws.rv, now, static_cast<double>(cache.resourceVersion()));
            m_timeline.append(ws.lag, now, static_cast<double>(head - cache.resourceVersion()));
            m_timeline.append(ws.lagSeconds, now, lagSeconds);
            // A cache that is not ready serves nothing: its position says nothing either
            // (cache-not-ready reports the wait).
            if (m_apiservers[a]->up() && c->ready())
                m_hub.watcherPosition(c->hubId(), now, cache.resourceVersion(), head, lagSeconds);
        }
    }
    for (size_t i = 0; i < m_clients.size(); ++i) {
        const ClientReflector& c = *m_clients[i];
        const double lagSeconds = c.lagSeconds();
        const WatcherSeries& ws = m_clientSeries[i];
        m_timeline.append(ws.rv, now, static_cast<double>(c.resourceVersion()));
        m_timeline.append(ws.lag, now, static_cast<double>(head - c.resourceVersion()));
        m_timeline.append(ws.lagSeconds, now, lagSeconds);
        // The RV a request asked for: a point per change (thousands of agents ask rarely).
        if (i < m_requestedRvSeries.size() && c.requestedRv() != m_lastRequestedRv[i]) {
            m_lastRequestedRv[i] = c.requestedRv();
            m_timeline.append(m_requestedRvSeries[i], now, static_cast<double>(c.requestedRv()));
        }
        if (c.resourceVersion() != 0)
            m_hub.watcherPosition(c.hubId(), now, c.resourceVersion(), head, lagSeconds);
    }
}

void Simulation::checkConsistency() {
    for (auto& s : m_apiservers) {
        for (auto& c : s->cachers()) {
            if (!c->ready())
                continue; // a cache that is not ready serves nothing
            m_entries.clear();
            const ObjectStore& store = c->cache().store();
            for (KeyId k : store.keys())
                m_entries.push_back(StoreEntry{k, store.get(k)->modRev});
            m_hub.checkStore(c->hubId(), m_ctx.now, c->cache().resourceVersion(), m_entries,
                             m_etcd);
        }
    }
    for (auto& c : m_clients) {
        // A watch-only client (RV="", never lists) keeps no consistent store to check.
        if (c->resourceVersion() == 0 || c->config().watchOnly)
            continue;
        m_entries.clear();
        c->store().forEach([this](KeyId k, const KeyValuePtr& o) {
            m_entries.push_back(StoreEntry{k, o->modRev});
        });
        m_hub.checkStore(c->hubId(), m_ctx.now, c->resourceVersion(), m_entries, m_etcd);
    }
}

std::int64_t Simulation::totalWrites() const {
    std::int64_t n = 0;
    for (auto& w : m_writers)
        n += w->writes();
    return m_scripted ? n + m_scripted->writes() : n;
}

std::int64_t Simulation::watcherDeliveries() const {
    std::int64_t n = 0;
    for (auto& c : m_clients)
        n += c->eventsReceived();
    return n;
}

QVector<CacheSnapshot> Simulation::cacheSnapshots() const {
    QVector<CacheSnapshot> out;
    for (auto& s : m_apiservers) {
        for (auto& c : s->cachers()) {
            CacheSnapshot cs;
            cs.resource = m_keyspace.resourceName(c->resource());
            cs.apiserver = s->name();
            cs.headRv = m_etcd.currentRevision();
            cs.cacheRv = c->cache().resourceVersion();
            cs.bufferUsed = static_cast<qint64>(c->cache().ring().size());
            cs.bufferCapacity = static_cast<qint64>(c->cache().ring().capacity());
            cs.bufferOldestRv = c->cache().oldestRv();
            cs.objects = static_cast<qint64>(c->cache().objectCount());
            out.push_back(cs);
        }
    }
    return out;
}

QVector<ResourceSnapshot> Simulation::resourceSnapshots() const {
    QVector<ResourceSnapshot> out;
    for (const ResourceSpec& spec : m_scenario.resources) {
        const int r = m_keyspace.resourceIndex(spec.name);
        if (r >= 0)
            out.push_back({spec.name, m_etcd.writes(r)});
    }
    return out;
}

QVector<WatcherSnapshot> Simulation::watcherSnapshots() const {
    QVector<WatcherSnapshot> out;
    const ResourceVersion head = m_etcd.currentRevision();
    for (auto& s : m_apiservers) {
        for (auto& c : s->cachers()) {
            WatcherSnapshot w;
            w.id = m_hub.watcher(c->hubId()).id;
            w.resource = m_keyspace.resourceName(c->resource());
            w.apiserver = s->name();
            w.profile = QStringLiteral("cacher %1").arg(s->profile().version);
            w.detail = s->up() ? c->stateName() : QStringLiteral("down");
            w.rv = c->cache().resourceVersion();
            w.lagRevisions = head - w.rv;
            w.lagSeconds = static_cast<double>(c->lag()) / kUsPerSecond;
            out.push_back(w);
        }
    }
    for (auto& c : m_clients) {
        WatcherSnapshot w;
        w.id = c->id();
        w.resource = m_keyspace.resourceName(c->config().resource);
        w.apiserver = c->apiserverName();
        w.profile = QStringLiteral("client-go ") + c->config().profile.name;
        w.detail = c->stateName();
        w.rv = c->resourceVersion();
        w.lagRevisions = head - w.rv;
        w.lagSeconds = c->lagSeconds();
        w.eventsReceived = c->eventsReceived();
        w.relists = c->relists();
        out.push_back(w);
    }
    return out;
}

} // namespace ws

#include "ServeMetrics.h"

#include "ApiHandler.h"
#include "MetricsText.h"
#include "ServedCluster.h"
#include "sources/sim/etcd/SimEtcd.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ws {

ServeMetrics::ServeMetrics(ServedCluster& cluster, const ApiHandler& handler)
    : m_cluster(cluster), m_handler(handler) {}

std::string ServeMetrics::render() const {
    MetricsText m;
    // {resource} until 1.33, {group,resource} from 1.34 (reference §9).
    const bool groupLabels = m_cluster.profile().minor >= 34;
    ApiServer& server = m_cluster.server();
    const auto& resources = m_cluster.resources();
    auto labels = [&](const ResourceInfo& r) {
        MetricsText::Labels l;
        if (groupLabels)
            l.emplace_back("group", r.group.toStdString());
        l.emplace_back("resource", r.plural.toStdString());
        return l;
    };
    auto perCache = [&](const char* name, const char* help, MetricsText::Type type,
                        const std::function<double(const Cacher&)>& value) {
        m.family(name, help, type);
        for (std::size_t i = 0; i < resources.size(); ++i)
            if (const Cacher* c = server.cacher(static_cast<int>(i)))
                m.sample(name, labels(resources[i]), value(*c));
    };
    using T = MetricsText::Type;
    perCache("watch_cache_capacity", "Total capacity of watch cache broken by resource type.",
             T::Gauge, [](const Cacher& c) { return double(c.cache().ring().capacity()); });
    perCache("watch_cache_capacity_increase_total",
             "Total number of watch cache capacity increase events broken by resource type.",
             T::Counter, [](const Cacher& c) { return double(c.cache().capacityIncreases()); });
    perCache("watch_cache_capacity_decrease_total",
             "Total number of watch cache capacity decrease events broken by resource type.",
             T::Counter, [](const Cacher& c) { return double(c.cache().capacityDecreases()); });
    // From 1.31; from 1.36 only the RV's 15 least significant digits (cacher/metrics/metrics.go
    // RecordResourceVersion), as a float64.
    const int minor = m_cluster.profile().minor;
    if (minor >= 31)
        perCache("apiserver_watch_cache_resource_version",
                 minor >= 36 ? "Current resource version of watch cache broken by resource type. "
                               "This is truncated to the 15 least significant digits."
                             : "Current resource version of watch cache broken by resource type.",
                 T::Gauge, [minor](const Cacher& c) {
                     const auto rv = static_cast<std::uint64_t>(c.cache().resourceVersion());
                     return double(minor >= 36 ? rv % 1000000000000000ULL : rv);
                 });
    perCache("apiserver_terminated_watchers_total",
             "Counter of watchers closed due to unresponsiveness broken by resource type.",
             T::Counter, [](const Cacher& c) { return double(c.terminatedWatchers()); });
    // Every list that landed in the cache (OnReplace); re-initializations close watchers too, but
    // only the slow-watcher cut-off counts as terminated above.
    perCache("apiserver_watch_cache_initializations_total",
             "Counter of watch cache initializations broken by resource type.", T::Counter,
             [](const Cacher& c) { return double(c.initializations()); });
    // ConsistentListFromCache: {resource,success,fallback} with the cacher's resourcePrefix
    // ("/pods") as resource up to 1.33 (cacher.go / delegator.go GetList), {group,resource,...}
    // from 1.34; only where the gate exists and is on.
    const ServerProfile& p = m_cluster.profile();
    if (p.consistentListFromCache && p.minor >= 28) {
        // A CounterVec shows nothing, not even HELP and TYPE, until a label set was counted.
        std::vector<std::pair<MetricsText::Labels, double>> samples;
        for (std::size_t i = 0; i < resources.size(); ++i) {
            const Cacher* c = server.cacher(static_cast<int>(i));
            for (const bool success : {false, true})
                for (const bool fallback : {false, true}) {
                    const auto n = c ? c->consistentReads(success, fallback) : 0;
                    if (n == 0)
                        continue;
                    MetricsText::Labels l;
                    if (groupLabels) {
                        l.emplace_back("group", resources[i].group.toStdString());
                        l.emplace_back("resource", resources[i].plural.toStdString());
                    } else {
                        l.emplace_back("resource", resources[i].storagePrefix().toStdString());
                    }
                    l.emplace_back("success", success ? "true" : "false");
                    l.emplace_back("fallback", fallback ? "true" : "false");
                    samples.emplace_back(std::move(l), double(n));
                }
        }
        const char* name = "apiserver_watch_cache_consistent_read_total";
        if (!samples.empty())
            m.family(name, "Counter for consistent reads from cache.", T::Counter);
        for (const auto& [l, n] : samples)
            m.sample(name, l, n);
    }
    // DetectCacheInconsistency (1.34+): {group,resource,status}, only where a checker runs.
    if (m_cluster.profile().detectCacheInconsistency) {
        const char* name = "apiserver_storage_consistency_checks_total";
        m.family(name, "Counter for status of consistency checks between etcd and watch cache",
                 T::Counter);
        for (std::size_t i = 0; i < resources.size(); ++i) {
            const Cacher* c = server.cacher(static_cast<int>(i));
            if (!c || !c->consistencyChecker())
                continue;
            for (const auto status :
                 {cacheconsistency::Status::Success, cacheconsistency::Status::Failure,
                  cacheconsistency::Status::Error}) {
                MetricsText::Labels l{
                    {"group", resources[i].group.toStdString()},
                    {"resource", resources[i].plural.toStdString()},
                    {"status", cacheconsistency::statusName(status).toStdString()}};
                m.sample(name, l, double(c->consistencyChecker()->checks(status)));
            }
        }
    }
    // apiserver_storage_objects is labelled {resource} = plural[.group] in every version.
    m.family("apiserver_storage_objects",
             "Number of stored objects at the time of last check split by kind.", T::Gauge);
    for (std::size_t i = 0; i < resources.size(); ++i)
        m.sample("apiserver_storage_objects",
                 {{"resource", resources[i].qualifiedName().toStdString()}},
                 double(m_cluster.etcd().objectCount(static_cast<int>(i))));
    m.family("apiserver_longrunning_requests",
             "Gauge of all active long-running apiserver requests.", T::Gauge);
    m.sample("apiserver_longrunning_requests", {{"verb", "WATCH"}}, double(m_handler.watchCount()));
    if (server.listPressure().config().enabled) {
        // The Go process collector's gauge: here the modelled memory (idle + what lists hold).
        m.family("process_resident_memory_bytes", "Resident memory size in bytes.", T::Gauge);
        m.sample("process_resident_memory_bytes", {}, double(server.listPressure().memoryBytes()));
    }
    return m.text().toStdString();
}

} // namespace ws

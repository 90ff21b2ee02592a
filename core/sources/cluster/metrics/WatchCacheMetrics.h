#pragma once

#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>
#include <string_view>
#include <vector>

namespace ws {

// How a kube-apiserver's watch-cache metrics name their resource (reference §9).
enum class MetricLabelScheme {
    None,          // no watch-cache sample with a resource label in the body
    Resource,      // {resource="deployments.apps"}: ~1.27 to 1.33
    GroupResource, // {group="apps",resource="deployments"}: 1.34 and later
    Mixed,         // both in one body: not one apiserver's (concatenated scrapes, a proxy)
};

// What one kube-apiserver's /metrics says about one resource's watch cache and storage.
// Every value is a std::optional: empty when the body has no sample of that metric for this
// resource (the server's version does not have it, the gate is off, or nothing was recorded
// yet); a present 0 is a real 0. Values are the samples' doubles, unrounded.
struct ResourceCacheMetrics {
    QString resource; // "configmaps", "deployments.apps"

    // Gauges.
    std::optional<double> capacity; // watch_cache_capacity
    // apiserver_watch_cache_resource_version. The newest servers keep only its 15 least
    // significant digits (it is a float64).
    std::optional<double> resourceVersion;
    // apiserver_storage_objects, or apiserver_resource_objects{group,resource} of newer servers;
    // -1 when the apiserver failed to count.
    std::optional<double> storageObjects;
    // etcd_bookmark_counts (a gauge that only grows), or etcd_bookmark_total (its 1.36 name):
    // progress notifications from etcd turned into cache bookmarks.
    std::optional<double> bookmarkCounts;

    // Counters.
    std::optional<double> eventsDispatched;   // apiserver_watch_cache_events_dispatched_total
    std::optional<double> eventsReceived;     // apiserver_watch_cache_events_received_total
    std::optional<double> capacityIncreases;  // watch_cache_capacity_increase_total
    std::optional<double> capacityDecreases;  // watch_cache_capacity_decrease_total
    std::optional<double> terminatedWatchers; // apiserver_terminated_watchers_total
    std::optional<double> initializations;    // apiserver_watch_cache_initializations_total
    std::optional<double> initEvents;         // apiserver_init_events_total
    // apiserver_watch_cache_consistent_read_total: success="true" / success="false" /
    // fallback="true" (served by etcd after the cache did not catch up). All three are set
    // (0 when no sample says otherwise) as soon as the resource has one sample of it.
    std::optional<double> consistentReadSuccess;
    std::optional<double> consistentReadFailure;
    std::optional<double> consistentReadFallback;
    // apiserver_watch_events_total summed over versions, when labelled by resource (1.34+);
    // older servers label it by kind (WatchCacheMetrics::watchEventsByKind).
    std::optional<double> watchEvents;
    // apiserver_watch_cache_read_wait_seconds (histogram): _count and _sum.
    std::optional<double> readWaitCount;
    std::optional<double> readWaitSum;
    // apiserver_storage_consistency_checks_total by status ("success", "failure", "error").
    QMap<QString, double> consistencyChecks;
};

// The watch-cache metrics of one kube-apiserver /metrics body (reference §4, §9), per resource.
//
// Resources are keyed as GroupResource.String() is: "configmaps" for the core group,
// "deployments.apps" otherwise. Bodies labelled {resource} (≤1.33) carry that string already;
// {group,resource} bodies (1.34+) are joined into it. Some {resource}-era servers (1.31-1.33 in
// the sources read) label consistent reads and consistency checks with the storage prefix
// instead ("/pods", "/minions", "/deployments", "/stable.example.com/crontabs"): those are
// mapped to the resource the way storage keys are, and a prefix without its group
// ("/deployments") joins the one resource of the body with that plural in some group
// ("deployments.apps"). Older servers label some families with a Go type ("*core.Pod"): kept
// under that name. Samples of other families, and samples without a resource label, are
// ignored; every resource named is kept, known to WatchScope or not.
class WatchCacheMetrics {
public:
    // Parses the body (PrometheusTextParser). *warning (may be null) is cleared, or says how many
    // malformed lines were skipped, or, when isValid() is false, why the body is not metrics.
    static WatchCacheMetrics fromText(std::string_view body, QString* warning);
    // The same for the start of a body the client stopped reading at a size limit: only the
    // families of which every line is there are read (PrometheusTextParser::wholeFamilies),
    // never the family or sample the cut went through. *warning says so (and names the first
    // family lost) whenever the body is valid.
    static WatchCacheMetrics fromCutText(std::string_view start, QString* warning);

    // False when the body was not the text format at all (nothing in it parsed).
    bool isValid() const { return m_valid; }
    // "configmaps" or "deployments.apps". A plural without a group ("deployments") finds the one
    // resource of that plural when no core resource has it. nullptr when the body has none.
    const ResourceCacheMetrics* find(const QString& resource) const;
    QStringList resources() const { return m_resources.keys(); } // sorted
    MetricLabelScheme labelScheme() const { return m_scheme; }
    // apiserver_watch_events_total of servers that label it {group,version,kind}, summed over
    // versions: "Pod", "Deployment.apps".
    const QMap<QString, double>& watchEventsByKind() const { return m_watchEventsByKind; }
    // kubernetes_feature_enabled{name,stage} of the same body: every feature gate of that
    // kube-apiserver and whether it is on (1.26+; empty for older servers).
    const QMap<QString, bool>& featureGates() const { return m_featureGates; }
    int samples() const { return m_samples; }
    int skippedLines() const { return m_skippedLines; }

    // Resources whose apiserver_storage_consistency_checks_total{status="failure"} (1.34+,
    // DetectCacheInconsistency) is above what the earlier scrape `before` had: each a failed
    // check of that apiserver's watch cache against etcd. Without an earlier scrape (null), any
    // failure counted so far.
    struct FailureRise {
        QString resource;
        double before = 0;
        double now = 0;
    };
    std::vector<FailureRise> consistencyFailuresSince(const WatchCacheMetrics* before) const;

private:
    QMap<QString, ResourceCacheMetrics> m_resources;
    QMap<QString, double> m_watchEventsByKind;
    QMap<QString, bool> m_featureGates;
    MetricLabelScheme m_scheme = MetricLabelScheme::None;
    bool m_valid = false;
    int m_samples = 0;
    int m_skippedLines = 0;
};

} // namespace ws

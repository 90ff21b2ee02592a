#include "WatchCacheMetrics.h"

#include "PrometheusTextParser.h"
#include "kube/KubernetesKeyDecoder.h"

#include <QSet>
#include <array>
#include <vector>

namespace ws {

namespace {

enum class Metric {
    Capacity,
    ResourceVersion,
    StorageObjects,
    Bookmarks,
    EventsDispatched,
    EventsReceived,
    CapacityIncreases,
    CapacityDecreases,
    TerminatedWatchers,
    Initializations,
    InitEvents,
    ConsistentRead,
    ConsistencyChecks,
    WatchEvents,
    ReadWaitCount,
    ReadWaitSum,
};

struct Known {
    std::string_view name;
    Metric metric;
    // Labelled {resource} up to 1.33 and {group,resource} from 1.34, so it tells the scheme.
    // apiserver_storage_objects stays {resource} and apiserver_watch_events_total always has a
    // group: they tell nothing.
    bool tellsScheme;
};

constexpr std::array kKnown = {
    Known{"watch_cache_capacity", Metric::Capacity, true},
    Known{"apiserver_watch_cache_resource_version", Metric::ResourceVersion, true},
    Known{"apiserver_storage_objects", Metric::StorageObjects, false},
    Known{"apiserver_resource_objects", Metric::StorageObjects, false},
    Known{"etcd_bookmark_counts", Metric::Bookmarks, true},
    Known{"etcd_bookmark_total", Metric::Bookmarks, true},
    Known{"apiserver_watch_cache_events_dispatched_total", Metric::EventsDispatched, true},
    Known{"apiserver_watch_cache_events_received_total", Metric::EventsReceived, true},
    Known{"watch_cache_capacity_increase_total", Metric::CapacityIncreases, true},
    Known{"watch_cache_capacity_decrease_total", Metric::CapacityDecreases, true},
    Known{"apiserver_terminated_watchers_total", Metric::TerminatedWatchers, true},
    Known{"apiserver_watch_cache_initializations_total", Metric::Initializations, true},
    Known{"apiserver_init_events_total", Metric::InitEvents, true},
    Known{"apiserver_watch_cache_consistent_read_total", Metric::ConsistentRead, true},
    Known{"apiserver_storage_consistency_checks_total", Metric::ConsistencyChecks, true},
    Known{"apiserver_watch_events_total", Metric::WatchEvents, false},
    Known{"apiserver_watch_cache_read_wait_seconds_count", Metric::ReadWaitCount, true},
    Known{"apiserver_watch_cache_read_wait_seconds_sum", Metric::ReadWaitSum, true},
};

const Known* lookup(std::string_view name) {
    for (const Known& k : kKnown)
        if (k.name == name)
            return &k;
    return nullptr;
}

// One sample of interest, kept until every directly named resource is known (a storage-prefix
// key is resolved against them).
struct Pending {
    QString key;
    bool fromPrefix = false;
    Metric metric;
    double value = 0;
    QString first;  // consistent reads: success; consistency checks: status
    QString second; // consistent reads: fallback
};

QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// "/pods" -> "pods", "/minions" -> "nodes", "/stable.example.com/crontabs" ->
// "crontabs.stable.example.com": the storage layout's own mapping.
QString resourceOfPrefix(std::string_view prefix, const KubernetesKeyDecoder& decoder) {
    std::string key = "/registry";
    key.append(prefix);
    if (key.back() != '/')
        key += '/';
    key += "x";
    const DecodedKey decoded = decoder.decodeKey(key);
    if (!decoded.resource.empty())
        return QString::fromStdString(decoded.resource);
    std::string_view trimmed = prefix;
    while (!trimmed.empty() && trimmed.front() == '/')
        trimmed.remove_prefix(1);
    return qs(trimmed);
}

QString resolvePrefixKey(const QString& plural, const QSet<QString>& direct) {
    if (plural.contains(u'.') || direct.contains(plural))
        return plural;
    const QString stem = plural + u'.';
    QString match;
    int matches = 0;
    for (const QString& key : direct) {
        if (key.startsWith(stem)) {
            match = key;
            ++matches;
        }
    }
    return matches == 1 ? match : plural;
}

void apply(ResourceCacheMetrics& r, const Pending& p) {
    const auto add = [&](std::optional<double>& field) { field = field.value_or(0) + p.value; };
    switch (p.metric) {
    case Metric::Capacity:
        r.capacity = p.value;
        break;
    case Metric::ResourceVersion:
        r.resourceVersion = p.value;
        break;
    case Metric::StorageObjects:
        r.storageObjects = p.value;
        break;
    case Metric::Bookmarks:
        r.bookmarkCounts = p.value;
        break;
    case Metric::EventsDispatched:
        add(r.eventsDispatched);
        break;
    case Metric::EventsReceived:
        add(r.eventsReceived);
        break;
    case Metric::CapacityIncreases:
        add(r.capacityIncreases);
        break;
    case Metric::CapacityDecreases:
        add(r.capacityDecreases);
        break;
    case Metric::TerminatedWatchers:
        add(r.terminatedWatchers);
        break;
    case Metric::Initializations:
        add(r.initializations);
        break;
    case Metric::InitEvents:
        add(r.initEvents);
        break;
    case Metric::ConsistentRead:
        r.consistentReadSuccess = r.consistentReadSuccess.value_or(0);
        r.consistentReadFailure = r.consistentReadFailure.value_or(0);
        r.consistentReadFallback = r.consistentReadFallback.value_or(0);
        if (p.first == QLatin1String("true"))
            add(r.consistentReadSuccess);
        else if (p.first == QLatin1String("false"))
            add(r.consistentReadFailure);
        if (p.second == QLatin1String("true"))
            add(r.consistentReadFallback);
        break;
    case Metric::ConsistencyChecks:
        r.consistencyChecks[p.first] += p.value;
        break;
    case Metric::WatchEvents:
        add(r.watchEvents);
        break;
    case Metric::ReadWaitCount:
        add(r.readWaitCount);
        break;
    case Metric::ReadWaitSum:
        add(r.readWaitSum);
        break;
    }
}

} // namespace

WatchCacheMetrics WatchCacheMetrics::fromText(std::string_view body, QString* warning) {
    WatchCacheMetrics out;
    const KubernetesKeyDecoder decoder;
    std::vector<Pending> pending;
    bool sawResource = false;
    bool sawGroupResource = false;

    PrometheusTextParser parser;
    out.m_valid = parser.parse(body, [&](const PrometheusSampleView& s) {
        if (s.name == "kubernetes_feature_enabled") {
            if (const auto name = s.label("name"); name && !name->empty())
                out.m_featureGates.insert(qs(*name), s.value != 0);
            return;
        }
        const Known* known = lookup(s.name);
        if (!known)
            return;
        const auto resource = s.label("resource");
        const auto group = s.label("group");
        if (!resource || resource->empty()) {
            // 1.33 and older: apiserver_watch_events_total{group,version,kind}.
            const auto kind = s.label("kind");
            if (known->metric == Metric::WatchEvents && kind && !kind->empty()) {
                const QString key =
                    group && !group->empty() ? qs(*kind) + u'.' + qs(*group) : qs(*kind);
                out.m_watchEventsByKind[key] += s.value;
            }
            return;
        }
        Pending p;
        p.metric = known->metric;
        p.value = s.value;
        if (group) {
            p.key = group->empty() ? qs(*resource) : qs(*resource) + u'.' + qs(*group);
            sawGroupResource = sawGroupResource || known->tellsScheme;
        } else if (resource->front() == '/') {
            p.key = resourceOfPrefix(*resource, decoder);
            p.fromPrefix = true;
            sawResource = sawResource || known->tellsScheme;
        } else {
            p.key = qs(*resource);
            sawResource = sawResource || known->tellsScheme;
        }
        if (p.metric == Metric::ConsistentRead) {
            p.first = qs(s.label("success").value_or(std::string_view()));
            p.second = qs(s.label("fallback").value_or(std::string_view()));
        } else if (p.metric == Metric::ConsistencyChecks) {
            p.first = qs(s.label("status").value_or(std::string_view()));
        }
        pending.push_back(std::move(p));
    });
    out.m_samples = parser.samples();
    out.m_skippedLines = parser.skippedLines();
    if (warning) {
        if (!out.m_valid)
            *warning = parser.error();
        else if (parser.skippedLines() > 0)
            *warning = QStringLiteral("%1 malformed metrics line(s) skipped; first: %2")
                           .arg(parser.skippedLines())
                           .arg(parser.firstSkipped());
        else
            warning->clear();
    }
    if (!out.m_valid)
        return out;

    out.m_scheme = sawResource && sawGroupResource ? MetricLabelScheme::Mixed
                   : sawGroupResource              ? MetricLabelScheme::GroupResource
                   : sawResource                   ? MetricLabelScheme::Resource
                                                   : MetricLabelScheme::None;
    QSet<QString> direct;
    for (const Pending& p : pending)
        if (!p.fromPrefix)
            direct.insert(p.key);
    for (Pending& p : pending) {
        if (p.fromPrefix)
            p.key = resolvePrefixKey(p.key, direct);
        ResourceCacheMetrics& r = out.m_resources[p.key];
        r.resource = p.key;
        apply(r, p);
    }
    return out;
}

WatchCacheMetrics WatchCacheMetrics::fromCutText(std::string_view start, QString* warning) {
    const std::string_view whole = PrometheusTextParser::wholeFamilies(start);
    QString parseWarning;
    WatchCacheMetrics out = fromText(whole, &parseWarning);
    if (!warning)
        return out;
    *warning = parseWarning;
    if (!out.isValid())
        return out;
    // The first family not read: the one the cut went through.
    std::string_view rest = start.substr(whole.size());
    std::string_view lost;
    if (rest.starts_with("# HELP ") || rest.starts_with("# TYPE ")) {
        rest.remove_prefix(7);
        lost = rest.substr(0, rest.find_first_of(" \n"));
    }
    const QString cut =
        QStringLiteral("the body was cut at %1 bytes: read the %2 bytes before it%3")
            .arg(start.size())
            .arg(whole.size())
            .arg(lost.empty() ? QString()
                              : QStringLiteral(", families from %1 on not read").arg(qs(lost)));
    *warning = parseWarning.isEmpty() ? cut : cut + QStringLiteral("; ") + parseWarning;
    return out;
}

const ResourceCacheMetrics* WatchCacheMetrics::find(const QString& resource) const {
    const auto it = m_resources.constFind(resource);
    if (it != m_resources.constEnd())
        return &it.value();
    if (resource.isEmpty() || resource.contains(u'.'))
        return nullptr;
    const QString stem = resource + u'.';
    const ResourceCacheMetrics* match = nullptr;
    for (auto i = m_resources.constBegin(); i != m_resources.constEnd(); ++i) {
        if (i.key().startsWith(stem)) {
            if (match)
                return nullptr; // deployments.apps and deployments.extensions: ambiguous
            match = &i.value();
        }
    }
    return match;
}

std::vector<WatchCacheMetrics::FailureRise>
WatchCacheMetrics::consistencyFailuresSince(const WatchCacheMetrics* before) const {
    const QString failure = QStringLiteral("failure");
    std::vector<FailureRise> out;
    for (auto it = m_resources.constBegin(); it != m_resources.constEnd(); ++it) {
        const double now = it->consistencyChecks.value(failure, 0);
        const ResourceCacheMetrics* earlier = before ? before->find(it.key()) : nullptr;
        const double previous = earlier ? earlier->consistencyChecks.value(failure, 0) : 0;
        if (now > previous)
            out.push_back(FailureRise{it.key(), previous, now});
    }
    return out;
}

} // namespace ws

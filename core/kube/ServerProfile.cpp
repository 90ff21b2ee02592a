#include "ServerProfile.h"

#include "ResourceCatalog.h"

#include <QRegularExpression>
#include <map>

namespace ws {

std::optional<ServerProfile> ServerProfile::fromVersion(const QString& version, QString* error) {
    static const QRegularExpression re(QStringLiteral("^v?1\\.(\\d+)(?:\\.(\\d+))?$"));
    const auto m = re.match(version.trimmed());
    if (!m.hasMatch()) {
        if (error)
            *error = QStringLiteral("bad server version '%1': expected 1.MINOR[.PATCH], e.g. 1.27")
                         .arg(version);
        return std::nullopt;
    }
    ServerProfile p;
    p.version = version.trimmed();
    p.minor = m.captured(1).toInt();
    p.patch = m.captured(2).isEmpty() ? 0 : m.captured(2).toInt();
    if (p.minor < 16 || p.minor > 36) {
        if (error)
            *error =
                QStringLiteral("unsupported server version '%1': WatchScope models 1.16 to 1.36")
                    .arg(version);
        return std::nullopt;
    }
    // On from 1.30 (backported to 1.29.3 and 1.28.8); default off from 1.33, once etcd fixed
    // the starvation it worked around (reference §5, §9).
    p.separateCacheWatchRpc = (p.minor >= 30 && p.minor <= 32) || (p.minor == 29 && p.patch >= 3) ||
                              (p.minor == 28 && p.patch >= 8);
    p.watchList = p.minor == 32 || p.minor >= 34;
    p.consistentListFromCache = p.minor >= 31;
    p.resilientWatchCacheInitialization = p.minor >= 31;
    p.watchCacheInitializationPostStartHook = p.minor >= 36;
    p.btreeWatchCache = p.minor >= 32;
    p.listFromCacheSnapshot = p.minor >= 34;
    p.detectCacheInconsistency = p.minor >= 34;
    p.streamingCollectionEncodingToJson = p.minor >= 33;
    p.streamingCollectionEncodingToProtobuf = p.minor >= 33;
    return p;
}

std::size_t ServerProfile::ringUpperBound() const {
    std::size_t bound = 102400;
    const TimeUs window = eventHistoryWindow();
    for (TimeUs covered = eventFreshDuration; covered < window; covered *= 2)
        bound *= 2;
    return bound;
}

std::size_t ServerProfile::watchCacheSize(const QString& name) const {
    const QString resource = ResourceCatalog::lookup(name).qualifiedName(); // "leases" → ...k8s.io
    // Events never get a watch cache: size 0 in cachesize.go's heuristic map (1.16-1.18) and in
    // DefaultWatchCacheSizes (pkg/kubeapiserver/default_storage_factory_builder.go, 1.19+).
    if (resource == QLatin1String("events") || resource == QLatin1String("events.events.k8s.io"))
        return 0;
    if (dynamicWatchCacheSize())
        return static_cast<std::size_t>(fixedWatchCacheSize);
    // Up to 1.18, pkg/registry/cachesize/cachesize.go NewHeuristicWatchCacheSizes with the
    // default --target-ram-mb (0): 1000 for the node-facing resources, 100 for the rest.
    static const QStringList thousand = {
        QStringLiteral("pods"),
        QStringLiteral("nodes"),
        QStringLiteral("services"),
        QStringLiteral("endpoints"),
        QStringLiteral("apiservices.apiregistration.k8s.io"),
    };
    // PRs #85219 and #85339 (1.17): leases and endpointslices sized like nodes and endpoints.
    static const QStringList thousandFrom117 = {
        QStringLiteral("leases.coordination.k8s.io"),
        QStringLiteral("endpointslices.discovery.k8s.io"),
    };
    if (thousand.contains(resource) || (minor >= 17 && thousandFrom117.contains(resource)))
        return 1000;
    return static_cast<std::size_t>(fixedWatchCacheSize);
}

QStringList ServerProfile::knownVersions() {
    // Where fromVersion() and watchWithoutRvFromEtcd() change their answer within a minor.
    const std::map<int, QStringList> patches = {
        {27, {QStringLiteral("1.27.13")}},
        {28, {QStringLiteral("1.28.8"), QStringLiteral("1.28.9")}},
        {29, {QStringLiteral("1.29.3"), QStringLiteral("1.29.4")}},
    };
    QStringList out;
    for (int minor = 16; minor <= 36; ++minor) {
        out << QStringLiteral("1.%1").arg(minor);
        if (const auto it = patches.find(minor); it != patches.end())
            out += it->second;
    }
    return out;
}

} // namespace ws

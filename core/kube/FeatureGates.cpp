#include "FeatureGates.h"

namespace ws {

const std::vector<FeatureGate>& FeatureGates::all() {
    static const std::vector<FeatureGate> gates = {
        {"WatchList", &ServerProfile::watchList, 27, 36,
         "watch-list: sendInitialEvents and the initial-events-end bookmark (KEP-3157)"},
        {"SeparateCacheWatchRPC", &ServerProfile::separateCacheWatchRpc, 28, 36,
         "the cacher's etcd watch on its own gRPC stream (PR #123532; 1.28.8, 1.29.3)"},
        {"WatchFromStorageWithoutResourceVersion",
         &ServerProfile::watchFromStorageWithoutResourceVersion, 27, 35,
         "watches with resourceVersion=\"\" served from etcd (1.27.13, 1.28.9, 1.29.4)"},
        {"ConsistentListFromCache", &ServerProfile::consistentListFromCache, 28, 36,
         "resourceVersion=\"\" lists from the cache after a progress wait (KEP-2340)"},
        {"ResilientWatchCacheInitialization", &ServerProfile::resilientWatchCacheInitialization, 31,
         36, "429 with a growing Retry-After while a watch cache initializes"},
        {"WatchCacheInitializationPostStartHook",
         &ServerProfile::watchCacheInitializationPostStartHook, 31, 36,
         "readyz waits for the watch caches to initialize"},
        {"BtreeWatchCache", &ServerProfile::btreeWatchCache, 32, 36,
         "the watch cache's store is a B-tree (snapshots per RV)"},
        {"ListFromCacheSnapshot", &ServerProfile::listFromCacheSnapshot, 33, 36,
         "Exact-RV and continue lists from cache snapshots"},
        {"DetectCacheInconsistency", &ServerProfile::detectCacheInconsistency, 34, 36,
         "compares the cache's digest with etcd's every 5-7.5 min"},
    };
    return gates;
}

const FeatureGate* FeatureGates::find(const QString& name) {
    for (const FeatureGate& g : all())
        if (name == QLatin1String(g.name))
            return &g;
    return nullptr;
}

QStringList FeatureGates::names() {
    QStringList out;
    for (const FeatureGate& g : all())
        out << QLatin1String(g.name);
    return out;
}

bool FeatureGates::parse(const QString& spec, QString* name, bool* value, QString* error) {
    const qsizetype eq = spec.indexOf(u'=');
    *name = (eq < 0 ? spec : spec.left(eq)).trimmed();
    const QString text = eq < 0 ? QStringLiteral("true") : spec.mid(eq + 1).trimmed().toLower();
    if (text != QLatin1String("true") && text != QLatin1String("false")) {
        *error = QStringLiteral("'%1': the value must be true or false").arg(spec);
        return false;
    }
    if (!find(*name)) {
        *error = QStringLiteral("unknown gate '%1' (modelled: %2)")
                     .arg(*name, names().join(QStringLiteral(", ")));
        return false;
    }
    *value = text == QLatin1String("true");
    return true;
}

void FeatureGates::apply(ServerProfile& profile, const QMap<QString, bool>& gates) {
    for (auto it = gates.constBegin(); it != gates.constEnd(); ++it)
        if (const FeatureGate* g = find(it.key()))
            profile.*(g->field) = it.value();
}

} // namespace ws

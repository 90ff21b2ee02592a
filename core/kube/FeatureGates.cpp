#include "FeatureGates.h"

#include "ReleaseVersion.h"

namespace ws {

const std::vector<FeatureGate>& FeatureGates::all() {
    // Existence and locks from kube_features.go (v1.27.0 to v1.35.0): WatchList alpha 1.27;
    // SeparateCacheWatchRPC added by PR #123532 in 1.30 and its cherry-picks to 1.29.3 and
    // 1.28.8; WatchFromStorageWithoutResourceVersion by #123935 / #124007 in 1.27.13, 1.28.9,
    // 1.29.4 and 1.30, locked off (deprecated) from 1.33, removed 1.36; SeparateCacheWatchRPC
    // deprecated (off) from 1.33 and locked off from 1.36; GA and locked on:
    // BtreeWatchCache 1.33, ConsistentListFromCache, ResilientWatchCacheInitialization and the
    // streaming collection encoders 1.34.
    static const std::vector<FeatureGate> gates = {
        {"WatchList", &ServerProfile::watchList, 27, 36, "", 0,
         "watch-list: sendInitialEvents and the initial-events-end bookmark (KEP-3157)"},
        {"SeparateCacheWatchRPC", &ServerProfile::separateCacheWatchRpc, 30, 36, "1.28.8 1.29.3",
         36, "the cacher's etcd watch on its own gRPC stream (PR #123532; 1.28.8, 1.29.3)"},
        {"WatchFromStorageWithoutResourceVersion",
         &ServerProfile::watchFromStorageWithoutResourceVersion, 30, 35, "1.27.13 1.28.9 1.29.4",
         33, "watches with resourceVersion=\"\" served from etcd (1.27.13, 1.28.9, 1.29.4)"},
        {"ConsistentListFromCache", &ServerProfile::consistentListFromCache, 28, 36, "", 34,
         "resourceVersion=\"\" lists from the cache after a progress wait (KEP-2340)"},
        {"ResilientWatchCacheInitialization", &ServerProfile::resilientWatchCacheInitialization, 31,
         36, "", 34, "429 with a growing Retry-After while a watch cache initializes"},
        {"WatchCacheInitializationPostStartHook",
         &ServerProfile::watchCacheInitializationPostStartHook, 31, 36, "", 0,
         "readyz waits for the watch caches to initialize"},
        {"BtreeWatchCache", &ServerProfile::btreeWatchCache, 32, 36, "", 33,
         "the watch cache's store is a B-tree (snapshots per RV)"},
        {"ListFromCacheSnapshot", &ServerProfile::listFromCacheSnapshot, 33, 36, "", 0,
         "Exact-RV and continue lists from cache snapshots"},
        {"DetectCacheInconsistency", &ServerProfile::detectCacheInconsistency, 34, 36, "", 0,
         "compares the cache's digest with etcd's every 5-7.5 min"},
        {"StreamingCollectionEncodingToJSON", &ServerProfile::streamingCollectionEncodingToJson, 33,
         36, "", 34, "JSON list responses encoded item by item (apiserver memory only)"},
        {"StreamingCollectionEncodingToProtobuf",
         &ServerProfile::streamingCollectionEncodingToProtobuf, 33, 36, "", 34,
         "protobuf list responses encoded item by item (apiserver memory only)"},
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

bool FeatureGates::existsIn(const FeatureGate& gate, const ServerProfile& profile) {
    if (profile.minor >= gate.firstMinor && profile.minor <= gate.lastMinor)
        return true;
    for (const QString& b : QString::fromLatin1(gate.backports).split(u' ', Qt::SkipEmptyParts)) {
        const ReleaseVersion from = ReleaseVersion::parse(b);
        if (profile.minor == from.minor && profile.patch >= from.patch)
            return true;
    }
    return false;
}

QString FeatureGates::releases(const FeatureGate& gate) {
    QStringList parts;
    for (const QString& b : QString::fromLatin1(gate.backports).split(u' ', Qt::SkipEmptyParts))
        parts << b + u'+';
    parts << (gate.firstMinor == gate.lastMinor
                  ? QStringLiteral("1.%1").arg(gate.firstMinor)
                  : QStringLiteral("1.%1-1.%2").arg(gate.firstMinor).arg(gate.lastMinor));
    return parts.join(QStringLiteral(", "));
}

std::optional<QString> FeatureGates::rejection(const ServerProfile& profile, const QString& name,
                                               bool value) {
    const FeatureGate* gate = find(name);
    if (!gate)
        return QStringLiteral("unknown gate '%1' (modelled: %2)")
            .arg(name, names().join(QStringLiteral(", ")));
    if (!existsIn(*gate, profile))
        return QStringLiteral("unrecognized feature gate: %1 (kube-apiserver %2 does not have it; "
                              "it exists in %3)")
            .arg(name, profile.version, releases(*gate));
    if (gate->lockedFromMinor > 0 && profile.minor >= gate->lockedFromMinor) {
        const auto defaults = ServerProfile::fromVersion(profile.version, nullptr);
        const bool locked = defaults && (*defaults).*(gate->field);
        if (value != locked)
            return QStringLiteral("cannot set feature gate %1 to %2, feature is locked to %3 "
                                  "(kube-apiserver %4)")
                .arg(name, value ? QStringLiteral("true") : QStringLiteral("false"),
                     locked ? QStringLiteral("true") : QStringLiteral("false"), profile.version);
    }
    return std::nullopt;
}

void FeatureGates::apply(ServerProfile& profile, const QMap<QString, bool>& gates) {
    for (auto it = gates.constBegin(); it != gates.constEnd(); ++it)
        if (const FeatureGate* g = find(it.key()))
            profile.*(g->field) = it.value();
}

} // namespace ws

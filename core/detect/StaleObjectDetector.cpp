#include "StaleObjectDetector.h"

#include "DetectorHub.h"

#include <algorithm>

namespace ws {

void StaleObjectDetector::check(WatcherId owner, TimeUs now, ResourceVersion storeRv,
                                ResourceVersion seenRv, std::span<const StoreEntry> entries,
                                const ConsistencyOracle& truth) {
    seenRv = std::max(seenRv, storeRv);
    for (const StoreEntry& entry : entries) {
        const KeyTruth t = truth.truth(entry.key);
        // Only what etcd changed at or before storeRv counts: anything later the store may
        // simply not have received yet.
        const bool deleted = !t.exists && t.deletedRv > 0 && t.deletedRv <= seenRv;
        const bool outdated = t.exists && t.modRv <= storeRv && t.modRv != entry.rv;
        if (!deleted && !outdated) [[likely]]
            continue;
        if (!m_reported.insert({owner, entry.key, entry.rv}).second)
            continue;
        Anomaly a = m_ctx.make(owner, now, AnomalyKind::StaleObject, Severity::Error);
        a.key = m_ctx.keyName(entry.key);
        a.rv = entry.rv;
        a.message =
            deleted && t.deletedRv > storeRv
                ? QStringLiteral("store at RV %1 holds %2 (RV %3) again: deleted in etcd at "
                                 "%4, which this watcher had already seen (RV %5)")
                      .arg(storeRv)
                      .arg(a.key)
                      .arg(entry.rv)
                      .arg(t.deletedRv)
                      .arg(seenRv)
            : deleted ? QStringLiteral("store at RV %1 still holds %2 (RV %3), deleted in "
                                       "etcd at %4")
                            .arg(storeRv)
                            .arg(a.key)
                            .arg(entry.rv)
                            .arg(t.deletedRv)
                      : QStringLiteral("store at RV %1 holds %2 at RV %3, etcd has it at "
                                       "%4")
                            .arg(storeRv)
                            .arg(a.key)
                            .arg(entry.rv)
                            .arg(t.modRv);
        m_ctx.raise(a);
    }
}

} // namespace ws

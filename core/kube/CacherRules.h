#pragma once

#include "ResourceCatalog.h"
#include "model/ResourceVersion.h"

#include <QString>
#include <QStringList>
#include <algorithm>
#include <cmath>
#include <cstddef>

namespace ws {

// The cacher's dispatch and bookmark rules (staging/src/k8s.io/apiserver/pkg/storage/cacher),
// as plain functions and one small budget type: the simulator's Cacher plays them, and the
// coming `serve` mode and what-if replays use the very same ones.
namespace cacher {

// How a watcher's field selector meets its resource's cacher index (cacher.go Watch:
// `indexedTrigger` is set for resources whose registry has a TriggerFunc; `triggerSupported`
// when the selector pins that field to one value), which sizes its buffer.
enum class WatcherIndex {
    None,                // the resource has no trigger index (deployments, leases, ...)
    IndexWithoutTrigger, // indexed resource, watched without pinning the index field
    IndexAndTrigger,     // e.g. a kubelet's pods watch with spec.nodeName=<node>
};

// The field a resource's cacher indexes watchers by: the registries' TriggerFunc
// (pkg/registry/core/{pod,node,secret,configmap}/storage): spec.nodeName for pods,
// metadata.name for nodes, secrets and configmaps. Empty for every other resource.
inline QString indexTriggerField(const QString& name) {
    const QString resource = ResourceCatalog::lookup(name).qualifiedName();
    if (resource == QLatin1String("pods"))
        return QStringLiteral("spec.nodeName");
    if (resource == QLatin1String("nodes") || resource == QLatin1String("secrets") ||
        resource == QLatin1String("configmaps"))
        return QStringLiteral("metadata.name");
    return {};
}

// The index kind of a watch on `resource` whose field selector pins `pinnedFields` to one value
// each (equality, RequiresExactMatch).
inline WatcherIndex watcherIndex(const QString& resource, const QStringList& pinnedFields) {
    const QString trigger = indexTriggerField(resource);
    if (trigger.isEmpty())
        return WatcherIndex::None;
    return pinnedFields.contains(trigger) ? WatcherIndex::IndexAndTrigger
                                          : WatcherIndex::IndexWithoutTrigger;
}

// A watcher's channel size (its input and result channels each hold that many events).
// Before 1.25 (cacher.go Watch): 10, but 1000 for a watcher of an indexed resource that does not
// use the trigger (the few "see everything" watchers of pods, nodes, secrets, configmaps).
// From 1.25 (PR #109708, watch_cache.go suggestedWatchChannelSize): about one second of history,
// ceil(ringCapacity / eventFreshDuration), at least 10 and at most 10 with index and trigger,
// 1000 with the index but no trigger, 100 without an index.
inline std::size_t watcherChannelSize(bool adjustable, WatcherIndex index, std::size_t ringCapacity,
                                      TimeUs eventFreshDuration) {
    if (!adjustable)
        return index == WatcherIndex::IndexWithoutTrigger ? 1000 : 10;
    const auto freshSeconds = static_cast<std::size_t>(std::max<TimeUs>(
        1, (eventFreshDuration + kUsPerSecond - 1) / kUsPerSecond)); // whole seconds (75 s)
    const std::size_t perSecond = (ringCapacity + freshSeconds - 1) / freshSeconds;
    const std::size_t max = index == WatcherIndex::IndexAndTrigger       ? 10
                            : index == WatcherIndex::IndexWithoutTrigger ? 1000
                                                                         : 100;
    return std::clamp<std::size_t>(perSecond, 10, max);
}

// The dispatch loop's bookmark ticker fires once a second.
constexpr TimeUs kBookmarkTickPeriod = seconds(1);

// When a watcher is due its next bookmark: with periodic bookmarks (1.19+) every
// `interval`, at least a second from now and no later than 2 s before its deadline; before
// 1.19, once, 2 s before the deadline.
inline TimeUs nextBookmarkTime(TimeUs now, TimeUs deadline, bool periodic, TimeUs interval) {
    if (!periodic)
        return std::max(now, deadline - seconds(2));
    return std::min(now + interval, std::max(now + seconds(1), deadline - seconds(2)));
}

// Whether the periodic bookmark (at the RV the dispatcher last processed) reaches a watcher:
// its process loop forwards only what is newer than the RV it started from, that is the
// requested RV raised to its last initial event's (cacher.go / cache_watcher.go process, the
// same in 1.19, 1.27 and 1.33). A bookmark at the RV a watch started from is dropped; one at the
// RV of the last event it was sent still goes out.
inline bool bookmarkReaches(ResourceVersion bookmarkRv, ResourceVersion watcherStartRv) {
    return bookmarkRv > watcherStartRv;
}

// The time the dispatcher may spend waiting on full watcher buffers, shared by all watchers of
// a resource: at most 100 ms, refilling 50 ms per second. When it runs out, every watcher still
// blocked is closed without an ERROR event.
class DispatchBudget {
public:
    // One tick of dtSeconds: refill, then spend it all if some watcher is blocked. True when the
    // budget ran out (the blocked watchers are to be closed; the budget restarts at zero).
    bool tick(double dtSeconds, bool anyBlocked) {
        m_seconds = std::min(kMaxSeconds, m_seconds + kRefillPerSecond * dtSeconds);
        if (!anyBlocked)
            return false;
        m_seconds -= dtSeconds;
        if (m_seconds >= 0)
            return false;
        m_seconds = 0;
        return true;
    }
    double seconds() const { return m_seconds; }

private:
    static constexpr double kMaxSeconds = 0.1;
    static constexpr double kRefillPerSecond = 0.05;
    double m_seconds = kMaxSeconds;
};

// The cacher's reflector runs ListAndWatch under wait.Until with a fixed 1 s period: after a
// failed or ended ListAndWatch the next list starts a second later, with no backoff and no
// jitter (cacher.go NewCacherFromConfig, v1.16 to v1.36).
constexpr TimeUs kRelistPeriod = seconds(1);

// Retry-After of the 429 "storage is (re)initializing": 1 s on 1.31-1.32; from 1.33
// clamp(e^(0.06 x downtime_s), 1, 30) truncated to whole seconds, where downtime is the time
// since the cache last became ready or not ready (util.go calculateRetryAfterForUnreadyCache).
inline int retryAfterForUnreadyCache(TimeUs downtime, bool grows) {
    if (!grows)
        return 1;
    const double s = static_cast<double>(std::max<TimeUs>(downtime, 0)) / kUsPerSecond;
    return static_cast<int>(std::clamp(std::exp(0.06 * s), 1.0, 30.0));
}

} // namespace cacher
} // namespace ws

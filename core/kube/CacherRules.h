#pragma once

#include "model/ResourceVersion.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace ws {

// The cacher's dispatch and bookmark rules (staging/src/k8s.io/apiserver/pkg/storage/cacher),
// as plain functions and one small budget type: the simulator's Cacher plays them, and the
// coming `serve` mode and what-if replays use the very same ones.
namespace cacher {

// A watcher's buffer: clamp(ceil(ringCapacity / 75), 10, 1000) events per channel, input and
// result channels each (cacher.go: newCacheWatcher's chanSize).
inline std::size_t watcherChannelSize(std::size_t ringCapacity) {
    return std::clamp<std::size_t>((ringCapacity + 74) / 75, 10, 1000);
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

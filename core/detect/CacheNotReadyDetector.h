#pragma once

#include "DetectorContext.h"

#include <vector>

namespace ws {

// cache-not-ready: a kube-apiserver watch cache that stayed not ready longer than
// thresholds().cacheNotReadyAfter (reference §6, §9). Two views of the same condition:
//  - a client (any source, a real cluster too) whose watches or lists keep failing with the
//    not-ready answers: 429 "storage is (re)initializing" (1.31+, KEP-4568) spanning the
//    threshold, or one 503 "context deadline exceeded" after a watch blocked until its
//    timeout (1.27-1.30); a watch the cache accepts ends it;
//  - a simulated cacher (watcher id "cacher/...") from the start of a list until its etcd watch
//    has stayed up thresholds().cacheSettledAfter (or delivered something): a list that takes
//    too long, or a relist that keeps ending in "compacted", never settles.
// Raised once per episode: a client's on a refusal, a cacher's also from tick().
class CacheNotReadyDetector {
public:
    explicit CacheNotReadyDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher(const WatcherInfo& info);
    void poll(WatcherId w, TimeUs now) {
        const State& s = m_state[static_cast<size_t>(w)];
        if (s.since != kNone && s.cacher) [[unlikely]]
            check(w, now, false);
    }
    void onListStarted(WatcherId w, TimeUs now);
    void onListEnded(WatcherId w); // completed or failed
    void onError(WatcherId w, TimeUs now, const ObservedStatus& status);
    void onWatchOpened(WatcherId w, TimeUs now);
    void onDelivered(WatcherId w, TimeUs now); // events or a bookmark/progress arrived
    void tick(TimeUs now);
    // When tick() next has something to decide (a cacher's episode reaching a threshold);
    // kNoDeadline when nothing.
    TimeUs nextDue() const;

    // The answers a request gets from a watch cache that is not ready.
    static bool isNotReadyStatus(const ObservedStatus& status);

private:
    static constexpr TimeUs kNone = -1;
    struct State {
        bool cacher = false;
        TimeUs since = kNone;         // the episode's start; kNone: ready
        TimeUs watchOpenedAt = kNone; // cacher: its current etcd watch, not failed since
        TimeUs listingSince = kNone;  // cacher: its LIST in progress
        int failures = 0;
        int maxRetryAfter = 0;
        QString lastStatus;
        bool waitedOut = false; // a 503 after a watch blocked until its deadline
        bool raised = false;
    };

    void begin(WatcherId w, TimeUs now);
    void end(WatcherId w);
    // refused: called for a not-ready answer the watcher just got.
    Q_DECL_COLD_FUNCTION void check(WatcherId w, TimeUs now, bool refused);

    DetectorContext& m_ctx;
    std::vector<State> m_state;
    std::vector<WatcherId> m_open; // watchers in an episode, for tick()
};

} // namespace ws

#pragma once

#include "DetectorContext.h"

#include <vector>

namespace ws {

// initial-events-stalled: a watch-list (sendInitialEvents=true, KEP-3157) that has not delivered
// its k8s.io/initial-events-end bookmark thresholds().initialEventsTimeout after it opened.
// Checked on every observation of the watcher and on tick(); once per watch.
class InitialEventsStalledDetector {
public:
    explicit InitialEventsStalledDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher() { m_state.emplace_back(); }
    // One compare on the hot path; the rest only for a watch-list that is overdue.
    void poll(WatcherId w, TimeUs now) {
        const State& s = m_state[static_cast<size_t>(w)];
        if (s.deadline != kNone && now >= s.deadline) [[unlikely]]
            raise(w, now);
    }
    void onWatchOpened(WatcherId w, TimeUs now, const WatchRequest& request);
    void onProgress(WatcherId w, bool initialEventsEnd);
    void onWatchEnded(WatcherId w);
    void tick(TimeUs now);
    // The earliest deadline tick() has to check; kNoDeadline when none is pending.
    TimeUs nextDue() const;

private:
    static constexpr TimeUs kNone = -1;
    struct State {
        TimeUs openedAt = 0;
        TimeUs deadline = kNone; // kNone: no watch-list waiting for its end bookmark
    };

    Q_DECL_COLD_FUNCTION void raise(WatcherId w, TimeUs now);

    DetectorContext& m_ctx;
    std::vector<State> m_state;
    std::vector<WatcherId> m_pending; // watchers that may have a deadline set, for tick()
};

} // namespace ws

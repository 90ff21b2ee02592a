#pragma once

#include "DetectorContext.h"

#include <vector>

namespace ws {

// stuck-watcher: a watcher whose RV has not moved for thresholds().stuckWatcherAfter while the
// head of its resource moved past it. An idle resource (head not moving) is not a stuck watcher.
// Once per episode: the watcher's RV moving ends it.
class StuckWatcherDetector {
public:
    explicit StuckWatcherDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher() { m_state.emplace_back(); }
    void onPosition(WatcherId w, TimeUs now, ResourceVersion rv, ResourceVersion head);

private:
    struct State {
        bool seen = false;
        bool raised = false;
        ResourceVersion rv = 0;
        TimeUs since = 0;                // when rv last changed
        ResourceVersion headAtSince = 0; // head at that time
    };

    DetectorContext& m_ctx;
    std::vector<State> m_state;
};

} // namespace ws

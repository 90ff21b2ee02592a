#pragma once

#include "DetectorContext.h"

#include <vector>

namespace ws {

// watcher-lag: a watcher more than thresholds().watcherLagSeconds behind. Raised when it crosses
// the threshold; re-armed only once it is back under half of it, so a watcher hovering around
// the threshold is reported once, not at every sample.
class WatcherLagDetector {
public:
    explicit WatcherLagDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher() { m_raised.push_back(0); }
    void onPosition(WatcherId w, TimeUs now, ResourceVersion rv, ResourceVersion head,
                    double lagSeconds);

private:
    DetectorContext& m_ctx;
    std::vector<unsigned char> m_raised;
};

} // namespace ws

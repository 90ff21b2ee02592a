#pragma once

#include "DetectorContext.h"

#include <vector>

namespace ws {

// watcher-terminated: the server ended a watch without an ERROR event before the client's
// timeout — the cacher closing an unresponsive watcher, or a shutdown (kubernetes-watch.md §4).
class WatcherTerminatedDetector {
public:
    explicit WatcherTerminatedDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher() { m_openedAt.push_back(-1); }
    void onWatchOpened(WatcherId w, TimeUs now) { m_openedAt[static_cast<size_t>(w)] = now; }
    // rv: the watcher's position when the stream ended.
    void onWatchClosed(WatcherId w, TimeUs now, WatchCloseReason reason, ResourceVersion rv);

private:
    DetectorContext& m_ctx;
    std::vector<TimeUs> m_openedAt; // -1: no stream opened yet
};

} // namespace ws

#pragma once

#include "DetectorContext.h"

#include <QHash>
#include <deque>
#include <vector>

namespace ws {

// relist-storm: relists of one resource bunching up in a sliding window, either many in total
// or a large share of the resource's apiserver clients at once (HA restarts, kubernetes-watch.md
// §6). Raised once per storm; a storm ends when a whole window passes without the condition.
class RelistStormDetector {
public:
    explicit RelistStormDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher(WatcherId w);
    // Only LISTs count. A watch-list (sendInitialEvents, client-go WatchListClient) is a watch:
    // the cache streams its initial state one object at a time, with no response built in
    // memory and no etcd read, so a thousand of them at once are not the storm this warns of
    // (kubernetes-watch.md §9, KEP-3157); a watch-list the server refuses falls back to a LIST,
    // which counts.
    void onListStarted(WatcherId w, TimeUs now, const ListRequest& request);

private:
    struct Relist {
        TimeUs time;
        WatcherId watcher;
    };
    struct Resource {
        std::deque<Relist> window;
        int registered = 0; // apiserver-layer watchers of this resource
        int distinct = 0;   // apiserver-layer watchers with a relist in the window
        bool storming = false;
        TimeUs lastStorm = 0; // last relist at which the storm condition held
    };

    DetectorContext& m_ctx;
    QHash<QString, int> m_resourceIndex;
    std::vector<Resource> m_resources;
    std::vector<int> m_resourceOf; // per watcher
    std::vector<int> m_inWindow;   // per watcher: its relists in the window
};

} // namespace ws

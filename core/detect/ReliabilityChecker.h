#pragma once

#include "DetectorContext.h"

#include <span>
#include <vector>

namespace ws {

// etcd's "Reliable" and "Resumable" guarantees (reference/etcd-watch.md §3) for etcd-layer
// watches: no revision the watch must see is skipped (revision-gap). A whole-prefix watch
// (seesEveryRevision) must see rev == last + 1; any other etcd watch is checked against a
// HistoryOracle when one is set. A watch opened at rv S expects its first event at S + 1.
class ReliabilityChecker {
public:
    explicit ReliabilityChecker(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher() { m_streams.emplace_back(); }
    void onWatchOpened(WatcherId w, const WatchRequest& request);
    // Call only for etcd-layer watchers.
    void onResponse(WatcherId w, TimeUs now, std::span<const ObservedEvent> events);

private:
    struct Stream {
        ResourceVersion last = 0; // last revision delivered (or the start revision - 1)
        bool known = false;       // false until the stream's position is known
    };

    Q_DECL_COLD_FUNCTION void raiseGap(WatcherId w, TimeUs now, const ObservedEvent& e,
                                       ResourceVersion last, ResourceVersion firstMissing,
                                       bool byOracle);

    DetectorContext& m_ctx;
    std::vector<Stream> m_streams;
};

} // namespace ws

#pragma once

#include "DetectorContext.h"

#include <span>
#include <vector>

namespace ws {

// revision-regression across a watcher's life (issue #59848, reference/kubernetes-watch.md §7):
// a list, a bookmark or a watch that starts below the highest RV the watcher has already seen,
// typically after a reconnect to a lagging apiserver. Reordering inside one stream is
// WatchGuaranteeChecker's; this one compares each stream with what was seen before it, so one
// fault is not reported twice. A client resuming from an older RV than it has seen (the cacher
// retrying from its last processed RV) legitimately gets events again from there. At most one
// report per stream; every list is judged on its own.
class TimeTravelDetector {
public:
    explicit TimeTravelDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher() { m_state.emplace_back(); }
    void onListCompleted(WatcherId w, TimeUs now, ResourceVersion listRv);
    void onWatchOpened(WatcherId w, const WatchRequest& request);
    void onResponse(WatcherId w, TimeUs now, std::span<const ObservedEvent> events);
    void onProgress(WatcherId w, TimeUs now, ResourceVersion rv);
    // What an audit log shows instead of what was received: the RV a client asked for. Asking
    // below an RV it asked for before means its view went back (it was served an older state,
    // e.g. by a lagging apiserver after moving there). RV ""/"0" (rv 0) ask for no particular
    // state and are not compared. Requests come in the order they arrived.
    void onRequested(WatcherId w, TimeUs now, ResourceVersion rv, bool list);

    // The highest RV the watcher has seen (lists, events, bookmarks): its progress marker.
    ResourceVersion highest(WatcherId w) const { return m_state[static_cast<size_t>(w)].highest; }

private:
    struct State {
        ResourceVersion highest = 0; // over the watcher's whole life
        // What the current stream must not go below: the highest RV seen before it opened, or
        // the requested RV when the client itself chose to resume from an older one.
        ResourceVersion floor = 0;
        ResourceVersion streamTop = 0;      // highest event RV on the current stream
        ResourceVersion streamProgress = 0; // highest bookmark on the current stream
        bool liveSeen = false;              // the current stream delivered a live event
        bool reported = false;              // the current stream was already reported
        ResourceVersion requested = 0;      // the RV of its last request that named one
    };

    Q_DECL_COLD_FUNCTION void raise(WatcherId w, TimeUs now, ResourceVersion rv,
                                    ResourceVersion highest, const QString& what, KeyId key);

    DetectorContext& m_ctx;
    std::vector<State> m_state;
};

} // namespace ws

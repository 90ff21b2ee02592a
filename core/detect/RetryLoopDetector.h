#pragma once

#include "DetectorContext.h"

#include <vector>

namespace ws {

// retry-loop: the same error (code and reason) retried thresholds().retryLoopCount times in a row
// with no progress in between, e.g. client-go 0.18.0–0.18.5 retrying a 504 forever
// (kubernetes-watch.md §6). Progress is a completed list with items, or the watcher's highest
// RV moving. The answers client-go's REST layer retried itself (RestRetries) count, but only the
// reflector retrying the error after them is a loop: ten Retry-After retries that end in a
// relist that works are not. So at least two of the errors in a row reached the reflector.
// Raised once per loop; progress re-arms it.
class RetryLoopDetector {
public:
    explicit RetryLoopDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher() { m_state.emplace_back(); }
    // highest: the watcher's highest RV seen so far (TimeTravelDetector::highest).
    void onError(WatcherId w, TimeUs now, const ObservedStatus& status, ResourceVersion highest);
    // An answer the REST layer read away and sent again (the reflector did not see it).
    void onRetried(WatcherId w, const ObservedStatus& status, ResourceVersion highest);
    void onListCompleted(WatcherId w, std::int64_t items);

private:
    struct State;
    // Counts the answer into the current run (or starts a new one).
    State& count(WatcherId w, const ObservedStatus& status, ResourceVersion highest);

    struct State {
        int code = 0;
        QString reason;
        int count = 0;                     // the same error in a row
        int returned = 0;                  // ... of which reached the reflector
        ResourceVersion highestAtLast = 0; // the watcher's highest RV at the previous error
        bool listedSince = false;          // a list with items completed since the previous error
        bool raised = false;               // this loop was reported
    };

    DetectorContext& m_ctx;
    std::vector<State> m_state;
};

} // namespace ws

#pragma once

#include "DetectorThresholds.h"
#include "model/Observation.h"
#include "model/WatcherState.h"

#include <span>
#include <vector>

namespace ws {

// What the pipeline reports of a watcher besides its position: its state (model/WatcherState.h
// defines each one), the errors it met and the selector of its last watch.
struct WatcherStatus {
    WatcherState state = WatcherState::Listing;
    int errors = 0;   // failed lists, ERROR events (a refused watch request too), broken streams
    QString selector; // of its last watch request; empty when none
};

// Derives every watcher's WatcherState from the observations DetectorHub routes to it, the same
// way for every source. The lag rules use the thresholds of the watcher-lag and stuck-watcher
// detectors, so the state and those anomalies agree. Costs nothing per event but a test of the
// first and last event of a response while a watcher is syncing or has just opened a watch.
class WatcherStateTracker {
public:
    explicit WatcherStateTracker(const DetectorThresholds& thresholds) : m_thresholds(thresholds) {}

    void addWatcher() { m_watchers.emplace_back(); }
    int watcherCount() const { return static_cast<int>(m_watchers.size()); }

    void onListStarted(WatcherId w, const ListRequest& request);
    void onListCompleted(WatcherId w);
    void onListFailed(WatcherId w);
    void onWatchOpened(WatcherId w, const WatchRequest& request);
    void onResponse(WatcherId w, std::span<const ObservedEvent> events);
    void onProgress(WatcherId w, bool initialEventsEnd);
    void onWatchError(WatcherId w);
    void onWatchClosed(WatcherId w, WatchCloseReason reason);
    void onStopped(WatcherId w);
    void onPosition(WatcherId w, TimeUs now, ResourceVersion rv, ResourceVersion head,
                    double lagSeconds);

    WatcherStatus status(WatcherId w) const;

private:
    enum class Phase : std::uint8_t {
        Idle,       // nothing observed yet
        Listing,    // first list in flight
        Relisting,  // a later list in flight, or a later watch-list before its bookmark
        Synced,     // list done, watch not opened yet
        Initial,    // watch open, initial events (watch-list bookmark or RV=0 ADDEDs) pending
        Watching,   // watch open, streaming
        Backoff,    // failed, waiting to retry
        Terminated, // closed without error, or stopped
    };
    struct State {
        Phase phase = Phase::Idle;
        bool everListed = false;
        bool awaitingBookmark = false; // watch-list: initial events end with a bookmark
        bool watchStarted = false;     // no event of the current watch seen yet
        bool lagging = false;
        bool positionSeen = false;
        ResourceVersion rv = 0;
        ResourceVersion head = 0;
        TimeUs since = 0;                // when rv last changed
        ResourceVersion headAtSince = 0; // head then
        bool stuck = false;
        int errors = 0;
        QString selector;
    };
    State& at(WatcherId w) { return m_watchers[static_cast<std::size_t>(w)]; }
    void startOver(State& s); // a new list or watch: the lag rules start afresh

    DetectorThresholds m_thresholds;
    std::vector<State> m_watchers;
};

} // namespace ws

#include "WatcherStateTracker.h"

namespace ws {

void WatcherStateTracker::startOver(State& s) {
    s.lagging = false;
    s.stuck = false;
    s.positionSeen = false;
}

void WatcherStateTracker::onListStarted(WatcherId w, const ListRequest& request) {
    State& s = at(w);
    s.phase = request.isRelist || s.everListed ? Phase::Relisting : Phase::Listing;
    s.awaitingBookmark = false;
    startOver(s);
}

void WatcherStateTracker::onListCompleted(WatcherId w) {
    State& s = at(w);
    s.everListed = true;
    s.phase = Phase::Synced;
}

void WatcherStateTracker::onListFailed(WatcherId w) {
    State& s = at(w);
    ++s.errors;
    s.phase = Phase::Backoff;
}

void WatcherStateTracker::onWatchOpened(WatcherId w, const WatchRequest& request) {
    State& s = at(w);
    s.selector = request.selector;
    s.awaitingBookmark = request.sendInitialEvents;
    s.watchStarted = true;
    // A watch-list replaces the list (it is listed once its initial events end): after a first
    // sync it is a relist, as a LIST then is.
    if (request.sendInitialEvents) {
        s.phase = s.everListed ? Phase::Relisting : Phase::Initial;
        startOver(s);
    } else {
        s.phase = Phase::Watching;
    }
}

void WatcherStateTracker::onResponse(WatcherId w, std::span<const ObservedEvent> events) {
    State& s = at(w);
    if (s.watchStarted) {
        // The first response of a watch: an RV="0" watch starts with synthetic ADDEDs.
        s.watchStarted = false;
        if (s.phase == Phase::Watching && events.front().initial)
            s.phase = Phase::Initial;
    }
    if (s.phase == Phase::Initial && !s.awaitingBookmark && !events.back().initial)
        s.phase = Phase::Watching;
}

void WatcherStateTracker::onProgress(WatcherId w, bool initialEventsEnd) {
    State& s = at(w);
    if ((s.phase == Phase::Initial || s.phase == Phase::Relisting) && s.awaitingBookmark &&
        initialEventsEnd) {
        s.awaitingBookmark = false;
        s.everListed = true;
        s.phase = Phase::Watching;
    }
}

void WatcherStateTracker::onWatchError(WatcherId w) {
    State& s = at(w);
    ++s.errors;
    s.phase = Phase::Backoff;
}

void WatcherStateTracker::onWatchClosed(WatcherId w, WatchCloseReason reason) {
    State& s = at(w);
    switch (reason) {
    case WatchCloseReason::ClientTimeout:
    case WatchCloseReason::CacheReinitialized:
        break; // the client re-watches at once
    case WatchCloseReason::AfterError:
        s.phase = Phase::Backoff; // the ERROR event counted already
        break;
    case WatchCloseReason::Broken:
        ++s.errors;
        s.phase = Phase::Backoff;
        break;
    case WatchCloseReason::ServerClosed:
    case WatchCloseReason::ClientCancelled:
        s.phase = Phase::Terminated;
        break;
    }
}

void WatcherStateTracker::onStopped(WatcherId w) {
    State& s = at(w);
    s.phase = Phase::Terminated;
    startOver(s);
}

void WatcherStateTracker::onPosition(WatcherId w, TimeUs now, ResourceVersion rv,
                                     ResourceVersion head, double lagSeconds) {
    State& s = at(w);
    // Lagging with the watcher-lag detector's hysteresis: over the threshold, until back under
    // half of it.
    const double threshold = m_thresholds.watcherLagSeconds;
    // An unknown lag (negative) is no lag.
    s.lagging = s.lagging ? lagSeconds >= threshold / 2 : lagSeconds > threshold;
    s.head = head;
    if (!s.positionSeen || rv != s.rv) {
        s.positionSeen = true;
        s.rv = rv;
        s.since = now;
        s.headAtSince = head;
        s.stuck = false;
        return;
    }
    s.stuck = head > rv && head > s.headAtSince && now - s.since >= m_thresholds.stuckWatcherAfter;
}

WatcherStatus WatcherStateTracker::status(WatcherId w) const {
    const State& s = m_watchers[static_cast<std::size_t>(w)];
    WatcherStatus out;
    out.errors = s.errors;
    out.selector = s.selector;
    switch (s.phase) {
    case Phase::Idle:
    case Phase::Listing:
        out.state = WatcherState::Listing;
        break;
    case Phase::Relisting:
        out.state = WatcherState::Relisting;
        break;
    case Phase::Synced:
    case Phase::Initial:
        out.state = WatcherState::Syncing;
        break;
    case Phase::Watching:
        out.state = s.stuck     ? WatcherState::Stuck
                    : s.lagging ? WatcherState::Lagging
                                : WatcherState::Live;
        break;
    case Phase::Backoff:
        out.state = WatcherState::Backoff;
        break;
    case Phase::Terminated:
        out.state = WatcherState::Terminated;
        break;
    }
    return out;
}

} // namespace ws

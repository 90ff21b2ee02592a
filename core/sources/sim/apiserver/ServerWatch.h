#pragma once

#include "kube/ApiStatus.h"
#include "kube/KeyValue.h"
#include "model/Observation.h"
#include "util/RingQueue.h"

#include <optional>

namespace ws {

// One item a watch stream carries to its client.
struct WatchDelivery {
    WatchEventType type = WatchEventType::Modified;
    bool initial = false;          // synthetic ADDED of the initial state
    bool initialEventsEnd = false; // BOOKMARK with k8s.io/initial-events-end
    KeyId key = kNoKey;
    ResourceVersion rv = 0;
    KeyValuePtr object;
    TimeUs commitTime = 0; // when etcd committed the change (0 for bookmarks)
};

// The server side of one client watch: the per-watcher buffer the dispatcher fills (cacheWatcher
// input+result channels) and the client drains at its own speed.
struct ServerWatch {
    int id = -1;
    int resource = -1;
    int selectorGroup = -1; // -1: no selector
    bool bookmarks = false;
    bool fromEtcd = false;    // served by an etcd watch, not the cache
    std::size_t capacity = 0; // 0: unbounded
    // What the client will read during the current tick: the dispatcher may hand over that much
    // beyond the buffer, since client and dispatcher run concurrently in a real apiserver.
    std::size_t readAllowance = 0;
    TimeUs openedAt = 0;
    TimeUs deadline = 0;
    TimeUs nextBookmark = 0;
    ResourceVersion lastRv = 0; // the RV the server has sent up to
    // The RV its process loop forwards events above: the requested RV raised to the last initial
    // event's (bookmarks at or below it are dropped: CacherRules.h bookmarkReaches).
    ResourceVersion startRv = 0;

    RingQueue<WatchDelivery> buffer; // what the client can read
    // The event the dispatcher is blocked handing over (at most one: while it waits, later
    // events wait in the cacher for every watcher).
    RingQueue<WatchDelivery> overflow;

    bool closed = false; // no more items will be added; the client sees EOF after the buffer
    WatchCloseReason closeReason = WatchCloseReason::ClientTimeout;
    std::optional<ApiStatus> error; // the ERROR event, delivered as the last buffer item
    // The request waits for a not-ready cache (ready.wait): no response yet, not even headers.
    bool pending = false;
    // What such a waiting request finally got instead of a watch: an HTTP error (503).
    std::optional<ApiStatus> rejection;

    bool matches(int group) const { return selectorGroup < 0 || selectorGroup == group; }
    bool hasRoom() const { return capacity == 0 || buffer.size() < capacity + readAllowance; }
    bool blocked() const { return !closed && !overflow.empty(); }
    // The dispatcher's nonblockingAdd, then a blocking add: the event goes to the buffer when
    // there is room, else the dispatcher is stuck on it. False when it blocked.
    bool offer(WatchDelivery&& d) {
        if (overflow.empty() && hasRoom()) {
            buffer.push_back(std::move(d));
            buffer.prefetchBack(8);
            return true;
        }
        overflow.push_back(std::move(d));
        return false;
    }
    void fail(const ApiStatus& status) {
        error = status;
        WatchDelivery d;
        d.type = WatchEventType::Error;
        overflow.clear();
        buffer.push_back(std::move(d));
        close(WatchCloseReason::AfterError);
    }
    void reject(const ApiStatus& status) {
        pending = false;
        rejection = status;
        close(WatchCloseReason::AfterError);
    }
    void close(WatchCloseReason reason) {
        if (closed)
            return;
        closed = true;
        closeReason = reason;
    }
};

} // namespace ws

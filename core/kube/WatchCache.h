#pragma once

#include "EventRing.h"
#include "ObjectStore.h"

#include <algorithm>
#include <vector>

namespace ws {

struct WatchCacheLimits {
    std::size_t minCapacity = 100;
    std::size_t maxCapacity = 102400;
    std::size_t initialCapacity = 100;
    TimeUs eventFreshDuration = seconds(75);
};

// kube-apiserver's watchCache (reference/kubernetes-watch.md §4): the latest state of every
// object (store), a ring buffer of recent events with adaptive capacity, and the cache's RV.
class WatchCache {
public:
    explicit WatchCache(WatchCacheLimits limits = {});

    // After a relist: the store becomes the list, the buffer is emptied, the RV is the list RV.
    void replace(const std::vector<KeyValuePtr>& objects, ResourceVersion listRv, TimeUs now);
    // Records one event (rv must increase); returns it for dispatch (valid until the next add).
    const CacheEvent& add(WatchEventType type, KeyId key, ResourceVersion rv, KeyValuePtr object,
                          TimeUs now, TimeUs commitTime);
    // A bookmark / etcd progress notification: the cache is current up to rv.
    void updateResourceVersion(ResourceVersion rv);
    void reset(); // the apiserver stopped: nothing is known any more

    bool ready() const { return m_ready; }
    ResourceVersion resourceVersion() const { return m_rv; }
    ResourceVersion listResourceVersion() const { return m_listRv; }

    // Where a watch from `rv` starts: the first buffered event with RV > rv, or too old when
    // rv < oldest-1, with oldest = listRV+1 while nothing was evicted since the relist, else the
    // first buffered event's RV.
    struct Start {
        bool tooOld = false;
        ResourceVersion oldestMinusOne = 0;
        std::size_t index = 0; // absolute ring index
    };
    Start startFrom(ResourceVersion rv) const;

    const EventRing& ring() const { return m_ring; }
    ResourceVersion oldestRv() const;

    const KeyValuePtr& object(KeyId key) const { return m_store.get(key); }
    const ObjectStore& store() const { return m_store; }
    std::size_t objectCount() const { return m_store.size(); }

    // The snapshots ListFromCacheSnapshot serves Exact and continue lists from (watch_cache.go
    // Replace / processEvent, store/snapshotter at v1.34.0): one at the list RV and one per
    // event RV; an event added to a full ring drops those below its oldest event, the cache
    // compactor those below etcd's compaction (compactSnapshots). The newest snapshot at or
    // below rv (GetLessOrEqual), or 0 when there is none.
    ResourceVersion snapshotAtOrBelow(ResourceVersion rv) const;
    // The objects of the snapshot taken at `snapshotRv` (one snapshotAtOrBelow returned): the
    // store with the ring's newer events undone.
    std::vector<KeyValuePtr> snapshotObjects(ResourceVersion snapshotRv) const;
    void compactSnapshots(ResourceVersion rev) { m_snapshotFloor = std::max(m_snapshotFloor, rev); }

    std::int64_t capacityIncreases() const { return m_increases; }
    std::int64_t capacityDecreases() const { return m_decreases; }

    // Bytes held by the store and the ring (objects counted once however often they are
    // referenced), and the serialized size of those objects.
    struct Memory {
        std::size_t heldBytes = 0;
        std::size_t serializedBytes = 0;
        std::size_t distinctObjects = 0;
    };
    Memory memory() const;

private:
    void resizeIfFull(TimeUs now);

    WatchCacheLimits m_limits;
    EventRing m_ring;
    bool m_ready = false;
    bool m_evictedSinceReplace = false;
    ResourceVersion m_rv = 0;
    ResourceVersion m_listRv = 0;
    ObjectStore m_store;
    ResourceVersion m_snapshotFloor = 0; // snapshots below it were removed
    std::int64_t m_increases = 0;
    std::int64_t m_decreases = 0;
};

} // namespace ws

#include "WatchCache.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace ws {

WatchCache::WatchCache(WatchCacheLimits limits)
    : m_limits(limits),
      m_ring(std::clamp(limits.initialCapacity, limits.minCapacity, limits.maxCapacity)) {}

void WatchCache::replace(const std::vector<KeyValuePtr>& objects, ResourceVersion listRv,
                         TimeUs now) {
    (void)now;
    m_store.clear();
    for (const auto& o : objects)
        m_store.set(o->key, o);
    m_ring.clear();
    m_evictedSinceReplace = false;
    m_snapshotFloor = 0; // snapshots.Reset(), then the one at the list RV
    m_rv = listRv;
    m_listRv = listRv;
    m_ready = true;
}

void WatchCache::reset() {
    m_store.clear();
    m_ring.clear();
    m_ready = false;
    m_evictedSinceReplace = false;
    m_rv = 0;
    m_listRv = 0;
    m_snapshotFloor = 0;
}

void WatchCache::resizeIfFull(TimeUs now) {
    if (!m_ring.full())
        return;
    const std::size_t cap = m_ring.capacity();
    const TimeUs oldest = m_ring.at(m_ring.startIndex()).recordTime;
    if (now - oldest < m_limits.eventFreshDuration) {
        // Events are young: the buffer is too small for the event rate; grow.
        const std::size_t grown = std::min(cap * 2, m_limits.maxCapacity);
        if (grown > cap) {
            m_ring.resize(grown);
            ++m_increases;
        }
        return;
    }
    const TimeUs quarter = m_ring.at(m_ring.endIndex() - cap / 4).recordTime;
    if (now - quarter > m_limits.eventFreshDuration) {
        // Even the newest quarter is stale: shrink, keeping the newest events.
        const std::size_t shrunk = std::max(cap / 2, m_limits.minCapacity);
        if (shrunk < cap) {
            m_ring.resize(shrunk);
            m_evictedSinceReplace = true;
            ++m_decreases;
        }
    }
}

const CacheEvent& WatchCache::add(WatchEventType type, KeyId key, ResourceVersion rv,
                                  KeyValuePtr object, TimeUs now, TimeUs commitTime) {
    KeyValuePtr prev =
        type == WatchEventType::Deleted ? m_store.take(key) : m_store.exchange(key, object);
    resizeIfFull(now);
    if (m_ring.full())
        m_evictedSinceReplace = true;
    m_rv = rv;
    const CacheEvent& added =
        m_ring.push(CacheEvent{type, key, rv, std::move(object), std::move(prev), now, commitTime});
    // processEvent: with the ring full, snapshots.RemoveLess(oldest buffered RV). A ring that
    // shrank dropped its oldest events too; their snapshots go with them here.
    if (m_ring.full() || m_evictedSinceReplace)
        m_snapshotFloor = std::max(m_snapshotFloor, m_ring.at(m_ring.startIndex()).rv);
    return added;
}

ResourceVersion WatchCache::snapshotAtOrBelow(ResourceVersion rv) const {
    if (!m_ready)
        return 0;
    const std::size_t first = startFrom(std::max(rv, oldestRv() - 1)).index;
    ResourceVersion snapshot = 0;
    if (first > m_ring.startIndex())
        snapshot = m_ring.at(first - 1).rv;
    else if (!m_evictedSinceReplace && m_listRv <= rv)
        snapshot = m_listRv;
    return snapshot >= m_snapshotFloor && snapshot <= rv ? snapshot : 0;
}

std::vector<KeyValuePtr> WatchCache::snapshotObjects(ResourceVersion snapshotRv) const {
    std::unordered_map<KeyId, KeyValuePtr> state;
    state.reserve(m_store.size());
    for (KeyId k : m_store.keys())
        state.emplace(k, m_store.get(k));
    for (std::size_t i = m_ring.endIndex(); i > m_ring.startIndex(); --i) {
        const CacheEvent& e = m_ring.at(i - 1);
        if (e.rv <= snapshotRv)
            break;
        if (e.prevObject)
            state[e.key] = e.prevObject;
        else
            state.erase(e.key);
    }
    std::vector<KeyValuePtr> out;
    out.reserve(state.size());
    for (auto& [key, object] : state)
        out.push_back(std::move(object));
    return out;
}

void WatchCache::updateResourceVersion(ResourceVersion rv) {
    if (rv > m_rv)
        m_rv = rv;
}

ResourceVersion WatchCache::oldestRv() const {
    if (m_evictedSinceReplace && !m_ring.empty())
        return m_ring.at(m_ring.startIndex()).rv;
    return m_listRv + 1;
}

WatchCache::Start WatchCache::startFrom(ResourceVersion rv) const {
    Start s;
    const ResourceVersion oldest = oldestRv();
    if (rv < oldest - 1) {
        s.tooOld = true;
        s.oldestMinusOne = oldest - 1;
        return s;
    }
    // Binary search for the first event with RV > rv.
    std::size_t lo = m_ring.startIndex(), hi = m_ring.endIndex();
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (m_ring.at(mid).rv <= rv)
            lo = mid + 1;
        else
            hi = mid;
    }
    s.index = lo;
    return s;
}

WatchCache::Memory WatchCache::memory() const {
    Memory m;
    std::unordered_set<const KeyValue*> seen;
    auto countObject = [&](const KeyValuePtr& o) {
        if (!o || !seen.insert(o.get()).second)
            return;
        m.heldBytes += sizeof(KeyValue) + KeyValuePtr::overheadBytes() + o->value().size();
        m.serializedBytes += o->value().size();
        ++m.distinctObjects;
    };
    // The store: the per-key slot and position vectors, the key list.
    m.heldBytes += m_store.indexBytes();
    for (KeyId k : m_store.keys())
        countObject(m_store.get(k));
    m.heldBytes += m_ring.capacity() * sizeof(CacheEvent);
    for (std::size_t i = m_ring.startIndex(); i < m_ring.endIndex(); ++i) {
        const CacheEvent& e = m_ring.at(i);
        countObject(e.object);
        countObject(e.prevObject);
    }
    return m;
}

} // namespace ws

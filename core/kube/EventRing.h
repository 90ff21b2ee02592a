#pragma once

#include "CacheEvent.h"

#include <vector>

namespace ws {

// The watch cache's circular buffer: absolute start/end indices over a slot array whose size is
// the capacity. Resizing keeps the newest events. Events live in the slots themselves: a full
// ring evicts one event per event added, and a separately allocated event would cost a
// malloc/free pair and a cold cache line each time.
class EventRing {
public:
    explicit EventRing(std::size_t capacity) : m_slots(capacity) {}

    std::size_t capacity() const { return m_slots.size(); }
    std::size_t size() const { return m_end - m_start; }
    bool full() const { return size() == capacity(); }
    bool empty() const { return m_start == m_end; }
    std::size_t startIndex() const { return m_start; }
    std::size_t endIndex() const { return m_end; }
    const CacheEvent& at(std::size_t absoluteIndex) const {
        return m_slots[absoluteIndex % m_slots.size()];
    }

    // Adds an event, evicting the oldest when full; returns the stored event (valid until the
    // next change of the ring).
    const CacheEvent& push(CacheEvent&& event) {
        if (full())
            popOldest();
        CacheEvent& slot = m_slots[m_end % m_slots.size()];
        slot = std::move(event);
        ++m_end;
        return slot;
    }
    void popOldest() {
        // The objects of an event evicted now were written ~capacity events ago: their boxes
        // are cold. Ask for those of a later eviction now so that it does not wait on memory.
        if (m_start + kPrefetchDistance < m_end) {
            const CacheEvent& later = at(m_start + kPrefetchDistance);
            later.object.prefetch();
            later.prevObject.prefetch();
        }
        m_slots[m_start % m_slots.size()] = CacheEvent{};
        ++m_start;
    }
    void clear() {
        for (auto& s : m_slots)
            s = CacheEvent{};
        m_start = m_end;
    }
    void resize(std::size_t newCapacity) {
        std::vector<CacheEvent> resized(newCapacity);
        const std::size_t keep = std::min(size(), newCapacity);
        const std::size_t first = m_end - keep;
        for (std::size_t i = first; i < m_end; ++i)
            resized[i % newCapacity] = std::move(m_slots[i % m_slots.size()]);
        m_slots = std::move(resized);
        m_start = first;
    }

private:
    static constexpr std::size_t kPrefetchDistance = 8;
    std::vector<CacheEvent> m_slots;
    std::size_t m_start = 0;
    std::size_t m_end = 0;
};

} // namespace ws

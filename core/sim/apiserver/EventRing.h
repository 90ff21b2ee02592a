#pragma once

#include "CacheEvent.h"

#include <vector>

namespace ws {

// The watch cache's circular buffer: absolute start/end indices over a slot array whose size is
// the capacity. Resizing keeps the newest events.
class EventRing {
public:
    explicit EventRing(std::size_t capacity) : m_slots(capacity) {}

    std::size_t capacity() const { return m_slots.size(); }
    std::size_t size() const { return m_end - m_start; }
    bool full() const { return size() == capacity(); }
    bool empty() const { return m_start == m_end; }
    std::size_t startIndex() const { return m_start; }
    std::size_t endIndex() const { return m_end; }

    const CacheEventPtr& at(std::size_t absoluteIndex) const {
        return m_slots[absoluteIndex % m_slots.size()];
    }
    void push(CacheEventPtr event) {
        if (full())
            popOldest();
        m_slots[m_end % m_slots.size()] = std::move(event);
        ++m_end;
    }
    void popOldest() {
        m_slots[m_start % m_slots.size()] = nullptr;
        ++m_start;
    }
    void clear() {
        for (auto& s : m_slots)
            s = nullptr;
        m_start = m_end;
    }
    void resize(std::size_t newCapacity) {
        std::vector<CacheEventPtr> resized(newCapacity);
        const std::size_t keep = std::min(size(), newCapacity);
        const std::size_t first = m_end - keep;
        for (std::size_t i = first; i < m_end; ++i)
            resized[i % newCapacity] = std::move(m_slots[i % m_slots.size()]);
        m_slots = std::move(resized);
        m_start = first;
    }

private:
    std::vector<CacheEventPtr> m_slots;
    std::size_t m_start = 0;
    std::size_t m_end = 0;
};

} // namespace ws

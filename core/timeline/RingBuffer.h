#pragma once

#include <cassert>
#include <cstddef>
#include <vector>

namespace ws {

// A growable FIFO with random access. Unlike std::deque, it allocates only when it grows (by
// doubling) and never in steady state, where a timeline series pushes at the back and folds from
// the front at the same rate. Capacity is a power of two so indexing is a mask.
template <typename T> class RingBuffer {
public:
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    std::size_t capacity() const { return m_items.size(); }

    T& operator[](std::size_t i) {
        assert(i < m_size);
        return m_items[(m_head + i) & (m_items.size() - 1)];
    }
    const T& operator[](std::size_t i) const {
        assert(i < m_size);
        return m_items[(m_head + i) & (m_items.size() - 1)];
    }
    T& front() { return (*this)[0]; }
    const T& front() const { return (*this)[0]; }
    T& back() { return (*this)[m_size - 1]; }
    const T& back() const { return (*this)[m_size - 1]; }

    void push_back(const T& item) {
        if (m_size == m_items.size())
            grow();
        m_items[(m_head + m_size) & (m_items.size() - 1)] = item;
        ++m_size;
    }

    void pop_front() {
        assert(m_size > 0);
        m_head = (m_head + 1) & (m_items.size() - 1);
        --m_size;
    }

    void clear() {
        m_head = 0;
        m_size = 0;
    }

    // First index whose element is not less than `key` under `less(element, key)`; size() if
    // none. The elements must be sorted for `less`.
    template <typename Key, typename Less> std::size_t lowerBound(const Key& key, Less less) const {
        std::size_t lo = 0;
        std::size_t count = m_size;
        while (count > 0) {
            const std::size_t half = count / 2;
            if (less((*this)[lo + half], key)) {
                lo += half + 1;
                count -= half + 1;
            } else {
                count = half;
            }
        }
        return lo;
    }

private:
    void grow() {
        std::vector<T> bigger(m_items.empty() ? 16 : m_items.size() * 2);
        for (std::size_t i = 0; i < m_size; ++i)
            bigger[i] = std::move((*this)[i]);
        m_items = std::move(bigger);
        m_head = 0;
    }

    std::vector<T> m_items;
    std::size_t m_head = 0;
    std::size_t m_size = 0;
};

} // namespace ws

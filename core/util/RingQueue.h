#pragma once

#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace ws {

// A FIFO with random access over one power-of-two array that doubles when full: the queues the
// simulator pushes and pops once per event per watcher (watch buffers, etcd's history and send
// channels). std::deque allocates and frees a block every few hundred bytes of such traffic;
// this allocates only while growing. A popped slot is reset to T{} so that what it held (a
// reference-counted object) is released at once, as with a deque.
template <typename T> class RingQueue {
public:
    class const_iterator {
    public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = T;
        using difference_type = std::ptrdiff_t;
        using pointer = const T*;
        using reference = const T&;

        const_iterator() = default;
        const_iterator(const RingQueue* q, std::size_t i) : m_q(q), m_i(i) {}
        reference operator*() const { return (*m_q)[m_i]; }
        pointer operator->() const { return &(*m_q)[m_i]; }
        reference operator[](difference_type n) const { return (*m_q)[m_i + n]; }
        const_iterator& operator++() { return ++m_i, *this; }
        const_iterator operator++(int) { return {m_q, m_i++}; }
        const_iterator& operator--() { return --m_i, *this; }
        const_iterator operator--(int) { return {m_q, m_i--}; }
        const_iterator& operator+=(difference_type n) { return m_i += n, *this; }
        const_iterator& operator-=(difference_type n) { return m_i -= n, *this; }
        friend const_iterator operator+(const_iterator it, difference_type n) { return it += n; }
        friend const_iterator operator+(difference_type n, const_iterator it) { return it += n; }
        friend const_iterator operator-(const_iterator it, difference_type n) { return it -= n; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
            return static_cast<difference_type>(a.m_i) - static_cast<difference_type>(b.m_i);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) {
            return a.m_i == b.m_i;
        }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b) {
            return a.m_i <=> b.m_i;
        }

    private:
        const RingQueue* m_q = nullptr;
        std::size_t m_i = 0;
    };

    bool empty() const { return m_size == 0; }
    std::size_t size() const { return m_size; }

    T& operator[](std::size_t i) { return m_slots[(m_head + i) & m_mask]; }
    const T& operator[](std::size_t i) const { return m_slots[(m_head + i) & m_mask]; }
    T& front() { return m_slots[m_head]; }
    const T& front() const { return m_slots[m_head]; }
    T& back() { return (*this)[m_size - 1]; }
    const T& back() const { return (*this)[m_size - 1]; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, m_size}; }

    void push_back(T&& value) {
        if (m_size == m_slots.size())
            grow();
        m_slots[(m_head + m_size) & m_mask] = std::move(value);
        ++m_size;
    }
    void push_back(const T& value) { push_back(T(value)); }
    // Asks for the slot `ahead` places past the back: a queue filled in bursts (a watcher's
    // buffer) otherwise waits on memory for each new cache line of slots.
    void prefetchBack(std::size_t ahead) const {
        if (!m_slots.empty())
            __builtin_prefetch(&m_slots[(m_head + m_size + ahead) & m_mask], 1, 3);
    }
    void pop_front() {
        m_slots[m_head] = T{};
        m_head = (m_head + 1) & m_mask;
        --m_size;
    }
    void clear() {
        while (!empty())
            pop_front();
        m_head = 0;
    }

private:
    void grow() {
        std::vector<T> grown(m_slots.empty() ? 16 : m_slots.size() * 2);
        for (std::size_t i = 0; i < m_size; ++i)
            grown[i] = std::move((*this)[i]);
        m_slots = std::move(grown);
        m_mask = m_slots.size() - 1;
        m_head = 0;
    }

    std::vector<T> m_slots;
    std::size_t m_mask = 0;
    std::size_t m_head = 0;
    std::size_t m_size = 0;
};

} // namespace ws

#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

namespace ws {

// A non-atomic intrusive reference count. The simulator runs on one thread and hands the same
// immutable event to thousands of watchers; an atomic count (std::shared_ptr) would be the
// single most expensive thing on that path.
template <typename T> class Rc {
public:
    Rc() = default;
    Rc(std::nullptr_t) {}
    template <typename... Args> static Rc make(Args&&... args) {
        return makeWithTail(
            0, [](char*) {}, std::forward<Args>(args)...);
    }
    // One allocation holding T and `tailBytes` more right after it, filled by fill(char*): a
    // variable-size payload (an object's bytes) without a second allocation and a second
    // cold cache line per access. T finds its tail at `this + 1`.
    template <typename Fill, typename... Args>
    static Rc makeWithTail(std::size_t tailBytes, Fill&& fill, Args&&... args) {
        void* raw = ::operator new(sizeof(Box) + tailBytes);
        Rc r;
        r.m_box = ::new (raw) Box{1, T{std::forward<Args>(args)...}};
        fill(reinterpret_cast<char*>(r.m_box) + sizeof(Box));
        return r;
    }
    Rc(const Rc& o) : m_box(o.m_box) {
        if (m_box)
            ++m_box->refs;
    }
    Rc(Rc&& o) noexcept : m_box(std::exchange(o.m_box, nullptr)) {}
    Rc& operator=(const Rc& o) {
        if (this != &o) {
            Rc tmp(o);
            std::swap(m_box, tmp.m_box);
        }
        return *this;
    }
    Rc& operator=(Rc&& o) noexcept {
        if (this != &o) {
            release();
            m_box = std::exchange(o.m_box, nullptr);
        }
        return *this;
    }
    ~Rc() { release(); }

    const T* get() const { return m_box ? &m_box->value : nullptr; }
    const T& operator*() const { return m_box->value; }
    const T* operator->() const { return &m_box->value; }
    explicit operator bool() const { return m_box != nullptr; }
    bool operator==(const Rc& o) const { return m_box == o.m_box; }
    std::uint32_t useCount() const { return m_box ? m_box->refs : 0; }
    // Asks for the box's cache line ahead of a release that would otherwise stall on it.
    void prefetch() const { __builtin_prefetch(m_box, 1, 1); }
    static constexpr std::size_t overheadBytes() { return sizeof(Box) - sizeof(T); }

private:
    struct Box {
        std::uint32_t refs;
        T value;
    };
    // The tail starts where T ends (see makeWithTail).
    static_assert(sizeof(Box) == offsetof(Box, value) + sizeof(T));
    void release() {
        if (m_box && --m_box->refs == 0) {
            m_box->~Box();
            ::operator delete(m_box);
        }
        m_box = nullptr;
    }
    Box* m_box = nullptr;
};

} // namespace ws

#pragma once

#include <cstdint>
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
        Rc r;
        r.m_box = new Box{1, T{std::forward<Args>(args)...}};
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
    static constexpr std::size_t overheadBytes() { return sizeof(Box) - sizeof(T); }

private:
    struct Box {
        std::uint32_t refs;
        T value;
    };
    void release() {
        if (m_box && --m_box->refs == 0)
            delete m_box;
        m_box = nullptr;
    }
    Box* m_box = nullptr;
};

} // namespace ws

#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace ws {

// A reusable byte buffer with SIMDJSON_PADDING zeroed bytes after its content, which simdjson
// needs to read past the end. Reused from one document to the next so the hot path does not
// allocate; a buffer grown by one huge document is given back by release().
class PaddedJsonBuffer {
public:
    void clear() { m_size = 0; }
    void append(const char* data, std::size_t size) {
        if (size == 0)
            return;
        if (size > kMaxBytes - m_size)
            throw std::length_error("JSON document too large");
        reserveFor(m_size + size);
        std::memcpy(m_bytes.data() + m_size, data, size);
        m_size += size;
    }
    // Replaces the content with `json` and pads it; returns a view of the copy.
    std::string_view assign(std::string_view json) {
        clear();
        append(json.data(), json.size());
        pad();
        return view();
    }
    // Zeroes the padding after the content: call before handing data() to simdjson.
    void pad() {
        reserveFor(m_size);
        std::memset(m_bytes.data() + m_size, 0, simdjson::SIMDJSON_PADDING);
    }

    const char* data() const { return m_bytes.data(); }
    std::size_t size() const { return m_size; }
    // What simdjson may read: the content and the padding.
    std::size_t capacity() const { return m_bytes.size(); }
    std::string_view view() const { return {m_bytes.data(), m_size}; }

    // Frees the memory if it grew beyond `keep` bytes.
    void release(std::size_t keep) {
        if (m_bytes.size() > keep) {
            m_bytes = std::vector<char>();
            m_size = 0;
        }
    }

private:
    static constexpr std::size_t kMaxBytes = std::size_t(1) << 40;

    void reserveFor(std::size_t content) {
        const std::size_t need = content + simdjson::SIMDJSON_PADDING;
        if (m_bytes.size() < need)
            m_bytes.resize(std::max(need, m_bytes.size() * 2));
    }

    std::vector<char> m_bytes; // content, padding, spare
    std::size_t m_size = 0;
};

} // namespace ws

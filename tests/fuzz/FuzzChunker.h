#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ws::fuzz {

// Splits a fuzz input into a body and the chunk sizes to feed it in, both taken from the input
// so that libFuzzer mutates the chunking along with the bytes: the first byte says how many
// sizes follow (0-15), each a little-endian u16 chunk length (0 means 1), used in turn. Without
// sizes the body goes in whole.
class FuzzChunker {
public:
    FuzzChunker(const std::uint8_t* data, std::size_t size) {
        if (size == 0)
            return;
        const std::size_t n = data[0] % 16;
        const std::size_t header = std::min(1 + 2 * n, size);
        m_sizes = std::string_view(reinterpret_cast<const char*>(data) + 1, (header - 1) / 2 * 2);
        m_body = std::string_view(reinterpret_cast<const char*>(data) + header, size - header);
    }

    std::string_view body() const { return m_body; }

    // The next chunk of the body; empty at its end.
    std::string_view next() {
        if (m_offset >= m_body.size())
            return {};
        std::size_t len = m_body.size() - m_offset;
        if (!m_sizes.empty()) {
            const std::size_t at = 2 * (m_turn++ % (m_sizes.size() / 2));
            const std::size_t s =
                static_cast<std::uint8_t>(m_sizes[at]) |
                static_cast<std::size_t>(static_cast<std::uint8_t>(m_sizes[at + 1])) << 8;
            len = std::min(std::max<std::size_t>(s, 1), len);
        }
        const std::string_view chunk = m_body.substr(m_offset, len);
        m_offset += len;
        return chunk;
    }

private:
    std::string_view m_sizes;
    std::string_view m_body;
    std::size_t m_offset = 0;
    std::size_t m_turn = 0;
};

} // namespace ws::fuzz

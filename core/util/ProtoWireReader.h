#pragma once

#include <cstdint>
#include <string_view>

namespace ws {

// A minimal protobuf wire-format reader over one contiguous buffer: varints and length-delimited
// fields as views, no allocation. `ok` turns false on truncated or malformed input.
struct ProtoWireReader {
    const char* p;
    const char* end;
    bool ok = true;

    bool atEnd() const { return p >= end; }

    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= end) {
                ok = false;
                return 0;
            }
            const auto b = static_cast<std::uint8_t>(*p++);
            v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80))
                return v;
        }
        ok = false;
        return 0;
    }

    std::string_view bytes() {
        const std::uint64_t n = varint();
        if (!ok || n > static_cast<std::uint64_t>(end - p)) {
            ok = false;
            return {};
        }
        std::string_view v(p, static_cast<std::size_t>(n));
        p += n;
        return v;
    }

    void skip(std::uint32_t wireType) {
        switch (wireType) {
        case 0:
            varint();
            break;
        case 1:
            advance(8);
            break;
        case 2:
            bytes();
            break;
        case 5:
            advance(4);
            break;
        default:
            ok = false;
        }
    }

    void advance(std::size_t n) {
        if (static_cast<std::size_t>(end - p) < n)
            ok = false;
        else
            p += n;
    }
};

} // namespace ws

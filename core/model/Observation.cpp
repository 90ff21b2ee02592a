#include "Observation.h"

#include <cstring>

namespace ws {

namespace {

inline std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    h ^= v;
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 31);
}

inline std::uint64_t load64(const char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

} // namespace

std::uint64_t contentHash(const char* p, std::size_t n) {
    std::uint64_t a = 0x243f6a8885a308d3ull ^ n, b = 0x13198a2e03707344ull,
                  c = 0xa4093822299f31d0ull, e = 0x082efa98ec4e6c89ull;
    while (n >= 32) {
        a = mix(a, load64(p));
        b = mix(b, load64(p + 8));
        c = mix(c, load64(p + 16));
        e = mix(e, load64(p + 24));
        p += 32;
        n -= 32;
    }
    while (n >= 8) {
        a = mix(a, load64(p));
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        std::uint64_t tail = 0;
        std::memcpy(&tail, p, n);
        b = mix(b, tail);
    }
    return mix(mix(mix(a, b), c), e);
}

} // namespace ws

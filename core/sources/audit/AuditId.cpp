#include "AuditId.h"

#include <array>

namespace ws {

namespace {
// Hex digit values by byte, 0xff for the rest: no branch per digit (digits and letters come in
// random order in a UUID, and the branches cost more than the rest of the parse).
constexpr auto kHex = [] {
    std::array<std::uint8_t, 256> t{};
    t.fill(0xff);
    for (int c = '0'; c <= '9'; ++c)
        t[std::size_t(c)] = std::uint8_t(c - '0');
    for (int c = 'a'; c <= 'f'; ++c)
        t[std::size_t(c)] = std::uint8_t(c - 'a' + 10);
    return t;
}();

} // namespace

std::optional<AuditId> AuditId::fromUuid(std::string_view text) {
    // xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx
    if (text.size() != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' ||
        text[23] != '-')
        return std::nullopt;
    const char* p = text.data();
    std::uint64_t v[5] = {};
    const int at[5] = {0, 9, 14, 19, 24}, len[5] = {8, 4, 4, 4, 12};
    std::uint8_t bad = 0;
    for (int part = 0; part < 5; ++part) {
        for (int i = 0; i < len[part]; ++i) {
            const std::uint8_t d = kHex[static_cast<unsigned char>(p[at[part] + i])];
            bad |= d;
            v[part] = (v[part] << 4) | (d & 0xf);
        }
    }
    if (bad & 0xf0)
        return std::nullopt;
    AuditId id;
    id.hi = (v[0] << 32) | (v[1] << 16) | v[2];
    id.lo = (v[3] << 48) | v[4];
    return id;
}

} // namespace ws

#include "AuditId.h"

namespace ws {

namespace {
int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}
} // namespace

std::optional<AuditId> AuditId::fromUuid(std::string_view text) {
    if (text.size() != 36)
        return std::nullopt;
    AuditId id;
    int digits = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (text[i] != '-')
                return std::nullopt;
            continue;
        }
        const int v = hexValue(text[i]);
        if (v < 0)
            return std::nullopt;
        std::uint64_t& half = digits < 16 ? id.hi : id.lo;
        half = (half << 4) | static_cast<std::uint64_t>(v);
        ++digits;
    }
    return id;
}

} // namespace ws

#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

namespace ws {

// An auditID as the 128 bits of the UUID kube-apiserver gives every request (or takes from the
// Audit-ID header): 16 bytes to key the requests still open by, instead of a 36-character
// string. An auditID that is not a UUID (a client may send any Audit-ID) has none.
struct AuditId {
    std::uint64_t hi = 0;
    std::uint64_t lo = 0;

    // "8-4-4-4-12" lowercase hex digits, as kube-apiserver writes them (an uppercase one is
    // another auditID as a string, so it is not one of these).
    static std::optional<AuditId> fromUuid(std::string_view text);
    bool operator==(const AuditId&) const = default;
};

struct AuditIdHash {
    std::size_t operator()(const AuditId& id) const {
        // splitmix64's finalizer: UUIDs that are not random (v1, sequential) still spread.
        std::uint64_t x = id.hi ^ (id.lo * 0x9e3779b97f4a7c15ull);
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return static_cast<std::size_t>(x ^ (x >> 31));
    }
};

} // namespace ws

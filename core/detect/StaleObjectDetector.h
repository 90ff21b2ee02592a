#pragma once

#include "DetectorContext.h"

#include <span>
#include <unordered_set>

namespace ws {

struct StoreEntry;

// stale-object: a store (watch cache, informer) that claims to be at storeRv still holds an
// object etcd deleted at or before storeRv, or holds an older version than one etcd wrote at or
// before storeRv — the lost DELETE of seed 000 — or an object deleted at or before the highest RV
// the owner had already seen — the resurrected pod of issue #59848, after a list from a lagging
// apiserver took the client back in time. Each
// (store owner, key, held RV) is reported once, however many checks see it.
class StaleObjectDetector {
public:
    explicit StaleObjectDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    // seenRv: the highest RV the owner has ever seen (>= storeRv for a client that went back in
    // time); a delete at or below it was already seen, so an object it removed must be gone.
    void check(WatcherId owner, TimeUs now, ResourceVersion storeRv, ResourceVersion seenRv,
               std::span<const StoreEntry> entries, const ConsistencyOracle& truth);
    // The id is about to name another key: its reports must not silence the new key's.
    void forgetKey(KeyId key) {
        std::erase_if(m_reported, [key](const Reported& r) { return r.key == key; });
    }

private:
    struct Reported {
        WatcherId owner;
        KeyId key;
        ResourceVersion rv;
        bool operator==(const Reported&) const = default;
    };
    struct ReportedHash {
        std::size_t operator()(const Reported& r) const {
            const auto h = static_cast<std::uint64_t>(r.rv) * 0x9E3779B97F4A7C15ull ^
                           (static_cast<std::uint64_t>(r.key) << 20) ^
                           static_cast<std::uint64_t>(r.owner);
            return static_cast<std::size_t>(h ^ (h >> 29));
        }
    };

    DetectorContext& m_ctx;
    std::unordered_set<Reported, ReportedHash> m_reported;
};

} // namespace ws

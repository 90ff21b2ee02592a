#pragma once

#include "KeyTable.h"
#include "ResourceVersion.h"

#include <limits>

#include <string_view>
#include <vector>

namespace ws {

// The keys present in one watcher's view (an informer's store), each holding its id in the
// KeyTable: a key is forgotten once every view that had it saw it go (and nothing else holds
// it). Releases wait for flush(): the events naming a deleted key reach the detectors first,
// and its id is not reused while they are on their way.
class KeyPresence {
public:
    explicit KeyPresence(KeyTable& keys) : m_keys(keys) {}
    // Not released here: the table and its listeners end with the session.
    ~KeyPresence() = default;
    KeyPresence(const KeyPresence&) = delete;
    KeyPresence& operator=(const KeyPresence&) = delete;

    // The key's id; present from now on (an ADDED or MODIFIED event, a listed object).
    KeyId present(std::string_view key);
    // The key's id; absent from now on (a DELETED event at `rv`). Valid until flush() passes rv.
    KeyId absent(std::string_view key, ResourceVersion rv = 0);
    // A list (or a watch-list's initial events) replaces the view: the keys present before
    // beginList() and not seen again by endList() were deleted meanwhile.
    void beginList() { ++m_epoch; }
    void endList();
    // Releases the holds of the keys that went absent below `below`. A key deleted at the
    // stream's newest revision keeps its id until a later event: a duplicate of that event must
    // name the same id (WatchGuaranteeChecker's Unique compares ids at the newest revision).
    void flush(ResourceVersion below = kMaxRv);

    std::size_t size() const { return m_count; }
    bool isPresent(KeyId id) const { return id < m_seen.size() && m_seen[id] != 0; }

private:
    static constexpr ResourceVersion kMaxRv = std::numeric_limits<ResourceVersion>::max();
    struct Pending {
        KeyId id;
        ResourceVersion rv;
    };
    void markAbsent(KeyId id, ResourceVersion rv);

    KeyTable& m_keys;
    std::vector<std::uint32_t> m_seen; // by KeyId: the epoch it was last seen present; 0 absent
    std::uint32_t m_epoch = 1;
    std::size_t m_count = 0;
    std::vector<Pending> m_pending; // holds to release at flush()
    std::vector<Pending> m_kept;
};

} // namespace ws

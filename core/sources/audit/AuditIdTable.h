#pragma once

#include "AuditId.h"

#include <cstdint>
#include <vector>

namespace ws {

// AuditId -> slot number: an open-addressing table (linear probing, deletion by shifting back,
// no tombstones) of 24-byte entries, at most half full. One probe is usually one cache line,
// where a node-based map took two misses per lookup and a malloc per request.
class AuditIdTable {
public:
    static constexpr std::uint32_t kAbsent = ~0u;

    std::uint32_t find(const AuditId& id) const;
    void insert(const AuditId& id, std::uint32_t slot); // id must not be in the table
    void erase(const AuditId& id);
    std::size_t size() const { return m_size; }

private:
    struct Entry {
        AuditId id;
        std::uint32_t slot = kAbsent; // kAbsent: empty
    };
    std::size_t home(const AuditId& id) const { return AuditIdHash{}(id)&m_mask; }
    void grow();

    std::vector<Entry> m_entries;
    std::size_t m_mask = 0;
    std::size_t m_size = 0;
};

} // namespace ws

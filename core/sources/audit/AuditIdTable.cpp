#include "AuditIdTable.h"

#include <utility>

namespace ws {

std::uint32_t AuditIdTable::find(const AuditId& id) const {
    if (m_entries.empty())
        return kAbsent;
    for (std::size_t i = home(id);; i = (i + 1) & m_mask) {
        const Entry& e = m_entries[i];
        if (e.slot == kAbsent)
            return kAbsent;
        if (e.id == id)
            return e.slot;
    }
}

void AuditIdTable::insert(const AuditId& id, std::uint32_t slot) {
    if (2 * (m_size + 1) > m_entries.size())
        grow();
    std::size_t i = home(id);
    while (m_entries[i].slot != kAbsent)
        i = (i + 1) & m_mask;
    m_entries[i] = Entry{id, slot};
    ++m_size;
}

void AuditIdTable::erase(const AuditId& id) {
    if (m_entries.empty())
        return;
    std::size_t i = home(id);
    for (;; i = (i + 1) & m_mask) {
        if (m_entries[i].slot == kAbsent)
            return;
        if (m_entries[i].id == id)
            break;
    }
    // Shift back the entries after the hole that would no longer be found past it.
    for (std::size_t j = (i + 1) & m_mask;; j = (j + 1) & m_mask) {
        Entry& e = m_entries[j];
        if (e.slot == kAbsent)
            break;
        const std::size_t h = home(e.id);
        // e may move to the hole i when its home is not in the cyclic range (i, j].
        const bool inRange = i <= j ? (h > i && h <= j) : (h > i || h <= j);
        if (!inRange) {
            m_entries[i] = e;
            i = j;
        }
    }
    m_entries[i] = Entry{};
    --m_size;
}

void AuditIdTable::grow() {
    std::vector<Entry> old = std::exchange(m_entries, {});
    m_entries.resize(old.empty() ? 1024 : old.size() * 2);
    m_mask = m_entries.size() - 1;
    m_size = 0;
    for (const Entry& e : old)
        if (e.slot != kAbsent)
            insert(e.id, e.slot);
}

} // namespace ws

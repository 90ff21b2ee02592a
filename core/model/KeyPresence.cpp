#include "KeyPresence.h"

namespace ws {

KeyId KeyPresence::present(std::string_view key) {
    KeyId id = m_keys.find(key);
    if (id == kNoKey || !isPresent(id)) {
        id = m_keys.acquire(key);
        if (id >= m_seen.size())
            m_seen.resize(static_cast<std::size_t>(id) + 1);
        ++m_count;
    }
    m_seen[id] = m_epoch;
    return id;
}

KeyId KeyPresence::absent(std::string_view key, ResourceVersion rv) {
    KeyId id = m_keys.find(key);
    if (id != kNoKey && isPresent(id)) {
        markAbsent(id, rv);
        return id;
    }
    // Not present here (deleted before this view saw it, or a repeated delete): held until
    // flush() all the same.
    id = m_keys.acquire(key);
    m_pending.push_back({id, rv});
    return id;
}

void KeyPresence::markAbsent(KeyId id, ResourceVersion rv) {
    m_seen[id] = 0;
    --m_count;
    m_pending.push_back({id, rv});
}

void KeyPresence::endList() {
    for (std::size_t id = 0; id < m_seen.size(); ++id)
        if (m_seen[id] != 0 && m_seen[id] != m_epoch)
            markAbsent(static_cast<KeyId>(id), 0);
}

void KeyPresence::flush(ResourceVersion below) {
    if (m_pending.empty())
        return;
    // Swapped out first: a release reaches the table's listeners, which must see a consistent
    // view if they look here.
    std::vector<Pending> pending;
    pending.swap(m_pending);
    m_kept.clear();
    for (const Pending& p : pending) {
        if (p.rv < below)
            m_keys.release(p.id);
        else
            m_kept.push_back(p);
    }
    m_pending.swap(m_kept);
    m_kept.swap(pending); // both buffers keep their capacity
    m_kept.clear();
}

} // namespace ws

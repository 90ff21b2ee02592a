#include "KeyTable.h"

namespace ws {

KeyId KeyTable::create(std::string_view key, std::uint32_t holds) {
    KeyId id;
    if (!m_free.empty()) {
        id = m_free.front();
        m_free.pop_front();
        m_keys[id].assign(key);
        m_holds[id] = holds;
    } else {
        id = static_cast<KeyId>(m_keys.size());
        m_keys.emplace_back(key);
        m_holds.push_back(holds);
    }
    m_ids.emplace(m_keys[id], id);
    return id;
}

KeyId KeyTable::intern(std::string_view key) {
    if (auto it = m_ids.find(key); it != m_ids.end()) {
        m_holds[it->second] = kPinned;
        return it->second;
    }
    return create(key, kPinned);
}

KeyId KeyTable::acquire(std::string_view key) {
    if (auto it = m_ids.find(key); it != m_ids.end()) {
        hold(it->second);
        return it->second;
    }
    return create(key, 1);
}

void KeyTable::hold(KeyId id) {
    // 0: a free id, which nobody may hold until it is handed out again.
    if (id < m_holds.size() && m_holds[id] != kPinned && m_holds[id] != 0)
        ++m_holds[id];
}

void KeyTable::release(KeyId id) {
    if (id >= m_holds.size() || m_holds[id] == kPinned || m_holds[id] == 0)
        return;
    if (--m_holds[id] > 0)
        return;
    for (const Forget& forget : m_forget)
        forget(id);
    m_ids.erase(m_keys[id]);
    // The string's buffer goes too: a long name must not stay allocated in a free slot.
    std::string().swap(m_keys[id]);
    m_free.push_back(id);
    ++m_forgotten;
}

KeyId KeyTable::find(std::string_view key) const {
    auto it = m_ids.find(key);
    return it == m_ids.end() ? kNoKey : it->second;
}

} // namespace ws

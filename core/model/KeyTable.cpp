#include "KeyTable.h"

namespace ws {

KeyId KeyTable::intern(std::string_view key) {
    if (auto it = m_ids.find(key); it != m_ids.end())
        return it->second;
    const auto id = static_cast<KeyId>(m_keys.size());
    m_keys.emplace_back(key);
    m_ids.emplace(m_keys.back(), id);
    return id;
}

KeyId KeyTable::find(std::string_view key) const {
    auto it = m_ids.find(key);
    return it == m_ids.end() ? kNoKey : it->second;
}

} // namespace ws

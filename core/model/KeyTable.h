#pragma once

#include <QString>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ws {

using KeyId = std::uint32_t;
constexpr KeyId kNoKey = 0xffffffffu;

// Interns storage keys ("/registry/pods/default/web-0") so the hot path moves integers, not
// strings. Ids are dense and start at 0, so per-key state can live in plain vectors.
class KeyTable {
public:
    KeyId intern(std::string_view key);
    KeyId find(std::string_view key) const;
    const std::string& key(KeyId id) const { return m_keys[id]; }
    QString qkey(KeyId id) const { return QString::fromStdString(m_keys[id]); }
    std::size_t size() const { return m_keys.size(); }

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::unordered_map<std::string, KeyId, Hash, std::equal_to<>> m_ids;
    std::vector<std::string> m_keys;
};

} // namespace ws

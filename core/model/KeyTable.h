#pragma once

#include <QString>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ws {

using KeyId = std::uint32_t;
constexpr KeyId kNoKey = 0xffffffffu;

// Interns storage keys ("/registry/pods/default/web-0") so the hot path moves integers, not
// strings. Ids are dense and start at 0, so per-key state can live in plain vectors.
//
// Two kinds of ids: intern() gives one for the whole session (sources that never forget a key:
// etcd, captures, audit logs). acquire() gives a held one: when its last hold is released the
// key is forgotten and its id reused for the next new key, so that a stream recreating objects
// under new names (pods of a Deployment) does not grow the session for ever. Whoever keeps
// per-key state by id or shows rows under it either holds the id (the journal, while it holds
// rows of the key) or registers onForget() to drop that state before the id is reused.
class KeyTable {
public:
    using Forget = std::function<void(KeyId)>;

    // Never forgotten; an id held before is pinned from now on.
    KeyId intern(std::string_view key);
    // One hold more on the key's id (new: the first one).
    KeyId acquire(std::string_view key);
    void hold(KeyId id);
    // One hold fewer; the last one forgets the key: listeners are told, then the id is free.
    void release(KeyId id);
    // Called with each id being forgotten, in registration order, before it can be reused.
    void onForget(Forget forget) { m_forget.push_back(std::move(forget)); }

    KeyId find(std::string_view key) const;
    const std::string& key(KeyId id) const { return m_keys[id]; }
    QString qkey(KeyId id) const { return QString::fromStdString(m_keys[id]); }
    // Ids handed out so far, live or free: the bound of every vector indexed by KeyId.
    std::size_t size() const { return m_keys.size(); }
    std::size_t live() const { return m_ids.size(); }
    std::int64_t forgotten() const { return m_forgotten; }

private:
    static constexpr std::uint32_t kPinned = 0xffffffffu;
    KeyId create(std::string_view key, std::uint32_t holds);

    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const {
            return std::hash<std::string_view>{}(s);
        }
    };
    std::unordered_map<std::string, KeyId, Hash, std::equal_to<>> m_ids;
    std::vector<std::string> m_keys;
    std::vector<std::uint32_t> m_holds; // kPinned: interned
    std::deque<KeyId> m_free;           // oldest first: an id rests as long as possible
    std::vector<Forget> m_forget;
    std::int64_t m_forgotten = 0;
};

} // namespace ws

#pragma once

#include "KeyValue.h"

#include <utility>
#include <vector>

namespace ws {

// The latest object per key (a watch cache's store, an informer's indexer). Keys are dense
// KeyIds, so lookups are array accesses; the key list allows iteration without scanning.
class ObjectStore {
public:
    const KeyValuePtr& get(KeyId key) const {
        return key < m_objects.size() ? m_objects[key] : kNoObject;
    }
    void set(KeyId key, KeyValuePtr object) { exchange(key, std::move(object)); }
    // set() and erase() returning the object they replace, moved out: a cache that keeps the
    // previous object does not touch its (cold) reference count twice.
    KeyValuePtr exchange(KeyId key, KeyValuePtr object) {
        if (key >= m_objects.size()) {
            m_objects.resize(static_cast<size_t>(key) + 1);
            m_pos.resize(static_cast<size_t>(key) + 1);
        }
        if (!m_objects[key]) {
            m_pos[key] = static_cast<std::uint32_t>(m_keys.size());
            m_keys.push_back(key);
        }
        return std::exchange(m_objects[key], std::move(object));
    }
    void erase(KeyId key) { take(key); }
    KeyValuePtr take(KeyId key) {
        if (key >= m_objects.size() || !m_objects[key])
            return nullptr;
        const KeyId moved = m_keys.back();
        m_keys[m_pos[key]] = moved;
        m_pos[moved] = m_pos[key];
        m_keys.pop_back();
        return std::exchange(m_objects[key], nullptr);
    }
    void clear() {
        for (KeyId k : m_keys)
            m_objects[k] = nullptr;
        m_keys.clear();
    }
    const std::vector<KeyId>& keys() const { return m_keys; }
    std::size_t size() const { return m_keys.size(); }
    std::size_t indexBytes() const {
        return m_objects.capacity() * sizeof(KeyValuePtr) + m_pos.capacity() * 4 +
               m_keys.capacity() * sizeof(KeyId);
    }

private:
    std::vector<KeyValuePtr> m_objects; // indexed by KeyId
    std::vector<std::uint32_t> m_pos;   // position of a key in m_keys
    std::vector<KeyId> m_keys;
};

} // namespace ws

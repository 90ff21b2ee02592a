#pragma once

#include "model/KeyTable.h"

#include <QString>
#include <string>
#include <vector>

namespace ws {

// The simulated cluster's keys: the interned key strings, and for each key the resource it
// belongs to and the selector group its object carries (a stand-in for spec.nodeName / labels).
class SimKeyspace {
public:
    // Keys are interned in `keys`, the table the detectors resolve them with (the pipeline's).
    explicit SimKeyspace(KeyTable& keys) : m_keys(keys) {}

    int addResource(const QString& plural);
    int resourceCount() const { return static_cast<int>(m_resources.size()); }
    const QString& resourceName(int resource) const { return m_resources[resource]; }
    int resourceIndex(const QString& plural) const;

    KeyId addKey(int resource, const QString& ns, const QString& name, int selectorGroup);
    // The same under a key recorded from a real etcd ("/registry/services/specs/ns/name"), so
    // that a what-if names its keys as the recording did.
    KeyId addKeyAs(const std::string& key, int resource, const QString& ns, const QString& name,
                   int selectorGroup);
    // A key written by a client of the served apiserver (watchscope-cli serve): the scenario's
    // workload never updates or deletes it.
    void setExternal(KeyId key) {
        if (m_external.size() <= key)
            m_external.resize(static_cast<std::size_t>(key) + 1, false);
        m_external[key] = true;
    }
    bool isExternal(KeyId key) const { return key < m_external.size() && m_external[key]; }
    // The key of resource/ns/name, kNoKey if it was never added.
    KeyId findKey(int resource, const QString& ns, const QString& name) const;
    // Every key this keyspace added for `resource`, live or deleted, in id order.
    std::vector<KeyId> keysOf(int resource) const;
    int resourceOf(KeyId key) const { return m_keyResource[key]; }
    int selectorGroupOf(KeyId key) const { return m_keyGroup[key]; }
    const QString& nameOf(KeyId key) const { return m_keyName[key]; }
    const QString& namespaceOf(KeyId key) const { return m_keyNamespace[key]; }
    // The same as UTF-8, for writers that build object bytes on the hot path.
    const std::string& nameUtf8(KeyId key) const { return m_keyNameUtf8[key]; }
    const std::string& namespaceUtf8(KeyId key) const { return m_keyNamespaceUtf8[key]; }
    const KeyTable& keys() const { return m_keys; }

private:
    KeyTable& m_keys;
    std::vector<QString> m_resources;
    std::vector<int> m_keyResource;
    std::vector<int> m_keyGroup;
    std::vector<QString> m_keyName;
    std::vector<QString> m_keyNamespace;
    std::vector<std::string> m_keyNameUtf8;
    std::vector<std::string> m_keyNamespaceUtf8;
    std::vector<bool> m_external;
};

} // namespace ws

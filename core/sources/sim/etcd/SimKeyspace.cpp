#include "SimKeyspace.h"

namespace ws {

int SimKeyspace::addResource(const QString& plural) {
    m_resources.push_back(plural);
    return static_cast<int>(m_resources.size()) - 1;
}

int SimKeyspace::resourceIndex(const QString& plural) const {
    for (size_t i = 0; i < m_resources.size(); ++i)
        if (m_resources[i] == plural)
            return static_cast<int>(i);
    return -1;
}

KeyId SimKeyspace::addKey(int resource, const QString& ns, const QString& name, int selectorGroup) {
    const QString key = QStringLiteral("/registry/%1/%2/%3").arg(m_resources[resource], ns, name);
    return addKeyAs(key.toStdString(), resource, ns, name, selectorGroup);
}

KeyId SimKeyspace::addKeyAs(const std::string& key, int resource, const QString& ns,
                            const QString& name, int selectorGroup) {
    const KeyId id = m_keys.intern(key);
    // The table may be shared with other sources (one pipeline, several clusters), so ids are
    // not dense for this keyspace: the per-key vectors grow to the id, and a key this keyspace
    // has not added yet has resource -1.
    const std::size_t n = static_cast<std::size_t>(id) + 1;
    if (n > m_keyResource.size()) {
        m_keyResource.resize(n, -1);
        m_keyGroup.resize(n, -1);
        m_keyName.resize(n);
        m_keyNamespace.resize(n);
        m_keyNameUtf8.resize(n);
        m_keyNamespaceUtf8.resize(n);
    }
    if (m_keyResource[id] < 0) {
        m_keyResource[id] = resource;
        m_keyGroup[id] = selectorGroup;
        m_keyName[id] = name;
        m_keyNamespace[id] = ns;
        m_keyNameUtf8[id] = name.toStdString();
        m_keyNamespaceUtf8[id] = ns.toStdString();
    }
    return id;
}

KeyId SimKeyspace::findKey(int resource, const QString& ns, const QString& name) const {
    const QString key = QStringLiteral("/registry/%1/%2/%3").arg(m_resources[resource], ns, name);
    const KeyId id = m_keys.find(key.toStdString());
    if (id == kNoKey || id >= m_keyResource.size() || m_keyResource[id] != resource)
        return kNoKey;
    return id;
}

std::vector<KeyId> SimKeyspace::keysOf(int resource) const {
    std::vector<KeyId> out;
    for (std::size_t k = 0; k < m_keyResource.size(); ++k)
        if (m_keyResource[k] == resource)
            out.push_back(static_cast<KeyId>(k));
    return out;
}

} // namespace ws

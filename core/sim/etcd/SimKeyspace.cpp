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
    const KeyId id = m_keys.intern(key.toStdString());
    if (id >= m_keyResource.size()) {
        m_keyResource.push_back(resource);
        m_keyGroup.push_back(selectorGroup);
        m_keyName.push_back(name);
        m_keyNamespace.push_back(ns);
        m_keyNameUtf8.push_back(name.toStdString());
        m_keyNamespaceUtf8.push_back(ns.toStdString());
    }
    return id;
}

} // namespace ws

#include "AuditCallers.h"

namespace ws {

namespace {
void append(std::string& key, std::string_view part) {
    // Length-prefixed: no byte of a part (JSON strings may hold any) can make two keys one.
    const auto n = static_cast<std::uint32_t>(part.size());
    key.append(reinterpret_cast<const char*>(&n), sizeof n);
    key.append(part);
}
QString qs(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}
} // namespace

const AuditCaller& AuditCallers::find(const Key& k) {
    m_key.clear();
    if (k.apiserver.empty()) {
        m_key.push_back('s');
        m_key.append(reinterpret_cast<const char*>(&k.stream), sizeof k.stream);
    } else {
        m_key.push_back('a');
        append(m_key, k.apiserver);
    }
    for (std::string_view part :
         {k.username, k.userAgent, k.resource, k.group, k.labelSelector, k.fieldSelector})
        append(m_key, part);
    if (auto it = m_byKey.find(m_key); it != m_byKey.end())
        return *it->second;

    AuditCaller c;
    c.index = static_cast<std::uint32_t>(m_callers.size());
    // A request that failed authentication names no user ("user":{}).
    c.client = QStringLiteral("%1 (%2)").arg(
        k.username.empty() ? QStringLiteral("unauthenticated") : qs(k.username), qs(k.userAgent));
    const QString resource = qs(k.resource);
    c.resource = k.group.empty() ? resource : resource + u'.' + qs(k.group);
    const QString labels = qs(k.labelSelector), fields = qs(k.fieldSelector);
    c.selector = labels.isEmpty() ? fields : fields.isEmpty() ? labels : labels + u',' + fields;
    c.apiserver = k.apiserver.empty() ? m_apiservers.value(k.stream) : qs(k.apiserver);
    m_callers.push_back(std::move(c));
    m_byKey.emplace(m_key, &m_callers.back());
    return m_callers.back();
}

} // namespace ws

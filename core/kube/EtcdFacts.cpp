#include "EtcdFacts.h"

namespace ws {

EtcdFacts::EtcdFacts(const QString& version) : m_version(ReleaseVersion::parse(version)) {
    m_known = m_version.valid() && m_version.major == 3;
}

QString EtcdFacts::name() const {
    return m_known ? QStringLiteral("etcd %1").arg(m_version.plain()) : QStringLiteral("etcd");
}

Tri EtcdFacts::atLeast(int minor, int patch) const {
    if (!m_known)
        return Tri::Unknown;
    if (m_version.minor != minor)
        return tri(m_version.minor > minor);
    if (!m_version.hasPatch())
        return patch == 0 ? Tri::Yes : Tri::Unknown;
    return tri(m_version.patch >= patch);
}

Tri EtcdFacts::hasStarvationFix() const {
    if (!m_known)
        return Tri::Unknown;
    if (m_version.minor >= 6)
        return Tri::Yes;
    if (m_version.minor == 5)
        return atLeast(5, 13);
    if (m_version.minor == 4)
        return atLeast(4, 31);
    return Tri::No;
}

Tri EtcdFacts::supportsRequestWatchProgress() const {
    // ver < 3.4.31 || (3.5.0 <= ver < 3.5.13): not supported; an unparsable version neither.
    if (!m_known || m_version.minor < 4)
        return m_known ? Tri::No : Tri::Unknown;
    if (m_version.minor >= 6)
        return Tri::Yes;
    return atLeast(m_version.minor, m_version.minor == 5 ? 13 : 31);
}

Tri EtcdFacts::hasProgressNotifyInterval() const {
    return atLeast(4, 11);
}

} // namespace ws

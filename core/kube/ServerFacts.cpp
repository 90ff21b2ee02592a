#include "ServerFacts.h"

#include "ReleaseVersion.h"

namespace ws {

ServerFacts::ServerFacts(const QString& version, const QMap<QString, bool>& gates)
    : m_gates(gates) {
    if (version.trimmed().isEmpty())
        return;
    const ReleaseVersion v = ReleaseVersion::parse(version);
    if (!v.valid() || v.major != 1) {
        m_note = QStringLiteral("kube-apiserver version '%1' is not one WatchScope can read")
                     .arg(version.trimmed());
        return;
    }
    QString error;
    const auto profile = ServerProfile::fromVersion(v.plain(), &error);
    if (!profile) {
        m_note = QStringLiteral("kube-apiserver %1 is outside the versions WatchScope models "
                                "(1.16 to 1.36)")
                     .arg(v.plain());
        return;
    }
    m_profile = *profile;
    m_known = true;
    m_patchKnown = v.hasPatch();
}

QString ServerFacts::name() const {
    return m_known ? QStringLiteral("kube-apiserver %1").arg(m_profile.version)
                   : QStringLiteral("kube-apiserver");
}

Tri ServerFacts::atLeast(int minorAtLeast, int patchAtLeast) const {
    if (!m_known)
        return Tri::Unknown;
    if (m_profile.minor != minorAtLeast)
        return tri(m_profile.minor > minorAtLeast);
    if (patchAtLeast == 0)
        return Tri::Yes;
    return m_patchKnown ? tri(m_profile.patch >= patchAtLeast) : Tri::Unknown;
}

Tri ServerFacts::gate(const QString& name, bool versionDefault) const {
    if (const auto it = m_gates.constFind(name); it != m_gates.constEnd())
        return tri(*it);
    return m_known ? tri(versionDefault) : Tri::Unknown;
}

Tri ServerFacts::rvEmptyWatchFromEtcd() const {
    if (!m_known)
        return Tri::Unknown;
    const int minor = m_profile.minor;
    // The gate exists from 1.27.13 / 1.28.9 / 1.29.4 until its removal in 1.36.
    const auto explicitGate =
        m_gates.constFind(QStringLiteral("WatchFromStorageWithoutResourceVersion"));
    const bool gateOn =
        explicitGate != m_gates.constEnd() && *explicitGate && minor >= 27 && minor < 36;
    if (gateOn)
        return Tri::Yes;
    if (minor >= 27 && minor <= 29 && !m_patchKnown)
        return Tri::Unknown;
    return tri(m_profile.watchWithoutRvFromEtcd());
}

Tri ServerFacts::separateCacheWatchRpc() const {
    const QString name = QStringLiteral("SeparateCacheWatchRPC");
    if (!gateSet(name) && m_known && (m_profile.minor == 28 || m_profile.minor == 29) &&
        !m_patchKnown)
        return Tri::Unknown; // on from 1.28.8 / 1.29.3
    return gate(name, m_profile.separateCacheWatchRpc);
}

Tri ServerFacts::watchList() const {
    return gate(QStringLiteral("WatchList"), m_profile.watchList);
}

Tri ServerFacts::consistentListFromCache() const {
    return gate(QStringLiteral("ConsistentListFromCache"), m_profile.consistentListFromCache);
}

Tri ServerFacts::resilientWatchCacheInitialization() const {
    return gate(QStringLiteral("ResilientWatchCacheInitialization"),
                m_profile.resilientWatchCacheInitialization);
}

ServerFacts::TooLargeBody ServerFacts::tooLargeBody() const {
    if (!m_known)
        return TooLargeBody::Unknown;
    if (m_profile.minor <= 16)
        return TooLargeBody::NoCauses;
    if (m_profile.minor == 17)
        return TooLargeBody::MessageCause;
    if (m_profile.minor == 18) {
        if (!m_patchKnown)
            return TooLargeBody::Unknown;
        return m_profile.patch >= 6 ? TooLargeBody::ReasonCause : TooLargeBody::MessageCause;
    }
    return TooLargeBody::ReasonCause;
}

} // namespace ws

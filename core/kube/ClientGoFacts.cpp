#include "ClientGoFacts.h"

#include "ReleaseVersion.h"

namespace ws {

ClientGoFacts::ClientGoFacts(const QString& name) : m_name(name.trimmed()) {
    if (m_name == QLatin1String("current") || m_name == QLatin1String("current-watchlist")) {
        m_known = true;
        m_current = true;
        m_tooLarge = TooLarge::Full;
        m_watchList = tri(m_name == QLatin1String("current-watchlist"));
        return;
    }
    const ReleaseVersion v = ReleaseVersion::parse(m_name);
    if (!v.valid() || v.major != 0)
        return;
    m_known = true;
    m_minor = v.minor;
    m_patch = v.patch;
    if (m_minor <= 17) {
        m_tooLarge = TooLarge::None;
    } else if (m_minor == 18) {
        if (!v.hasPatch())
            m_tooLarge = TooLarge::Unknown;
        else
            m_tooLarge = m_patch <= 5   ? TooLarge::None
                         : m_patch <= 8 ? TooLarge::ReasonOnly
                                        : TooLarge::Causes;
    } else if (m_minor == 19) {
        if (!v.hasPatch())
            m_tooLarge = TooLarge::Unknown;
        else
            m_tooLarge = m_patch == 0 ? TooLarge::ReasonOnly : TooLarge::Causes;
    } else if (m_minor <= 26) {
        m_tooLarge = TooLarge::Causes;
    } else {
        m_tooLarge = TooLarge::Full;
    }
    m_watchList = tri(m_minor >= 35);
}

QString ClientGoFacts::name() const {
    return m_known ? QStringLiteral("client-go %1").arg(m_name) : QStringLiteral("client-go");
}

Tri ClientGoFacts::atLeast(int minor, int patch) const {
    if (!m_known)
        return Tri::Unknown;
    if (m_current)
        return Tri::Yes;
    if (m_minor != minor)
        return tri(m_minor > minor);
    if (patch == 0)
        return Tri::Yes;
    return m_patch < 0 ? Tri::Unknown : tri(m_patch >= patch);
}

Tri ClientGoFacts::fallsBackOnAnyError() const {
    return atLeast(29);
}

Tri ClientGoFacts::before018() const {
    const Tri t = atLeast(18);
    return t == Tri::Unknown ? t : tri(t == Tri::No);
}

Tri ClientGoFacts::listsFromZeroOnly() const {
    if (!m_known)
        return Tri::Unknown;
    if (m_current || m_minor >= 18)
        return Tri::No;
    if (m_minor <= 16)
        return Tri::Yes;
    return m_patch < 0 ? Tri::Unknown : tri(m_patch > 0);
}

Tri ClientGoFacts::rewatchesOn429() const {
    return atLeast(22);
}

Tri ClientGoFacts::backsOffBeforeRewatch() const {
    return atLeast(20);
}

Tri ClientGoFacts::sharesOneBackoff() const {
    return atLeast(28);
}

Tri ClientGoFacts::resetsBackoffPeriodically() const {
    return atLeast(36);
}

Tri ClientGoFacts::retriesListTenTimes() const {
    return atLeast(19);
}

Tri ClientGoFacts::retriesWatchRequests() const {
    return atLeast(22);
}

Tri ClientGoFacts::prefersProtobuf() const {
    return atLeast(32);
}

Tri ClientGoFacts::recognisesTooLarge(ServerFacts::TooLargeBody body) const {
    using Body = ServerFacts::TooLargeBody;
    switch (m_tooLarge) {
    case TooLarge::None:
        return Tri::No;
    case TooLarge::Full:
        return Tri::Yes;
    case TooLarge::ReasonOnly:
        return body == Body::Unknown ? Tri::Unknown : tri(body == Body::ReasonCause);
    case TooLarge::Causes:
        return body == Body::Unknown ? Tri::Unknown : tri(body != Body::NoCauses);
    case TooLarge::Unknown:
        break;
    }
    return Tri::Unknown;
}

QString ClientGoFacts::tooLargeRange(TooLarge recognition) {
    switch (recognition) {
    case TooLarge::None:
        return QStringLiteral("0.16/0.17 and 0.18.0-0.18.5");
    case TooLarge::ReasonOnly:
        return QStringLiteral("0.18.6-0.18.8 and 0.19.0");
    case TooLarge::Causes:
        return QStringLiteral("0.18.9+, 0.19.1+ and 0.20-0.26");
    case TooLarge::Full:
        return QStringLiteral("0.27.0+");
    case TooLarge::Unknown:
        break;
    }
    return {};
}

} // namespace ws

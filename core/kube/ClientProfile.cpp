#include "ClientProfile.h"

#include "ApiStatus.h"
#include "ClientGoFacts.h"
#include "ReleaseVersion.h"

#include <QStringList>

namespace ws {

bool ClientProfile::isTooLargeResourceVersion(const ApiStatus& s) const {
    // isTooLargeResourceVersionError (tools/cache/reflector.go) at each version. It also needs
    // the Status to carry details for the Timeout checks, which every too-large 504 has
    // (retryAfterSeconds 1, or causes).
    const QLatin1String tooLargeText("Too large resource version");
    const bool reasonCause =
        s.hasCause && s.causeReason == QLatin1String("ResourceVersionTooLarge");
    const bool timeout = s.reason == QLatin1String("Timeout");
    switch (tooLarge) {
    case TooLargeRecognition::None:
        return false;
    case TooLargeRecognition::ReasonOnly: // HasStatusCause(ResourceVersionTooLarge)
        return reasonCause;
    case TooLargeRecognition::Causes: // ... or IsTimeout and a cause message (1.17.0-1.18.5)
        return reasonCause || (timeout && s.hasCause && s.causeMessage == tooLargeText);
    case TooLargeRecognition::Full: // ... or IsTimeout and the message (before 1.17.0)
        return reasonCause || (timeout && ((s.hasCause && s.causeMessage == tooLargeText) ||
                                           s.message.contains(tooLargeText)));
    }
    return false;
}

Backoff ClientProfile::relistBackoff() const {
    return fixedRelistPeriod ? Backoff::fixed(seconds(1)) : Backoff();
}

Backoff ClientProfile::rewatchBackoff() const {
    return fixedRewatchSleep ? Backoff::fixed(seconds(1)) : Backoff();
}

ClientProfile::ListRv ClientProfile::relistResourceVersion(std::int64_t lastSyncRv,
                                                           bool rvUnavailable,
                                                           bool paginatedResult) const {
    ListRv r;
    if (!alwaysListFromZero) {
        r.empty = rvUnavailable;
        r.rv = rvUnavailable ? 0 : lastSyncRv; // 0 means "0": never synced
    }
    const bool cacheServesWhole = !r.empty && r.rv != 0 && !paginatedResult;
    r.limit = paginationHack && cacheServesWhole ? 0 : kPageSize;
    return r;
}

bool ClientProfile::pagerFallsBackToFullList(const ApiStatus& status, bool onContinuePage) {
    return onContinuePage && status.code == 410 && status.reason == QLatin1String("Expired");
}

bool ClientProfile::rewatchesAfterWatchRequestError(const ApiStatus& s, bool everSynced) const {
    return everSynced && (s.isConnectionRefused() || (s.code == 429 && rewatchOnTooManyRequests));
}

bool ClientProfile::rewatchesAfterWatchErrorEvent(const ApiStatus& s) const {
    return s.code == 429 && rewatchOnTooManyRequests;
}

ClientProfile::WatchListRetry ClientProfile::watchListRetries(const ApiStatus& s) const {
    if (s.isConnectionRefused() || s.code == 429)
        return WatchListRetry::AfterBackoff;
    if (isExpired(s) || isTooLargeResourceVersion(s))
        return WatchListRetry::AtOnceWithEmptyRv;
    return WatchListRetry::No;
}

bool ClientProfile::watchListFallsBackToList(const ApiStatus& s) const {
    switch (watchListFallback) {
    case WatchListFallback::OnInvalid:
        return s.code == 422 && s.reason == QLatin1String("Invalid"); // apierrors.IsInvalid
    case WatchListFallback::OnAnyError:
        return true;
    }
    return false;
}

std::optional<ClientProfile> ClientProfile::withWatchListClient(const QString& name,
                                                                QString* error) {
    static const QLatin1String suffix("+watchlist");
    const QStringList parts =
        name.endsWith(suffix) ? name.chopped(suffix.size()).split(QLatin1Char('.')) : QStringList();
    const int minor = parts.size() >= 2 && parts[0] == QLatin1String("0") ? parts[1].toInt() : 0;
    if (minor < 27 || minor > 36) {
        if (error)
            *error = QStringLiteral("'%1': watch-list (WatchListClient) exists from client-go "
                                    "0.27: use 0.27+watchlist ... 0.36+watchlist")
                         .arg(name);
        return std::nullopt;
    }
    // Everything else as that release without the gate.
    std::optional<ClientProfile> base = fromName(name.chopped(suffix.size()), error);
    if (!base)
        return std::nullopt;
    ClientProfile p = *base;
    p.name = name;
    p.watchList = true;
    p.watchListFallback =
        minor <= 28 ? WatchListFallback::OnInvalid : WatchListFallback::OnAnyError;
    return p;
}

bool ClientProfile::isExpired(const ApiStatus& s) const {
    return s.code == 410 &&
           (s.reason == QLatin1String("Expired") || s.reason == QLatin1String("Gone"));
}

QStringList ClientProfile::knownNames() {
    // Where a modelled behaviour changes: relist RV and backoff (0.18), the too-large 504 (0.18.6,
    // 0.18.9, 0.19.1, 0.27), the re-watch backoff (0.20), 429 (0.22), protobuf for the typed
    // clientset's resources (0.32), WatchListClient (0.35).
    return {QStringLiteral("0.16"),   QStringLiteral("0.17"),   QStringLiteral("0.18.0"),
            QStringLiteral("0.18.5"), QStringLiteral("0.18.6"), QStringLiteral("0.18.8"),
            QStringLiteral("0.18.9"), QStringLiteral("0.19.0"), QStringLiteral("0.19.1"),
            QStringLiteral("0.20"),   QStringLiteral("0.22"),   QStringLiteral("0.26"),
            QStringLiteral("0.27"),   QStringLiteral("0.32"),   QStringLiteral("0.35"),
            QStringLiteral("current")};
}

namespace {
std::optional<ClientProfile> failed(QString* error, const QString& message) {
    if (error)
        *error = message;
    return std::nullopt;
}
} // namespace

std::optional<ClientProfile> ClientProfile::fromName(const QString& text, QString* error) {
    const QString name = text.trimmed();
    if (name.endsWith(QLatin1String("+watchlist")))
        return withWatchListClient(name, error);
    ClientProfile p;
    p.name = name;
    if (name == QLatin1String("current"))
        return p;
    if (name == QLatin1String("current-watchlist")) {
        p.watchList = true;
        return p;
    }
    const QString known =
        knownNames().join(QStringLiteral(", ")) +
        QStringLiteral(", current-watchlist, or any 0.16-0.%1 release").arg(kNewestMinor);
    const ReleaseVersion v = ReleaseVersion::parse(name);
    if (!v.valid() || v.major != 0 || v.minor < 16 || v.minor > kNewestMinor)
        return failed(
            error, QStringLiteral("unknown client-go profile '%1' (known: %2)").arg(name, known));
    const ClientGoFacts facts(name);
    switch (facts.tooLarge()) {
    case ClientGoFacts::TooLarge::None:
        p.tooLarge = TooLargeRecognition::None;
        break;
    case ClientGoFacts::TooLarge::ReasonOnly:
        p.tooLarge = TooLargeRecognition::ReasonOnly;
        break;
    case ClientGoFacts::TooLarge::Causes:
        p.tooLarge = TooLargeRecognition::Causes;
        break;
    case ClientGoFacts::TooLarge::Full:
        p.tooLarge = TooLargeRecognition::Full;
        break;
    case ClientGoFacts::TooLarge::Unknown: // 0.18, 0.19 without a patch release
        return failed(error,
                      QStringLiteral("unknown client-go profile '%1': name the patch "
                                     "release, the too-large-RV handling differs in %2")
                          .arg(name, v.minor == 18 ? QStringLiteral("0.18.0-0.18.5, 0.18.6-0.18.8 "
                                                                    "and 0.18.9+")
                                                   : QStringLiteral("0.19.0 and 0.19.1+")));
    }
    const bool before018 = facts.before018() == Tri::Yes;
    // "0.17" without its patch: as 0.17.1-0.17.17, all but the first 0.17 release.
    p.alwaysListFromZero = facts.listsFromZeroOnly() != Tri::No;
    p.expiredListFallback = !p.alwaysListFromZero;
    p.watchExpiredRelistsFromEmpty = before018 && !p.alwaysListFromZero; // 0.17.0
    p.fixedRelistPeriod = before018;
    p.paginationHack = !before018;
    p.fixedRewatchSleep = facts.backsOffBeforeRewatch() == Tri::No;
    p.rewatchOnTooManyRequests = facts.rewatchesOn429() == Tri::Yes;
    p.watchList = facts.watchListByDefault() == Tri::Yes;
    p.oneBackoffManager = facts.sharesOneBackoff() == Tri::Yes;
    p.backoffResetsPeriodically = facts.resetsBackoffPeriodically() == Tri::Yes;
    p.listRetries = facts.retriesListTenTimes() == Tri::Yes ? 10 : 9;
    p.watchRetries = facts.retriesWatchRequests() == Tri::Yes ? 10 : 0;
    p.protobufWire = facts.prefersProtobuf() == Tri::Yes;
    return p;
}

} // namespace ws

#include "ClientProfile.h"

#include "ApiStatus.h"

#include <QStringList>

namespace ws {

bool ClientProfile::isTooLargeResourceVersion(const ApiStatus& s) const {
    if (s.code != 504)
        return false;
    switch (tooLarge) {
    case TooLargeRecognition::None:
        return false;
    case TooLargeRecognition::Causes:
        return s.hasCause &&
               (s.causeReason == QLatin1String("ResourceVersionTooLarge") ||
                (s.reason == QLatin1String("Timeout") &&
                 s.causeMessage.contains(QLatin1String("Too large resource version"))));
    case TooLargeRecognition::Full:
        return (s.hasCause &&
                (s.causeReason == QLatin1String("ResourceVersionTooLarge") ||
                 s.causeMessage.contains(QLatin1String("Too large resource version")))) ||
               s.message.contains(QLatin1String("Too large resource version"));
    }
    return false;
}

ClientProfile::ListRv ClientProfile::relistResourceVersion(std::int64_t lastSyncRv,
                                                           bool rvUnavailable) const {
    ListRv r;
    if (alwaysListFromZero)
        return r;
    if (rvUnavailable) {
        r.empty = true;
        r.limit = 500;
        return r;
    }
    r.rv = lastSyncRv; // 0 means "0": never synced
    return r;
}

bool ClientProfile::rewatchesAfterWatchRequestError(const ApiStatus& s, bool everSynced) const {
    return everSynced && (s.isConnectionRefused() || (s.code == 429 && rewatchOnTooManyRequests));
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
    ClientProfile p; // 0.27+ behave like "current" on everything else modelled
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
    return {QStringLiteral("0.16"),   QStringLiteral("0.17"),   QStringLiteral("0.18.0"),
            QStringLiteral("0.18.5"), QStringLiteral("0.18.6"), QStringLiteral("0.18.9"),
            QStringLiteral("0.20"),   QStringLiteral("0.22"),   QStringLiteral("0.27"),
            QStringLiteral("0.35"),   QStringLiteral("current")};
}

namespace {
std::optional<ClientProfile> renamed(std::optional<ClientProfile> p, const QString& name) {
    if (p)
        p->name = name;
    return p;
}
} // namespace

std::optional<ClientProfile> ClientProfile::fromName(const QString& name, QString* error) {
    if (name.endsWith(QLatin1String("+watchlist")))
        return withWatchListClient(name, error);
    // Versions that behave like a modelled one.
    if (name == QLatin1String("0.17"))
        return renamed(fromName(QStringLiteral("0.16"), error), name);
    if (name == QLatin1String("0.27"))
        return renamed(fromName(QStringLiteral("current"), error), name);
    if (name == QLatin1String("0.35")) // WatchListClient on by default from v0.35
        return renamed(fromName(QStringLiteral("current-watchlist"), error), name);
    ClientProfile p;
    p.name = name;
    if (name == QLatin1String("0.16")) {
        p.alwaysListFromZero = true;
        p.expiredListFallback = false;
        p.tooLarge = TooLargeRecognition::None;
        p.rewatchOnTooManyRequests = false;
    } else if (name.startsWith(QLatin1String("0.18.")) && name.mid(5).toInt() <= 6) {
        p.tooLarge = TooLargeRecognition::None;
        p.rewatchOnTooManyRequests = false;
    } else if (name == QLatin1String("0.18.9") || name == QLatin1String("0.20") ||
               name == QLatin1String("0.22")) {
        p.tooLarge = TooLargeRecognition::Causes;
        p.rewatchOnTooManyRequests = name == QLatin1String("0.22");
    } else if (name == QLatin1String("current")) {
        p.tooLarge = TooLargeRecognition::Full;
    } else if (name == QLatin1String("current-watchlist")) {
        p.tooLarge = TooLargeRecognition::Full;
        p.watchList = true;
    } else {
        if (error)
            *error = QStringLiteral("unknown client-go profile '%1' (known: %2)")
                         .arg(name, knownNames().join(QStringLiteral(", ")) +
                                        QStringLiteral(", current-watchlist"));
        return std::nullopt;
    }
    return p;
}

} // namespace ws

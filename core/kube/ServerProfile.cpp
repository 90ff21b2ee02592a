#include "ServerProfile.h"

#include <QRegularExpression>

namespace ws {

std::optional<ServerProfile> ServerProfile::fromVersion(const QString& version, QString* error) {
    static const QRegularExpression re(QStringLiteral("^v?1\\.(\\d+)(?:\\.(\\d+))?$"));
    const auto m = re.match(version.trimmed());
    if (!m.hasMatch()) {
        if (error)
            *error = QStringLiteral("bad server version '%1': expected 1.MINOR[.PATCH], e.g. 1.27")
                         .arg(version);
        return std::nullopt;
    }
    ServerProfile p;
    p.version = version.trimmed();
    p.minor = m.captured(1).toInt();
    p.patch = m.captured(2).isEmpty() ? 0 : m.captured(2).toInt();
    if (p.minor < 16 || p.minor > 34) {
        if (error)
            *error =
                QStringLiteral("unsupported server version '%1': WatchScope models 1.16 to 1.34")
                    .arg(version);
        return std::nullopt;
    }
    p.separateCacheWatchRpc =
        p.minor >= 30 || (p.minor == 29 && p.patch >= 4) || (p.minor == 28 && p.patch >= 9);
    p.watchList = p.minor == 32 || p.minor >= 34;
    p.consistentListFromCache = p.minor >= 31;
    return p;
}

} // namespace ws

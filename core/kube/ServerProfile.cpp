#include "ServerProfile.h"

#include <QRegularExpression>
#include <map>

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
    if (p.minor < 16 || p.minor > 36) {
        if (error)
            *error =
                QStringLiteral("unsupported server version '%1': WatchScope models 1.16 to 1.36")
                    .arg(version);
        return std::nullopt;
    }
    // On from 1.30 (backported to 1.29.3 and 1.28.8); default off from 1.33, once etcd fixed
    // the starvation it worked around (reference §5, §9).
    p.separateCacheWatchRpc = (p.minor >= 30 && p.minor <= 32) || (p.minor == 29 && p.patch >= 3) ||
                              (p.minor == 28 && p.patch >= 8);
    p.watchList = p.minor == 32 || p.minor >= 34;
    p.consistentListFromCache = p.minor >= 31;
    p.resilientWatchCacheInitialization = p.minor >= 31;
    p.watchCacheInitializationPostStartHook = p.minor >= 36;
    return p;
}

QStringList ServerProfile::knownVersions() {
    // Where fromVersion() and watchWithoutRvFromEtcd() change their answer within a minor.
    const std::map<int, QStringList> patches = {
        {27, {QStringLiteral("1.27.13")}},
        {28, {QStringLiteral("1.28.8"), QStringLiteral("1.28.9")}},
        {29, {QStringLiteral("1.29.3"), QStringLiteral("1.29.4")}},
    };
    QStringList out;
    for (int minor = 16; minor <= 36; ++minor) {
        out << QStringLiteral("1.%1").arg(minor);
        if (const auto it = patches.find(minor); it != patches.end())
            out += it->second;
    }
    return out;
}

} // namespace ws

#pragma once

#include <QString>
#include <cstdint>
#include <optional>

namespace ws {

struct ApiStatus;

// client-go reflector behaviours by version (reference/kubernetes-watch.md §6, seed 002).
struct ClientProfile {
    enum class TooLargeRecognition {
        None,   // 0.16 and 0.18.0-0.18.6: a 504 is just an error, the same RV is retried
        Causes, // 0.18.9+: a cause with reason ResourceVersionTooLarge, or Timeout with a cause
                // message "Too large resource version" (servers 1.17+); not the bare 1.16 body
        Full,   // current: also the message alone
    };

    QString name = QStringLiteral("current");
    bool alwaysListFromZero = false; // before 0.18 the reflector always listed with RV="0"
    bool expiredListFallback = true; // a 410 on list relists with RV="" (0.18+)
    TooLargeRecognition tooLarge = TooLargeRecognition::Full;
    bool watchList = false; // uses a watch-list (sendInitialEvents) instead of LIST
    // A 429 on the watch request backs off and re-watches (0.22+); before, any watch request
    // error other than "connection refused" ends ListAndWatch and relists from the last RV.
    bool rewatchOnTooManyRequests = true;

    // The RV of the next LIST (reflector.relistResourceVersion): "" after Expired/TooLarge,
    // "0" when never synced, else the last synced RV; before 0.18 always "0".
    struct ListRv {
        bool empty = false; // resourceVersion=""
        std::int64_t rv = 0;
        std::int64_t limit = 0; // pager page size for RV="" lists (served by etcd)
    };
    ListRv relistResourceVersion(std::int64_t lastSyncRv, bool rvUnavailable) const;

    bool isTooLargeResourceVersion(const ApiStatus& status) const;
    bool isExpired(const ApiStatus& status) const;

    static std::optional<ClientProfile> fromName(const QString& name, QString* error);
    static QStringList knownNames();
};

} // namespace ws

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
    // What ends a watch-list attempt in a LIST + WATCH (reflector.ListAndWatch, 0.27+). Errors
    // the watch-list loop retries itself come first (watchListRetries).
    enum class WatchListFallback {
        OnInvalid,  // 0.27-0.28: only a 422 Invalid (a server without WatchList); any other
                    // error ends ListAndWatch, which backs off and tries the watch-list again
        OnAnyError, // 0.29+: any error ("making progress is better than deadlocking")
    };
    WatchListFallback watchListFallback = WatchListFallback::OnAnyError;
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

    // The reflector's decisions, shared by the simulated and the real (HTTP) reflectors.
    // After a failed LIST: retry at once, in the same ListAndWatch, with RV="" (0.18+ for
    // Expired, 0.18.9+ for a too-large RV it recognises); otherwise back off and relist.
    bool relistsAtOnceWithEmptyRv(const ApiStatus& status, bool rvUnavailable) const {
        return !rvUnavailable &&
               ((expiredListFallback && isExpired(status)) || isTooLargeResourceVersion(status));
    }
    // After a failed WATCH request: "connection refused" (and 429 from 0.22) backs off and
    // re-watches; any other error ends ListAndWatch and relists from the last synced RV.
    bool rewatchesAfterWatchRequestError(const ApiStatus& status, bool everSynced) const;
    // The watch-list loop (reflector.watchList) retries these itself: "connection refused" and
    // 429 after a backoff (isWatchErrorRetriable), Expired and a too-large RV at once with
    // resourceVersion="" (they set the unavailable flag).
    enum class WatchListRetry { No, AfterBackoff, AtOnceWithEmptyRv };
    WatchListRetry watchListRetries(const ApiStatus& status) const;
    // A watch-list failed with an error it does not retry: LIST + WATCH now (true), or end
    // ListAndWatch with the error (false). status.code 0 with an empty reason: an error that is
    // not an API status (a "very short watch").
    bool watchListFallsBackToList(const ApiStatus& status) const;
    // client-go X with the WatchListClient gate turned on ("0.28+watchlist"): 0.27+ only.
    static std::optional<ClientProfile> withWatchListClient(const QString& name, QString* error);

    // A watch that ended within a second without an event is an error: back off and relist.
    static bool isVeryShortWatch(std::int64_t lastedUs, std::int64_t events) {
        return lastedUs < 1000000 && events == 0;
    }
    // client-go picks timeoutSeconds at random in [300, 600).
    static double watchTimeoutSeconds(double uniform01) { return 300.0 + 300.0 * uniform01; }

    static std::optional<ClientProfile> fromName(const QString& name, QString* error);
    static QStringList knownNames();
};

} // namespace ws

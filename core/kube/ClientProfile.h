#pragma once

#include "Backoff.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

namespace ws {

struct ApiStatus;

// client-go reflector behaviours by version (reference/kubernetes-watch.md §1, §6, seed 002;
// the version ranges come from ClientGoFacts).
struct ClientProfile {
    // Which 504 bodies isTooLargeResourceVersionError (tools/cache/reflector.go) recognises.
    enum class TooLargeRecognition {
        None,       // 0.16/0.17 and 0.18.0-0.18.5: a 504 is just an error, the same RV is retried
        ReasonOnly, // 0.18.6-0.18.8 and 0.19.0: a cause with reason ResourceVersionTooLarge
                    // (servers 1.18.6+)
        Causes,     // 0.18.9+, 0.19.1+, 0.20-0.26: also reason Timeout with a cause message
                    // "Too large resource version" (servers 1.17+); not the bare 1.16 body
        Full,       // 0.27+: also reason Timeout with the message alone (1.16 servers)
    };

    QString name = QStringLiteral("current");
    // 0.16 and 0.17.1+ always list with RV="0"; 0.17.0 and 0.18+ with the relist RV below.
    bool alwaysListFromZero = false;
    bool expiredListFallback = true; // a 410 on list relists with RV="" (0.17.0, 0.18+)
    // A 410 on the watch also makes the next list RV="" (0.17.0 only; 0.18+ relist from the
    // last RV first).
    bool watchExpiredRelistsFromEmpty = false;
    TooLargeRecognition tooLarge = TooLargeRecognition::Full;
    bool watchList = false; // uses a watch-list (sendInitialEvents) instead of LIST (0.35+)
    // What ends a watch-list attempt in a LIST + WATCH (reflector.ListAndWatch, 0.27+). Errors
    // the watch-list loop retries itself come first (watchListRetries).
    enum class WatchListFallback {
        OnInvalid,  // 0.27-0.28: only a 422 Invalid (a server without WatchList); any other
                    // error ends ListAndWatch, which backs off and tries the watch-list again
        OnAnyError, // 0.29+: any error ("making progress is better than deadlocking")
    };
    WatchListFallback watchListFallback = WatchListFallback::OnAnyError;
    // A 429 on the watch request, or as the watch's ERROR event, backs off and re-watches from
    // the last RV (0.22+); before, any watch request error other than "connection refused", and
    // any ERROR event, ends ListAndWatch and relists from the last RV.
    bool rewatchOnTooManyRequests = true;
    // 0.16/0.17 run ListAndWatch under wait.Until with a fixed 1 s period; 0.18+ under
    // wait.BackoffUntil (800 ms doubling to 30 s, jitter 1, reset after 2 min).
    bool fixedRelistPeriod = false;
    // Before re-watching after "connection refused", 0.16-0.19 sleep a fixed 1 s; 0.20+ wait on
    // their own initConnBackoffManager (800 ms doubling to 30 s, like the relist backoff).
    bool fixedRewatchSleep = false;

    // The reflector's "pagination hack" (PR #86430, 0.18+): an RV other than ""/"0" is listed
    // without a limit so the watch cache can serve it, unless an RV="0" list once came back
    // paginated (r.paginatedResult). Before 0.18 every list asks for pages of 500.
    bool paginationHack = true;
    static constexpr std::int64_t kPageSize = 500; // tools/pager defaultPageSize

    // The wait after ListAndWatch returned (an error, a failed list, a watch ERROR event).
    Backoff relistBackoff() const;
    // The wait before a re-watch after a refused watch request (and a 429 from 0.22).
    Backoff rewatchBackoff() const;
    // From 0.28 the re-watches wait on the relist backoff itself (one backoffManager); 0.20-0.27
    // keep rewatchBackoff() apart (initConnBackoffManager).
    bool oneBackoffManager = true;
    // 0.36+: the backoff starts over every 2 minutes (Backoff::resetPeriodically); before, 2
    // minutes after the last wait.
    bool backoffResetsPeriodically = true;

    // rest.Request's own retries (rest/request.go, rest/with_retry.go): a 429 or 5xx answer with
    // a Retry-After header is sent again after that many seconds, up to this many times, before
    // the reflector sees it (0: it sees the first answer). A LIST page: 9 in 0.16-0.18, 10 from
    // 0.19; a WATCH: 10 from 0.22, none before.
    int listRetries = 10;
    int watchRetries = 10;
    // client-go's checkWait: the statuses a Retry-After makes worth retrying.
    static bool retriesOnRetryAfter(int httpStatus) {
        return httpStatus == 429 || httpStatus >= 500;
    }

    // The RV of the next LIST (reflector.relistResourceVersion): "" after Expired/TooLarge,
    // "0" when never synced, else the last synced RV; 0.16 and 0.17.1+ always "0".
    struct ListRv {
        bool empty = false; // resourceVersion=""
        std::int64_t rv = 0;
        std::int64_t limit = 0; // the pager's page size (paginationHack); 0: no limit
    };
    ListRv relistResourceVersion(std::int64_t lastSyncRv, bool rvUnavailable,
                                 bool paginatedResult = false) const;
    // tools/pager ListPager.List (0.18+, FullListIfExpired): a 410 Expired on a continue page
    // (page 2 or later) ends the paging in one full list at the first page's RV, without limit.
    static bool pagerFallsBackToFullList(const ApiStatus& status, bool onContinuePage);

    bool isTooLargeResourceVersion(const ApiStatus& status) const;
    bool isExpired(const ApiStatus& status) const;

    // The reflector's decisions (kube/Reflector.h).
    // After a failed LIST: retry at once, in the same ListAndWatch, with RV="" (0.18+ for
    // Expired, 0.18.6+ for a too-large RV it recognises); otherwise back off and relist.
    bool relistsAtOnceWithEmptyRv(const ApiStatus& status, bool rvUnavailable) const {
        return !rvUnavailable &&
               ((expiredListFallback && isExpired(status)) || isTooLargeResourceVersion(status));
    }
    // After a failed WATCH request: "connection refused" (and 429 from 0.22) backs off and
    // re-watches; any other error ends ListAndWatch and relists from the last synced RV.
    bool rewatchesAfterWatchRequestError(const ApiStatus& status, bool everSynced) const;
    // After an ERROR event on a watch (not a watch-list's initial events): a 429 backs off and
    // re-watches from the last RV (0.22+); any other ends ListAndWatch, which relists.
    bool rewatchesAfterWatchErrorEvent(const ApiStatus& status) const;
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
    // The same from ReflectorOptions.MinWatchTimeout (default 5 min): [min, 2 min).
    double watchTimeoutSecondsFrom(double uniform01) const {
        return minWatchTimeoutSeconds * (1.0 + uniform01);
    }
    double minWatchTimeoutSeconds = 300.0;
    // Lists and watches of the typed clientset's resources ask for protobuf first
    // (sources/cluster/proto/WireFormat.h), as its informers do from 0.32
    // (ClientGoFacts::prefersProtobuf); --wire json|protobuf overrides it.
    bool protobufWire = true;

    // A client-go version ("0.18.6", "v0.20.15", "0.27"; 0.18 and 0.19 need their patch
    // release, where the behaviour changes), or "current" / "current-watchlist" (the newest
    // modelled, without and with WatchListClient). Anything else: nullopt, and a one-line error.
    static std::optional<ClientProfile> fromName(const QString& name, QString* error);
    // The names offered in the windows' choosers, oldest first: each range's edges.
    static QStringList knownNames();
    static constexpr int kNewestMinor = 36; // the newest client-go minor modelled (0.36)
};

} // namespace ws

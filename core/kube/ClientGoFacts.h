#pragma once

#include "ServerFacts.h"
#include "Tri.h"

#include <QString>

namespace ws {

// What a client-go version's reflector does (reference/kubernetes-watch.md §1, §2, §6; the
// ClientProfile names: "0.18.3", "0.20", "current", "current-watchlist"). ClientProfile takes
// its version ranges from here.
class ClientGoFacts {
public:
    // Which 504 bodies isTooLargeResourceVersionError recognises (reference §1, §6).
    enum class TooLarge {
        None,       // 0.16/0.17, 0.18.0-0.18.5: a 504 is just an error
        ReasonOnly, // 0.18.6-0.18.8, 0.19.0: the cause reason ResourceVersionTooLarge (1.18.6+)
        Causes,     // 0.18.9+, 0.19.1+, 0.20-0.26: also Timeout with the cause message (1.17+)
        Full,       // 0.27.0+: also the message alone (1.16 too)
        Unknown,
    };

    ClientGoFacts() = default; // version unknown
    explicit ClientGoFacts(const QString& name);

    bool known() const { return m_known; }
    QString name() const; // "client-go 0.18.3"; "client-go" when unknown
    TooLarge tooLarge() const { return m_tooLarge; }
    Tri recognisesTooLarge(ServerFacts::TooLargeBody body) const;
    // WatchListClient on by default (v0.35+; the current-watchlist profile).
    Tri watchListByDefault() const { return m_watchList; }
    // A watch-list refused falls back to a LIST: 0.27-0.28 on a 422 only, 0.29+ on any error.
    Tri fallsBackOnAnyError() const;
    // Before 0.18 the reflector relists on a fixed 1 s period.
    Tri before018() const;
    // Lists with RV="0" only, never with the last RV or RV="": 0.16 and 0.17.1+. 0.17.0 alone had
    // 0.18's relist RV rules (PR #83520, reverted in 0.17.1), and a watch 410 made its next list
    // RV="" too. Unknown for "0.17" without the patch.
    Tri listsFromZeroOnly() const;
    // A 429 on the watch request backs off and re-watches (0.22+, ClientProfile).
    Tri rewatchesOn429() const;
    // Before re-watching after "connection refused": 0.20+ back off (initConnBackoffManager,
    // 800 ms doubling to 30 s); 0.16-0.19 sleep a fixed 1 s.
    Tri backsOffBeforeRewatch() const;
    // Relists and re-watches (and a watch-list's own retries) wait on one backoff manager
    // (0.28+); 0.20-0.27 keep a second one, initConnBackoffManager, for the re-watches.
    Tri sharesOneBackoff() const;
    // The reflector's backoff starts over every 2 minutes (wait.Backoff.DelayWithReset, 0.36+);
    // before, 2 minutes after the last wait (wait.ExponentialBackoffManager).
    Tri resetsBackoffPeriodically() const;
    // rest.Request retries a 429 or 5xx answer that carries Retry-After, waiting that long: a
    // LIST (Request.Do) 9 times in 0.16-0.18 ("retries < 10"), 10 times from 0.19 (maxRetries);
    // a WATCH (Request.Watch) 10 times from 0.22 (rest/with_retry.go), never before.
    Tri retriesListTenTimes() const;
    Tri retriesWatchRequests() const;
    // The typed clientset's lists and watches ask for protobuf first (gentype.PrefersProtobuf,
    // "application/vnd.kubernetes.protobuf,application/json"), 0.32+; before, JSON unless the
    // program set rest.Config.ContentType.
    Tri prefersProtobuf() const;

    static QString tooLargeRange(TooLarge recognition);

private:
    Tri atLeast(int minor, int patch = 0) const;

    bool m_known = false;
    bool m_current = false; // "current", "current-watchlist": the newest modelled
    int m_minor = -1;
    int m_patch = -1;
    QString m_name;
    TooLarge m_tooLarge = TooLarge::Unknown;
    Tri m_watchList = Tri::Unknown;
};

} // namespace ws

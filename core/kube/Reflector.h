#pragma once

#include "ApiStatus.h"
#include "Backoff.h"
#include "ClientProfile.h"
#include "ListPageRequest.h"
#include "RestRetries.h"
#include "model/ResourceVersion.h"
#include "util/SeededRandom.h"

#include <QString>
#include <optional>
#include <string>

namespace ws {

class ReflectorDriver;

// client-go's reflector (tools/cache/reflector.go, tools/pager) as one state machine, with the
// semantics of a client-go version (ClientProfile): which request goes out next, and when, given
// how the last one was answered. ListAndWatch is a watch-list for a watch-list client, with its
// own retry loop and its fallback to LIST for that cycle, else a LIST through the pager (pages,
// continue tokens, the full list after a 410 on a continue page, the pagination hack) and a
// WATCH from the list's RV with bookmarks and a random timeoutSeconds; the relist RV after 410
// and too-large answers; the backoffs; rest.Request's Retry-After retries below all of it.
//
// It knows no connection and no store: a ReflectorDriver sends what it asks for and tells it
// every answer. The simulated client and the cluster source's informer both drive this one.
class Reflector {
public:
    struct Options {
        ClientProfile profile;
        // Not a reflector but driven as one: it watches with RV="" and never lists (kubectl get
        // -w, falco).
        bool watchOnly = false;
        // Its first list of a process is a plain List() (RV="", no limit) and it never uses a
        // watch-list: a node agent that lists on start, then watches.
        bool plainFirstList = false;
    };

    Reflector(Options options, ReflectorDriver& driver, SeededRandom& rng);

    // ListAndWatch now; or on the first tick at or after `at`.
    void start(TimeUs now);
    void startAt(TimeUs at);
    // The process restarts: it forgets what it synced and starts over at `now`.
    void restart(TimeUs now);
    // Never again (refused for good, or the session ends).
    void stop();
    // Backoffs and Retry-After waits that are over.
    void tick(TimeUs now);
    // The earliest time tick() has something to do (kNoDeadline: nothing until an answer).
    TimeUs nextDue() const;

    // rest.Request's retries of the request in flight: the wait before it goes out again after
    // this answer or failure; nullopt: the reflector gets it.
    std::optional<TimeUs> retryAfterAnswer(int httpStatus, std::optional<int> retryAfterSeconds);
    std::optional<TimeUs> retryAfterFailure(RestRetries::Failure failure);
    // The REST layer read that answer away: the request goes out again (resend) after `wait`.
    void resendAfter(TimeUs wait, TimeUs now);

    // A list page came back 200 at `pageRv` (its items are the driver's), with the next page's
    // token or none.
    void pageReceived(ResourceVersion pageRv, const std::string& continueToken, TimeUs now);
    // The pager's own recovery, which the reflector never sees: a 410 on a continue page lists
    // once more in full (sent). False: the list failed; the caller reports it, then listFailed.
    bool pagerRecovers(const ApiStatus& status, TimeUs now);
    // The LIST failed (a Status, or a transport failure with code 0): an RV="" list at once
    // after Expired or a too-large RV, else back off and ListAndWatch again.
    void listFailed(const ApiStatus& status, TimeUs now);
    // ListAndWatch returned an error the reflector does not look into (a body it cannot read):
    // back off and ListAndWatch again.
    void failed(TimeUs now);

    // A watch-list refused with 422 by a server without the feature: client-go falls back to
    // LIST, logging it as a warning (no trouble of the watch).
    bool watchListFallsBackQuietly(const ApiStatus& status) const;
    // The WATCH request failed (no 200; after the REST layer's retries).
    void watchRequestFailed(const ApiStatus& status, TimeUs now);
    // An ADDED/MODIFIED/DELETED: a live one moves the synced RV. `initial`: one of a watch-list's
    // initial events (awaitingInitialEnd()) or of a watch from RV "" / "0".
    void event(ResourceVersion rv, bool initial);
    // A BOOKMARK. True: it is the initial-events-end bookmark the watch-list was waiting for; its
    // initial events are the store now.
    bool bookmark(ResourceVersion rv, bool initialEventsEnd);
    // An ERROR event (the caller has dropped the watch): the watch-list loop's rules, a 429
    // re-watch, or ListAndWatch returns.
    void watchErrorEvent(const ApiStatus& status, TimeUs now);
    // The watch ended without an ERROR event: a clean close or a broken connection.
    void watchEnded(TimeUs now);

    const ClientProfile& profile() const { return m_options.profile; }
    bool listing() const { return m_state == State::Listing; }
    bool watching() const { return m_state == State::Watching; }
    bool stopped() const { return m_state == State::Stopped; }
    // The request in flight waits out a Retry-After.
    bool resending() const { return m_resendAt >= 0; }
    // The watch in flight is a watch-list before its initial-events-end bookmark.
    bool awaitingInitialEnd() const { return m_awaitingInitialEnd; }
    // Its LIST is on a continue page (the pager's page 2 or later).
    bool onContinuePage() const { return !m_continue.empty(); }
    ResourceVersion lastSyncRv() const { return m_lastSyncRv; }
    bool everSynced() const { return m_everSynced; }
    // The RV of the list in flight (0: "" or "0"), then its first page's.
    ResourceVersion listRv() const { return m_listRv; }
    // What its last list or watch asked for (0: "" or "0").
    ResourceVersion requestedRv() const { return m_askedRv; }
    int relists() const { return m_relists; }
    // "watching", "backoff (relist)", ... for the watcher tables.
    QString stateName() const;

private:
    enum class State { Idle, Listing, Watching, Backoff, Stopped };
    // After a backoff: a new ListAndWatch (watch-list or LIST), a re-watch, or the watch-list
    // loop's own retry.
    enum class Next { ListAndWatch, Watch, WatchList };

    void startListAndWatch(TimeUs now);
    // The LIST of this ListAndWatch: a new pager.List. `retry`: the reflector's RV="" list after
    // a 410 or a too-large RV, on the same pager (its page size).
    void startList(TimeUs now, bool retry = false);
    void sendPage(const ListPageRequest& page, TimeUs now);
    void listFinished(TimeUs now);
    void startWatch(bool watchList, TimeUs now);
    // A watch-list ended before its initial-events-end bookmark with `status` (refused, an
    // ERROR event, a very short stream: code 0, no reason).
    void watchListFailed(const ApiStatus& status, TimeUs now);
    void backoffThen(Next next, TimeUs now);
    Backoff& backoffFor(Next next);

    Options m_options;
    ReflectorDriver& m_driver;
    SeededRandom& m_rng;
    Backoff m_backoff;        // after ListAndWatch returned (ClientProfile::relistBackoff)
    Backoff m_rewatchBackoff; // before a re-watch, 0.27 and older (oneBackoffManager)
    State m_state = State::Idle;
    Next m_next = Next::ListAndWatch;
    TimeUs m_retryAt = 0;

    RestRetries m_rest;
    TimeUs m_resendAt = -1; // >= 0: the request in flight goes out again then
    TimeUs m_requestStart = 0;
    ResourceVersion m_askedRv = 0;

    ResourceVersion m_lastSyncRv = 0;
    bool m_everSynced = false;
    bool m_rvUnavailable = false; // a 410 or too-large RV: the next list or watch-list asks RV=""
    int m_relists = 0;

    // The pager of this ListAndWatch: its page size (0: unpaginated) and the RV it was asked
    // for, which a full list after a 410 on a continue page asks for again.
    std::int64_t m_pageSize = 0;
    ResourceVersion m_requestedRv = 0;
    bool m_requestedRvEmpty = false;
    ResourceVersion m_listRv = 0;
    std::string m_continue;        // the page in flight's token; empty: a first page
    bool m_listedFromZero = false; // this ListAndWatch's list asked for RV="0"
    bool m_paged = false;          // pager.List's paginatedResult: a page had a continue token
    // reflector.paginatedResult: an RV="0" list came back in pages (no watch cache: events),
    // so every later list is paged too, at its exact RV.
    bool m_paginatedResult = false;

    bool m_watchList = false; // the watch in flight is a watch-list (sendInitialEvents)
    bool m_awaitingInitialEnd = false;
    std::int64_t m_watchEvents = 0;
};

} // namespace ws

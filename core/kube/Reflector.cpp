#include "Reflector.h"

#include "ReflectorDriver.h"
#include "model/Deadline.h"

#include <algorithm>

namespace ws {

Reflector::Reflector(Options options, ReflectorDriver& driver, SeededRandom& rng)
    : m_options(std::move(options)), m_driver(driver), m_rng(rng),
      m_backoff(m_options.profile.relistBackoff()),
      m_rewatchBackoff(m_options.profile.rewatchBackoff()) {}

QString Reflector::stateName() const {
    switch (m_state) {
    case State::Idle:
        return QStringLiteral("idle");
    case State::Listing:
        return resending() ? QStringLiteral("listing (Retry-After)") : QStringLiteral("listing");
    case State::Watching:
        if (resending())
            return QStringLiteral("watch request (Retry-After)");
        return m_awaitingInitialEnd ? QStringLiteral("initial events") : QStringLiteral("watching");
    case State::Backoff:
        return m_next == Next::Watch ? QStringLiteral("backoff (rewatch)")
                                     : QStringLiteral("backoff (relist)");
    case State::Stopped:
        return QStringLiteral("stopped");
    }
    return {};
}

void Reflector::start(TimeUs now) {
    if (m_options.profile.backoffResetsPeriodically) {
        m_backoff.resetPeriodically(now);
        m_rewatchBackoff.resetPeriodically(now);
    }
    startListAndWatch(now);
}

void Reflector::startAt(TimeUs at) {
    if (m_options.profile.backoffResetsPeriodically) {
        m_backoff.resetPeriodically(at);
        m_rewatchBackoff.resetPeriodically(at);
    }
    m_state = State::Backoff;
    m_next = Next::ListAndWatch;
    m_retryAt = at;
}

void Reflector::restart(TimeUs now) {
    m_lastSyncRv = 0;
    m_everSynced = false;
    m_rvUnavailable = false;
    m_paginatedResult = false;
    m_continue.clear();
    m_awaitingInitialEnd = false;
    m_watchList = false;
    m_resendAt = -1;
    m_backoff = m_options.profile.relistBackoff();
    m_rewatchBackoff = m_options.profile.rewatchBackoff();
    startAt(now); // on the tick that restarted it
}

void Reflector::stop() {
    m_state = State::Stopped;
    m_resendAt = -1;
}

void Reflector::tick(TimeUs now) {
    if (m_state == State::Backoff && now >= m_retryAt) {
        if (m_next == Next::WatchList)
            startWatch(true, now);
        else if (m_next == Next::Watch && m_everSynced)
            startWatch(false, now);
        else
            startListAndWatch(now);
        return;
    }
    if ((m_state == State::Listing || m_state == State::Watching) && m_resendAt >= 0 &&
        now >= m_resendAt) {
        m_resendAt = -1;
        m_driver.resend();
    }
}

TimeUs Reflector::nextDue() const {
    if (m_state == State::Backoff)
        return m_retryAt;
    if ((m_state == State::Listing || m_state == State::Watching) && m_resendAt >= 0)
        return m_resendAt;
    return kNoDeadline;
}

std::optional<TimeUs> Reflector::retryAfterAnswer(int httpStatus,
                                                  std::optional<int> retryAfterSeconds) {
    return m_rest.afterAnswer(httpStatus, retryAfterSeconds);
}

std::optional<TimeUs> Reflector::retryAfterFailure(RestRetries::Failure failure) {
    return m_rest.afterFailure(failure);
}

void Reflector::resendAfter(TimeUs wait, TimeUs now) {
    m_resendAt = now + wait;
}

Backoff& Reflector::backoffFor(Next next) {
    if (next == Next::ListAndWatch || m_options.profile.oneBackoffManager)
        return m_backoff;
    return m_rewatchBackoff; // 0.20-0.27's initConnBackoffManager, 0.16-0.19's fixed 1 s
}

void Reflector::backoffThen(Next next, TimeUs now) {
    m_state = State::Backoff;
    m_next = next;
    m_resendAt = -1;
    m_awaitingInitialEnd = false;
    m_retryAt = now + backoffFor(next).next(now, m_rng);
    m_driver.abandon();
}

void Reflector::startListAndWatch(TimeUs now) {
    // A watch-list client starts every ListAndWatch, relists included, with a watch-list
    // (KEP-3157); a fallback to LIST lasts for that ListAndWatch only. A client that lists with
    // a plain List() is no reflector: client-go's typed List() stays a LIST in every release.
    if (m_options.watchOnly) {
        startWatch(false, now);
        return;
    }
    if (m_options.profile.watchList && !m_options.plainFirstList) {
        startWatch(true, now);
        return;
    }
    startList(now);
}

void Reflector::startList(TimeUs now, bool retry) {
    auto listRv =
        m_options.profile.relistResourceVersion(m_lastSyncRv, m_rvUnavailable, m_paginatedResult);
    if (m_options.plainFirstList && !m_everSynced) {
        // List(ctx, metav1.ListOptions{FieldSelector: ...}): RV="" and no limit.
        listRv.empty = true;
        listRv.rv = 0;
        listRv.limit = 0;
    }
    if (!retry) {
        // The pager asks for pages of 500 unless an exact RV lets the cache serve it whole; its
        // RV="" retry goes on the same pager, with the same page size.
        m_pageSize = listRv.limit;
        m_listedFromZero = !listRv.empty && listRv.rv == 0;
    }
    m_requestedRvEmpty = listRv.empty;
    m_requestedRv = listRv.empty ? 0 : listRv.rv;
    m_listRv = m_requestedRv;
    m_paged = false;
    m_continue.clear();
    ListRequest request;
    request.rv = m_requestedRv;
    request.rvEmpty = m_requestedRvEmpty;
    request.isRelist = m_everSynced;
    request.limit = m_pageSize;
    if (m_everSynced)
        ++m_relists;
    m_state = State::Listing;
    m_driver.listStarted(request);
    ListPageRequest page;
    page.rv = m_requestedRv;
    page.rvEmpty = m_requestedRvEmpty;
    page.limit = m_pageSize;
    sendPage(page, now);
}

void Reflector::sendPage(const ListPageRequest& page, TimeUs now) {
    m_continue = page.continueToken;
    m_rest.start(m_options.profile, RestRetries::Call::ListPage);
    m_resendAt = -1;
    m_requestStart = now;
    if (!page.isContinuePage())
        m_askedRv = page.rvEmpty ? 0 : page.rv;
    m_driver.sendListPage(page);
}

void Reflector::pageReceived(ResourceVersion pageRv, const std::string& continueToken, TimeUs now) {
    if (m_state != State::Listing)
        return;
    if (pageRv > 0 && m_continue.empty())
        m_listRv = pageRv; // the first page's RV is the list's
    if (!continueToken.empty()) {
        // Continue pages carry no RV: the token holds the first page's.
        m_paged = true;
        ListPageRequest next;
        next.rvEmpty = true;
        next.limit = m_pageSize;
        next.continueToken = continueToken;
        sendPage(next, now);
        return;
    }
    listFinished(now);
}

void Reflector::listFinished(TimeUs now) {
    // Only an RV="0" list says whether the resource has a watch cache: an RV="" one comes in
    // pages from etcd for every resource.
    if (m_listedFromZero && m_paged)
        m_paginatedResult = true;
    m_continue.clear();
    m_lastSyncRv = m_listRv;
    m_everSynced = true;
    m_rvUnavailable = false;
    // No backoff reset here: client-go's backoff forgets its failures only with time.
    m_driver.listed(m_listRv);
    startWatch(false, now);
}

bool Reflector::pagerRecovers(const ApiStatus& status, TimeUs now) {
    if (m_state != State::Listing ||
        !ClientProfile::pagerFallsBackToFullList(status, !m_continue.empty()))
        return false;
    // The continue token expired (etcd compacted past the first page's RV): one full list at
    // the RV it was asked for, without limit.
    m_listRv = m_requestedRv;
    ListPageRequest full;
    full.rv = m_requestedRv;
    full.rvEmpty = m_requestedRvEmpty;
    sendPage(full, now);
    return true;
}

void Reflector::listFailed(const ApiStatus& status, TimeUs now) {
    if (m_options.profile.relistsAtOnceWithEmptyRv(status, m_rvUnavailable)) {
        m_rvUnavailable = true;
        startList(now, true);
        return;
    }
    backoffThen(Next::ListAndWatch, now);
}

void Reflector::failed(TimeUs now) {
    backoffThen(Next::ListAndWatch, now);
}

void Reflector::startWatch(bool watchList, TimeUs now) {
    const auto timeout =
        static_cast<std::int64_t>(m_options.profile.watchTimeoutSecondsFrom(m_rng.uniform()));
    WatchRequest request;
    request.allowBookmarks = true;
    request.timeoutSeconds = timeout;
    request.sendInitialEvents = watchList;
    if (m_options.watchOnly) {
        // "Most recent": from the cache, or from etcd where RV="" watches go there.
        request.rvEmpty = true;
    } else {
        // A watch-list asks for reflector.rewatchResourceVersion: the last synced RV, "" before
        // the first sync and after a 410 or a too-large RV.
        request.rvEmpty = watchList && (m_rvUnavailable || m_lastSyncRv == 0);
    }
    request.rv = request.rvEmpty ? 0 : m_lastSyncRv;
    if (watchList && m_everSynced)
        ++m_relists;
    m_state = State::Watching;
    m_watchList = watchList;
    m_awaitingInitialEnd = watchList;
    m_watchEvents = 0;
    m_askedRv = request.rv;
    m_rest.start(m_options.profile, RestRetries::Call::Watch);
    m_resendAt = -1;
    m_requestStart = now; // "very short" counts from before the REST layer's retries
    m_driver.sendWatch(request);
}

bool Reflector::watchListFallsBackQuietly(const ApiStatus& status) const {
    return m_watchList && status.code == 422 && m_options.profile.watchListFallsBackToList(status);
}

void Reflector::watchRequestFailed(const ApiStatus& status, TimeUs now) {
    if (m_state != State::Watching)
        return;
    if (m_watchList) {
        if (watchListFallsBackQuietly(status)) {
            // The server has no watch-list (gate off): LIST + WATCH in this ListAndWatch.
            m_awaitingInitialEnd = false;
            startList(now);
            return;
        }
        watchListFailed(status, now);
        return;
    }
    backoffThen(m_options.profile.rewatchesAfterWatchRequestError(status, m_everSynced)
                    ? Next::Watch
                    : Next::ListAndWatch,
                now);
}

void Reflector::event(ResourceVersion rv, bool initial) {
    if (!initial)
        m_lastSyncRv = rv;
    ++m_watchEvents;
}

bool Reflector::bookmark(ResourceVersion rv, bool initialEventsEnd) {
    if (initialEventsEnd && m_awaitingInitialEnd) {
        m_awaitingInitialEnd = false;
        m_everSynced = true;
        m_rvUnavailable = false;
        m_lastSyncRv = rv;
        return true;
    }
    // A watch-list's RV stays its own until the initial-events-end bookmark.
    if (!m_awaitingInitialEnd)
        m_lastSyncRv = rv;
    return false;
}

void Reflector::watchErrorEvent(const ApiStatus& status, TimeUs now) {
    if (m_state != State::Watching)
        return;
    const ClientProfile& p = m_options.profile;
    if (p.watchExpiredRelistsFromEmpty && p.isExpired(status))
        m_rvUnavailable = true; // 0.17.0
    if (m_awaitingInitialEnd) {
        // handleListWatch returns the ERROR event's status at once.
        watchListFailed(status, now);
        return;
    }
    // A 429 backs off and watches again from the last RV; any other watch error ends
    // ListAndWatch: back off, relist from the last synced RV (a 410 does not make it RV="").
    backoffThen(p.rewatchesAfterWatchErrorEvent(status) ? Next::Watch : Next::ListAndWatch, now);
}

void Reflector::watchEnded(TimeUs now) {
    if (m_state != State::Watching)
        return;
    const bool veryShort = ClientProfile::isVeryShortWatch(now - m_requestStart, m_watchEvents);
    if (m_awaitingInitialEnd) {
        // A watch-list that ended before its initial-events-end bookmark is opened again at
        // once; a very short one is an error (ApiStatus code 0, no reason).
        if (veryShort) {
            watchListFailed(ApiStatus{}, now);
            return;
        }
        startWatch(true, now);
        return;
    }
    if (veryShort) {
        // "very short watch": an error, ListAndWatch returns and relists.
        backoffThen(Next::ListAndWatch, now);
        return;
    }
    if (!m_everSynced) {
        startListAndWatch(now); // a watch-only client watches from RV="" again
        return;
    }
    // A clean close, or a broken stream, re-watches at once from the last synced RV.
    startWatch(false, now);
}

void Reflector::watchListFailed(const ApiStatus& status, TimeUs now) {
    // reflector.watchList retries some errors itself; the rest end the watch-list, and
    // ListAndWatch either falls back to LIST + WATCH (0.29+: any error; 0.27-0.28: a 422) or
    // returns the error, to back off and try the watch-list again. A fallback is no anomaly.
    const ClientProfile& p = m_options.profile;
    m_awaitingInitialEnd = false;
    switch (p.watchListRetries(status)) {
    case ClientProfile::WatchListRetry::AfterBackoff:
        backoffThen(Next::WatchList, now);
        return;
    case ClientProfile::WatchListRetry::AtOnceWithEmptyRv:
        // Every time (isErrorRetriableWithSideEffectsFn in reflector.watchList, 0.27+): RV=""
        // cannot be too old or too large, so the next one is served.
        m_rvUnavailable = true;
        startWatch(true, now);
        return;
    case ClientProfile::WatchListRetry::No:
        break;
    }
    if (p.watchListFallsBackToList(status)) {
        startList(now);
        return;
    }
    backoffThen(Next::ListAndWatch, now);
}

} // namespace ws

#include "ClusterReflector.h"

#include "detect/DetectorHub.h"
#include "engine/EventJournal.h"
#include "http/HttpFrameKind.h"
#include "http/HttpFrameRecords.h"
#include "model/Anomaly.h"
#include "model/Deadline.h"
#include "proto/ProtoListDecoder.h"
#include "proto/WireFormat.h"
#include "util/OneLine.h"
#include "json/StatusJson.h"

#include <QUrlQuery>
#include <algorithm>

namespace ws {

namespace {
// The cacher sends each bookmark-enabled watch a bookmark every minute (its bookmark frequency;
// kube-apiserver 1.35.4 measured 60.1 s apart), but only once its resource's cache RV passed the
// RV the watch was served from: until then a watch of a quiet resource may get no byte for as long
// as etcd sends no progress notification (cacheWatcher.process). Once they are due, a watch silent
// for this long is on a connection that died unseen (a middlebox dropped it without a reset that
// TCP keep-alive, after 30 s idle and 30 s apart, would bring; the transport sends no HTTP/2
// PING): it is cut and watched again, as client-go does once its PING finds the connection dead,
// well before timeoutSeconds (at least 5 min) would end it. Two bookmarks may go missing (a watcher
// whose buffer is full skips one) before it is cut.
constexpr TimeUs kQuietWatchLimit = seconds(150);

ApiStatus transportStatus(HttpErrorKind kind, const QString& message) {
    ApiStatus s;
    s.code = 0;
    s.reason = kind == HttpErrorKind::ConnectionRefused ? QStringLiteral("ConnectionRefused")
                                                        : httpErrorKindName(kind);
    s.message = message;
    return s;
}
} // namespace

ClusterReflector::ClusterReflector(Config config, DetectorHub& hub, KeyTable& keys, Submit submit,
                                   Cancel cancel, NextId nextId, std::uint64_t seed)
    : m_config(std::move(config)), m_hub(hub), m_keys(keys), m_submit(std::move(submit)),
      m_cancel(std::move(cancel)), m_nextId(std::move(nextId)), m_rng(seed),
      m_reflector(Reflector::Options{m_config.profile}, *this, m_rng), m_presence(keys),
      m_keyPrefix("/registry/" + m_config.resource.plural.toStdString() + '/') {
    m_server = m_config.firstServer;
    WatcherInfo info;
    info.id = m_config.id;
    info.resource = m_config.resource.qualifiedName();
    info.layer = WatchLayer::Apiserver;
    m_hubId = m_hub.registerWatcher(info);
    if (m_config.journal)
        m_journalWatcher = m_config.journal->addWatcher(m_config.id);
}

ClusterReflector::~ClusterReflector() = default;

QString ClusterReflector::collectionPath() const {
    return m_config.resource.collectionPath(m_config.ns);
}

KeyId ClusterReflector::keyOf(const std::string& ns, const std::string& name, bool present) {
    std::string& key = m_keyText;
    key.assign(m_keyPrefix);
    if (!ns.empty()) {
        key += ns;
        key += '/';
    }
    key += name;
    return present ? m_presence.present(key) : m_presence.absent(key, m_event.resourceVersion);
}

void ClusterReflector::start(TimeUs now) {
    m_now = now;
    m_reflector.start(now);
}

void ClusterReflector::stop(TimeUs now) {
    m_now = now;
    if (m_request >= 0)
        m_cancel(m_server, m_request);
    if (m_reflector.watching() && m_watchAccepted)
        m_hub.watchClosed(m_hubId, now, WatchCloseReason::ClientCancelled);
    m_hub.watcherStopped(m_hubId, now);
    m_request = -1;
    m_reflector.stop();
}

void ClusterReflector::send(HttpRequest request, TimeUs now, bool retry) {
    if (m_config.roams && m_config.servers.size() > 1)
        m_server = (m_server + 1) % static_cast<int>(m_config.servers.size());
    request.id = m_nextId();
    m_request = request.id;
    m_httpStatus = 0;
    m_credentialReplaced = false;
    m_errorBody.clear();
    m_retryWait.reset();
    // The watch's timeoutSeconds runs on the server from the request that got through.
    if (retry && m_phase == Phase::Watch)
        m_watchDeadline = now + seconds(m_watchTimeout);
    m_sent = request;
    m_submit(m_server, std::move(request));
}

void ClusterReflector::abandon() {
    if (m_request >= 0)
        m_cancel(m_server, m_request);
    m_request = -1;
    m_phase = Phase::None;
    m_retryWait.reset();
}

void ClusterReflector::resend() {
    send(m_sent, m_now, true);
}

void ClusterReflector::listStarted(const ListRequest& list) {
    m_hub.listStarted(m_hubId, m_now, list);
}

void ClusterReflector::sendListPage(const ListPageRequest& page) {
    m_phase = Phase::List;
    if (!page.isContinuePage())
        m_listItems = 0; // a new list, or the pager's full list after a 410 on a continue page
    QUrlQuery q;
    if (page.isContinuePage()) {
        // Continue pages carry no RV: the token holds the first page's.
        q.addQueryItem(QStringLiteral("continue"), QString::fromStdString(page.continueToken));
        if (page.limit > 0)
            q.addQueryItem(QStringLiteral("limit"), QString::number(page.limit));
    } else {
        if (page.limit > 0)
            q.addQueryItem(QStringLiteral("limit"), QString::number(page.limit));
        if (!page.rvEmpty)
            q.addQueryItem(QStringLiteral("resourceVersion"), QString::number(page.rv));
    }
    HttpRequest r;
    r.pathAndQuery = collectionPath() + u'?' + q.toString(QUrl::FullyEncoded);
    r.accept = accept();
    send(std::move(r), m_now);
}

QByteArray ClusterReflector::accept() const {
    return wire::accept(m_config.profile.protobufWire ? WireFormat::Protobuf : WireFormat::Json,
                        m_config.resource);
}

void ClusterReflector::sendWatch(const WatchRequest& request) {
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("allowWatchBookmarks"), QStringLiteral("true"));
    if (!request.rvEmpty)
        q.addQueryItem(QStringLiteral("resourceVersion"), QString::number(request.rv));
    if (request.sendInitialEvents) {
        q.addQueryItem(QStringLiteral("resourceVersionMatch"), QStringLiteral("NotOlderThan"));
        q.addQueryItem(QStringLiteral("sendInitialEvents"), QStringLiteral("true"));
    }
    q.addQueryItem(QStringLiteral("timeoutSeconds"), QString::number(request.timeoutSeconds));
    q.addQueryItem(QStringLiteral("watch"), QStringLiteral("true"));
    // The detectors hear of the watch once the server accepts it (onHead), as of a refused one
    // by its error only.
    m_watchRequest = request;
    m_watchAccepted = false;
    // A new stream: the ids of keys deleted on the last one need not wait for its duplicates.
    m_liveRv = 0;
    m_presence.flush();
    m_phase = Phase::Watch;
    m_watchError.reset();
    if (request.sendInitialEvents)
        m_presence.beginList();
    m_watchTimeout = request.timeoutSeconds;
    m_watchDeadline = m_now + seconds(request.timeoutSeconds);
    m_lastByteAt = m_now;
    m_watchStartRv = request.rv; // a watch-list's: its initial-events-end bookmark's
    m_bookmarksDue = false;
    m_quietCut = false;
    m_streamFrom = m_reflector.lastSyncRv();
    m_splitter.reset();
    m_frames.reset();
    m_protoStream = false;
    HttpRequest r;
    r.pathAndQuery = collectionPath() + u'?' + q.toString(QUrl::FullyEncoded);
    r.accept = accept();
    r.streaming = true;
    send(std::move(r), m_now);
}

// A timer added here goes into nextDue() too: the session polls no sooner than it says.
void ClusterReflector::tick(TimeUs now) {
    m_now = now;
    m_reflector.tick(now);
    // The server ends the watch at timeoutSeconds; a server that does not is cut off a little
    // later, as client-go's request timeout would.
    if (m_reflector.watching() && m_request >= 0 && m_request != m_cutOff &&
        now > m_watchDeadline + seconds(5)) {
        m_cutOff = m_request; // once: its end comes as a frame
        m_cancel(m_server, m_request);
    }
    if (m_reflector.watching() && m_request >= 0 && m_httpStatus == 200 && m_bookmarksDue &&
        !m_quietCut && now - m_lastByteAt > kQuietWatchLimit) {
        m_quietCut = true;
        m_cancel(m_server, m_request);
    }
}

TimeUs ClusterReflector::nextDue() const {
    TimeUs due = m_reflector.nextDue();
    if (m_reflector.watching() && m_request >= 0 && m_request != m_cutOff)
        due = std::min(due, m_watchDeadline + seconds(5) + 1);
    if (m_reflector.watching() && m_request >= 0 && m_httpStatus == 200 && m_bookmarksDue &&
        !m_quietCut)
        due = std::min(due, m_lastByteAt + kQuietWatchLimit + 1);
    return due;
}

RestRetries::Failure ClusterReflector::failureOf(HttpErrorKind error) {
    switch (error) {
    case HttpErrorKind::ConnectionClosed:
        return RestRetries::Failure::ConnectionClosed;
    case HttpErrorKind::Timeout:
        return RestRetries::Failure::Timeout;
    default:
        return RestRetries::Failure::Other;
    }
}

void ClusterReflector::onFrame(const Frame& frame, TimeUs now) {
    m_now = now;
    if (frame.connection != m_request)
        return; // a superseded request's late frames
    switch (static_cast<HttpFrameKind>(frame.kind)) {
    case HttpFrameKind::RequestSent:
        break;
    case HttpFrameKind::ResponseHead: {
        HttpResponseHead head;
        if (decodeHttpRecord(frame.bytes, &head))
            onHead(head, now);
        break;
    }
    case HttpFrameKind::BodyChunk:
        onBody(frame.bytes, now);
        break;
    case HttpFrameKind::ResponseEnd: {
        HttpResponseEnd end;
        if (!decodeHttpRecord(frame.bytes, &end))
            end.error = HttpErrorKind::ProtocolError;
        onEnd(end.error, end.message, now);
        break;
    }
    }
}

void ClusterReflector::onHead(const HttpResponseHead& head, TimeUs now) {
    const int status = head.status;
    const QByteArray contentType = head.header("Content-Type");
    const QByteArray retryAfter = head.header("Retry-After");
    m_httpStatus = status;
    m_credentialReplaced = head.credentialReplaced;
    // Past authorization: whatever the stream then holds (an in-stream ERROR of a watch-list
    // the storage cannot serve), this informer is not refused.
    if (status == 200)
        m_answered = true;
    if (m_phase == Phase::List || m_phase == Phase::Watch) {
        // rest.Request's checkWait: a 429/5xx with a Retry-After in whole seconds is read away
        // and sent again, up to its retry limit; the reflector sees only the last answer.
        bool numeric = false;
        const int wait = retryAfter.trimmed().toInt(&numeric);
        if (const auto after = m_reflector.retryAfterAnswer(status, numeric ? std::optional(wait)
                                                                            : std::nullopt)) {
            m_retryWait = after;
            return;
        }
    }
    if (m_phase == Phase::Watch && status == 200) {
        m_watchAccepted = true;
        m_hub.watchOpened(m_hubId, now, m_watchRequest);
    }
    if (m_phase == Phase::Watch) {
        m_protoStream = wire::isProtobuf(contentType);
        m_lastByteAt = now;
    }
    if (m_phase == Phase::List && status == 200) {
        m_listed.clear();
        // The view is replaced by the whole list: the first page begins it, a continue page
        // adds to it.
        if (!m_reflector.onContinuePage())
            m_presence.beginList();
        const auto onItem = [this](std::string_view, const ListItemMeta& meta) {
            ObservedEvent o;
            o.type = WatchEventType::Added;
            o.key = keyOf(meta.ns, meta.name, true);
            o.rv = meta.resourceVersion;
            o.initial = true;
            m_listed.push_back(o);
        };
        m_list.reset();
        m_protoList.reset();
        if (wire::isProtobuf(contentType))
            m_protoList = std::make_unique<ProtoListDecoder>(onItem);
        else
            m_list = std::make_unique<ListStreamDecoder>(onItem);
    }
}

void ClusterReflector::streamError(const QString& message, TimeUs now) {
    Anomaly a;
    a.time = now;
    a.kind = AnomalyKind::StreamError;
    a.severity = Severity::Error;
    a.source = AnomalySource::Apiserver;
    a.resource = m_config.resource.qualifiedName();
    a.watcher = m_config.id;
    a.message = message;
    m_hub.report(a);
}

void ClusterReflector::onBody(const QByteArray& bytes, TimeUs now) {
    if (m_httpStatus != 200) {
        // A Status body (one the REST layer retries too: the detectors read it): small; keep a
        // bounded amount.
        if (m_errorBody.size() < 64 * 1024)
            m_errorBody += bytes;
        return;
    }
    if (m_phase == Phase::List && (m_list || m_protoList)) {
        const auto size = static_cast<std::size_t>(bytes.size());
        if (!(m_list ? m_list->feed(bytes.constData(), size)
                     : m_protoList->feed(bytes.constData(), size))) {
            const QString why = m_list ? m_list->error() : m_protoList->error();
            streamError(QStringLiteral("malformed list body from %1: %2").arg(serverName(), why),
                        now);
            m_hub.listFailed(m_hubId, now,
                             transportStatus(HttpErrorKind::ProtocolError, why)
                                 .toObserved(m_reflector.listRv(), serverName()));
            m_reflector.failed(now);
            return;
        }
        if (!m_listed.empty()) {
            m_hub.listedObjects(m_hubId, m_listed);
            m_listItems += static_cast<std::int64_t>(m_listed.size());
            m_listed.clear();
        }
        return;
    }
    if (m_phase != Phase::Watch)
        return;
    m_lastByteAt = now;
    const auto onEvent = [this, now](std::string_view event) { watchEvent(event, now); };
    const auto size = static_cast<std::size_t>(bytes.size());
    const bool ok = m_protoStream ? m_frames.feed(bytes.constData(), size, onEvent)
                                  : m_splitter.feed(bytes.constData(), size, onEvent);
    flushEvents(now);
    if (m_watchError) {
        // The watch handler returns the ERROR event's status at once, and stops the watch.
        const ApiStatus status = *std::exchange(m_watchError, std::nullopt);
        m_cancel(m_server, m_request);
        m_request = -1;
        m_phase = Phase::None;
        m_hub.watchClosed(m_hubId, now, WatchCloseReason::AfterError);
        m_reflector.watchErrorEvent(status, now);
        return;
    }
    if (!ok) {
        streamError(QStringLiteral("malformed watch stream from %1: %2")
                        .arg(serverName(), m_protoStream ? m_frames.error() : m_splitter.error()),
                    now);
        m_hub.watchClosed(m_hubId, now, WatchCloseReason::Broken);
        m_reflector.failed(now);
    }
}

void ClusterReflector::watchEvent(std::string_view bytes, TimeUs now) {
    if (m_phase != Phase::Watch || !m_reflector.watching() || m_watchError)
        return;
    QString error;
    const bool decoded = m_protoStream ? m_protoDecoder.decode(bytes, &m_event, &error)
                                       : m_decoder.decode(bytes, &m_event, &error);
    if (!decoded) {
        flushEvents(now);
        streamError(QStringLiteral("undecodable watch event from %1: %2").arg(serverName(), error),
                    now);
        return;
    }
    switch (m_event.type) {
    case WatchEventType::Added:
    case WatchEventType::Modified:
    case WatchEventType::Deleted: {
        ObservedEvent& o = m_pending.emplace_back();
        o.type = m_event.type;
        o.key = keyOf(m_event.ns, m_event.name, m_event.type != WatchEventType::Deleted);
        o.rv = m_event.resourceVersion;
        o.initial = m_reflector.awaitingInitialEnd();
        m_reflector.event(o.rv, o.initial);
        if (!o.initial) {
            m_bookmarksDue = m_bookmarksDue || o.rv > m_watchStartRv;
            m_liveRv = std::max(m_liveRv, o.rv);
            progressTo(o.rv);
            if (o.rv > m_highestEvent) {
                m_highestEvent = o.rv;
                m_highestEventAt = now;
            }
        }
        m_highest = std::max(m_highest, o.rv);
        ++m_events;
        m_lastEventAt = now;
        if (m_config.journal)
            journalEvent(o, bytes, now);
        break;
    }
    case WatchEventType::Bookmark: {
        flushEvents(now);
        const bool wasAwaiting = m_reflector.awaitingInitialEnd();
        if (m_reflector.bookmark(m_event.resourceVersion, m_event.initialEventsEnd)) {
            m_answered = true;
            syncedAt(m_event.resourceVersion, now);
            m_streamFrom = m_event.resourceVersion;
            m_watchStartRv = m_event.resourceVersion;
            m_presence.endList();
            m_presence.flush();
        } else if (!wasAwaiting) {
            progressTo(m_event.resourceVersion);
            m_bookmarksDue = m_bookmarksDue || m_event.resourceVersion > m_watchStartRv;
        }
        m_highest = std::max(m_highest, m_event.resourceVersion);
        m_hub.watchProgress(m_hubId, now, m_event.resourceVersion, m_event.initialEventsEnd);
        break;
    }
    case WatchEventType::Error:
        flushEvents(now);
        noteTrouble(m_event.status);
        m_hub.watchError(m_hubId, now,
                         m_event.status.toObserved(m_reflector.lastSyncRv(), serverName()));
        m_watchError = m_event.status; // acted on once the chunk is read (onBody)
        break;
    }
}

void ClusterReflector::journalEvent(const ObservedEvent& o, std::string_view bytes, TimeUs now) {
    EventJournal& journal = *m_config.journal;
    if (!journal.hasKey(o.key))
        journal.describeKey(o.key, m_keys.key(o.key), m_config.resource.qualifiedName(),
                            QString::fromStdString(m_event.ns),
                            QString::fromStdString(m_event.name));
    EventJournal::Event e;
    e.time = now;
    e.type = o.type;
    e.key = o.key;
    e.rv = o.rv;
    e.size = static_cast<std::uint32_t>(bytes.size());
    e.watcher = m_journalWatcher;
    e.hasObject = true;
    e.object = m_event.object;
    journal.append(e);
}

void ClusterReflector::flushEvents(TimeUs now) {
    if (m_pending.empty())
        return;
    m_hub.watchResponse(m_hubId, now, m_pending);
    m_pending.clear();
    m_presence.flush(m_liveRv);
}

ApiStatus ClusterReflector::statusFromBody(int httpStatus) const {
    QString error;
    auto parsed = parseStatusJson(
        std::string_view(m_errorBody.constData(), static_cast<std::size_t>(m_errorBody.size())),
        &error);
    if (parsed)
        return *parsed;
    // A protobuf request's error may come as a protobuf Status.
    parsed = ProtoWatchEventDecoder::decodeStatus(
        std::string_view(m_errorBody.constData(), static_cast<std::size_t>(m_errorBody.size())),
        &error);
    if (parsed)
        return *parsed;
    // Not a Status (a proxy's HTML page): the HTTP status is all there is.
    ApiStatus s;
    s.code = httpStatus;
    s.reason = QStringLiteral("Unknown");
    s.message = QStringLiteral("HTTP %1 with a body that is not a Status").arg(httpStatus);
    return s;
}

void ClusterReflector::onEnd(HttpErrorKind error, const QString& message, TimeUs now) {
    const Phase phase = m_phase;
    m_request = -1;
    if (!m_retryWait && m_httpStatus == 0 && (phase == Phase::List || phase == Phase::Watch))
        m_retryWait = m_reflector.retryAfterFailure(failureOf(error));
    if (m_retryWait) {
        // The REST layer read the answer away; it sends the request again after Retry-After.
        if (m_httpStatus != 0)
            m_hub.requestRetried(m_hubId, now,
                                 statusFromBody(m_httpStatus)
                                     .toObserved(phase == Phase::List ? m_reflector.listRv()
                                                                      : m_reflector.lastSyncRv(),
                                                 serverName()));
        ++m_httpRetries;
        m_reflector.resendAfter(*std::exchange(m_retryWait, std::nullopt), now);
        return;
    }
    if (phase == Phase::List) {
        if (error != HttpErrorKind::None) {
            const ApiStatus failure = transportStatus(error, message);
            noteTrouble(failure);
            m_hub.listFailed(m_hubId, now, failure.toObserved(m_reflector.listRv(), serverName()));
            m_reflector.listFailed(failure, now);
            return;
        }
        if (m_httpStatus != 200) {
            listError(statusFromBody(m_httpStatus), now);
            return;
        }
        const bool finished = m_list ? m_list->finish() : m_protoList && m_protoList->finish();
        if (!finished) {
            const QString why = m_list        ? m_list->error()
                                : m_protoList ? m_protoList->error()
                                              : QStringLiteral("no body");
            streamError(QStringLiteral("malformed list body from %1: %2").arg(serverName(), why),
                        now);
            m_hub.listFailed(m_hubId, now,
                             transportStatus(HttpErrorKind::ProtocolError, why)
                                 .toObserved(m_reflector.listRv(), serverName()));
            m_reflector.failed(now);
            return;
        }
        if (!m_listed.empty()) {
            m_hub.listedObjects(m_hubId, m_listed);
            m_listItems += static_cast<std::int64_t>(m_listed.size());
            m_listed.clear();
        }
        const ListSummary& summary = m_list ? m_list->summary() : m_protoList->summary();
        const ResourceVersion pageRv = summary.resourceVersion;
        const std::string continueToken = summary.continueToken;
        m_reflector.pageReceived(pageRv, continueToken, now);
        return;
    }
    if (phase != Phase::Watch)
        return;
    m_phase = Phase::None;
    if (m_httpStatus != 200) {
        // Refused by the server, or the request itself failed (connection refused, TLS, reset).
        watchRequestError(m_httpStatus != 0 ? statusFromBody(m_httpStatus)
                                            : transportStatus(error, message),
                          now);
        return;
    }
    flushEvents(now);
    const bool quiet = std::exchange(m_quietCut, false);
    if (quiet)
        noteTrouble(transportStatus(
            HttpErrorKind::Timeout,
            QStringLiteral("no event or bookmark from %1 for %2 s on a watch due a bookmark every "
                           "minute")
                .arg(serverName())
                .arg(kQuietWatchLimit / seconds(1))));
    else if (error != HttpErrorKind::None && error != HttpErrorKind::Cancelled)
        noteTrouble(transportStatus(error, message));
    WatchCloseReason reason;
    if (quiet)
        reason = WatchCloseReason::Broken;
    else if (error == HttpErrorKind::Cancelled || now >= m_watchDeadline - seconds(1))
        reason = WatchCloseReason::ClientTimeout;
    else if (error != HttpErrorKind::None)
        reason = WatchCloseReason::Broken;
    else
        reason = WatchCloseReason::ServerClosed;
    m_hub.watchClosed(m_hubId, now, reason);
    m_reflector.watchEnded(now);
}

void ClusterReflector::listed(ResourceVersion rv) {
    syncedAt(rv, m_now);
    m_highest = std::max(m_highest, rv);
    m_answered = true;
    m_hub.listCompleted(m_hubId, m_now, rv, m_listItems);
    m_presence.endList();
    m_presence.flush();
    m_list.reset();
    m_protoList.reset();
}

void ClusterReflector::listError(const ApiStatus& status, TimeUs now) {
    m_answered = true;
    noteTrouble(status);
    if (m_reflector.pagerRecovers(status, now))
        return;
    m_hub.listFailed(m_hubId, now, status.toObserved(m_reflector.lastSyncRv(), serverName()));
    if ((status.code == 401 && !m_credentialReplaced) || status.code == 403) {
        // Retrying cannot help: the source decides whether anything is left to watch. (A 401
        // whose exec credential the transport replaces is an error like any other: client-go
        // backs off and relists with the new one.)
        m_rejected = status;
        m_request = -1;
        m_phase = Phase::None;
        m_reflector.stop();
        m_hub.watcherStopped(m_hubId, now);
        return;
    }
    m_reflector.listFailed(status, now);
}

void ClusterReflector::watchRequestError(const ApiStatus& status, TimeUs now) {
    // A watch-list the server does not have (gate off) falls back to LIST: an error the watcher
    // counts, no trouble that could explain a gap.
    if (!m_reflector.watchListFallsBackQuietly(status))
        noteTrouble(status);
    m_hub.watchError(m_hubId, now, status.toObserved(m_reflector.lastSyncRv(), serverName()));
    m_reflector.watchRequestFailed(status, now);
}

void ClusterReflector::progressTo(ResourceVersion rv) {
    if (!m_account.begun() || rv <= m_streamFrom) {
        m_streamFrom = std::max(m_streamFrom, rv);
        return;
    }
    m_account.seen(RevisionRange{m_streamFrom + 1, rv});
    m_streamFrom = rv;
    m_accounted = std::max(m_accounted, rv);
    m_troubles.clear();
}

void ClusterReflector::noteTrouble(const ApiStatus& status) {
    // The code and reason name the answer; the message says which 410/429/504 (and what a
    // transport error was: "other" alone says nothing).
    QString what = status.code > 0 ? QStringLiteral("%1 %2").arg(status.code).arg(status.reason)
                                   : status.reason;
    if ((status.code == 0 || status.code == 410 || status.code == 429 || status.code == 504) &&
        !status.message.isEmpty())
        what += QStringLiteral(" (%1)").arg(oneLine(status.message.left(100)));
    if (!m_troubles.empty() && m_troubles.back().what == what) {
        ++m_troubles.back().count;
        return;
    }
    constexpr std::size_t kTroublesKept = 6; // the first and the latest
    if (m_troubles.size() == kTroublesKept)
        m_troubles.erase(m_troubles.begin() + 1);
    m_troubles.push_back({what, 1});
}

void ClusterReflector::syncedAt(ResourceVersion rv, TimeUs now) {
    if (rv <= 0)
        return;
    if (!m_account.begun()) {
        // The first sync: from here on every revision is owed.
        m_account.begin(rv + 1);
        m_accounted = rv;
        m_troubles.clear();
        return;
    }
    m_account.noteHead(rv);
    if (rv <= m_accounted)
        return; // a list no newer than what the watch delivered: nothing skipped
    const std::vector<RevisionRange> lost = m_account.lose(RevisionRange{m_accounted + 1, rv});
    m_accounted = rv;
    if (lost.empty())
        return;
    // RVs are etcd's revisions, one counter for every resource of the cluster: how many of
    // those in the range were this resource's writes, if any, no client can tell. What is a fact
    // is that the watch delivered nothing past the range's start and the list holds only the net
    // effect of whatever happened in it.
    QStringList ranges;
    for (const RevisionRange& r : lost)
        ranges << (r.first == r.last ? QString::number(r.first)
                                     : QStringLiteral("%1..%2").arg(r.first).arg(r.last));
    QStringList causes;
    for (const Trouble& t : m_troubles)
        causes << (t.count > 1 ? QStringLiteral("%1 x %2").arg(t.count).arg(t.what) : t.what);
    Anomaly a;
    a.time = now;
    a.kind = AnomalyKind::RevisionGap;
    a.severity = Severity::Warning;
    a.source = AnomalySource::Apiserver;
    a.resource = m_config.resource.qualifiedName();
    a.watcher = m_config.id;
    a.rv = rv;
    a.message = QStringLiteral("events of %1 at RVs %2 (if any: RVs count every resource's "
                               "writes) not received: relisted at %3 from %4%5; the list holds "
                               "only their net effect")
                    .arg(m_config.resource.qualifiedName(), ranges.join(QStringLiteral(", ")))
                    .arg(rv)
                    .arg(serverName(),
                         causes.isEmpty()
                             ? QString()
                             : QStringLiteral(" after ") + causes.join(QStringLiteral(", then ")));
    m_hub.report(a);
    m_troubles.clear();
}

} // namespace ws

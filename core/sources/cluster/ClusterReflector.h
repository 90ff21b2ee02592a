#pragma once

#include "detect/RevisionAccount.h"
#include "http/HttpFrameKind.h"
#include "http/HttpRequest.h"
#include "kube/ApiStatus.h"
#include "kube/Backoff.h"
#include "kube/ClientProfile.h"
#include "kube/ResourceCatalog.h"
#include "kube/RestRetries.h"
#include "model/Frame.h"
#include "model/KeyPresence.h"
#include "model/Observation.h"
#include "proto/LengthDelimitedSplitter.h"
#include "proto/ProtoWatchEventDecoder.h"
#include "util/SeededRandom.h"
#include "json/JsonObjectSplitter.h"
#include "json/ListStreamDecoder.h"
#include "json/WatchEventDecoder.h"

#include <QStringList>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace ws {

class DetectorHub;
struct HttpResponseHead;
class ProtoListDecoder;
class EventJournal;
class KeyTable;

// One informer's reflector against real apiservers over HTTP, with the semantics of a client-go
// version (ClientProfile): LIST with the pager (500 a page, continue tokens), WATCH from the
// list RV with bookmarks and a random timeoutSeconds in [300, 600), a watch-list at the start of
// every ListAndWatch of a watch-list client with its fallback to LIST for that cycle, the relist
// RV rules after 410/504, backoff, and rest.Request's own Retry-After retries below all that. It
// only describes what it sees to the detectors. With several apiservers it moves to the next one on
// every new connection, as a client behind a load balancer does.
//
// Requests go out through `submit`; the frames of those requests come back through onFrame()
// (the source routes them by request id). Runs on the session thread.
class ClusterReflector {
public:
    struct Config {
        QString id; // watcher id shown to users: "informer/configmaps@apiserver-1"
        ResourceInfo resource;
        QString ns; // lists and watches in this namespace; empty: the whole cluster
        ClientProfile profile;
        QStringList servers; // names, one per transport index
        int firstServer = 0;
        bool roams = false; // moves to the next apiserver on every new request
        // Records every ADDED/MODIFIED/DELETED the watch receives, object JSON as received
        // (bookmarks and errors are not events of an object: not recorded). May be null.
        EventJournal* journal = nullptr;
    };
    using Submit = std::function<void(int server, HttpRequest request)>;
    using Cancel = std::function<void(int server, int requestId)>;
    using NextId = std::function<int()>;

    ClusterReflector(Config config, DetectorHub& hub, KeyTable& keys, Submit submit, Cancel cancel,
                     NextId nextId, std::uint64_t seed);
    ~ClusterReflector();

    void start(TimeUs now);
    void onFrame(const Frame& frame, TimeUs now);
    // Timers: backoff, and the client's own watch timeout.
    void tick(TimeUs now);
    // The earliest time tick() has something to do (kNoDeadline: nothing until a frame).
    TimeUs nextDue() const;
    void stop(TimeUs now);
    bool owns(int requestId) const { return requestId == m_request; }

    const Config& config() const { return m_config; }
    WatcherId hubId() const { return m_hubId; }
    ResourceVersion resourceVersion() const { return m_lastSyncRv; }
    ResourceVersion highestSeen() const { return m_highest; }
    QString stateName() const;
    QString serverName() const { return m_config.servers.value(m_server); }
    int serverIndex() const { return m_server; }
    std::int64_t eventsReceived() const { return m_events; }
    int relists() const { return m_relists; }
    // Requests sent again by the REST layer after a 429/5xx with Retry-After, or a connection
    // closed before any answer (client-go's rest_client_request_retries_total): the reflector
    // above never saw those answers.
    int httpRetries() const { return m_httpRetries; }
    // The objects its store holds: the keys of its view (a list or a watch-list's initial events
    // replace them at their end).
    std::int64_t objects() const { return static_cast<std::int64_t>(m_presence.size()); }
    TimeUs lastEventAt() const { return m_lastEventAt; }
    // The highest RV of a live event (not an initial one) it received, and when: an RV its
    // resource's watch cache had an event at.
    ResourceVersion highestEvent() const { return m_highestEvent; }
    TimeUs highestEventAt() const { return m_highestEventAt; }
    // The server refused this client (401 or 403 on its LIST): it stopped and will not retry.
    const std::optional<ApiStatus>& rejected() const { return m_rejected; }
    // The server answered a LIST (200 or an error) or let a watch through (200): whether the
    // informer is refused is known. A refused watch-list is not that answer: a LIST follows.
    bool answered() const { return m_answered; }
    // Every revision since the first sync, seen (a watch event, or a bookmark proving nothing
    // of this resource happened up to its RV) or lost (a relist past what the watch had
    // delivered, reported as a revision-gap). Revisions of other resources between two events
    // count as seen: the watch guarantees it delivered everything of its own in between.
    const RevisionAccount& account() const { return m_account; }

private:
    enum class State { Idle, Listing, Watching, Backoff, Stopped };
    // After a backoff: a new ListAndWatch (watch-list or LIST), a re-watch, or the watch-list
    // loop's own retry (a 429 or refused watch-list).
    enum class Next { ListAndWatch, Watch, WatchList };
    enum class Phase { None, List, Watch };

    // reflector.ListAndWatch: a watch-list for a watch-list client, else a LIST.
    void startListAndWatch(TimeUs now);
    // The LIST of this ListAndWatch: a new pager.List. `retry`: the reflector's RV="" list after
    // a 410 or a too-large RV, on the same pager (its page size).
    void startList(TimeUs now, bool retry = false);
    // The next request of the pager: its first page (or only page), a continue page, or its full
    // list after a 410 on a continue page.
    void sendListPage(TimeUs now);
    void startWatch(bool watchList, TimeUs now);
    void backoffThen(Next next, TimeUs now);
    Backoff& backoffFor(Next next);
    // retry: the REST layer sends the request in flight again (its attempt count goes on).
    void send(HttpRequest request, TimeUs now, bool retry = false);
    void onHead(const HttpResponseHead& head, TimeUs now);
    void onBody(const QByteArray& bytes, TimeUs now);
    void onEnd(HttpErrorKind error, const QString& message, TimeUs now);
    static RestRetries::Failure failureOf(HttpErrorKind error);
    void listFinished(TimeUs now);
    void listError(const ApiStatus& status, TimeUs now);
    void watchRequestError(const ApiStatus& status, TimeUs now);
    // A watch-list ended before its initial-events-end bookmark with `status` (its request
    // refused, an ERROR event, a very short stream): retried by the watch-list loop, a LIST in
    // this ListAndWatch, or ListAndWatch returns the error.
    void watchListFailed(const ApiStatus& status, TimeUs now);
    // One event as received: a JSON object, or a protobuf frame (m_protoStream).
    void watchEvent(std::string_view bytes, TimeUs now);
    void journalEvent(const ObservedEvent& o, std::string_view bytes, TimeUs now);
    void flushEvents(TimeUs now);
    void streamError(const QString& message, TimeUs now);
    // The watch delivered everything of this resource up to `rv`.
    void progressTo(ResourceVersion rv);
    // A list (or the initial events of a watch-list) ended at `rv`: the revisions between what
    // was accounted for and it were not seen as events.
    void syncedAt(ResourceVersion rv, TimeUs now);
    // What went wrong since the last progress, for the revision-gap message.
    void noteTrouble(const ApiStatus& status);
    // The key's id, held while the key is present in this informer's view (KeyPresence).
    KeyId keyOf(const std::string& ns, const std::string& name, bool present);
    QString collectionPath() const;
    // The Accept header of its LISTs and WATCHes (--wire, proto/WireFormat.h).
    QByteArray accept() const;
    ApiStatus statusFromBody(int httpStatus) const;

    Config m_config;
    DetectorHub& m_hub;
    KeyTable& m_keys;
    Submit m_submit;
    Cancel m_cancel;
    NextId m_nextId;
    SeededRandom m_rng;
    Backoff m_backoff;        // after ListAndWatch returned (ClientProfile::relistBackoff)
    Backoff m_rewatchBackoff; // before a re-watch, 0.27 and older (oneBackoffManager)
    WatcherId m_hubId = -1;
    std::uint16_t m_journalWatcher = 0;
    State m_state = State::Idle;
    Next m_next = Next::ListAndWatch;
    TimeUs m_retryAt = 0;
    int m_server = 0;

    // The request in flight.
    int m_request = -1;
    Phase m_phase = Phase::None;
    int m_httpStatus = 0;
    QByteArray m_errorBody; // a non-200 answer's body (a Status), small
    // A 401 whose credential the transport replaces for the requests that follow.
    bool m_credentialReplaced = false;
    TimeUs m_requestStart = 0;
    TimeUs m_watchDeadline = 0;
    WatchRequest m_watchRequest;  // the watch in flight, told to the detectors once accepted
    bool m_watchAccepted = false; // the server answered it 200
    int m_cutOff = -1;            // the request cancelled for running past its deadline
    bool m_watchHadError = false;
    bool m_watchErrorRewatches = false; // that ERROR was one client-go re-watches after (429)
    std::int64_t m_watchEvents = 0;
    std::int64_t m_watchTimeout = 0; // its timeoutSeconds
    // A quiet watch whose connection died unseen (kQuietWatchLimit in ClusterReflector.cpp).
    TimeUs m_lastByteAt = 0;            // its response head or last body bytes
    ResourceVersion m_watchStartRv = 0; // the RV the cacher serves it from
    bool m_bookmarksDue = false;        // the cacher sends it a bookmark every minute from now on
    bool m_quietCut = false;            // cancelled for its silence

    // rest.Request's retries of the request in flight.
    HttpRequest m_sent; // to send again
    RestRetries m_rest;
    bool m_retrying = false; // this answer is a 429/5xx with Retry-After the REST layer retries
    TimeUs m_retryAfter = 0; // its Retry-After
    TimeUs m_resendAt = -1;  // >= 0: waiting to send m_sent again then
    int m_httpRetries = 0;

    // LIST.
    // One of them, by the page's Content-Type.
    std::unique_ptr<ListStreamDecoder> m_list;
    std::unique_ptr<ProtoListDecoder> m_protoList;
    std::vector<ObservedEvent> m_listed;
    std::string m_continue;       // the next page's token; empty: the request is no continue page
    ResourceVersion m_listRv = 0; // requested, then the first page's
    std::int64_t m_listItems = 0;
    bool m_listRvEmpty = false;
    // tools/pager of this ListAndWatch: the page size (0: unpaginated) and the RV it was asked
    // for, which a full list after a 410 on a continue page asks for again.
    std::int64_t m_pageSize = 0;
    ResourceVersion m_requestedRv = 0;
    bool m_listedFromZero = false; // this ListAndWatch's list asked for RV="0"
    bool m_paged = false;          // pager.List's paginatedResult: a page had a continue token
    // reflector.paginatedResult: an RV="0" list came back in pages (no watch cache: events),
    // so every later list is paged too, at its exact RV.
    bool m_paginatedResult = false;

    // WATCH. The response's Content-Type picks the framing and decoder: a protobuf stream
    // (--wire protobuf, a built-in resource) or JSON (everything else, and any server that
    // answered a protobuf Accept with JSON).
    bool m_protoStream = false;
    JsonObjectSplitter m_splitter;
    WatchEventDecoder m_decoder;
    LengthDelimitedSplitter m_frames;
    ProtoWatchEventDecoder m_protoDecoder;
    WatchEventJson m_event;
    std::vector<ObservedEvent> m_pending; // decoded, not yet reported (one chunk's worth)
    bool m_watchList = false;             // this watch is a watch-list (sendInitialEvents)
    bool m_awaitingInitialEnd = false;
    // An ERROR event before the initial-events-end bookmark, acted on once the chunk is read.
    std::optional<ApiStatus> m_watchListError;

    ResourceVersion m_lastSyncRv = 0;
    ResourceVersion m_highest = 0;
    bool m_everSynced = false;
    bool m_rvUnavailable = false;
    std::int64_t m_events = 0;
    int m_relists = 0;
    TimeUs m_lastEventAt = 0;
    ResourceVersion m_highestEvent = 0;
    TimeUs m_highestEventAt = 0;
    std::optional<ApiStatus> m_rejected;
    bool m_answered = false;

    KeyPresence m_presence;
    std::string m_keyPrefix;      // "/registry/configmaps/"
    std::string m_keyText;        // reused for each event's key
    ResourceVersion m_liveRv = 0; // the highest live event RV of the current watch

    RevisionAccount m_account;
    ResourceVersion m_streamFrom = 0; // the current watch has delivered everything up to it
    ResourceVersion m_accounted = 0;  // seen or lost up to it
    struct Trouble {
        QString what; // "410 Expired: too old resource version: 5 (9)", "ConnectionRefused"
        int count = 0;
    };
    std::vector<Trouble> m_troubles; // since the last progress, in order, a few at most
};

} // namespace ws

#pragma once

#include "detect/RevisionAccount.h"
#include "http/HttpFrameKind.h"
#include "http/HttpRequest.h"
#include "kube/ApiStatus.h"
#include "kube/ClientProfile.h"
#include "kube/Reflector.h"
#include "kube/ReflectorDriver.h"
#include "kube/ResourceCatalog.h"
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

// One informer against real apiservers over HTTP, with the semantics of a client-go version: the
// shared Reflector decides what it asks for (pager, watch, watch-list, relist RV, backoff,
// rest.Request's retries); this sends it over HTTP, decodes the answers and only describes what
// it sees to the detectors. With several apiservers it moves to the next one on every new
// connection, as a client behind a load balancer does.
//
// Requests go out through `submit`; the frames of those requests come back through onFrame()
// (the source routes them by request id). Runs on the session thread.
class ClusterReflector : private ReflectorDriver {
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
    ~ClusterReflector() override;

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
    ResourceVersion resourceVersion() const { return m_reflector.lastSyncRv(); }
    ResourceVersion highestSeen() const { return m_highest; }
    QString stateName() const { return m_reflector.stateName(); }
    QString serverName() const { return m_config.servers.value(m_server); }
    int serverIndex() const { return m_server; }
    std::int64_t eventsReceived() const { return m_events; }
    int relists() const { return m_reflector.relists(); }
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
    enum class Phase { None, List, Watch };

    // ReflectorDriver
    void listStarted(const ListRequest& list) override;
    void sendListPage(const ListPageRequest& page) override;
    void listed(ResourceVersion rv) override;
    void sendWatch(const WatchRequest& watch) override;
    void resend() override;
    void abandon() override;

    // retry: the REST layer sends the request in flight again.
    void send(HttpRequest request, TimeUs now, bool retry = false);
    void onHead(const HttpResponseHead& head, TimeUs now);
    void onBody(const QByteArray& bytes, TimeUs now);
    void onEnd(HttpErrorKind error, const QString& message, TimeUs now);
    static RestRetries::Failure failureOf(HttpErrorKind error);
    void listError(const ApiStatus& status, TimeUs now);
    void watchRequestError(const ApiStatus& status, TimeUs now);
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
    Reflector m_reflector;
    WatcherId m_hubId = -1;
    std::uint16_t m_journalWatcher = 0;
    TimeUs m_now = 0; // of the frame or tick being handled: the Reflector's calls carry none
    int m_server = 0;

    // The request in flight.
    int m_request = -1;
    Phase m_phase = Phase::None;
    int m_httpStatus = 0;
    QByteArray m_errorBody; // a non-200 answer's body (a Status), small
    // A 401 whose credential the transport replaces for the requests that follow.
    bool m_credentialReplaced = false;
    TimeUs m_watchDeadline = 0;
    WatchRequest m_watchRequest;     // the watch in flight, told to the detectors once accepted
    bool m_watchAccepted = false;    // the server answered it 200
    int m_cutOff = -1;               // the request cancelled for running past its deadline
    std::int64_t m_watchTimeout = 0; // its timeoutSeconds
    // A quiet watch whose connection died unseen (kQuietWatchLimit in ClusterReflector.cpp).
    TimeUs m_lastByteAt = 0;            // its response head or last body bytes
    ResourceVersion m_watchStartRv = 0; // the RV the cacher serves it from
    bool m_bookmarksDue = false;        // the cacher sends it a bookmark every minute from now on
    bool m_quietCut = false;            // cancelled for its silence

    // rest.Request's retries of the request in flight.
    HttpRequest m_sent; // to send again
    // This answer is one the REST layer retries (a 429/5xx with Retry-After, a reset): the wait.
    std::optional<TimeUs> m_retryWait;
    int m_httpRetries = 0;

    // LIST.
    // One of them, by the page's Content-Type.
    std::unique_ptr<ListStreamDecoder> m_list;
    std::unique_ptr<ProtoListDecoder> m_protoList;
    std::vector<ObservedEvent> m_listed;
    std::int64_t m_listItems = 0;

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
    // An ERROR event, acted on once the chunk is read.
    std::optional<ApiStatus> m_watchError;

    ResourceVersion m_highest = 0;
    std::int64_t m_events = 0;
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

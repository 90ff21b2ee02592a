#pragma once

#include "ClientCertificate.h"
#include "ClusterHttpSettings.h"
#include "HttpCredentials.h"
#include "HttpFrameKind.h"
#include "HttpRequest.h"
#include "engine/FrameQueue.h"
#include "sources/cluster/kubeconfig/ClusterTarget.h"

#include <QNetworkReply>
#include <QObject>
#include <QProcessEnvironment>
#include <QSslError>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

class QNetworkAccessManager;
class QNetworkRequest;
class QTimer;

namespace ws {

// ClusterHttpTransport's half on its own thread: every QNetworkAccessManager, reply and timer
// lives here, and every method runs here (ClusterHttpTransport posts to it). It turns what the
// replies receive into frames (HttpFrameKind.h) as it arrives.
class HttpTransportWorker : public QObject {
    Q_OBJECT
public:
    using Clock = std::function<TimeUs()>;
    HttpTransportWorker(ClusterHttpSettings settings, ClusterTarget target, FrameQueue& queue,
                        Clock clock, CredentialProvider exec);
    ~HttpTransportWorker() override;

    void submit(const HttpRequest& request);
    void cancel(int id);
    // Aborts every request (each ends Cancelled) and refuses new ones.
    void shutdown();

    // HTTP/1.1 opens at most 6 connections per host and per manager and queues the rest: a
    // manager serves at most this many streams, so a watch never waits behind other watches.
    static constexpr int kStreamsPerManager = kConnectionsPerManager;
    // HTTP/2 (a server that offers h2 by ALPN): a manager keeps one connection to the server and
    // multiplexes every request on it, but Qt 6.4 sends no more streams at once than the
    // server's SETTINGS_MAX_CONCURRENT_STREAMS allows and queues the rest until a stream ends,
    // which a watch does only after minutes. kube-apiserver 1.35.4 announces 100, the least
    // the HTTP/2 specification recommends and what Qt assumes until the server's SETTINGS
    // arrive; Qt does not tell the value it received. A manager therefore carries at most this
    // many streams; more go to another manager (another connection), as Go's transport under
    // client-go opens another connection when one reaches the server's limit.
    static constexpr int kStreamsPerHttp2Connection = 100;
    // Of those, the first manager leaves this many to the LISTs, discovery and /metrics, which
    // always go there, so they do not wait for watches to end.
    static constexpr int kHttp2ShortRequestStreams = 10;
    static constexpr int kDefaultTimeoutMs = 60 * 1000;
    static constexpr qint64 kReadBufferBytes = 1 << 20;

private:
    struct Request {
        HttpRequest request;
        QNetworkReply* reply = nullptr;
        int lane = -1; // index in m_lanes while it holds a reply
        QTimer* timer = nullptr;
        bool headSeen = false;
        bool waitingForCredential = false;
        std::optional<HttpCredentials> sentWith; // the plugin's credential it went with
        bool cancelled = false;                  // cancel()
        bool timedOut = false;                   // our timer
        bool stopping = false;                   // shutdown()
        QList<QSslError> sslErrors;
    };

    // Sends `r`, first waiting for the credential plugin's credential when it needs one. False
    // when no request could be made; then *error says why.
    bool send(Request& r, QString* error);
    bool dispatch(Request& r, const HttpCredentials* plugin, QString* error);
    bool authorize(Request& r, const HttpCredentials* plugin, QNetworkRequest& request,
                   QString* error);
    bool usesCredentialPlugin() const;
    // The plugin's answer, on this thread: the requests that waited for it go (or fail).
    void onCredential(const std::optional<HttpCredentials>& credentials, const QString& error);
    Request* active(int id, const QNetworkReply* reply);
    void onHead(Request& r);
    void onReadyRead(Request& r);
    void onFinished(Request& r);
    void abort(int id, bool Request::*reason);
    // Pushes the ResponseEnd, and forgets the request.
    void finish(Request& r, HttpErrorKind error, const QString& message);
    void releaseReply(Request& r);
    std::pair<HttpErrorKind, QString> outcome(const Request& r) const;
    QString timeoutText(const Request& r) const;
    void push(Request& r, HttpFrameKind kind, QByteArray bytes);
    QString scrub(QString message) const;

    // The manager a request goes to: its index in m_lanes.
    int acquireLane(bool streaming);
    void releaseLane(int lane, bool streaming);
    // New requests go to a new manager (a new connection) from now on.
    void retireLanes();
    QNetworkAccessManager* newManager();

    ClusterHttpSettings m_settings;
    ClusterTarget m_target;
    FrameQueue& m_queue;
    Clock m_clock;
    CredentialProvider m_credentials;
    // How the credential source's answer, which comes from another thread, finds this worker:
    // cleared by shutdown(), so a late answer is dropped instead of reaching a deleted object.
    struct Mailbox {
        std::mutex mutex;
        HttpTransportWorker* worker = nullptr;
    };
    std::shared_ptr<Mailbox> m_mailbox;
    bool m_fetching = false;            // a fetch() is under way
    std::vector<int> m_waitingRequests; // ids waiting for its answer
    QProcessEnvironment m_environment;  // read once, as Go reads the proxy variables once
    std::map<int, std::unique_ptr<Request>> m_requests;
    // A manager with what runs on it. Each has its own connections to the server: over HTTP/2
    // exactly one, over HTTP/1.1 up to six.
    struct Lane {
        QNetworkAccessManager* manager = nullptr;
        int streams = 0; // streaming requests on it
        // The transport's number of its current HTTP/2 connection: a TLS handshake on it (a
        // reply's encrypted()) means a new connection, which may reach another apiserver.
        qint32 connection = 0;
        bool retired = false; // takes no new request (its connection answered 401)
    };
    // m_lanes[m_shortLane]: every non-streaming request, and over HTTP/2 the streams it has room
    // for; the others: streams only.
    std::vector<Lane> m_lanes;
    std::size_t m_shortLane = 0; // the lane of the non-streaming requests
    qint32 m_connections = 0;    // TLS connections opened so far
    // Whether the server's last answer came over HTTP/2: the server offers h2 by ALPN.
    bool m_http2 = false;
    // The credential plugin's client certificate as last parsed, and the secrets to scrub from
    // text.
    QByteArray m_execCertPem, m_execKeyPem;
    std::optional<ClientCertificate> m_execClient;
    QStringList m_secrets;
    bool m_stopped = false;
};

} // namespace ws

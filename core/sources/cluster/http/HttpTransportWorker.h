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
    static constexpr int kDefaultTimeoutMs = 60 * 1000;
    static constexpr qint64 kReadBufferBytes = 1 << 20;

private:
    struct Request {
        HttpRequest request;
        QNetworkReply* reply = nullptr;
        QNetworkAccessManager* manager = nullptr;
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

    QNetworkAccessManager* acquireManager(bool streaming);
    void releaseManager(QNetworkAccessManager* manager, bool streaming);
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
    QNetworkAccessManager* m_shared = nullptr; // every non-streaming request
    std::vector<std::pair<QNetworkAccessManager*, int>> m_streamManagers; // manager, streams
    // The credential plugin's client certificate as last parsed, and the secrets to scrub from
    // text.
    QByteArray m_execCertPem, m_execKeyPem;
    std::optional<ClientCertificate> m_execClient;
    QStringList m_secrets;
    bool m_stopped = false;
};

} // namespace ws

#pragma once

#include "ClusterHttpSettings.h"
#include "EnvironmentProxyFactory.h"
#include "HttpCredentials.h"
#include "HttpFrameKind.h"
#include "HttpRequest.h"
#include "engine/FrameQueue.h"
#include "sources/cluster/kubeconfig/ClusterTarget.h"

#include <condition_variable>
#include <curl/curl.h>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace ws {

// ClusterHttpTransport's half on its own thread: one libcurl multi handle, which holds the
// connections (one HTTP/2 connection for everything where the server offers h2 by ALPN, as Go's
// transport under client-go has it; HTTP/1.1 otherwise, a connection per stream), and turns what
// arrives into frames (HttpFrameKind.h). submit(), cancel() and shutdown() may be called from any
// thread: they leave a command for run(), which does all the work on the transport thread.
//
// Reads are paced: after a round that moved some watch data, and while no short request (a
// LIST, discovery, /metrics) is in flight, the next round comes kPace after it began, whatever
// the sockets say meanwhile. A watch then costs a wake-up and one BodyChunk frame per kPace,
// however many events the apiserver sent one by one in between, and the session thread is rung
// as often: on this 2-core VM a round (the transport's and the session thread's wake-ups, the
// reads) costs about 200 µs of CPU, whatever it carries. A lone event after a quiet spell is
// read at once; a short request, and a stream that filled kPacedRoundBytes in a round, are read
// as fast as they arrive, so a firehose never waits in the socket.
class HttpTransportWorker {
public:
    using Clock = std::function<TimeUs()>;
    HttpTransportWorker(ClusterHttpSettings settings, ClusterTarget target, FrameQueue& queue,
                        Clock clock, CredentialProvider credentials);
    ~HttpTransportWorker();
    HttpTransportWorker(const HttpTransportWorker&) = delete;
    HttpTransportWorker& operator=(const HttpTransportWorker&) = delete;

    // Any thread; run in the order called.
    void submit(HttpRequest request);
    void cancel(int id);
    // Aborts every request (each ends Cancelled) and makes run() return.
    void shutdown();

    // The transport thread's loop, until shutdown().
    void run();

    static constexpr int kDefaultTimeoutMs = 60 * 1000;
    // A watch's events reach the session thread at most this late: the timeline's resolution
    // (10 samples a second). At 300 events a second, 100 ms took half the CPU of 20 ms
    // (0.082 against 0.171 CPU s for 10 s of a TLS watch of `serve`, start-up included).
    static constexpr TimeUs kPace = milliseconds(100);
    static constexpr qint64 kPacedRoundBytes = qint64(512) << 10;
    // A BodyChunk frame holds at most this much: a large LIST goes to the session thread in
    // pieces as it arrives.
    static constexpr qsizetype kMaxChunkBytes = qsizetype(1) << 20;

private:
    struct Request {
        HttpRequest request;
        CURL* easy = nullptr;
        curl_slist* headers = nullptr;
        curl_slist* connectTo = nullptr;
        HttpTransportWorker* worker = nullptr;
        // The response head as its lines arrive; headSeen once it is complete (pushed).
        bool headSeen = false;
        qint32 status = 0;
        QByteArray reason;
        QList<QPair<QByteArray, QByteArray>> headerLines;
        QByteArray pending;  // body bytes not yet pushed
        TimeUs deadline = 0; // steady-clock µs; 0: none
        bool viaProxy = false;
        bool waitingForCredential = false;
        std::optional<HttpCredentials> sentWith; // the plugin's credential it went with
        bool cancelled = false;                  // cancel()
        bool timedOut = false;                   // its deadline
        bool stopping = false;                   // shutdown()
        char errorText[CURL_ERROR_SIZE] = {};
    };

    void post(std::function<void()> command);
    // Runs the commands posted so far; false once shutdown's has run.
    bool runCommands();
    void start(const HttpRequest& request);
    bool send(Request& r, QString* error);
    bool dispatch(Request& r, const HttpCredentials* plugin, QString* error);
    bool authorize(Request& r, const HttpCredentials* plugin, QByteArray* authorization,
                   QString* error);
    bool usesCredentialPlugin() const;
    // The plugin's answer, on this thread: the requests that waited for it go (or fail).
    void onCredential(const std::optional<HttpCredentials>& credentials, const QString& error);
    void onHeaderLine(Request& r, QByteArray line);
    void onHeadComplete(Request& r);
    void onBody(Request& r, const char* data, std::size_t size);
    void onDone(Request& r, CURLcode code);
    // Pushes what `r` received since the last call; true when it had anything.
    bool flush(Request& r);
    void expireDeadlines();
    void abort(int id, bool Request::*reason);
    // Pushes the ResponseEnd, and forgets the request.
    void finish(Request& r, HttpErrorKind error, const QString& message);
    void releaseEasy(Request& r);
    std::pair<HttpErrorKind, QString> outcome(const Request& r, CURLcode code) const;
    QString timeoutText(const Request& r) const;
    // The request's limit: its own timeoutMs, else kDefaultTimeoutMs.
    static int limitMs(const Request& r);
    void push(int id, HttpFrameKind kind, QByteArray bytes);
    QString scrub(QString message) const;
    // The number of the connection `r` is answered over (HTTP/2 only), from its local port.
    qint32 connectionOf(Request& r);
    void doShutdown();

    static std::size_t headerCallback(char* data, std::size_t size, std::size_t count, void* r);
    static std::size_t writeCallback(char* data, std::size_t size, std::size_t count, void* r);
    static curl_socket_t openSocket(void* worker, curlsocktype purpose, curl_sockaddr* address);
    static int closeSocket(void* worker, curl_socket_t socket);

    ClusterHttpSettings m_settings;
    ClusterTarget m_target;
    FrameQueue& m_queue;
    Clock m_clock;
    CredentialProvider m_credentials;
    CURLM* m_multi = nullptr;

    // Commands from other threads, and the condition the paced wait sleeps on.
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_commands;

    // How the credential source's answer, which comes from another thread, finds this worker:
    // cleared by shutdown, so a late answer is dropped instead of reaching a deleted object.
    struct Mailbox {
        std::mutex mutex;
        HttpTransportWorker* worker = nullptr;
    };
    std::shared_ptr<Mailbox> m_mailbox;
    bool m_fetching = false;            // a fetch() is under way
    std::vector<int> m_waitingRequests; // ids waiting for its answer
    // The environment's proxies, read once as Go reads them once (not at every request).
    EnvironmentProxyFactory m_environmentProxy;
    std::map<int, std::unique_ptr<Request>> m_requests;
    // The sockets libcurl opened, numbered from 1 in the order they were opened, with their
    // local port once asked (-1 before): a response's local port names its connection.
    struct Socket {
        qint32 number = 0;
        int localPort = -1;
    };
    std::map<curl_socket_t, Socket> m_sockets;
    qint32 m_connections = 0;
    // The credential plugin's client certificate as last checked, and the secrets to scrub from
    // text.
    QByteArray m_execCertPem, m_execKeyPem;
    bool m_execClient = false;
    QStringList m_secrets;
    bool m_stopped = false;
};

} // namespace ws

#include "HttpTransportWorker.h"

#include "ClientCertificate.h"
#include "EnvironmentProxyFactory.h"
#include "HttpFrameRecords.h"

#include <QFile>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ws {

namespace {

TimeUs steadyUs() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// OpenSSL's text as libcurl passes it on ("OpenSSL SSL_read: error:0A00045C:SSL
// routines::tlsv13 alert certificate required, errno 0"): the reason alone.
QString tlsReason(QString text) {
    static const QString prefixes[] = {
        QStringLiteral("OpenSSL SSL_read: "), QStringLiteral("OpenSSL SSL_write: "),
        QStringLiteral("OpenSSL SSL_connect: "), QStringLiteral("SSL certificate problem: ")};
    for (const QString& prefix : prefixes) {
        if (text.startsWith(prefix, Qt::CaseInsensitive))
            text = text.mid(prefix.size());
    }
    if (text.endsWith(QLatin1String(", errno 0")))
        text.chop(9);
    text = text.trimmed();
    return text.isEmpty() ? QStringLiteral("unknown error") : text;
}

// With TLS 1.3 the server judges the client's certificate after the client finished its half of
// the handshake: its alert ("certificate required", "unknown ca") then surfaces as a read error.
bool isTlsAlert(const QString& detail) {
    return detail.contains(QLatin1String("SSL routines")) ||
           detail.contains(QLatin1String("alert"), Qt::CaseInsensitive);
}

QString seconds(int ms) {
    return ms % 1000 == 0 ? QStringLiteral("%1 s").arg(ms / 1000) : QStringLiteral("%1 ms").arg(ms);
}

bool isTlsFailure(CURLcode code) {
    switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_USE_SSL_FAILED:
        return true;
    default:
        return false;
    }
}

void setBlob(CURL* easy, CURLoption option, const QByteArray& bytes) {
    curl_blob blob{const_cast<char*>(bytes.constData()), std::size_t(bytes.size()), CURL_BLOB_COPY};
    curl_easy_setopt(easy, option, &blob);
}

// "[::1]" for an IPv6 address, as URLs and CURLOPT_CONNECT_TO write hosts.
QByteArray hostForUrl(const QString& host) {
    return host.contains(QLatin1Char(':')) ? '[' + host.toUtf8() + ']' : host.toUtf8();
}

} // namespace

HttpTransportWorker::HttpTransportWorker(ClusterHttpSettings settings, ClusterTarget target,
                                         FrameQueue& queue, Clock clock,
                                         CredentialProvider credentials)
    : m_settings(std::move(settings)), m_target(std::move(target)), m_queue(queue),
      m_clock(std::move(clock)), m_credentials(std::move(credentials)), m_multi(curl_multi_init()),
      m_mailbox(std::make_shared<Mailbox>()),
      m_environmentProxy(QProcessEnvironment::systemEnvironment()) {
    m_mailbox->worker = this;
    for (const QString& secret : {m_target.token, m_target.password})
        if (!secret.isEmpty())
            m_secrets << secret;
    // Every request of the target on as few connections as the protocol allows: HTTP/2 streams
    // on one connection (another only when it has as many streams as the server allows, as Go's
    // transport does), HTTP/1.1 a connection each, never queued behind a busy one.
    curl_multi_setopt(m_multi, CURLMOPT_PIPELINING, long(CURLPIPE_MULTIPLEX));
    curl_multi_setopt(m_multi, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
    curl_multi_setopt(m_multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0L);
}

HttpTransportWorker::~HttpTransportWorker() {
    if (!m_stopped)
        doShutdown();
    curl_multi_cleanup(m_multi);
}

void HttpTransportWorker::post(std::function<void()> command) {
    {
        std::lock_guard lock(m_mutex);
        m_commands.push_back(std::move(command));
    }
    m_wake.notify_one();
    curl_multi_wakeup(m_multi);
}

void HttpTransportWorker::submit(HttpRequest request) {
    post([this, request = std::move(request)] { start(request); });
}

void HttpTransportWorker::cancel(int id) {
    post([this, id] { abort(id, &Request::cancelled); });
}

void HttpTransportWorker::shutdown() {
    post([this] { doShutdown(); });
}

bool HttpTransportWorker::runCommands() {
    for (;;) {
        std::function<void()> command;
        {
            std::lock_guard lock(m_mutex);
            if (m_commands.empty())
                return !m_stopped;
            command = std::move(m_commands.front());
            m_commands.pop_front();
        }
        command();
        if (m_stopped)
            return false;
    }
}

void HttpTransportWorker::run() {
    for (;;) {
        const TimeUs roundStart = steadyUs();
        if (!runCommands())
            return;
        int running = 0;
        curl_multi_perform(m_multi, &running);
        int left = 0;
        while (CURLMsg* message = curl_multi_info_read(m_multi, &left)) {
            if (message->msg != CURLMSG_DONE)
                continue;
            Request* r = nullptr;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &r);
            if (r)
                onDone(*r, message->data.result); // may destroy *r
        }
        qint64 streamed = 0;
        bool shortInFlight = false;
        for (auto& [id, r] : m_requests) {
            if (r->request.streaming)
                streamed += r->pending.size();
            flush(*r);
            if (r->easy && !r->request.streaming)
                shortInFlight = true;
        }
        expireDeadlines();
        if (streamed > 0 && streamed < kPacedRoundBytes && !shortInFlight) {
            // Paced: the events that arrive meanwhile wait in the socket and come in one read.
            std::unique_lock lock(m_mutex);
            m_wake.wait_until(lock,
                              std::chrono::steady_clock::time_point(
                                  std::chrono::microseconds(roundStart + kPace)),
                              [this] { return !m_commands.empty(); });
            continue;
        }
        TimeUs waitUs = 1000 * 1000;
        const TimeUs now = steadyUs();
        for (const auto& [id, r] : m_requests) {
            if (r->deadline > 0)
                waitUs = std::min(waitUs, std::max<TimeUs>(0, r->deadline - now));
        }
        // libcurl shortens the wait to its own timers; a command wakes it.
        curl_multi_poll(m_multi, nullptr, 0, int((waitUs + 999) / 1000), nullptr);
    }
}

QString HttpTransportWorker::scrub(QString message) const {
    for (const QString& secret : m_secrets) {
        if (secret.size() >= 4)
            message.replace(secret, QStringLiteral("<redacted>"));
    }
    return message.simplified();
}

void HttpTransportWorker::push(int id, HttpFrameKind kind, QByteArray bytes) {
    Frame frame;
    frame.connection = id;
    frame.received = m_clock();
    frame.kind = std::uint16_t(kind);
    frame.bytes = std::move(bytes);
    m_queue.push(std::move(frame));
}

void HttpTransportWorker::start(const HttpRequest& request) {
    if (m_requests.count(request.id)) {
        // Two requests with one id would interleave their frames: refuse the second.
        qWarning("cluster http: request id %d is already in flight; the new request is dropped",
                 request.id);
        return;
    }
    auto owned = std::make_unique<Request>();
    Request& r = *owned;
    r.request = request;
    r.worker = this;
    m_requests.emplace(request.id, std::move(owned));
    push(request.id, HttpFrameKind::RequestSent,
         encodeHttpRecord(HttpRequestSent{request.method, request.pathAndQuery, 1}));
    QString error;
    if (!send(r, &error))
        finish(r, HttpErrorKind::Other, error);
}

bool HttpTransportWorker::usesCredentialPlugin() const {
    // client-go: a token, a token file or basic auth set the Authorization header first, and
    // the plugin's round tripper then leaves the request alone.
    return m_credentials && m_target.token.isEmpty() && m_target.tokenFile.isEmpty() &&
           m_target.username.isEmpty() && m_target.password.isEmpty();
}

bool HttpTransportWorker::send(Request& r, QString* error) {
    if (!usesCredentialPlugin())
        return dispatch(r, nullptr, error);
    r.waitingForCredential = true;
    m_waitingRequests.push_back(r.request.id);
    if (m_fetching)
        return true;
    m_fetching = true;
    m_credentials->fetch(
        [mailbox = m_mailbox](std::optional<HttpCredentials> credentials, QString why) {
            std::lock_guard lock(mailbox->mutex);
            if (HttpTransportWorker* worker = mailbox->worker)
                worker->post([worker, credentials = std::move(credentials), why = std::move(why)] {
                    worker->onCredential(credentials, why);
                });
        });
    return true;
}

void HttpTransportWorker::onCredential(const std::optional<HttpCredentials>& credentials,
                                       const QString& why) {
    m_fetching = false;
    std::vector<int> ids;
    ids.swap(m_waitingRequests);
    for (int id : ids) {
        const auto it = m_requests.find(id);
        if (it == m_requests.end() || !it->second->waitingForCredential)
            continue; // cancelled meanwhile
        Request& r = *it->second;
        r.waitingForCredential = false;
        QString error;
        if (!credentials)
            finish(r, HttpErrorKind::Other, QStringLiteral("getting credentials: %1").arg(why));
        else if (!dispatch(r, &*credentials, &error))
            finish(r, HttpErrorKind::Other, error);
    }
}

bool HttpTransportWorker::authorize(Request& r, const HttpCredentials* plugin,
                                    QByteArray* authorization, QString* error) {
    r.sentWith.reset();
    // client-go (NewBearerAuthWithRefreshRoundTripper): a readable tokenFile wins, re-read at
    // every request (projected service account tokens rotate in place); `token` is the fallback.
    QByteArray fileToken;
    QString fileError;
    if (!m_target.tokenFile.isEmpty()) {
        QFile file(m_target.tokenFile);
        if (!file.open(QIODevice::ReadOnly))
            fileError = QStringLiteral("cannot read the token file %1: %2")
                            .arg(m_target.tokenFile, file.errorString());
        else if ((fileToken = file.readAll().trimmed()).isEmpty())
            fileError = QStringLiteral("the token file %1 is empty").arg(m_target.tokenFile);
    }
    if (!fileToken.isEmpty()) {
        if (!m_secrets.contains(QString::fromUtf8(fileToken)))
            m_secrets << QString::fromUtf8(fileToken);
        *authorization = "Bearer " + fileToken;
    } else if (!m_target.token.isEmpty()) {
        *authorization = "Bearer " + m_target.token.toUtf8();
    } else if (!fileError.isEmpty()) {
        *error = fileError;
        return false;
    } else if (!m_target.username.isEmpty() || !m_target.password.isEmpty()) {
        *authorization =
            "Basic " +
            (m_target.username + QLatin1Char(':') + m_target.password).toUtf8().toBase64();
    } else if (plugin) {
        r.sentWith = *plugin;
        if (!plugin->bearerToken.isEmpty()) {
            if (!m_secrets.contains(plugin->bearerToken))
                m_secrets << plugin->bearerToken;
            *authorization = "Bearer " + plugin->bearerToken.toUtf8();
        }
        if (plugin->clientCertPem != m_execCertPem || plugin->clientKeyPem != m_execKeyPem) {
            m_execClient = false;
            if (!plugin->clientCertPem.isEmpty() || !plugin->clientKeyPem.isEmpty()) {
                QString why;
                if (!ClientCertificate::fromPem(plugin->clientCertPem, plugin->clientKeyPem,
                                                &why)) {
                    *error =
                        QStringLiteral("the exec credential's client certificate: %1").arg(why);
                    return false;
                }
                m_execClient = true;
            }
            // libcurl reuses a connection only for a request with the same client certificate:
            // kept-alive connections that present the previous one are left alone.
            m_execCertPem = plugin->clientCertPem;
            m_execKeyPem = plugin->clientKeyPem;
        }
        if (authorization->isEmpty() && !m_execClient) {
            *error = QStringLiteral("the exec credential plugin returned neither a token nor a "
                                    "client certificate");
            return false;
        }
    }
    return true;
}

bool HttpTransportWorker::dispatch(Request& r, const HttpCredentials* plugin, QString* error) {
    const HttpRequest& in = r.request;
    QUrl url = m_settings.urlFor(in.pathAndQuery);
    if (!url.isValid()) {
        *error = QStringLiteral("invalid request path %1").arg(in.pathAndQuery);
        return false;
    }
    QByteArray authorization;
    if (!authorize(r, plugin, &authorization, error))
        return false;
    r.headSeen = false;
    r.status = 0;
    r.reason.clear();
    r.headerLines.clear();
    r.errorText[0] = 0;

    CURL* easy = curl_easy_init();
    if (!easy) {
        *error = QStringLiteral("out of memory for a request to %1").arg(m_settings.endpoint);
        return false;
    }
    r.easy = easy;
    curl_easy_setopt(easy, CURLOPT_PRIVATE, &r);
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, r.errorText);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &HttpTransportWorker::headerCallback);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &HttpTransportWorker::writeCallback);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, &HttpTransportWorker::openSocket);
    curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, this);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, &HttpTransportWorker::closeSocket);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, this);

    // The proxy as Go finds it (the kubeconfig's proxy-url, else the environment by Go's rules:
    // EnvironmentProxyFactory.h); "" keeps libcurl from reading the environment by its own.
    std::optional<QUrl> proxy = m_settings.proxy;
    if (!proxy)
        proxy = m_environmentProxy.proxyFor(url);
    r.viaProxy = proxy.has_value();
    curl_easy_setopt(easy, CURLOPT_PROXY,
                     proxy ? proxy->toString(QUrl::FullyEncoded).toUtf8().constData() : "");
    curl_easy_setopt(easy, CURLOPT_NOPROXY, "");
    curl_easy_setopt(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);

    QList<QByteArray> headers;
    if (m_settings.https) {
        // tls-server-name: the TLS name (SNI, verification) differs from the host connected to.
        // The URL names the TLS name and CONNECT_TO the real host; Host (HTTP/2's :authority)
        // stays the server's, as Go's transport sends it.
        if (!m_settings.peerVerifyName.isEmpty()) {
            const QString host = url.host();
            const int port = url.port(443);
            url.setHost(m_settings.peerVerifyName);
            const QByteArray rule = hostForUrl(m_settings.peerVerifyName) + ':' +
                                    QByteArray::number(port) + ':' + hostForUrl(host) + ':' +
                                    QByteArray::number(port);
            r.connectTo = curl_slist_append(nullptr, rule.constData());
            curl_easy_setopt(easy, CURLOPT_CONNECT_TO, r.connectTo);
            QByteArray hostHeader = hostForUrl(host);
            if (m_settings.server.port() > 0)
                hostHeader += ':' + QByteArray::number(port);
            headers << "Host: " + hostHeader;
        }
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_2TLS));
        // Wait for the first connection to say whether it multiplexes rather than open one per
        // request at start-up.
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(easy, CURLOPT_SSLVERSION, long(CURL_SSLVERSION_TLSv1_2)); // client-go's
        // OpenSSL's read-ahead stays off (two reads of the socket a TLS record): libcurl 7.88
        // asks SSL_pending() whether a connection has data left, which does not count records
        // read ahead, so an HTTP/2 stream whose last bytes were read ahead waited forever (seen
        // on the real kube-apiserver 1.35: /version's body never delivered).
        if (!m_settings.caPem.isEmpty()) {
            // Like client-go: the given CAs replace the system's roots.
            setBlob(easy, CURLOPT_CAINFO_BLOB, m_settings.caPem);
            curl_easy_setopt(easy, CURLOPT_CAINFO, nullptr);
            curl_easy_setopt(easy, CURLOPT_CAPATH, nullptr);
        }
        if (m_settings.insecure) {
            curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 0L);
            curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 0L);
        }
        const bool execCert = r.sentWith && m_execClient;
        const QByteArray& certPem = execCert ? m_execCertPem : m_settings.clientCertPem;
        const QByteArray& keyPem = execCert ? m_execKeyPem : m_settings.clientKeyPem;
        if (!certPem.isEmpty()) {
            setBlob(easy, CURLOPT_SSLCERT_BLOB, certPem);
            curl_easy_setopt(easy, CURLOPT_SSLCERTTYPE, "PEM");
            setBlob(easy, CURLOPT_SSLKEY_BLOB, keyPem);
            curl_easy_setopt(easy, CURLOPT_SSLKEYTYPE, "PEM");
        }
    } else {
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1)); // no h2c
    }
    curl_easy_setopt(easy, CURLOPT_URL, url.toString(QUrl::FullyEncoded).toUtf8().constData());
    // Go's dialer: 30 s to connect, TCP keep-alive probes after 30 s idle, 30 s apart, so an
    // idle-timeout middlebox does not cut a quiet watch and a dead peer is noticed.
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, 30000L);
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPIDLE, 30L);
    curl_easy_setopt(easy, CURLOPT_TCP_KEEPINTVL, 30L);
    // Go's transport asks for gzip and decodes it: the BodyChunk frames (the capture) hold the
    // decoded bytes. client-go follows no redirects for the API and keeps no cookies.
    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "gzip");
    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(easy, CURLOPT_USERAGENT, m_settings.userAgent.constData());
    // A LIST's body comes in reads of up to this much; a watch keeps libcurl's 16 KiB.
    if (!in.streaming)
        curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 256L * 1024);

    if (!authorization.isEmpty())
        headers << "Authorization: " + authorization;
    for (const auto& [name, value] : m_target.impersonate.headers())
        headers << name + ": " + value;
    headers << (in.accept.isEmpty() ? QByteArray("Accept:") : "Accept: " + in.accept);
    if (!in.contentType.isEmpty() || !in.body.isEmpty())
        headers << "Content-Type: " +
                       (in.contentType.isEmpty() ? QByteArray("application/json") : in.contentType);
    headers << "Expect:"; // no 100-continue round trip for a body
    for (const QByteArray& h : headers)
        r.headers = curl_slist_append(r.headers, h.constData());
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, r.headers);

    const QByteArray method = in.method.toUpper();
    if (method == "HEAD") {
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else if (method != "GET" || !in.body.isEmpty()) {
        if (method != "POST")
            curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method.constData());
        if (!in.body.isEmpty() || method == "POST" || method == "PUT" || method == "PATCH") {
            curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(in.body.size()));
            curl_easy_setopt(easy, CURLOPT_POSTFIELDS, r.request.body.constData());
        }
    }

    // Non-streaming: an inactivity limit (a long list keeps it alive while it flows).
    // Streaming: a limit for the response head only; a watch may then be silent for hours.
    // Either counts from now, when the request goes to libcurl, which sends it at once: there is
    // no queue of its own in front of it (ListThrottle and ApiDiscovery keep theirs).
    r.deadline = steadyUs() + TimeUs(limitMs(r)) * kUsPerMs;
    if (curl_multi_add_handle(m_multi, easy) != CURLM_OK) {
        releaseEasy(r);
        *error = QStringLiteral("could not start a request to %1").arg(m_settings.endpoint);
        return false;
    }
    return true;
}

std::size_t HttpTransportWorker::headerCallback(char* data, std::size_t size, std::size_t count,
                                                void* request) {
    Request& r = *static_cast<Request*>(request);
    r.worker->onHeaderLine(r, QByteArray(data, qsizetype(size * count)));
    return size * count;
}

std::size_t HttpTransportWorker::writeCallback(char* data, std::size_t size, std::size_t count,
                                               void* request) {
    Request& r = *static_cast<Request*>(request);
    r.worker->onBody(r, data, size * count);
    return size * count;
}

curl_socket_t HttpTransportWorker::openSocket(void* worker, curlsocktype purpose,
                                              curl_sockaddr* address) {
    const curl_socket_t s = ::socket(address->family, address->socktype, address->protocol);
    if (s != CURL_SOCKET_BAD && purpose == CURLSOCKTYPE_IPCXN) {
        auto* self = static_cast<HttpTransportWorker*>(worker);
        self->m_sockets[s] = Socket{++self->m_connections, -1};
    }
    return s;
}

int HttpTransportWorker::closeSocket(void* worker, curl_socket_t socket) {
    static_cast<HttpTransportWorker*>(worker)->m_sockets.erase(socket);
    return ::close(socket);
}

qint32 HttpTransportWorker::connectionOf(Request& r) {
    long port = 0;
    if (curl_easy_getinfo(r.easy, CURLINFO_LOCAL_PORT, &port) != CURLE_OK || port <= 0)
        return 0;
    for (auto& [socket, known] : m_sockets) {
        if (known.localPort < 0) {
            sockaddr_storage local{};
            socklen_t length = sizeof local;
            if (::getsockname(socket, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
                if (local.ss_family == AF_INET)
                    known.localPort = ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
                else if (local.ss_family == AF_INET6)
                    known.localPort = ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
            }
            if (known.localPort == 0)
                known.localPort = -1; // not bound yet: ask again next time
        }
        if (known.localPort == port)
            return known.number;
    }
    return 0;
}

void HttpTransportWorker::onHeaderLine(Request& r, QByteArray line) {
    if (r.headSeen)
        return; // trailers
    while (line.endsWith('\n') || line.endsWith('\r'))
        line.chop(1);
    if (line.startsWith("HTTP/")) {
        // A status line starts a response: a 1xx one is followed by the real one.
        r.headerLines.clear();
        const QList<QByteArray> parts = line.split(' ');
        r.status = parts.size() > 1 ? parts[1].toInt() : 0;
        const qsizetype reasonAt = line.indexOf(' ', line.indexOf(' ') + 1);
        r.reason = reasonAt > 0 ? line.mid(reasonAt + 1).trimmed() : QByteArray();
        return;
    }
    if (line.isEmpty()) {
        if (r.status >= 200)
            onHeadComplete(r);
        return;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0)
        return;
    QByteArray name = line.left(colon).trimmed();
    if (isRecordedResponseHeader(name))
        r.headerLines.append({std::move(name), line.mid(colon + 1).trimmed()});
}

void HttpTransportWorker::onHeadComplete(Request& r) {
    r.headSeen = true;
    HttpResponseHead head;
    head.status = r.status;
    head.reason = r.reason;
    head.headers = r.headerLines;
    long version = 0;
    curl_easy_getinfo(r.easy, CURLINFO_HTTP_VERSION, &version);
    if (version == CURL_HTTP_VERSION_2_0)
        head.connection = connectionOf(r);
    // client-go gets a new credential when the server rejects the plugin's, and returns the 401
    // as it is: the requests that follow go with the new one.
    if (head.status == 401 && r.sentWith && !m_stopped)
        head.credentialReplaced = m_credentials->rejected(*r.sentWith);
    push(r.request.id, HttpFrameKind::ResponseHead, encodeHttpRecord(head));
    r.deadline = r.request.streaming ? 0 : steadyUs() + TimeUs(limitMs(r)) * kUsPerMs;
}

void HttpTransportWorker::onBody(Request& r, const char* data, std::size_t size) {
    if (!r.headSeen && r.status >= 200)
        onHeadComplete(r); // a head libcurl passed without its closing empty line
    r.pending.append(data, qsizetype(size));
    if (!r.request.streaming)
        r.deadline = steadyUs() + TimeUs(limitMs(r)) * kUsPerMs;
    if (r.pending.size() >= kMaxChunkBytes)
        flush(r);
}

bool HttpTransportWorker::flush(Request& r) {
    if (r.pending.isEmpty())
        return false;
    QByteArray bytes;
    bytes.swap(r.pending);
    push(r.request.id, HttpFrameKind::BodyChunk, std::move(bytes));
    return true;
}

void HttpTransportWorker::onDone(Request& r, CURLcode code) {
    if (!r.headSeen && code == CURLE_OK && r.status >= 200)
        onHeadComplete(r);
    flush(r);
    const auto [error, message] = outcome(r, code);
    finish(r, error, message);
}

void HttpTransportWorker::expireDeadlines() {
    const TimeUs now = steadyUs();
    std::vector<int> expired;
    for (const auto& [id, r] : m_requests) {
        if (r->easy && r->deadline > 0 && now >= r->deadline)
            expired.push_back(id);
    }
    for (int id : expired)
        abort(id, &Request::timedOut);
}

std::pair<HttpErrorKind, QString> HttpTransportWorker::outcome(const Request& r,
                                                               CURLcode code) const {
    const QString& endpoint = m_settings.endpoint;
    if (r.cancelled)
        return {HttpErrorKind::Cancelled, QStringLiteral("cancelled")};
    if (r.timedOut)
        return {HttpErrorKind::Timeout, timeoutText(r)};
    if (r.stopping)
        return {HttpErrorKind::Cancelled, QStringLiteral("the transport stopped")};
    if (!r.easy) // still waiting for its credential
        return {HttpErrorKind::Cancelled, QStringLiteral("cancelled")};
    if (code == CURLE_OK)
        return {HttpErrorKind::None, {}};
    const QString detail =
        QString::fromUtf8(r.errorText[0] ? r.errorText : curl_easy_strerror(code)).trimmed();
    const auto closed = [&]() -> std::pair<HttpErrorKind, QString> {
        if (r.headSeen)
            return {
                HttpErrorKind::Other,
                QStringLiteral("%1 closed the connection before the response ended").arg(endpoint)};
        return {HttpErrorKind::ConnectionClosed,
                QStringLiteral("%1 closed the connection without answering").arg(endpoint)};
    };
    if (isTlsFailure(code) || (m_settings.https && !r.headSeen && isTlsAlert(detail) &&
                               (code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR)))
        return {
            HttpErrorKind::Tls,
            QStringLiteral("TLS handshake with %1 failed: %2").arg(endpoint, tlsReason(detail))};
    switch (code) {
    case CURLE_COULDNT_CONNECT: {
        long osError = 0;
        curl_easy_getinfo(r.easy, CURLINFO_OS_ERRNO, &osError);
        if (r.viaProxy)
            return {HttpErrorKind::ConnectionRefused,
                    QStringLiteral("connection refused by the proxy for %1").arg(endpoint)};
        if (osError == ECONNREFUSED || osError == 0)
            return {HttpErrorKind::ConnectionRefused,
                    QStringLiteral("connection refused: %1").arg(endpoint)};
        return {HttpErrorKind::Other, QStringLiteral("%1: %2").arg(endpoint, detail)};
    }
    case CURLE_COULDNT_RESOLVE_HOST:
        return {HttpErrorKind::HostNotFound,
                QStringLiteral("unknown host %1").arg(m_settings.server.host())};
    case CURLE_COULDNT_RESOLVE_PROXY:
        return {HttpErrorKind::HostNotFound,
                QStringLiteral("unknown proxy host for %1").arg(endpoint)};
    case CURLE_OPERATION_TIMEDOUT:
        return {HttpErrorKind::Timeout, QStringLiteral("connection to %1 timed out").arg(endpoint)};
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR: {
        // A reset on a TLS connection opened for this very request, before any answer: the
        // server refusing the client (TLS 1.3 judges the client's certificate after the
        // handshake, and its alert can be lost to the reset). A reset of a kept-alive connection
        // is a connection closed, which client-go's REST layer sends again.
        long opened = 0;
        curl_easy_getinfo(r.easy, CURLINFO_NUM_CONNECTS, &opened);
        if (m_settings.https && !r.headSeen && opened > 0)
            return {HttpErrorKind::Other, QStringLiteral("%1: %2").arg(endpoint, detail)};
        return closed();
    }
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2_STREAM:
        return closed();
    case CURLE_HTTP2:
        if (r.headSeen)
            return closed();
        return {HttpErrorKind::ProtocolError,
                QStringLiteral("protocol error talking to %1: %2").arg(endpoint, detail)};
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_BAD_CONTENT_ENCODING:
        return {HttpErrorKind::ProtocolError,
                QStringLiteral("protocol error talking to %1: %2").arg(endpoint, detail)};
    default:
        return {HttpErrorKind::Other, QStringLiteral("%1: %2").arg(endpoint, detail)};
    }
}

int HttpTransportWorker::limitMs(const Request& r) {
    return r.request.timeoutMs > 0 ? r.request.timeoutMs : kDefaultTimeoutMs;
}

QString HttpTransportWorker::timeoutText(const Request& r) const {
    const QString limit = seconds(limitMs(r));
    if (!r.headSeen)
        return QStringLiteral("no response from %1 within %2").arg(m_settings.endpoint, limit);
    return QStringLiteral("no data from %1 for %2").arg(m_settings.endpoint, limit);
}

void HttpTransportWorker::releaseEasy(Request& r) {
    if (r.easy) {
        curl_multi_remove_handle(m_multi, r.easy);
        curl_easy_cleanup(r.easy);
        r.easy = nullptr;
    }
    curl_slist_free_all(r.headers);
    r.headers = nullptr;
    curl_slist_free_all(r.connectTo);
    r.connectTo = nullptr;
    r.deadline = 0;
}

void HttpTransportWorker::finish(Request& r, HttpErrorKind error, const QString& message) {
    push(r.request.id, HttpFrameKind::ResponseEnd,
         encodeHttpRecord(
             HttpResponseEnd{error, error == HttpErrorKind::None ? QString() : scrub(message)}));
    releaseEasy(r);
    m_requests.erase(r.request.id); // destroys r
}

void HttpTransportWorker::abort(int id, bool Request::*reason) {
    const auto it = m_requests.find(id);
    if (it == m_requests.end())
        return;
    Request& r = *it->second;
    r.*reason = true;
    flush(r); // what arrived before it ended is part of the response
    const auto [error, message] = outcome(r, CURLE_OK);
    finish(r, error, message);
}

void HttpTransportWorker::doShutdown() {
    if (m_stopped)
        return;
    m_stopped = true;
    {
        std::lock_guard lock(m_mailbox->mutex);
        m_mailbox->worker = nullptr;
    }
    std::vector<int> ids;
    for (const auto& [id, r] : m_requests)
        ids.push_back(id);
    for (int id : ids)
        abort(id, &Request::stopping);
}

} // namespace ws

#include "HttpTransportWorker.h"

#include "EnvironmentProxyFactory.h"
#include "HttpFrameRecords.h"

#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkRequest>
#include <QTimer>

namespace ws {

namespace {

// Errors Qt reports for an HTTP status (404, 401, 500, ...): the response itself is the answer,
// already recorded in ResponseHead and BodyChunks; the request did not fail as a transport.
bool isHttpStatusError(QNetworkReply::NetworkError error) {
    const int code = int(error);
    return (code >= 201 && code <= 299) || (code >= 401 && code <= 499) ||
           error == QNetworkReply::ProtocolInvalidOperationError;
}

// Qt wraps OpenSSL's text in its own prefixes (sometimes twice): keep the reason alone.
QString tlsReason(QString text) {
    static const QString prefixes[] = {QStringLiteral("SSL handshake failed: "),
                                       QStringLiteral("Error while reading: ")};
    for (bool stripped = true; stripped;) {
        stripped = false;
        for (const QString& prefix : prefixes) {
            if (text.startsWith(prefix, Qt::CaseInsensitive)) {
                text = text.mid(prefix.size());
                stripped = true;
            }
        }
    }
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

} // namespace

HttpTransportWorker::HttpTransportWorker(ClusterHttpSettings settings, ClusterTarget target,
                                         FrameQueue& queue, Clock clock,
                                         CredentialProvider credentials)
    : m_settings(std::move(settings)), m_target(std::move(target)), m_queue(queue),
      m_clock(std::move(clock)), m_credentials(std::move(credentials)),
      m_mailbox(std::make_shared<Mailbox>()),
      m_environment(QProcessEnvironment::systemEnvironment()) {
    m_mailbox->worker = this;
    for (const QString& secret : {m_target.token, m_target.password})
        if (!secret.isEmpty())
            m_secrets << secret;
}

HttpTransportWorker::~HttpTransportWorker() {
    shutdown();
}

QNetworkAccessManager* HttpTransportWorker::newManager() {
    auto* manager = new QNetworkAccessManager(this);
    if (m_settings.proxy)
        manager->setProxy(*m_settings.proxy);
    else
        manager->setProxyFactory(new EnvironmentProxyFactory(m_environment));
    manager->setAutoDeleteReplies(false);
    return manager;
}

int HttpTransportWorker::acquireLane(bool streaming) {
    if (m_lanes.empty()) {
        m_lanes.push_back(Lane{newManager()});
        m_shortLane = 0;
    }
    Lane& shortLane = m_lanes[m_shortLane];
    if (!streaming)
        return static_cast<int>(m_shortLane);
    // Over HTTP/1.1 every stream has a connection of its own: none on the short requests'
    // manager, whose six connections serve the short requests.
    if (m_http2 && shortLane.streams < kStreamsPerHttp2Connection - kHttp2ShortRequestStreams) {
        ++shortLane.streams;
        return static_cast<int>(m_shortLane);
    }
    const int limit = m_http2 ? kStreamsPerHttp2Connection : kStreamsPerManager;
    for (std::size_t i = 0; i < m_lanes.size(); ++i) {
        if (i != m_shortLane && !m_lanes[i].retired && m_lanes[i].streams < limit) {
            ++m_lanes[i].streams;
            return static_cast<int>(i);
        }
    }
    m_lanes.push_back(Lane{newManager(), 1});
    return static_cast<int>(m_lanes.size() - 1);
}

void HttpTransportWorker::retireLanes() {
    for (Lane& lane : m_lanes)
        lane.retired = true;
    m_shortLane = m_lanes.size();
    m_lanes.push_back(Lane{newManager()});
}

void HttpTransportWorker::releaseLane(int lane, bool streaming) {
    if (streaming && lane >= 0 && lane < static_cast<int>(m_lanes.size()))
        --m_lanes[static_cast<std::size_t>(lane)].streams;
}

QString HttpTransportWorker::scrub(QString message) const {
    for (const QString& secret : m_secrets) {
        if (secret.size() >= 4)
            message.replace(secret, QStringLiteral("<redacted>"));
    }
    return message.simplified();
}

void HttpTransportWorker::push(Request& r, HttpFrameKind kind, QByteArray bytes) {
    Frame frame;
    frame.connection = r.request.id;
    frame.received = m_clock();
    frame.kind = std::uint16_t(kind);
    frame.bytes = std::move(bytes);
    m_queue.push(std::move(frame));
}

HttpTransportWorker::Request* HttpTransportWorker::active(int id, const QNetworkReply* reply) {
    const auto it = m_requests.find(id);
    if (it == m_requests.end() || it->second->reply != reply)
        return nullptr;
    return it->second.get();
}

void HttpTransportWorker::submit(const HttpRequest& request) {
    if (m_requests.count(request.id)) {
        // Two requests with one id would interleave their frames: refuse the second.
        qWarning("cluster http: request id %d is already in flight; the new request is dropped",
                 request.id);
        return;
    }
    auto owned = std::make_unique<Request>();
    Request& r = *owned;
    r.request = request;
    m_requests.emplace(request.id, std::move(owned));
    push(r, HttpFrameKind::RequestSent,
         encodeHttpRecord(HttpRequestSent{request.method, request.pathAndQuery, 1}));
    if (m_stopped) {
        finish(r, HttpErrorKind::Cancelled, QStringLiteral("the transport stopped"));
        return;
    }
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
                QMetaObject::invokeMethod(
                    worker,
                    [worker, credentials = std::move(credentials), why = std::move(why)] {
                        worker->onCredential(credentials, why);
                    },
                    Qt::QueuedConnection);
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
                                    QNetworkRequest& request, QString* error) {
    QByteArray authorization;
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
        authorization = "Bearer " + fileToken;
    } else if (!m_target.token.isEmpty()) {
        authorization = "Bearer " + m_target.token.toUtf8();
    } else if (!fileError.isEmpty()) {
        *error = fileError;
        return false;
    } else if (!m_target.username.isEmpty() || !m_target.password.isEmpty()) {
        authorization =
            "Basic " +
            (m_target.username + QLatin1Char(':') + m_target.password).toUtf8().toBase64();
    } else if (plugin) {
        QString why;
        r.sentWith = *plugin;
        if (!plugin->bearerToken.isEmpty()) {
            if (!m_secrets.contains(plugin->bearerToken))
                m_secrets << plugin->bearerToken;
            authorization = "Bearer " + plugin->bearerToken.toUtf8();
        }
        if (plugin->clientCertPem != m_execCertPem || plugin->clientKeyPem != m_execKeyPem) {
            m_execClient.reset();
            if (!plugin->clientCertPem.isEmpty() || !plugin->clientKeyPem.isEmpty()) {
                m_execClient =
                    ClientCertificate::fromPem(plugin->clientCertPem, plugin->clientKeyPem, &why);
                if (!m_execClient) {
                    *error =
                        QStringLiteral("the exec credential's client certificate: %1").arg(why);
                    return false;
                }
            }
            m_execCertPem = plugin->clientCertPem;
            m_execKeyPem = plugin->clientKeyPem;
            // Kept-alive connections still present the previous certificate: drop them.
            for (const Lane& lane : m_lanes)
                lane.manager->clearConnectionCache();
        }
        if (authorization.isEmpty() && !m_execClient) {
            *error = QStringLiteral("the exec credential plugin returned neither a token nor a "
                                    "client certificate");
            return false;
        }
    }
    if (!authorization.isEmpty())
        request.setRawHeader("Authorization", authorization);
    if (m_settings.https) {
        QSslConfiguration tls = m_settings.tls;
        if (r.sentWith && m_execClient) {
            tls.setLocalCertificateChain(m_execClient->chain);
            tls.setPrivateKey(m_execClient->key);
        }
        request.setSslConfiguration(tls);
    }
    return true;
}

bool HttpTransportWorker::dispatch(Request& r, const HttpCredentials* plugin, QString* error) {
    const HttpRequest& in = r.request;
    const QUrl url = m_settings.urlFor(in.pathAndQuery);
    if (!url.isValid()) {
        *error = QStringLiteral("invalid request path %1").arg(in.pathAndQuery);
        return false;
    }
    QNetworkRequest request(url);
    if (!authorize(r, plugin, request, error))
        return false;
    r.headSeen = false;
    r.sslErrors.clear();

    request.setRawHeader("User-Agent", m_settings.userAgent);
    for (const auto& [name, value] : m_target.impersonate.headers())
        request.setRawHeader(name, value);
    if (!in.accept.isEmpty())
        request.setRawHeader("Accept", in.accept);
    if (!in.contentType.isEmpty() || !in.body.isEmpty())
        request.setRawHeader("Content-Type", in.contentType.isEmpty()
                                                 ? QByteArray("application/json")
                                                 : in.contentType);
    // No Accept-Encoding of ours: Qt then asks for gzip and decodes it transparently, so the
    // BodyChunk frames (the capture) hold the decoded bytes.
    // client-go follows no redirects for the API, keeps no cookies and no cache.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute,
                         QNetworkRequest::AlwaysNetwork);
    request.setAttribute(QNetworkRequest::CacheSaveControlAttribute, false);
    // HTTP/2 where the server offers it by ALPN, as client-go negotiates it: then one connection
    // carries the LISTs, the watches, discovery and /metrics, so they all reach the same
    // apiserver behind a load balancer. Qt's defaults suit watches: a stream may have about
    // 21 MB and the connection 2 GiB unread, and Qt returns the window as it receives DATA, not
    // as this thread reads, so a busy watch or a large LIST never holds up the others (nor does
    // setReadBufferSize() bound what Qt buffers then). Plain http stays HTTP/1.1 (no h2c).
    // When the connection is lost (reset, EOF), Qt ends every stream on it with an error, so
    // each watch ends and its reflector watches again over the next connection, as over
    // HTTP/1.1. A GOAWAY ends the streams the server did not take the same way; requests made
    // between it and the connection's end fail at once (Qt 6.4 opens no other connection
    // meanwhile) and are retried by their owner.
    // Keep-alive: Qt 6.4 sets SO_KEEPALIVE on its sockets with the kernel's timing (the first
    // probe after 2 hours idle), gives no way to change it, and sends no HTTP/2 PING (it only
    // answers the server's); client-go probes after 30 s. What keeps a quiet connection
    // from an idle-timeout middlebox here is traffic: the cacher's bookmark to every watch once
    // a minute (once its cache RV moved past the watch's RV), all on the one HTTP/2 connection.
    // A connection dropped unseen is noticed by the reflector (ClusterReflector.cpp,
    // kQuietWatchLimit); a watch still waiting for its first bookmark only at its
    // timeoutSeconds.
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, m_settings.https);
    // A watch goes before LISTs that wait for a free stream of the connection.
    if (in.streaming)
        request.setPriority(QNetworkRequest::HighPriority);
    if (m_settings.https && !m_settings.peerVerifyName.isEmpty())
        request.setPeerVerifyName(m_settings.peerVerifyName);

    r.lane = acquireLane(in.streaming);
    QNetworkAccessManager* manager = m_lanes[static_cast<std::size_t>(r.lane)].manager;
    const QByteArray method = in.method.toUpper();
    QNetworkReply* reply = nullptr;
    if (method == "GET" && in.body.isEmpty())
        reply = manager->get(request);
    else if (method == "HEAD")
        reply = manager->head(request);
    else if (method == "DELETE" && in.body.isEmpty())
        reply = manager->deleteResource(request);
    else if (method == "POST")
        reply = manager->post(request, in.body);
    else if (method == "PUT")
        reply = manager->put(request, in.body);
    else
        reply = manager->sendCustomRequest(request, method, in.body);
    r.reply = reply;
    // Over HTTP/1.1 bounds what Qt reads ahead of us: should this thread fall behind a fast
    // server, Qt stops reading the socket instead of buffering a whole list, and chunks stay
    // small.
    reply->setReadBufferSize(kReadBufferBytes);

    const int id = in.id;
    connect(reply, &QNetworkReply::metaDataChanged, this, [this, id, reply] {
        if (Request* a = active(id, reply))
            onHead(*a);
    });
    connect(reply, &QNetworkReply::readyRead, this, [this, id, reply] {
        if (Request* a = active(id, reply))
            onReadyRead(*a);
    });
    connect(reply, &QNetworkReply::finished, this, [this, id, reply] {
        if (Request* a = active(id, reply))
            onFinished(*a);
    });
    // Qt emits encrypted() once per TLS handshake, on one reply of the connection it opened:
    // the requests of the manager answered from now on came over that new connection.
    connect(reply, &QNetworkReply::encrypted, this, [this, id, reply] {
        if (Request* a = active(id, reply))
            m_lanes[static_cast<std::size_t>(a->lane)].connection = ++m_connections;
    });
    connect(reply, &QNetworkReply::sslErrors, this,
            [this, id, reply](const QList<QSslError>& errors) {
                Request* a = active(id, reply);
                if (!a)
                    return;
                a->sslErrors += errors;
                if (m_settings.insecure)
                    reply->ignoreSslErrors();
            });
    connect(reply, &QNetworkReply::uploadProgress, this, [this, id, reply] {
        Request* a = active(id, reply);
        if (a && !a->request.streaming)
            a->timer->start();
    });

    // Non-streaming: an inactivity limit (a long list keeps it alive while it flows).
    // Streaming: a limit for the response head only; a watch may then be silent for hours.
    // Either counts from when Qt takes the request out of its queue (at most 6 connections a
    // host and manager): when it opens a connection for it, or sends it on a kept-alive one.
    if (!r.timer) {
        r.timer = new QTimer(this);
        r.timer->setSingleShot(true);
        connect(r.timer, &QTimer::timeout, this, [this, id] { abort(id, &Request::timedOut); });
    }
    r.timer->setInterval(in.timeoutMs > 0 ? in.timeoutMs : kDefaultTimeoutMs);
    r.timer->stop();
    const auto sent = [this, id, reply] {
        Request* a = active(id, reply);
        if (a && !a->headSeen)
            a->timer->start();
    };
    connect(reply, &QNetworkReply::socketStartedConnecting, this, sent);
    connect(reply, &QNetworkReply::requestSent, this, sent);
    return true;
}

void HttpTransportWorker::onHead(Request& r) {
    if (r.headSeen)
        return;
    const QVariant status = r.reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    if (!status.isValid())
        return;
    r.headSeen = true;
    HttpResponseHead head;
    head.status = status.toInt();
    head.reason = r.reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toByteArray();
    for (const auto& [name, value] : r.reply->rawHeaderPairs()) {
        if (isRecordedResponseHeader(name))
            head.headers.append({name, value});
    }
    if (m_settings.https) {
        m_http2 = r.reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool();
        if (m_http2)
            head.connection = m_lanes[static_cast<std::size_t>(r.lane)].connection;
    }
    // client-go gets a new credential when the server rejects the plugin's, and returns the 401
    // as it is: the requests that follow go with the new one.
    if (head.status == 401 && r.sentWith && !m_stopped)
        head.credentialReplaced = m_credentials->rejected(*r.sentWith);
    // Qt 6.4 sends no further request on an HTTP/2 connection that answered 401 (the next one
    // waits there until its timeout; tst_realexecauth): the requests after a 401 go over a new
    // connection, a new manager's, and those still running on the old ones end there.
    if (head.status == 401 && m_http2 && !m_stopped &&
        !m_lanes[static_cast<std::size_t>(r.lane)].retired)
        retireLanes();
    push(r, HttpFrameKind::ResponseHead, encodeHttpRecord(head));
    if (r.request.streaming)
        r.timer->stop();
    else
        r.timer->start();
}

void HttpTransportWorker::onReadyRead(Request& r) {
    onHead(r);
    QByteArray bytes = r.reply->readAll();
    if (bytes.isEmpty())
        return;
    if (!r.request.streaming)
        r.timer->start();
    push(r, HttpFrameKind::BodyChunk, std::move(bytes));
}

void HttpTransportWorker::onFinished(Request& r) {
    onHead(r);
    if (r.reply->isOpen()) { // abort() closes it
        QByteArray rest = r.reply->readAll();
        if (!rest.isEmpty())
            push(r, HttpFrameKind::BodyChunk, std::move(rest));
    }
    const auto [error, message] = outcome(r);
    finish(r, error, message);
}

std::pair<HttpErrorKind, QString> HttpTransportWorker::outcome(const Request& r) const {
    const QString& endpoint = m_settings.endpoint;
    if (r.cancelled)
        return {HttpErrorKind::Cancelled, QStringLiteral("cancelled")};
    if (r.timedOut)
        return {HttpErrorKind::Timeout, timeoutText(r)};
    if (r.stopping)
        return {HttpErrorKind::Cancelled, QStringLiteral("the transport stopped")};
    if (!r.reply) // still waiting for its credential
        return {HttpErrorKind::Cancelled, QStringLiteral("cancelled")};
    const QNetworkReply::NetworkError error = r.reply->error();
    if (error == QNetworkReply::NoError || (r.headSeen && isHttpStatusError(error)))
        return {HttpErrorKind::None, {}};
    const QString detail = r.reply->errorString();
    if (m_settings.https && !r.headSeen && error != QNetworkReply::SslHandshakeFailedError &&
        isTlsAlert(detail))
        return {
            HttpErrorKind::Tls,
            QStringLiteral("TLS handshake with %1 failed: %2").arg(endpoint, tlsReason(detail))};
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
        return {HttpErrorKind::ConnectionRefused,
                QStringLiteral("connection refused: %1").arg(endpoint)};
    case QNetworkReply::HostNotFoundError:
        return {HttpErrorKind::HostNotFound,
                QStringLiteral("unknown host %1").arg(m_settings.server.host())};
    case QNetworkReply::TimeoutError:
        return {HttpErrorKind::Timeout, QStringLiteral("connection to %1 timed out").arg(endpoint)};
    case QNetworkReply::SslHandshakeFailedError: {
        const QString reason =
            r.sslErrors.isEmpty() ? tlsReason(detail) : r.sslErrors.first().errorString();
        return {HttpErrorKind::Tls,
                QStringLiteral("TLS handshake with %1 failed: %2").arg(endpoint, reason)};
    }
    case QNetworkReply::RemoteHostClosedError:
        if (r.headSeen)
            return {
                HttpErrorKind::Other,
                QStringLiteral("%1 closed the connection before the response ended").arg(endpoint)};
        return {HttpErrorKind::ConnectionClosed,
                QStringLiteral("%1 closed the connection without answering").arg(endpoint)};
    case QNetworkReply::ProxyConnectionRefusedError:
        return {HttpErrorKind::ConnectionRefused,
                QStringLiteral("connection refused by the proxy for %1").arg(endpoint)};
    case QNetworkReply::ProxyNotFoundError:
        return {HttpErrorKind::HostNotFound,
                QStringLiteral("unknown proxy host for %1").arg(endpoint)};
    case QNetworkReply::ProxyTimeoutError:
        return {HttpErrorKind::Timeout, QStringLiteral("the proxy for %1 timed out").arg(endpoint)};
    case QNetworkReply::ProtocolUnknownError:
    case QNetworkReply::ProtocolFailure:
    case QNetworkReply::ProtocolInvalidOperationError:
        return {HttpErrorKind::ProtocolError,
                QStringLiteral("protocol error talking to %1: %2").arg(endpoint, detail)};
    default:
        return {HttpErrorKind::Other, QStringLiteral("%1: %2").arg(endpoint, detail)};
    }
}

QString HttpTransportWorker::timeoutText(const Request& r) const {
    const QString limit = seconds(r.timer ? r.timer->interval() : kDefaultTimeoutMs);
    if (!r.headSeen)
        return QStringLiteral("no response from %1 within %2").arg(m_settings.endpoint, limit);
    return QStringLiteral("no data from %1 for %2").arg(m_settings.endpoint, limit);
}

void HttpTransportWorker::releaseReply(Request& r) {
    if (!r.reply)
        return;
    disconnect(r.reply, nullptr, this, nullptr);
    r.reply->deleteLater();
    r.reply = nullptr;
    releaseLane(r.lane, r.request.streaming);
    r.lane = -1;
    if (r.timer)
        r.timer->stop();
}

void HttpTransportWorker::finish(Request& r, HttpErrorKind error, const QString& message) {
    push(r, HttpFrameKind::ResponseEnd,
         encodeHttpRecord(
             HttpResponseEnd{error, error == HttpErrorKind::None ? QString() : scrub(message)}));
    releaseReply(r);
    if (r.timer)
        r.timer->deleteLater();
    m_requests.erase(r.request.id); // destroys r
}

void HttpTransportWorker::abort(int id, bool Request::*reason) {
    const auto it = m_requests.find(id);
    if (it == m_requests.end())
        return;
    Request& r = *it->second;
    r.*reason = true;
    QNetworkReply* reply = r.reply;
    // A reply that already failed (a TLS handshake) and has not yet said so: aborting it would
    // make Qt report a second error ("this method must only be called once") on stderr.
    if (reply && !reply->isFinished() && reply->error() == QNetworkReply::NoError)
        reply->abort(); // emits finished() at once: onFinished() ends the request
    // Should Qt not have emitted finished() (already finished, not yet signalled), end it here.
    if (Request* left = active(id, reply)) {
        const auto [error, message] = outcome(*left);
        finish(*left, error, message);
    }
}

void HttpTransportWorker::cancel(int id) {
    abort(id, &Request::cancelled);
}

void HttpTransportWorker::shutdown() {
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
    // Replies are the managers' children: they go with them.
    for (const Lane& lane : m_lanes)
        delete lane.manager;
    m_lanes.clear();
}

} // namespace ws

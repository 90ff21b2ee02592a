#include "HttpServer.h"

#include "ApiHandler.h"
#include "AuditLog.h"
#include "ResponseSink.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <openssl/x509.h>

#include <QFile>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <optional>

namespace ws {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

constexpr std::size_t kBodyLimit = 8 * 1024 * 1024; // requests (objects) are small

// What every connection shares: the handler, the authenticator, the connection count.
struct ServerContext {
    ApiHandler& handler;
    const ServeOptions& options;
    ServeAuthenticator auth;
    std::size_t connections = 0;
    std::uint64_t nextAuditId = 1;
    AuditLog audit; // open with --audit-log-path
};

std::string unauthorizedBody() {
    return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})"
           "\n";
}

// CN and O of a verified client certificate: the user and its groups (as kube-apiserver).
std::optional<ServeUser> certificateUser(SSL* ssl) {
    if (SSL_get_verify_result(ssl) != X509_V_OK)
        return std::nullopt;
    X509* cert = SSL_get1_peer_certificate(ssl);
    if (!cert)
        return std::nullopt;
    ServeUser user;
    X509_NAME* subject = X509_get_subject_name(cert);
    auto entries = [&](int nid) {
        QStringList out;
        for (int i = X509_NAME_get_index_by_NID(subject, nid, -1); i >= 0;
             i = X509_NAME_get_index_by_NID(subject, nid, i)) {
            ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
            unsigned char* utf8 = nullptr;
            const int n = ASN1_STRING_to_UTF8(&utf8, data);
            if (n >= 0)
                out << QString::fromUtf8(reinterpret_cast<const char*>(utf8), n);
            OPENSSL_free(utf8);
        }
        return out;
    };
    user.name = entries(NID_commonName).value(0);
    user.groups = entries(NID_organizationName);
    user.groups << QStringLiteral("system:authenticated");
    X509_free(cert);
    if (user.name.isEmpty())
        return std::nullopt;
    return user;
}

// One connection. Stream is beast::tcp_stream or beast::ssl_stream<beast::tcp_stream>.
template <class Stream> class Session : public std::enable_shared_from_this<Session<Stream>> {
public:
    template <class... Args>
    Session(ServerContext& ctx, Args&&... args)
        : m_ctx(ctx), m_stream(std::forward<Args>(args)...) {
        ++m_ctx.connections;
    }
    ~Session() { --m_ctx.connections; }

    void start() {
        if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
            read();
        } else {
            beast::get_lowest_layer(m_stream).expires_after(std::chrono::seconds(30));
            m_stream.async_handshake(ssl::stream_base::server,
                                     [self = this->shared_from_this()](beast::error_code ec) {
                                         if (!ec)
                                             self->read();
                                     });
        }
    }

    // ResponseSink calls, forwarded while the session lives.
    void respond(int status, std::string_view type, std::string body, HttpHeaders headers) {
        if (m_closed || m_responding)
            return;
        m_responding = true;
        if (m_audit) {
            m_auditCode = status;
            // A metav1.Status answer (errors, a delete's Success) goes into responseStatus.
            if (body.size() < 65536 && body.find(R"("kind":"Status")") != std::string::npos)
                m_auditStatusBody = body;
        }
        auto res = std::make_shared<http::response<http::string_body>>(
            static_cast<http::status>(status), 11);
        res->set(http::field::content_type, beast::string_view(type.data(), type.size()));
        res->set(http::field::cache_control, "no-cache, private");
        res->set("Audit-Id", m_requestAuditId);
        for (auto& [k, v] : headers)
            res->set(k, v);
        res->keep_alive(m_keepAlive);
        res->body() = std::move(body);
        res->prepare_payload();
        beast::get_lowest_layer(m_stream).expires_never();
        http::async_write(
            m_stream, *res,
            [self = this->shared_from_this(), res](beast::error_code ec, std::size_t) {
                self->m_responding = false;
                self->finishAudit();
                if (ec || !self->m_keepAlive)
                    return self->close();
                self->read();
            });
    }

    void beginStream(int status, std::string_view type) {
        if (m_closed || m_responding)
            return;
        m_responding = true;
        m_streaming = true;
        m_streamHead = std::make_unique<http::response<http::empty_body>>(
            static_cast<http::status>(status), 11);
        m_streamHead->set(http::field::content_type, beast::string_view(type.data(), type.size()));
        m_streamHead->set(http::field::cache_control, "no-cache, private");
        m_streamHead->set("Audit-Id", m_requestAuditId);
        if (m_audit) {
            // The headers of a long-running request: ResponseStarted (filters/audit.go).
            m_auditCode = status;
            m_ctx.audit.write(*m_audit, AuditLog::Stage::ResponseStarted, status, {},
                              AuditLog::nowUnixUs());
        }
        m_streamHead->chunked(true);
        m_serializer = std::make_unique<http::response_serializer<http::empty_body>>(*m_streamHead);
        beast::get_lowest_layer(m_stream).expires_never();
        m_writing = true;
        http::async_write_header(
            m_stream, *m_serializer,
            [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                self->m_writing = false;
                if (ec)
                    return self->close();
                self->flush();
            });
        watchForClose();
    }

    void write(std::string chunk) {
        if (m_closed || !m_streaming || m_ending)
            return;
        m_backlog += chunk.size();
        m_queue.push_back(std::move(chunk));
        flush();
    }

    void endStream() {
        if (m_closed || !m_streaming || m_ending)
            return;
        m_ending = true;
        flush();
    }

    void abort() { close(); }
    std::size_t backlog() const { return m_backlog; }
    bool gone() const { return m_closed; }

private:
    std::string auditId() {
        char buf[40];
        std::snprintf(buf, sizeof buf, "5e7a11ed-0000-4000-8000-%012llu",
                      static_cast<unsigned long long>(m_ctx.nextAuditId++));
        return buf;
    }

    void read() {
        m_parser.emplace();
        m_parser->body_limit(kBodyLimit);
        // Idle keep-alive connections are closed after a while, as Go's server does.
        beast::get_lowest_layer(m_stream).expires_after(std::chrono::seconds(120));
        http::async_read(m_stream, m_buffer, *m_parser,
                         [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                             if (ec)
                                 return self->close();
                             self->onRequest();
                         });
    }

    void onRequest() {
        http::request<http::string_body> req = m_parser->release();
        const std::int64_t receivedUs = AuditLog::nowUnixUs();
        m_requestAuditId = auditId();
        m_keepAlive = req.keep_alive();
        HttpRequestInfo info;
        info.method = std::string(req.method_string());
        info.target = std::string(req.target());
        info.accept = std::string(req[http::field::accept]);
        info.body = std::move(req.body());
        if (m_ctx.options.authenticates()) {
            std::optional<ServeUser> user;
            if constexpr (!std::is_same_v<Stream, beast::tcp_stream>)
                user = certificateUser(m_stream.native_handle());
            if (!user)
                user = m_ctx.auth.fromAuthorization(
                    QString::fromStdString(std::string(req[http::field::authorization])));
            if (!user) {
                // kube-apiserver audits the refusal too: one ResponseStarted event with the 401
                // and no user (filters/authn_audit.go), nothing before or after it.
                std::string body = unauthorizedBody();
                if (std::optional<AuditRecord> refused = auditRecord(info, req, receivedUs)) {
                    refused->failedAuthentication = true;
                    m_ctx.audit.write(*refused, AuditLog::Stage::ResponseStarted, 401, body,
                                      AuditLog::nowUnixUs());
                }
                return respond(401, "application/json", std::move(body), {});
            }
            info.user = user->name;
            info.groups = user->groups;
        }
        m_audit = auditRecord(info, req, receivedUs);
        if (m_audit)
            m_ctx.audit.write(*m_audit, AuditLog::Stage::RequestReceived, 0, {}, receivedUs);
        m_ctx.handler.handle(info, sinkFor());
    }

    // What the audit filter records of a request, or none when nothing is audited: no log, or a
    // restarting apiserver that drops the request unseen.
    std::optional<AuditRecord> auditRecord(const HttpRequestInfo& info,
                                           const http::request<http::string_body>& req,
                                           std::int64_t receivedUs) {
        if (!m_ctx.audit.isOpen() || !m_ctx.handler.accepting())
            return std::nullopt;
        AuditRecord r =
            AuditRecord::forRequest(m_requestAuditId, info.method, info.target, receivedUs);
        r.user = info.user;
        r.groups = info.groups;
        beast::error_code ec;
        const auto peer = beast::get_lowest_layer(m_stream).socket().remote_endpoint(ec);
        if (!ec)
            r.sourceIp = peer.address().to_string();
        r.userAgent = std::string(req[http::field::user_agent]);
        return r;
    }

    std::shared_ptr<ResponseSink> sinkFor();

    // While a watch streams, the client sends nothing: a read that completes means it closed.
    void watchForClose() {
        beast::get_lowest_layer(m_stream).socket().async_wait(
            tcp::socket::wait_read, [self = this->shared_from_this()](beast::error_code ec) {
                if (self->m_closed)
                    return;
                if (ec)
                    return self->close();
                char probe;
                beast::error_code rec;
                const std::size_t n =
                    beast::get_lowest_layer(self->m_stream)
                        .socket()
                        .receive(net::buffer(&probe, 1), tcp::socket::message_peek, rec);
                if (rec || n == 0)
                    return self->close();
                // Bytes (TLS records, a pipelined request): not a close; stop probing.
            });
    }

    void flush() {
        if (m_writing || m_closed || !m_serializer || !m_serializer->is_header_done())
            return;
        if (!m_queue.empty()) {
            m_writing = true;
            net::async_write(m_stream, http::make_chunk(net::buffer(m_queue.front())),
                             [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                                 self->m_writing = false;
                                 if (ec)
                                     return self->close();
                                 self->m_backlog -= self->m_queue.front().size();
                                 self->m_queue.pop_front();
                                 self->flush();
                             });
            return;
        }
        if (m_ending) {
            m_writing = true;
            net::async_write(m_stream, http::make_chunk_last(),
                             [self = this->shared_from_this()](beast::error_code, std::size_t) {
                                 self->m_writing = false;
                                 // A watch connection is not reused: simpler than telling a
                                 // pipelined request from the client's close.
                                 self->close();
                             });
        }
    }

    // ResponseComplete once the answer is over (or the client went away): not for a request the
    // apiserver never finished because it went down (a killed process writes nothing more).
    void finishAudit() {
        if (!m_audit)
            return;
        if (m_auditCode != 0 && m_ctx.handler.accepting())
            m_ctx.audit.write(*m_audit, AuditLog::Stage::ResponseComplete, m_auditCode,
                              m_auditStatusBody, AuditLog::nowUnixUs());
        m_audit.reset();
        m_auditCode = 0;
        m_auditStatusBody.clear();
    }

    void close() {
        if (m_closed)
            return;
        m_closed = true;
        finishAudit();
        beast::error_code ec;
        beast::get_lowest_layer(m_stream).socket().shutdown(tcp::socket::shutdown_both, ec);
        beast::get_lowest_layer(m_stream).socket().close(ec);
    }

    ServerContext& m_ctx;
    Stream m_stream;
    beast::flat_buffer m_buffer;
    std::optional<http::request_parser<http::string_body>> m_parser;
    bool m_keepAlive = true;
    bool m_responding = false;
    bool m_streaming = false;
    bool m_ending = false;
    bool m_writing = false;
    bool m_closed = false;
    std::unique_ptr<http::response<http::empty_body>> m_streamHead;
    std::unique_ptr<http::response_serializer<http::empty_body>> m_serializer;
    std::deque<std::string> m_queue;
    std::size_t m_backlog = 0;
    std::string m_requestAuditId; // the Audit-Id header of the request being answered
    std::optional<AuditRecord> m_audit;
    int m_auditCode = 0;
    std::string m_auditStatusBody;
};

// Holds its session alive: a deferred answer (a list waiting up to 3 s for the cache) has no
// pending socket operation keeping it.
template <class Stream> class SessionSink : public ResponseSink {
public:
    explicit SessionSink(std::shared_ptr<Session<Stream>> s) : m_session(std::move(s)) {}
    void respond(int status, std::string_view type, std::string body,
                 HttpHeaders headers) override {
        if (auto& s = m_session)
            s->respond(status, type, std::move(body), std::move(headers));
    }
    void beginStream(int status, std::string_view type) override {
        if (auto& s = m_session)
            s->beginStream(status, type);
    }
    void write(std::string chunk) override {
        if (auto& s = m_session)
            s->write(std::move(chunk));
    }
    void endStream() override {
        if (auto& s = m_session)
            s->endStream();
    }
    void abort() override {
        if (auto& s = m_session)
            s->abort();
    }
    std::size_t backlog() const override { return m_session->backlog(); }
    bool gone() const override { return m_session->gone(); }

private:
    std::shared_ptr<Session<Stream>> m_session;
};

template <class Stream> std::shared_ptr<ResponseSink> Session<Stream>::sinkFor() {
    return std::make_shared<SessionSink<Stream>>(this->shared_from_this());
}

} // namespace

struct HttpServer::Impl {
    net::io_context& io;
    const ServeOptions& options;
    ServerContext ctx;
    tcp::acceptor acceptor;
    std::optional<ssl::context> tls;
    quint16 port = 0;

    Impl(net::io_context& i, const ServeOptions& o, ApiHandler& h)
        : io(i), options(o), ctx{h, o, {}, 0, 1, {}}, acceptor(i) {}

    void accept() {
        acceptor.async_accept(net::make_strand(io), [this](beast::error_code ec,
                                                           tcp::socket socket) {
            if (ec == net::error::operation_aborted)
                return;
            if (ec) {
                // Out of file descriptors (EMFILE) and the like: accepting again at once would
                // spin; back off as Go's http.Server does (5 ms doubling to 1 s).
                acceptBackoff = acceptBackoff.count() == 0
                                    ? std::chrono::milliseconds(5)
                                    : std::min(acceptBackoff * 2, std::chrono::milliseconds(1000));
                acceptTimer.expires_after(acceptBackoff);
                acceptTimer.async_wait([this](beast::error_code waitError) {
                    if (!waitError)
                        accept();
                });
                return;
            }
            acceptBackoff = std::chrono::milliseconds(0);
            socket.set_option(tcp::no_delay(true), ec);
            if (tls)
                std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
                    ctx, std::move(socket), *tls)
                    ->start();
            else
                std::make_shared<Session<beast::tcp_stream>>(ctx, std::move(socket))->start();
            accept();
        });
    }
    net::steady_timer acceptTimer{io};
    std::chrono::milliseconds acceptBackoff{0};
};

HttpServer::HttpServer(net::io_context& io, const ServeOptions& options, ApiHandler& handler)
    : m_impl(std::make_unique<Impl>(io, options, handler)) {}

HttpServer::~HttpServer() {
    stop();
}

bool HttpServer::listen(QString* error) {
    Impl& d = *m_impl;
    if (!d.options.auditLogPath.isEmpty() && !d.ctx.audit.open(d.options.auditLogPath, error))
        return false;
    if (!d.options.tokenFile.isEmpty() && !d.ctx.auth.loadTokenFile(d.options.tokenFile, error))
        return false;
    // asio reports a missing file as "asio.ssl error": say what is wrong with it first.
    for (const auto& [option, path] : {std::pair{"--tls-cert", d.options.tlsCertFile},
                                       {"--tls-key", d.options.tlsKeyFile},
                                       {"--client-ca", d.options.clientCaFile}}) {
        if (path.isEmpty())
            continue;
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("%1 %2: %3").arg(QLatin1String(option), path, f.errorString());
            return false;
        }
    }
    if (d.options.tls()) {
        if (d.options.tlsKeyFile.isEmpty()) {
            *error = QStringLiteral("--tls-cert needs --tls-key");
            return false;
        }
        d.tls.emplace(ssl::context::tls_server);
        beast::error_code ec;
        d.tls->use_certificate_chain_file(d.options.tlsCertFile.toStdString(), ec);
        if (ec) {
            *error = QStringLiteral("--tls-cert %1: %2")
                         .arg(d.options.tlsCertFile, QString::fromStdString(ec.message()));
            return false;
        }
        d.tls->use_private_key_file(d.options.tlsKeyFile.toStdString(), ssl::context::pem, ec);
        if (ec) {
            *error = QStringLiteral("--tls-key %1: %2")
                         .arg(d.options.tlsKeyFile, QString::fromStdString(ec.message()));
            return false;
        }
        if (!d.options.clientCaFile.isEmpty()) {
            d.tls->load_verify_file(d.options.clientCaFile.toStdString(), ec);
            if (ec) {
                *error = QStringLiteral("--client-ca %1: %2")
                             .arg(d.options.clientCaFile, QString::fromStdString(ec.message()));
                return false;
            }
            // Ask for a certificate but do not require one: token users have none.
            d.tls->set_verify_mode(ssl::verify_peer);
            // As kube-apiserver: an untrusted certificate does not fail the handshake, it just
            // authenticates nobody (certificateUser checks the verify result): 401.
            d.tls->set_verify_callback([](bool, ssl::verify_context&) { return true; });
        }
    } else if (!d.options.clientCaFile.isEmpty()) {
        *error = QStringLiteral("--client-ca needs TLS (--tls-cert and --tls-key)");
        return false;
    }
    beast::error_code ec;
    const auto address = net::ip::make_address(d.options.listenHost.toStdString(), ec);
    if (ec) {
        *error = QStringLiteral("--listen: '%1' is not an IP address").arg(d.options.listenHost);
        return false;
    }
    const tcp::endpoint endpoint(address, d.options.listenPort);
    d.acceptor.open(endpoint.protocol(), ec);
    if (!ec)
        d.acceptor.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec)
        d.acceptor.bind(endpoint, ec);
    if (!ec)
        d.acceptor.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
        *error = QStringLiteral("--listen %1:%2: %3")
                     .arg(d.options.listenHost)
                     .arg(d.options.listenPort)
                     .arg(QString::fromStdString(ec.message()));
        return false;
    }
    d.port = d.acceptor.local_endpoint().port();
    d.accept();
    return true;
}

quint16 HttpServer::port() const {
    return m_impl->port;
}

QString HttpServer::baseUrl() const {
    QString host = m_impl->options.listenHost;
    if (host.contains(u':'))
        host = u'[' + host + u']';
    return QStringLiteral("%1://%2:%3")
        .arg(m_impl->tls ? QStringLiteral("https") : QStringLiteral("http"), host)
        .arg(m_impl->port);
}

std::size_t HttpServer::openConnections() const {
    return m_impl->ctx.connections;
}

void HttpServer::stop() {
    beast::error_code ec;
    m_impl->acceptor.close(ec);
}

} // namespace ws

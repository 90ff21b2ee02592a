#include "EtcdClient.h"

#include "EtcdRawMessage.h"
#include "EtcdWireRangeResponse.h"
#include "rpc.grpc.pb.h"

#include <QFile>
#include <QRegularExpression>
#include <QUrl>
#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/rpc_method.h>

#include <mutex>

namespace ws {

namespace {

// `pemTail`: what the file's PEM block names must end with ("CERTIFICATE", "PRIVATE KEY"):
// the wrong file (a key given as the CA) is one clear line, not a failed handshake later. The
// message never quotes the file.
bool readFile(const QString& path, const char* what, const char* pemTail, std::string* out,
              QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1 file %2: %3")
                     .arg(QLatin1String(what), path, f.errorString());
        return false;
    }
    const QByteArray data = f.readAll();
    if (data.isEmpty()) {
        *error = QStringLiteral("%1 file %2 is empty").arg(QLatin1String(what), path);
        return false;
    }
    const QRegularExpression block(
        QStringLiteral("-----BEGIN ([A-Z0-9 ]* )?%1-----").arg(QLatin1String(pemTail)));
    if (!block.match(QString::fromLatin1(data)).hasMatch()) {
        *error = QStringLiteral("%1 file %2 holds no PEM %3")
                     .arg(QLatin1String(what), path, QString::fromLatin1(pemTail).toLower());
        return false;
    }
    out->assign(data.constData(), static_cast<std::size_t>(data.size()));
    return true;
}

QString oneLine(QString s) {
    s.replace(QLatin1Char('\n'), QLatin1Char(' '));
    s.replace(QLatin1Char('\r'), QLatin1Char(' '));
    return s.simplified();
}

// gRPC's core logs failures (TLS handshakes, refused connections) straight to stderr; every
// failure WatchScope cares about comes back as a Status and is reported as one line, so those
// extra lines are dropped unless WS_GRPC_LOG is set.
void quietGrpcLogging() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (qEnvironmentVariableIsSet("WS_GRPC_LOG"))
            return;
        gpr_set_log_function([](gpr_log_func_args*) {});
    });
}

} // namespace

std::vector<EtcdEndpoint> parseEtcdEndpoints(const QStringList& urls, bool tlsByDefault,
                                             QString* error) {
    std::vector<EtcdEndpoint> out;
    QStringList all;
    for (const QString& u : urls)
        for (const QString& part : u.split(QLatin1Char(','), Qt::SkipEmptyParts))
            all << part.trimmed();
    if (all.isEmpty()) {
        *error = QStringLiteral("no etcd endpoint given");
        return {};
    }
    for (const QString& raw : all) {
        QString s = raw;
        bool tls = tlsByDefault;
        if (s.startsWith(QLatin1String("https://"))) {
            tls = true;
        } else if (s.startsWith(QLatin1String("http://"))) {
            tls = false;
        } else if (s.contains(QLatin1String("://"))) {
            *error =
                QStringLiteral("bad etcd endpoint %1: the scheme must be http or https").arg(s);
            return {};
        } else {
            s = (tls ? QStringLiteral("https://") : QStringLiteral("http://")) + s;
        }
        const QUrl url(s, QUrl::StrictMode);
        if (!url.isValid() || url.host().isEmpty() || url.port() <= 0 ||
            !url.userInfo().isEmpty() || (url.path() != QString() && url.path() != "/")) {
            *error = QStringLiteral("bad etcd endpoint %1: expected http(s)://HOST:PORT").arg(raw);
            return {};
        }
        EtcdEndpoint ep;
        ep.tls = tls;
        QString host = url.host();
        if (host.contains(QLatin1Char(':')))
            host = QLatin1Char('[') + host + QLatin1Char(']');
        ep.target = (host + QLatin1Char(':') + QString::number(url.port())).toStdString();
        ep.url = (tls ? QStringLiteral("https://") : QStringLiteral("http://")) +
                 QString::fromStdString(ep.target);
        out.push_back(std::move(ep));
    }
    return out;
}

struct EtcdClient::Impl {
    std::vector<std::shared_ptr<grpc::Channel>> channels;
    std::vector<std::shared_ptr<grpc::ChannelCredentials>> credentials; // per endpoint
    grpc::ChannelArguments args;
    mutable std::mutex mutex;
    int current = 0;
};

EtcdClient::EtcdClient(EtcdConnectOptions options)
    : m_options(std::move(options)), d(std::make_unique<Impl>()) {
    quietGrpcLogging();
    m_endpoints = parseEtcdEndpoints(m_options.endpoints, m_options.tls.enabled(), &m_error);
    if (!m_error.isEmpty())
        return;
    grpc::SslCredentialsOptions ssl;
    const EtcdTlsOptions& t = m_options.tls;
    if (!t.caFile.isEmpty() &&
        !readFile(t.caFile, "CA", "CERTIFICATE", &ssl.pem_root_certs, &m_error))
        return;
    if (!t.certFile.isEmpty() &&
        !readFile(t.certFile, "client certificate", "CERTIFICATE", &ssl.pem_cert_chain, &m_error))
        return;
    if (!t.keyFile.isEmpty() &&
        !readFile(t.keyFile, "client key", "PRIVATE KEY", &ssl.pem_private_key, &m_error))
        return;
    if (t.certFile.isEmpty() != t.keyFile.isEmpty()) {
        m_error = QStringLiteral("a client certificate needs its key and a key its certificate");
        return;
    }
    grpc::ChannelArguments& args = d->args;
    args.SetMaxReceiveMessageSize(m_options.maxReceiveBytes);
    // Subchannels of this client's own: renewChannel() then really starts afresh, and no other
    // client in the process shares (or disturbs) its connections.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
    args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 0);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 250);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 250);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
    // Catch-up responses are ~1 MB (1000 revisions with prev_kv): a large HTTP/2 window and large
    // TCP reads mean far fewer WINDOW_UPDATEs, wakeups and syscalls per response.
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 16 * 1024 * 1024);
    args.SetInt(GRPC_ARG_TCP_READ_CHUNK_SIZE, 1024 * 1024);
    args.SetInt(GRPC_ARG_TCP_MIN_READ_CHUNK_SIZE, 256 * 1024);
    for (const EtcdEndpoint& ep : m_endpoints) {
        auto creds = ep.tls ? grpc::SslCredentials(ssl) : grpc::InsecureChannelCredentials();
        d->channels.push_back(grpc::CreateCustomChannel(ep.target, creds, args));
        d->credentials.push_back(std::move(creds));
    }
}

EtcdClient::~EtcdClient() = default;

std::shared_ptr<grpc::Channel> EtcdClient::channel(int* index) const {
    std::lock_guard lock(d->mutex);
    if (index)
        *index = d->current;
    if (d->channels.empty())
        return {};
    return d->channels[static_cast<std::size_t>(d->current)];
}

QString EtcdClient::currentEndpoint() const {
    std::lock_guard lock(d->mutex);
    if (m_endpoints.empty())
        return {};
    return m_endpoints[static_cast<std::size_t>(d->current)].url;
}

void EtcdClient::renewChannel(int index) {
    std::lock_guard lock(d->mutex);
    if (index < 0 || index >= static_cast<int>(d->channels.size()))
        return;
    const auto i = static_cast<std::size_t>(index);
    // Calls in flight keep the old channel (shared_ptr) until they end.
    d->channels[i] = grpc::CreateCustomChannel(m_endpoints[i].target, d->credentials[i], d->args);
}

void EtcdClient::failover(int fromIndex) {
    std::lock_guard lock(d->mutex);
    if (d->channels.empty() || fromIndex != d->current)
        return; // someone else already moved on
    d->current = (d->current + 1) % static_cast<int>(d->channels.size());
}

QString EtcdClient::describeFailure(const QString& endpoint, int code, const std::string& msg) {
    const QString m = oneLine(QString::fromStdString(msg));
    const QString lower = m.toLower();
    // Only an https endpoint has a TLS handshake to fail: gRPC also says "handshake" of a plain
    // TCP connect that was shut down ("tcp handshaker shutdown"), e.g. to a refused port.
    const bool tls = endpoint.startsWith(QLatin1String("https://"));
    QString what;
    if (lower.contains(QLatin1String("connection refused"))) {
        what = QStringLiteral("connection refused");
    } else if (tls &&
               (lower.contains(QLatin1String("ssl")) || lower.contains(QLatin1String("tls")) ||
                lower.contains(QLatin1String("handshake")) ||
                lower.contains(QLatin1String("certificate")))) {
        what = QStringLiteral("TLS handshake failed (check the CA, client certificate and key)");
    } else if (lower.contains(QLatin1String("handshake"))) {
        what = QStringLiteral("could not connect");
    } else if (lower.contains(QLatin1String("socket closed")) &&
               endpoint.startsWith(QLatin1String("http://"))) {
        what = QStringLiteral("the server closed the connection (does it expect https?)");
    } else if (code == static_cast<int>(grpc::StatusCode::DEADLINE_EXCEEDED)) {
        what = QStringLiteral("no answer in time");
    } else if (code == static_cast<int>(grpc::StatusCode::UNAVAILABLE)) {
        what = QStringLiteral("unreachable");
    } else if (code == static_cast<int>(grpc::StatusCode::UNAUTHENTICATED) ||
               code == static_cast<int>(grpc::StatusCode::PERMISSION_DENIED)) {
        what = QStringLiteral("access denied");
    } else {
        what = QStringLiteral("request failed");
    }
    QString line = QStringLiteral("etcd at %1: %2").arg(endpoint, what);
    if (!m.isEmpty())
        line += QStringLiteral(" (") + m + QLatin1Char(')');
    return line;
}

template <typename Fn> bool EtcdClient::withFailover(Fn&& call, QString* error) {
    if (!ok()) {
        if (error)
            *error = m_error;
        return false;
    }
    QStringList failures;
    const int n = static_cast<int>(m_endpoints.size());
    for (int attempt = 0; attempt < n; ++attempt) {
        int index = 0;
        auto ch = channel(&index);
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + m_options.rpcTimeout);
        const grpc::Status st = call(ch, ctx);
        if (st.ok())
            return true;
        const auto code = st.error_code();
        failures << describeFailure(m_endpoints[static_cast<std::size_t>(index)].url,
                                    static_cast<int>(code), st.error_message());
        // Only transport-level failures move to another member; a refused request is final.
        if (code != grpc::StatusCode::UNAVAILABLE && code != grpc::StatusCode::DEADLINE_EXCEEDED &&
            code != grpc::StatusCode::UNKNOWN)
            break;
        failover(index);
    }
    if (error)
        *error = failures.join(QStringLiteral("; "));
    return false;
}

std::optional<EtcdStatus> EtcdClient::status(QString* error) {
    EtcdStatus out;
    const bool ok = withFailover(
        [&](const std::shared_ptr<grpc::Channel>& ch, grpc::ClientContext& ctx) {
            auto stub = etcdserverpb::Maintenance::NewStub(ch);
            etcdserverpb::StatusRequest req;
            etcdserverpb::StatusResponse resp;
            grpc::Status st = stub->Status(&ctx, req, &resp);
            if (st.ok()) {
                out.endpoint = currentEndpoint();
                out.version = QString::fromStdString(resp.version());
                out.revision = resp.header().revision();
                out.memberId = resp.header().member_id();
                out.leader = resp.leader();
                out.dbSize = resp.dbsize();
            }
            return st;
        },
        error);
    if (!ok)
        return std::nullopt;
    return out;
}

std::string EtcdClient::prefixEnd(const std::string& prefix) {
    std::string end = prefix;
    while (!end.empty()) {
        auto& c = reinterpret_cast<unsigned char&>(end.back());
        if (c < 0xff) {
            ++c;
            return end;
        }
        end.pop_back();
    }
    return std::string(1, '\0'); // the whole keyspace
}

ResourceVersion EtcdClient::rangeAll(const std::string& key, const std::string& rangeEnd,
                                     std::int64_t pageSize, const PageFn& onPage, QString* error,
                                     bool* compacted, ResourceVersion atRevision) {
    if (compacted)
        *compacted = false;
    ResourceVersion listRev = atRevision;
    std::string next = key;
    WireRangeResponse page;
    for (;;) {
        // The page arrives as bytes and is decoded by WireRangeResponse: the caller gets what
        // etcd sent (a capture keeps it as it was), with no generated message in between.
        RawMessage raw;
        bool wasCompacted = false;
        const bool ok = withFailover(
            [&](const std::shared_ptr<grpc::Channel>& ch, grpc::ClientContext& ctx) {
                etcdserverpb::RangeRequest req;
                req.set_key(next);
                req.set_range_end(rangeEnd);
                req.set_limit(pageSize);
                req.set_revision(listRev);
                raw.bytes.clear();
                const grpc::internal::RpcMethod method("/etcdserverpb.KV/Range",
                                                       grpc::internal::RpcMethod::NORMAL_RPC, ch);
                grpc::Status st =
                    grpc::internal::BlockingUnaryCall<etcdserverpb::RangeRequest, RawMessage>(
                        ch.get(), method, &ctx, req, &raw);
                if (st.error_code() == grpc::StatusCode::OUT_OF_RANGE)
                    wasCompacted = true;
                return st;
            },
            error);
        if (!ok) {
            if (compacted)
                *compacted = wasCompacted;
            return 0;
        }
        if (!page.parse(std::move(raw.bytes))) {
            if (error)
                *error = QStringLiteral("etcd at %1: %2")
                             .arg(currentEndpoint(), QString::fromStdString(page.error()));
            return 0;
        }
        if (listRev == 0)
            listRev = page.headerRevision;
        if (onPage && !page.kvs.empty())
            onPage(page);
        if (!page.more || page.kvs.empty())
            return listRev;
        next.assign(page.kvs.back().key);
        next.push_back('\0');
    }
}

ResourceVersion EtcdClient::put(const std::string& key, const std::string& value, QString* error) {
    ResourceVersion rev = 0;
    withFailover(
        [&](const std::shared_ptr<grpc::Channel>& ch, grpc::ClientContext& ctx) {
            auto stub = etcdserverpb::KV::NewStub(ch);
            etcdserverpb::PutRequest req;
            req.set_key(key);
            req.set_value(value);
            etcdserverpb::PutResponse resp;
            grpc::Status st = stub->Put(&ctx, req, &resp);
            rev = resp.header().revision();
            return st;
        },
        error);
    return rev;
}

ResourceVersion EtcdClient::writeAll(const std::vector<Write>& writes, QString* error) {
    ResourceVersion rev = 0;
    withFailover(
        [&](const std::shared_ptr<grpc::Channel>& ch, grpc::ClientContext& ctx) {
            auto stub = etcdserverpb::KV::NewStub(ch);
            etcdserverpb::TxnRequest req;
            for (const Write& w : writes) {
                etcdserverpb::RequestOp* op = req.add_success();
                if (w.remove) {
                    op->mutable_request_delete_range()->set_key(w.key);
                } else {
                    op->mutable_request_put()->set_key(w.key);
                    op->mutable_request_put()->set_value(w.value);
                }
            }
            etcdserverpb::TxnResponse resp;
            grpc::Status st = stub->Txn(&ctx, req, &resp);
            rev = resp.header().revision();
            return st;
        },
        error);
    return rev;
}

ResourceVersion EtcdClient::remove(const std::string& key, QString* error, std::int64_t* deleted) {
    ResourceVersion rev = 0;
    withFailover(
        [&](const std::shared_ptr<grpc::Channel>& ch, grpc::ClientContext& ctx) {
            auto stub = etcdserverpb::KV::NewStub(ch);
            etcdserverpb::DeleteRangeRequest req;
            req.set_key(key);
            etcdserverpb::DeleteRangeResponse resp;
            grpc::Status st = stub->DeleteRange(&ctx, req, &resp);
            rev = resp.header().revision();
            if (deleted)
                *deleted = resp.deleted();
            return st;
        },
        error);
    return rev;
}

bool EtcdClient::compact(ResourceVersion revision, bool physical, QString* error) {
    return withFailover(
        [&](const std::shared_ptr<grpc::Channel>& ch, grpc::ClientContext& ctx) {
            auto stub = etcdserverpb::KV::NewStub(ch);
            etcdserverpb::CompactionRequest req;
            req.set_revision(revision);
            req.set_physical(physical);
            etcdserverpb::CompactionResponse resp;
            return stub->Compact(&ctx, req, &resp);
        },
        error);
}

} // namespace ws

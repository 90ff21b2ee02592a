#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <QStringList>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace grpc {
class Channel;
}
namespace mvccpb {
class KeyValue;
}

namespace ws {

class WireRangeResponse;

// TLS material for etcd (SPEC: credentials never appear in any output). Paths are read when the
// client is created; a read error is reported as one clear line naming the file.
struct EtcdTlsOptions {
    QString caFile;   // PEM bundle; empty: system roots
    QString certFile; // client certificate (PEM); empty: none
    QString keyFile;  // client key (PEM); empty: none
    bool enabled() const { return !caFile.isEmpty() || !certFile.isEmpty() || !keyFile.isEmpty(); }
};

struct EtcdConnectOptions {
    // "http://127.0.0.1:2379", "https://10.0.0.1:2379" or "127.0.0.1:2379" (http unless TLS
    // options are given). Several endpoints give failover.
    QStringList endpoints;
    EtcdTlsOptions tls;
    int maxReceiveBytes = 64 * 1024 * 1024; // grpc++ defaults to 4 MiB
    std::chrono::milliseconds rpcTimeout{5000};
};

struct EtcdStatus {
    QString endpoint;
    QString version;
    ResourceVersion revision = 0; // header.revision: the store's current revision
    std::uint64_t memberId = 0;
    std::uint64_t leader = 0;
    std::int64_t dbSize = 0;
};

// One endpoint as given by the user, with its scheme; never contains credentials.
struct EtcdEndpoint {
    QString url;        // as shown to users: "https://127.0.0.1:2379"
    std::string target; // gRPC target: "127.0.0.1:2379"
    bool tls = false;
};

// Splits "a,b,c", checks each URL ("http(s)://host:port" or "host:port"). Empty list and error on
// bad input.
std::vector<EtcdEndpoint> parseEtcdEndpoints(const QStringList& urls, bool tlsByDefault,
                                             QString* error);

// A thin synchronous client over etcd's gRPC API with failover between endpoints: every call goes
// to the current endpoint and moves on to the next one when that one is unreachable. Thread-safe.
class EtcdClient {
public:
    // Validates the endpoints and reads the TLS files; check ok() / error() afterwards.
    explicit EtcdClient(EtcdConnectOptions options);
    ~EtcdClient();
    EtcdClient(const EtcdClient&) = delete;
    EtcdClient& operator=(const EtcdClient&) = delete;

    bool ok() const { return m_error.isEmpty(); }
    const QString& error() const { return m_error; }
    const EtcdConnectOptions& options() const { return m_options; }
    const std::vector<EtcdEndpoint>& endpoints() const { return m_endpoints; }

    // Status of the first reachable endpoint (trying them all, starting at the current one). On
    // failure: nullopt and one clear line in *error naming the endpoints and the cause.
    std::optional<EtcdStatus> status(QString* error);

    // The channel of the current endpoint and its index; failover() moves to the next endpoint.
    std::shared_ptr<grpc::Channel> channel(int* index = nullptr) const;
    QString currentEndpoint() const;
    void failover(int fromIndex);
    // Replaces the channel of endpoint `index` with a new one (new connections, no state of the
    // old): after a stalled network, gRPC 1.51's channel could keep failing every new connection
    // attempt ("tcp handshaker shutdown") while a fresh channel to the same address worked.
    void renewChannel(int index);

    // Paged Range over [key, rangeEnd): the first page fixes the revision (or `atRevision`, when
    // given), the next pages are pinned to it. onPage gets each page's kvs. Returns the list
    // revision, or 0 and *error. *compacted is set when the pinned revision was compacted (the
    // caller relists).
    using PageFn = std::function<void(const WireRangeResponse& page)>;
    ResourceVersion rangeAll(const std::string& key, const std::string& rangeEnd,
                             std::int64_t pageSize, const PageFn& onPage, QString* error,
                             bool* compacted = nullptr, ResourceVersion atRevision = 0);

    // Writes for the load generator and tests; return the revision of the write, 0 on error.
    ResourceVersion put(const std::string& key, const std::string& value, QString* error);
    ResourceVersion remove(const std::string& key, QString* error, std::int64_t* deleted = nullptr);
    bool compact(ResourceVersion revision, bool physical, QString* error);
    // Several writes as one Txn (one revision, one watch response of them all); keys distinct.
    struct Write {
        std::string key;
        std::string value;
        bool remove = false;
    };
    ResourceVersion writeAll(const std::vector<Write>& writes, QString* error);

    // The end of a prefix range: "/registry/" -> "/registry0".
    static std::string prefixEnd(const std::string& prefix);

    // One line describing a failed RPC to a user: "etcd at http://...: connection refused (...)".
    static QString describeFailure(const QString& endpoint, int grpcCode, const std::string& msg);

private:
    struct Impl;
    template <typename Fn> bool withFailover(Fn&& call, QString* error);

    EtcdConnectOptions m_options;
    std::vector<EtcdEndpoint> m_endpoints;
    QString m_error;
    std::unique_ptr<Impl> d;
};

} // namespace ws

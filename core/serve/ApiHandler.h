#pragma once

#include "AcceptNegotiation.h"
#include "DiscoveryDocuments.h"
#include "ResponseSink.h"
#include "ServeOptions.h"
#include "WatchStream.h"
#include "kube/ApiRequest.h"

#include <QStringList>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ws {

class ServedCluster;

// An authenticated HTTP request as the session hands it over.
struct HttpRequestInfo {
    std::string method;
    std::string target; // path and query
    std::string body;
    std::string accept;
    QString user; // empty when the server does not authenticate
    QStringList groups;
};

// The kube-apiserver's request handling for the served cluster: discovery, health, metrics,
// and get/list/watch/create/update/delete with the chosen version's Status bodies, RV rules and
// watch framing (reference/kubernetes-watch.md §1-§3). Runs on the serve thread.
class ApiHandler {
public:
    ApiHandler(ServedCluster& cluster, const ServeOptions& options, std::string serverAddress);
    ~ApiHandler();

    void handle(const HttpRequestInfo& request, const std::shared_ptr<ResponseSink>& sink);
    // host:port as /api advertises it (known once the listener is bound).
    void setServerAddress(std::string address) { m_discovery.setServerAddress(std::move(address)); }
    // After every simulation tick: the watch streams move what was dispatched to them.
    void pumpWatches();
    // False while the served apiserver is down: requests are dropped unanswered.
    bool accepting() const;
    std::size_t watchCount() const { return m_watches.size(); }
    std::int64_t requests() const { return m_requests; }
    // The /metrics body (set by whoever renders the metrics).
    void setMetricsRenderer(std::function<std::string()> render) { m_metrics = std::move(render); }

private:
    void respondStatus(ResponseSink& sink, const ApiStatus& status);
    bool authorized(const HttpRequestInfo& request, const ApiRequest& api, ResponseSink& sink);
    // The encoding `accept` asks for, for this resource; NotAcceptable after answering 406.
    ServedEncoding negotiate(const std::string& accept, int resource, ResponseSink& sink);
    // Protobuf pages of ConfigMaps when `accept` prefers them (ObjectProto), JSON otherwise.
    void list(const ApiRequest& api, int resource, const std::string& accept,
              const std::shared_ptr<ResponseSink>& sink);
    void get(const ApiRequest& api, int resource, ResponseSink& sink);
    // Protobuf frames when `accept` prefers them and the resource has them (ObjectProto).
    void watch(const ApiRequest& api, int resource, const std::string& accept,
               const std::shared_ptr<ResponseSink>& sink);
    void write(const ApiRequest& api, int resource, const HttpRequestInfo& request,
               ResponseSink& sink);
    bool validateWatchList(const ApiRequest& api, ResponseSink& sink);

    ServedCluster& m_cluster;
    const ServeOptions& m_options;
    DiscoveryDocuments m_discovery;
    std::vector<std::unique_ptr<WatchStream>> m_watches;
    std::function<std::string()> m_metrics;
    std::int64_t m_requests = 0;
};

} // namespace ws

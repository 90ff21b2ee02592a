#pragma once

#include "kube/ResourceCatalog.h"
#include "model/Frame.h"
#include "sources/cluster/http/HttpResponseCollector.h"

#include <QByteArray>
#include <QString>
#include <functional>
#include <map>
#include <vector>

namespace ws {

struct HttpRequest;

// What one kube-apiserver serves, found as kubectl finds it: /version, /api/v1, /apis and each
// group's preferred version, keeping the resources that can be listed and watched. Fed the
// frames of its own requests (any order, interleaved with others'); it ends either with the
// resources or with one line saying why (refused, 401, 403, HTTP error), never a secret. An
// aggregated API answering 503 is skipped, as kubectl warns and goes on.
class ApiDiscovery {
public:
    // `submit` sends a request (its id already set from `nextId`).
    using Submit = std::function<void(HttpRequest)>;
    using NextId = std::function<int()>;

    // `endpoint` names the server in messages; `user` the kubeconfig user (for 401).
    ApiDiscovery(QString endpoint, QString user, NextId nextId, Submit submit);

    void start();
    // True when `frame` belongs to one of this discovery's requests (and was consumed).
    bool onFrame(const Frame& frame);

    bool done() const { return m_started && (m_inFlight.empty() || !m_failure.isEmpty()); }
    bool succeeded() const { return done() && m_failure.isEmpty(); }
    QString failure() const { return m_failure; }
    QString gitVersion() const { return m_gitVersion; } // "v1.31.2"; empty until known
    const std::vector<ResourceInfo>& resources() const { return m_resources; }

private:
    enum class Purpose { Version, CoreResources, Groups, GroupResources };
    struct Request {
        Purpose purpose = Purpose::Version;
        QString path; // as requested, for messages
        QString groupVersion;
        HttpResponseCollector response;
    };

    void send(const QString& path, Purpose purpose, const QString& groupVersion = {});
    void finish(Request& r, HttpErrorKind error, const QString& message);
    void parse(const Request& r);

    QString m_endpoint;
    QString m_user;
    NextId m_nextId;
    Submit m_submit;
    bool m_started = false;
    std::map<int, Request> m_inFlight;
    QString m_failure;
    QString m_gitVersion;
    std::vector<ResourceInfo> m_resources;
};

} // namespace ws

#pragma once

#include "kube/ResourceCatalog.h"
#include "model/Frame.h"
#include "sources/cluster/http/HttpRequest.h"
#include "sources/cluster/http/HttpResponseCollector.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <deque>
#include <functional>
#include <map>
#include <vector>

namespace ws {

// What one kube-apiserver serves, found as kubectl finds it (client-go's ServerPreferredResources
// over legacy discovery): /version, /api/v1, /apis and every version of every group, keeping the
// resources that can be listed and watched, each in its group's preferred version or, when that
// version lacks it, the first version the group lists that has it. Fed the frames of its own
// requests (any order, interleaved with others'). A group-version whose document cannot be had
// (any status, a transport error, a timeout, an unreadable body) is left out and told in
// warnings(), as kubectl warns and goes on; only /version or /apis failing, or nothing left to
// watch, ends it with one line (refused, 401, 403, HTTP error), never a secret.
class ApiDiscovery {
public:
    // `submit` sends a request (its id already set from `nextId`).
    using Submit = std::function<void(HttpRequest)>;
    using NextId = std::function<int()>;

    // At most this many requests are in flight, the rest wait here, as client-go's token
    // bucket lets them through a few at a time. The same job as ListThrottle's for the informers'
    // LISTs, in a queue of its own.
    static constexpr int kMaxInFlight = kShortRequestsInFlight;

    // `endpoint` names the server in messages; `user` the kubeconfig user (for 401).
    ApiDiscovery(QString endpoint, QString user, NextId nextId, Submit submit);

    void start();
    // True when `frame` belongs to one of this discovery's requests (and was consumed).
    bool onFrame(const Frame& frame);

    bool done() const {
        return m_started && ((m_inFlight.empty() && m_waiting.empty()) || !m_failure.isEmpty());
    }
    bool succeeded() const { return done() && m_failure.isEmpty(); }
    QString failure() const { return m_failure; }
    // One line per group-version left out, in the order they failed.
    const QStringList& warnings() const { return m_warnings; }
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
    // A group as /apis lists it: its versions in the server's order, and the preferred one.
    struct Group {
        QString name;
        QStringList versions;
        QString preferred;
    };

    void send(const QString& path, Purpose purpose, const QString& groupVersion = {});
    void submitWaiting();
    void finish(Request& r, HttpErrorKind error, const QString& message);
    // Why `r` failed, one line: the transport's message, or the status and the server's words.
    QString whyFailed(const Request& r, HttpErrorKind error, const QString& message) const;
    void parse(const Request& r);
    void leaveOut(const Request& r, const QString& why);
    void assemble();

    QString m_endpoint;
    QString m_user;
    NextId m_nextId;
    Submit m_submit;
    bool m_started = false;
    std::map<int, Request> m_inFlight;
    std::deque<Request> m_waiting; // not submitted yet (kMaxInFlight)
    QString m_failure;
    QStringList m_warnings;
    QString m_firstLeftOut; // "metrics.k8s.io/v1beta1: HTTP 503: ...", for a failure
    QString m_gitVersion;
    std::vector<Group> m_groups;
    std::map<QString, std::vector<ResourceInfo>> m_byGroupVersion; // "v1", "apps/v1"
    std::vector<ResourceInfo> m_resources;
};

} // namespace ws

#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <string>

namespace ws {

// What kube-apiserver's audit filter knows of one request when it is received (audit.k8s.io/v1
// Event minus stage, response and timestamps of later stages): filled once per request and
// written at each stage by AuditLog. Never holds a credential.
struct AuditRecord {
    std::string auditId;
    std::string requestUri; // path and query as sent
    std::string verb;       // get/list/watch/create/update/delete/patch/deletecollection, or the
                            // lowercase method of a non-resource request
    QString user;           // empty: system:anonymous
    // Authentication failed (401): the event names no user at all ("user":{}) and the authorizer
    // never ran, so it has no annotations (filters/authn_audit.go).
    bool failedAuthentication = false;
    QStringList groups;
    std::string sourceIp;
    std::string userAgent;
    bool resourceRequest = false; // objectRef only for resource requests
    QString resource, ns, name, subresource, apiGroup, apiVersion;
    bool longRunning = false;        // a watch: ResponseStarted is written too
    std::int64_t receivedUnixUs = 0; // requestReceivedTimestamp

    // From the request line (k8s.io/apiserver RequestInfo: verb and objectRef by URL).
    static AuditRecord forRequest(std::string auditId, const std::string& method,
                                  const std::string& target, std::int64_t receivedUnixUs);
};

} // namespace ws

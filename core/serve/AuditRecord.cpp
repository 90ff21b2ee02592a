#include "AuditRecord.h"

#include "kube/ApiRequest.h"

namespace ws {

AuditRecord AuditRecord::forRequest(std::string auditId, const std::string& method,
                                    const std::string& target, std::int64_t receivedUnixUs) {
    AuditRecord r;
    r.auditId = std::move(auditId);
    r.requestUri = target;
    r.receivedUnixUs = receivedUnixUs;
    QString error;
    const auto api =
        ApiRequest::parse(QString::fromStdString(method), QString::fromStdString(target), &error);
    if (!api) {
        // Non-resource requests (/version, /metrics, /healthz, discovery) and unparseable ones:
        // the lowercase HTTP method is the verb, no objectRef (request.go LogRequestMetadata).
        r.verb = QString::fromStdString(method).toLower().toStdString();
        return r;
    }
    static const char* verbs[] = {
        "get", "list", "watch", "create", "update", "delete", "deletecollection", "patch"};
    r.verb = verbs[static_cast<int>(api->verb)];
    r.longRunning = api->verb == ApiRequest::Verb::Watch;
    r.resourceRequest = true;
    r.resource = api->resource;
    r.ns = api->ns;
    r.name = api->name;
    r.subresource = api->subresource;
    r.apiGroup = api->group;
    r.apiVersion = api->version;
    return r;
}

} // namespace ws

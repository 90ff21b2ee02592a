#include "AuditRequestTracker.h"

namespace ws {

bool AuditRequestTracker::begin(const AuditEvent& e, Open* open, QString* error) {
    AuditRequest& r = open->request;
    const QString uri = QString::fromStdString(e.requestUri);
    auto query = ApiRequest::parse(QStringLiteral("GET"), uri, error);
    if (!query) {
        if (error->isEmpty())
            *error = QStringLiteral("requestURI %1 is not a resource URL").arg(uri);
        return false;
    }
    r.query = std::move(*query);
    // The verb is the audit event's: a watch is "watch" whether it said watch=1 or not
    // (RequestInfo turns list+watch=true into watch; watch paths of old clients too).
    r.query.verb = e.watch ? ApiRequest::Verb::Watch : ApiRequest::Verb::List;
    r.auditId = QString::fromStdString(e.auditId);
    // A request that failed authentication names no user ("user":{}).
    r.client = QStringLiteral("%1 (%2)").arg(
        e.username.empty() ? QStringLiteral("unauthenticated") : QString::fromStdString(e.username),
        QString::fromStdString(e.userAgent));
    const QString resource =
        e.resource.empty() ? r.query.resource : QString::fromStdString(e.resource);
    const QString group = e.resource.empty() ? r.query.group : QString::fromStdString(e.apiGroup);
    r.resource = group.isEmpty() ? resource : resource + u'.' + group;
    r.apiserver =
        e.apiserver.empty() ? m_apiservers.value(e.stream) : QString::fromStdString(e.apiserver);
    r.received = e.received;
    return true;
}

bool AuditRequestTracker::add(const AuditEvent& e, QString* error) {
    auto it = m_open.find(e.auditId);
    if (it == m_open.end()) {
        Open fresh;
        if (!begin(e, &fresh, error))
            return false;
        fresh.order = m_order++;
        ++m_requests;
        it = m_open.emplace(e.auditId, std::move(fresh)).first;
        m_byAge.emplace(it->second.order, e.auditId);
        m_listener.started(it->second.request);
        if (m_open.size() > m_maxOpen) {
            // The oldest still open (a watch whose end was never logged): given up.
            const auto oldest = m_byAge.begin();
            m_open.erase(oldest->second);
            m_byAge.erase(oldest);
            ++m_givenUp;
            it = m_open.find(e.auditId);
        }
    }
    Open& open = it->second;
    AuditRequest& r = open.request;
    // A 401 is the only stage kube-apiserver writes for a request that failed authentication
    // (filters/authn_audit.go): its ResponseStarted ends it.
    const bool refused = e.stage == AuditStage::ResponseStarted && e.code == 401;
    const bool ends =
        e.stage == AuditStage::ResponseComplete || e.stage == AuditStage::Panic || refused;
    if (r.watch() && !open.watchOpened && !refused &&
        (e.stage == AuditStage::ResponseStarted || ends)) {
        open.watchOpened = true;
        r.started = e.stage == AuditStage::ResponseStarted ? e.stageTime : r.received;
        m_listener.watchOpened(r);
    }
    if (!ends)
        return true;
    r.completed = e.stageTime;
    r.code = e.code != 0 ? e.code : e.stage == AuditStage::Panic ? 500 : 200;
    r.reason = QString::fromStdString(e.reason);
    r.message = QString::fromStdString(e.message);
    if (e.stage == AuditStage::Panic && r.reason.isEmpty())
        r.reason = QStringLiteral("Panic");
    m_listener.completed(r);
    m_byAge.erase(open.order);
    m_open.erase(it);
    return true;
}

} // namespace ws

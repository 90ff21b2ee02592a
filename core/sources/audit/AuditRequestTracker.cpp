#include "AuditRequestTracker.h"

namespace ws {

bool AuditRequestTracker::begin(const AuditEvent& e, Open* open, QString* error) {
    if (!m_uri.parse(e.requestUri, error)) {
        if (error->isEmpty())
            *error = QStringLiteral("requestURI %1 is not a resource URL")
                         .arg(QString::fromStdString(e.requestUri));
        return false;
    }
    // The verb is the audit event's: a watch is "watch" whether it said watch=1 or not
    // (RequestInfo turns list+watch=true into watch; watch paths of old clients too).
    open->watch = e.watch;
    const bool fromPath = e.resource.empty();
    open->caller = &m_callers.find(
        {e.stream, e.apiserver, e.username, e.userAgent, fromPath ? m_uri.resource : e.resource,
         fromPath ? m_uri.group : e.apiGroup, m_uri.labelSelector, m_uri.fieldSelector});
    open->requestedRv = m_uri.requestedRv();
    open->rvEmpty = m_uri.resourceVersion.empty();
    open->continued = m_uri.continued;
    open->timeoutSeconds = m_uri.timeoutSeconds;
    open->allowWatchBookmarks = m_uri.allowWatchBookmarks;
    open->sendInitialEvents = m_uri.sendInitialEvents;
    open->received = e.received;
    return true;
}

const AuditRequest& AuditRequestTracker::told(const Open& o) {
    AuditRequest& r = m_told;
    r.caller = o.caller;
    r.watch = o.watch;
    r.requestedRv = o.requestedRv;
    r.rvEmpty = o.rvEmpty;
    r.continued = o.continued;
    r.limit = 0; // told at the start only (below)
    r.timeoutSeconds = o.timeoutSeconds;
    r.allowWatchBookmarks = o.allowWatchBookmarks;
    r.sendInitialEvents = o.sendInitialEvents;
    r.received = o.received;
    r.started = o.started;
    r.completed = 0;
    r.code = 0;
    r.reason = r.message = {};
    return r;
}

std::uint32_t AuditRequestTracker::insert(const AuditEvent& e, const std::optional<AuditId>& id,
                                          const Open& open) {
    std::uint32_t slot;
    if (m_free.empty()) {
        slot = static_cast<std::uint32_t>(m_slots.size());
        m_slots.push_back(open);
    } else {
        slot = m_free.back();
        m_free.pop_back();
        m_slots[slot] = open;
    }
    Open& o = m_slots[slot];
    if (id) {
        o.id = *id;
        m_byId.insert(*id, slot);
    } else {
        o.name = &m_byName.emplace(e.auditId, slot).first->first;
    }
    o.older = m_newest;
    o.newer = kNone;
    if (m_newest != kNone)
        m_slots[m_newest].newer = slot;
    else
        m_oldest = slot;
    m_newest = slot;
    return slot;
}

void AuditRequestTracker::erase(std::uint32_t slot) {
    Open& o = m_slots[slot];
    if (o.name)
        m_byName.erase(*o.name);
    else
        m_byId.erase(o.id);
    (o.older != kNone ? m_slots[o.older].newer : m_oldest) = o.newer;
    (o.newer != kNone ? m_slots[o.newer].older : m_newest) = o.older;
    o = Open{};
    m_free.push_back(slot);
}

bool AuditRequestTracker::add(const AuditEvent& e, QString* error) {
    std::uint32_t slot = kNone;
    const std::optional<AuditId> id = AuditId::fromUuid(e.auditId);
    if (id) {
        slot = m_byId.find(*id);
    } else if (auto it = m_byName.find(e.auditId); it != m_byName.end()) {
        slot = it->second;
    }
    if (slot == kNone) {
        Open fresh;
        if (!begin(e, &fresh, error))
            return false;
        ++m_requests;
        slot = insert(e, id, fresh);
        AuditRequest& r = m_told;
        told(m_slots[slot]);
        r.limit = m_uri.limit;
        m_listener.started(r);
        if (open() > m_maxOpen) {
            // The oldest still open (a watch whose end was never logged): given up.
            erase(m_oldest);
            ++m_givenUp;
        }
    }
    // Given up just now (maxOpen 0): nothing more to tell of it.
    if (m_slots[slot].caller == nullptr)
        return true;
    Open& open = m_slots[slot];
    // A 401 is the only stage kube-apiserver writes for a request that failed authentication
    // (filters/authn_audit.go): its ResponseStarted ends it.
    const bool refused = e.stage == AuditStage::ResponseStarted && e.code == 401;
    const bool ends =
        e.stage == AuditStage::ResponseComplete || e.stage == AuditStage::Panic || refused;
    if (open.watch && !open.watchOpened && !refused &&
        (e.stage == AuditStage::ResponseStarted || ends)) {
        open.watchOpened = true;
        open.started = e.stage == AuditStage::ResponseStarted ? e.stageTime : open.received;
        m_listener.watchOpened(told(open));
    }
    if (!ends)
        return true;
    AuditRequest& r = m_told;
    told(open);
    r.completed = e.stageTime;
    r.code = e.code != 0 ? e.code : e.stage == AuditStage::Panic ? 500 : 200;
    r.reason = e.reason;
    r.message = e.message;
    if (e.stage == AuditStage::Panic && r.reason.empty())
        r.reason = "Panic";
    m_listener.completed(r);
    erase(slot);
    return true;
}

} // namespace ws

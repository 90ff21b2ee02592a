#include "IncidentGrouper.h"

namespace ws {

bool IncidentGrouper::perWatcher(AnomalyKind kind) {
    switch (kind) {
    case AnomalyKind::RetryLoop:
    case AnomalyKind::RevisionRegression:
    case AnomalyKind::InitialEventsStalled:
    case AnomalyKind::BookmarkViolation:
    case AnomalyKind::DuplicateEvent:
    case AnomalyKind::SplitRevision:
    case AnomalyKind::RevisionGap:
    case AnomalyKind::StreamError:
        return true;
    default:
        return false;
    }
}

QString IncidentGrouper::scopeOf(const Anomaly& a) {
    return perWatcher(a.kind) && a.apiserver.isEmpty() ? a.watcher : QString();
}

const Incident& IncidentGrouper::assign(Anomaly& a) {
    const QString scope = scopeOf(a);
    const GroupKey key{static_cast<int>(a.kind), a.resource, scope, a.apiserver};
    auto open = m_open.find(key);
    if (open == m_open.end() || a.time - m_incidents[open->second].incident.last > kEpisodeGap) {
        // The episode before is over for good: its distinct keys and watchers are counted, and
        // their sets (thousands of names for a resource-wide incident) need not outlive it.
        if (open != m_open.end()) {
            m_incidents[open->second].keys = {};
            m_incidents[open->second].watchers = {};
        }
        State s;
        s.incident.id = static_cast<std::int64_t>(m_incidents.size()) + 1;
        s.incident.kind = a.kind;
        s.incident.resource = a.resource;
        s.incident.scope = scope;
        s.incident.apiserver = a.apiserver;
        s.incident.severity = a.severity;
        s.incident.first = a.time;
        s.incident.firstMessage = a.message;
        m_incidents.push_back(std::move(s));
        open = m_open.insert_or_assign(key, m_incidents.size() - 1).first;
    }
    State& s = m_incidents[open->second];
    Incident& i = s.incident;
    ++i.count;
    i.last = std::max(i.last, a.time);
    i.severity = std::max(i.severity, a.severity);
    if (!a.key.isEmpty() && !s.keys.contains(a.key)) {
        s.keys.insert(a.key);
        ++i.keyCount;
        if (i.keys.size() < Incident::kMaxListed)
            i.keys << a.key;
    }
    if (!a.watcher.isEmpty() && !s.watchers.contains(a.watcher)) {
        s.watchers.insert(a.watcher);
        ++i.watcherCount;
        if (i.watchers.size() < Incident::kMaxListed)
            i.watchers << a.watcher;
    }
    a.incident = i.id;
    return i;
}

const Incident* IncidentGrouper::incident(std::int64_t id) const {
    if (id < 1 || id > static_cast<std::int64_t>(m_incidents.size()))
        return nullptr;
    return &m_incidents[static_cast<std::size_t>(id - 1)].incident;
}

} // namespace ws

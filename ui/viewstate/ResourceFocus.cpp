#include "ResourceFocus.h"

namespace ws {

void ResourceFocus::offer(const QStringList& resources) {
    for (const QString& r : resources)
        note(r);
}

void ResourceFocus::note(const QString& resource) {
    if (resource.isEmpty() || m_resources.contains(resource))
        return;
    m_resources.append(resource);
    emit resourceAdded(resource);
    if (m_current.isEmpty())
        show(resource);
}

void ResourceFocus::note(const EngineUpdate& update) {
    for (const CacheSnapshot& c : update.caches)
        note(c.resource);
    for (const WatcherSnapshot& w : update.watchers)
        note(w.resource);
    for (const SeriesDelta& s : update.series)
        note(s.resource);
}

void ResourceFocus::choose(const QString& resource) {
    m_picked = true;
    show(resource);
}

void ResourceFocus::show(const QString& resource) {
    if (resource == m_current || !m_resources.contains(resource))
        return;
    m_current = resource;
    emit currentChanged(resource);
}

QString ResourceFocus::followFirstAnomaly(const AnomalyList& anomalies) {
    if (m_picked || m_followed)
        return {};
    for (const Anomaly& a : anomalies) {
        // Info anomalies (a quiet resource's stuck watcher) are not worth moving the view for.
        if (a.severity == Severity::Info || !m_resources.contains(a.resource))
            continue;
        m_followed = true;
        if (a.resource == m_current)
            return {};
        show(a.resource);
        return a.resource;
    }
    return {};
}

void ResourceFocus::restart(const QStringList& resources) {
    const QString shown = m_current;
    clear();
    for (const QString& r : resources) {
        if (!r.isEmpty() && !m_resources.contains(r)) {
            m_resources.append(r);
            emit resourceAdded(r);
        }
    }
    // Straight to the resource that stays shown: no detour through the first one.
    const QString next = m_resources.contains(shown) ? shown : m_resources.value(0);
    if (!next.isEmpty()) {
        m_current = next;
        emit currentChanged(next);
    }
}

void ResourceFocus::clear() {
    m_resources.clear();
    m_current.clear();
    m_picked = false;
    m_followed = false;
    emit cleared();
}

} // namespace ws

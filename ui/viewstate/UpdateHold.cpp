#include "UpdateHold.h"

namespace ws {

namespace {

QString snapshotKey(const QString& a, const QString& b) {
    return a + QLatin1Char('\x1f') + b;
}

} // namespace

void UpdateHold::setPaused(bool paused) {
    if (paused == m_paused)
        return;
    m_paused = paused;
    emit pausedChanged(paused);
}

void UpdateHold::hold(const EngineUpdate& update, int maxAnomalies, int dropBatch) {
    for (const WatcherSnapshot& w : update.watchers)
        m_watchers.insert(snapshotKey(w.resource, w.id), w);
    for (const CacheSnapshot& c : update.caches)
        m_caches.insert(snapshotKey(c.resource, c.apiserver), c);
    for (const Incident& i : update.incidents) {
        const auto it = m_incidentIndex.constFind(i.id);
        if (it != m_incidentIndex.cend()) {
            m_incidents[*it] = i;
        } else {
            m_incidentIndex.insert(i.id, m_incidents.size());
            m_incidents.append(i);
        }
    }
    // Anomalies the session dropped before this batch (the window was behind): those held
    // before them are as good as gone, for the list that shows them on resume.
    if (update.missingAnomalies > 0) {
        m_dropped += m_anomalies.size() + update.missingAnomalies;
        m_anomalies.clear();
    }
    m_anomalies.append(update.anomalies);
    // What the list would drop on resume need not be held: drop it now, in batches.
    const qsizetype excess = m_anomalies.size() - std::max(1, maxAnomalies);
    if (excess > 0 && excess >= std::max(1, dropBatch)) {
        m_anomalies.remove(0, excess);
        m_dropped += excess;
    }
}

UpdateHold::Released UpdateHold::release() {
    Released out;
    out.update.watchers = m_watchers.values().toVector();
    out.update.caches = m_caches.values().toVector();
    out.update.incidents.swap(m_incidents);
    out.update.anomalies.swap(m_anomalies);
    out.missingAnomalies = std::exchange(m_dropped, 0);
    m_watchers.clear();
    m_caches.clear();
    m_incidentIndex.clear();
    return out;
}

void UpdateHold::clear() {
    release();
    setPaused(false);
}

} // namespace ws

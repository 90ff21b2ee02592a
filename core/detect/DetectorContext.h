#pragma once

#include "ConsistencyOracle.h"
#include "DetectorThresholds.h"
#include "model/Anomaly.h"
#include "model/Observation.h"

#include <functional>
#include <vector>

namespace ws {

class KeyTable;

// What every detector shares: the registered watchers, the key table, the thresholds and the
// sink. Detectors keep their own per-watcher state; the context only knows who a watcher is and
// how to turn evidence into an Anomaly, so that building strings stays off the hot path.
class DetectorContext {
public:
    using Sink = std::function<void(const Anomaly&)>;

    DetectorContext(const KeyTable& keys, DetectorThresholds thresholds);

    const KeyTable& keys() const { return m_keys; }
    const DetectorThresholds& thresholds() const { return m_thresholds; }

    void setSink(Sink sink) { m_sink = std::move(sink); }
    void setHistoryOracle(const HistoryOracle* oracle) { m_history = oracle; }
    const HistoryOracle* historyOracle() const { return m_history; }
    // The watcher's own source of truth if it named one, else the default.
    const HistoryOracle* historyOracle(WatcherId w) const {
        const HistoryOracle* own = m_watchers[static_cast<size_t>(w)].history;
        return own ? own : m_history;
    }

    WatcherId addWatcher(const WatcherInfo& info);
    const WatcherInfo& watcher(WatcherId w) const { return m_watchers[static_cast<size_t>(w)]; }
    int watcherCount() const { return static_cast<int>(m_watchers.size()); }
    // Kept apart from WatcherInfo so the per-event path reads one byte, not a QString-laden struct.
    bool isEtcd(WatcherId w) const { return m_etcd[static_cast<size_t>(w)] != 0; }
    bool seesEveryRevision(WatcherId w) const { return m_everyRevision[static_cast<size_t>(w)]; }
    bool checksKeyHistory(WatcherId w) const { return m_keyHistory[static_cast<size_t>(w)] != 0; }

    // An anomaly attributed to watcher w: source from its layer, resource and watcher id filled.
    Anomaly make(WatcherId w, TimeUs now, AnomalyKind kind, Severity severity) const;
    QString keyName(KeyId key) const;
    void raise(const Anomaly& anomaly);
    std::int64_t raisedCount() const { return m_raised; }

    // The highest etcd compact revision any status has reported: evidence for prevkv-nil messages
    // (a nil prev_kv is explained by compaction when mod_revision-1 < compact revision).
    void noteCompactRevision(ResourceVersion rev) {
        if (rev > m_compactRevision)
            m_compactRevision = rev;
    }
    ResourceVersion compactRevision() const { return m_compactRevision; }

private:
    const KeyTable& m_keys;
    DetectorThresholds m_thresholds;
    Sink m_sink;
    const HistoryOracle* m_history = nullptr;
    std::vector<WatcherInfo> m_watchers;
    std::vector<unsigned char> m_etcd;
    std::vector<unsigned char> m_everyRevision;
    std::vector<unsigned char> m_keyHistory;
    std::int64_t m_raised = 0;
    ResourceVersion m_compactRevision = 0;
};

// A short human form of an event type for messages: etcd speaks PUT/DELETE.
QString eventTypeLabel(WatchEventType type, bool etcd);

} // namespace ws

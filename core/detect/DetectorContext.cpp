#include "DetectorContext.h"

#include "model/KeyTable.h"

namespace ws {

DetectorContext::DetectorContext(const KeyTable& keys, DetectorThresholds thresholds)
    : m_keys(keys), m_thresholds(thresholds) {}

WatcherId DetectorContext::addWatcher(const WatcherInfo& info) {
    const auto id = static_cast<WatcherId>(m_watchers.size());
    m_watchers.push_back(info);
    m_etcd.push_back(info.layer == WatchLayer::Etcd ? 1 : 0);
    m_everyRevision.push_back(info.seesEveryRevision ? 1 : 0);
    m_keyHistory.push_back(info.checksKeyHistory ? 1 : 0);
    return id;
}

Anomaly DetectorContext::make(WatcherId w, TimeUs now, AnomalyKind kind, Severity severity) const {
    const WatcherInfo& info = watcher(w);
    Anomaly a;
    a.time = now;
    a.kind = kind;
    a.severity = severity;
    a.source = info.layer == WatchLayer::Etcd ? AnomalySource::Etcd : AnomalySource::Apiserver;
    a.resource = info.resource;
    a.watcher = info.id;
    return a;
}

QString DetectorContext::keyName(KeyId key) const {
    if (key == kNoKey || key >= m_keys.size())
        return {};
    return m_keys.qkey(key);
}

void DetectorContext::raise(const Anomaly& anomaly) {
    ++m_raised;
    if (m_sink)
        m_sink(anomaly);
}

QString eventTypeLabel(WatchEventType type, bool etcd) {
    if (etcd) {
        switch (type) {
        case WatchEventType::Deleted:
            return QStringLiteral("DELETE");
        case WatchEventType::Added:
        case WatchEventType::Modified:
            return QStringLiteral("PUT");
        default:
            break;
        }
    }
    return watchEventTypeName(type);
}

} // namespace ws

#pragma once

#include "AnomalyKind.h"
#include "ResourceVersion.h"

#include <QString>
#include <QStringList>
#include <QVector>
#include <cstdint>

namespace ws {

// Anomalies of one kind, resource and scope within one episode (SPEC §2, "Incidents"): what
// the window lists first, as Wireshark's Expert Information does. A value type; an EngineUpdate
// carries the incidents that changed, whole.
struct Incident {
    std::int64_t id = 0; // 1, 2, ... in the order they opened; every anomaly carries its id
    AnomalyKind kind = AnomalyKind::StreamError;
    QString resource;
    QString scope; // the watcher, for kinds that are one client's own failure; empty: resource-wide
    // The apiserver whose failure it is (Anomaly::apiserver): one incident across its clients,
    // listed in watchers; empty: none.
    QString apiserver;
    Severity severity = Severity::Info; // the worst of its anomalies
    TimeUs first = 0;
    TimeUs last = 0;
    qint64 count = 0;
    QStringList keys;     // distinct, in order of first appearance, at most kMaxListed
    qint64 keyCount = 0;  // distinct keys in all
    QStringList watchers; // distinct, at most kMaxListed
    qint64 watcherCount = 0;
    QString firstMessage; // the first anomaly's message: what it looked like

    static constexpr int kMaxListed = 500;
};

} // namespace ws

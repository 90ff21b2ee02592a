#pragma once

#include "AnomalyKind.h"
#include "ResourceVersion.h"

#include <QMetaType>
#include <QString>
#include <QVector>
#include <cstdint>

namespace ws {

// One flagged anomaly (SPEC §2). Time is relative to the start of the session; writers add the
// session's wall-clock start to print absolute times.
struct Anomaly {
    TimeUs time = 0;
    AnomalyKind kind = AnomalyKind::StreamError;
    Severity severity = Severity::Error;
    AnomalySource source = AnomalySource::Simulator;
    QString resource;
    QString key;            // empty: not applicable
    ResourceVersion rv = 0; // 0: not applicable
    QString watcher;        // empty: not applicable
    // The apiserver whose failure this is, when the cause is the server and not the client (a
    // retry loop of connection failures to a dead apiserver): its incident spans that
    // apiserver's clients instead of being each client's own. Empty: not applicable.
    QString apiserver;
    QString message;
    std::int64_t incident = 0; // the Incident it belongs to (0: not grouped yet)
};

using AnomalyList = QVector<Anomaly>;

} // namespace ws

Q_DECLARE_METATYPE(ws::Anomaly)

#pragma once

// Anomalies as lines for a failing test's message: "<kind> <key> rv=<rv>: <message>", one each.

#include "model/Anomaly.h"
#include "model/AnomalyKind.h"

#include <QStringList>

namespace ws::test {

inline QString describe(const AnomalyList& list) {
    QStringList lines;
    for (const Anomaly& a : list)
        lines << QStringLiteral("%1 %2 rv=%3: %4")
                     .arg(kindName(a.kind), a.key)
                     .arg(a.rv)
                     .arg(a.message);
    return lines.join(QLatin1Char('\n'));
}

} // namespace ws::test

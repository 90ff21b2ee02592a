#pragma once

#include "model/ResourceVersion.h"
#include "model/WatchEventType.h"

#include <QMetaType>
#include <QString>
#include <cstdint>

namespace ws {

// The events table's display filter: every criterion set must hold (an empty one holds for
// every event). Matching is EventMatcher's.
struct EventFilter {
    std::uint8_t types = 0;    // a typeBit() per type shown; 0: every type
    QString resource;          // exactly this resource ("pods", "crontabs.stable.example.com")
    QString ns;                // exactly this namespace
    QString nameRegex;         // a QRegularExpression found in the name (or the key, for an
                               // event that names no object); case-sensitive, not anchored
    ResourceVersion minRv = 0; // RV ≥ minRv; 0: no lower bound
    ResourceVersion maxRv = 0; // RV ≤ maxRv; 0: no upper bound
    bool anomalyOnly = false;  // only events an anomaly names (its key and RV)

    static constexpr std::uint8_t typeBit(WatchEventType t) {
        return static_cast<std::uint8_t>(1u << static_cast<unsigned>(t));
    }
    bool showsType(WatchEventType t) const { return types == 0 || (types & typeBit(t)) != 0; }
    bool showsRv(ResourceVersion rv) const {
        return (minRv <= 0 || rv >= minRv) && (maxRv <= 0 || rv <= maxRv);
    }
    // True when it lets every event through.
    bool isEmpty() const;
    // Empty, or one line on why it cannot be used (an invalid regex, an empty RV range).
    QString error() const;
    // "type DELETED, namespace default, name ~ ^web-, RV 100..200, anomalies only"; "" if empty.
    QString describe() const;

    friend bool operator==(const EventFilter&, const EventFilter&) = default;
};

} // namespace ws

Q_DECLARE_METATYPE(ws::EventFilter)

#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <QtCore/qnamespace.h>

namespace ws {

// A cell whose display is shortened to fit (a badge) gives its whole text under this role, and
// the views' CSV export takes that. Clear of the models' own roles.
constexpr int FullTextRole = Qt::UserRole + 1024;

// Text for table cells, shared by the models so the same quantity reads the same everywhere.
// RVs are identifiers, so they get no group separators (they are copied into kubectl/etcdctl);
// counts do, because they are read as magnitudes.
QString formatRv(ResourceVersion rv);  // "—" for 0 (absent)
QString formatCount(qint64 value);     // "12,345"
QString formatSeconds(double seconds); // "0.250"
QString formatTimeUs(TimeUs time);     // session time: "12.345"

} // namespace ws

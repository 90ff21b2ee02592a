#include "Scenario.h"

namespace ws {

QStringList Scenario::resourceNames() const {
    QStringList names;
    for (const auto& r : resources)
        names << r.name;
    return names;
}

} // namespace ws

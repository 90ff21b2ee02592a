#pragma once

#include "model/ResourceVersion.h"

#include <QString>

namespace ws {

// One row of an exported timeline (SPEC §3), as the readers return it.
struct TimelineSample {
    TimeUs time = 0; // capture-relative
    QString resource;
    QString series;
    double value = 0;

    friend bool operator==(const TimelineSample&, const TimelineSample&) = default;
};

} // namespace ws

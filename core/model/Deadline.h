#pragma once

#include "ResourceVersion.h"

#include <cstdint>

namespace ws {

// A time that never comes: "no deadline" where the earliest of several is asked for.
constexpr TimeUs kNoDeadline = INT64_MAX;

} // namespace ws

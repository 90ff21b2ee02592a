#include "CacheResourceVersion.h"

#include <cmath>

namespace ws {

namespace {
constexpr double kExactBelow = 9007199254740992.0;     // 2^53
constexpr ResourceVersion kModulus = 1000000000000000; // 10^15, from 1.36
} // namespace

std::optional<ResourceVersion> cacheRvFromMetric(double value, int serverMinor,
                                                 ResourceVersion near) {
    if (!std::isfinite(value) || value < 0 || value != std::floor(value) || value >= kExactBelow)
        return std::nullopt;
    const auto v = static_cast<ResourceVersion>(value);
    const bool remainder = serverMinor >= 36 || (serverMinor < 0 && v < kModulus);
    if (!remainder)
        return v;
    if (v >= kModulus || near <= 0)
        return std::nullopt;
    ResourceVersion rv = near - near % kModulus + v;
    if (rv - near > kModulus / 2 && rv >= kModulus)
        rv -= kModulus;
    else if (near - rv > kModulus / 2)
        rv += kModulus;
    return rv;
}

} // namespace ws

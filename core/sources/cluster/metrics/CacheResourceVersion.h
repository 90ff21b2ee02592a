#pragma once

#include "model/ResourceVersion.h"

#include <optional>

namespace ws {

// The watch cache's RV as apiserver_watch_cache_resource_version gives it, where it is exact.
//
// The gauge is a float64. Up to 1.35 it holds the RV itself, exact only below 2^53 (a larger RV
// is rounded): such a value is refused. From 1.36 kube-apiserver records RV % 10^15 (10^15 <
// 2^53, so the value is exact) and the higher digits are gone: they are taken from `near`, an RV
// this client received from the same cluster, choosing the RV with that remainder closest to it.
// That is the cache's RV as long as the two differ by less than 5 * 10^14 revisions, which a
// watch cache and its watchers never do. Without `near` (0) a remainder is refused. A value that
// is not a whole number >= 0 is refused.
//
// `serverMinor` is the apiserver's minor version (1.36 -> 36); below 0 when unknown: a value
// below 10^15 is then read as a remainder, a larger one as an RV (it cannot be a remainder).
std::optional<ResourceVersion> cacheRvFromMetric(double value, int serverMinor,
                                                 ResourceVersion near);

} // namespace ws

#pragma once

#include <cstdint>

namespace ws {

// A Kubernetes resourceVersion / etcd revision. 0 means "absent / not yet known".
using ResourceVersion = std::int64_t;

// Virtual (simulation) or capture-relative time in microseconds.
using TimeUs = std::int64_t;

constexpr TimeUs kUsPerMs = 1000;
constexpr TimeUs kUsPerSecond = 1000 * 1000;

constexpr TimeUs milliseconds(std::int64_t ms) {
    return ms * kUsPerMs;
}
constexpr TimeUs seconds(double s) {
    return static_cast<TimeUs>(s * kUsPerSecond);
}

} // namespace ws

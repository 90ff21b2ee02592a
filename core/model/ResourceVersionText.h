#pragma once

#include "ResourceVersion.h"

#include <limits>
#include <string_view>

namespace ws {

// A resourceVersion as the wire carries it (JSON string, protobuf string): decimal digits, no
// sign, fitting in int64; "" is 0 (absent). False for anything else.
constexpr bool parseResourceVersion(std::string_view text, ResourceVersion* out) {
    ResourceVersion v = 0;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return false;
        const int digit = c - '0';
        if (v > (std::numeric_limits<ResourceVersion>::max() - digit) / 10)
            return false;
        v = v * 10 + digit;
    }
    *out = v;
    return true;
}

} // namespace ws

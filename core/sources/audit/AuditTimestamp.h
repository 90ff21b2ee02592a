#pragma once

#include "model/ResourceVersion.h"

#include <optional>
#include <string_view>

namespace ws {

// An RFC 3339 time as Go's metav1.MicroTime / metav1.Time marshal it
// ("2026-11-26T10:00:00.123456Z", or with a numeric offset), as µs since the Unix epoch.
// nullopt for anything else. No allocation: it runs for every audit line.
std::optional<TimeUs> parseAuditTimestamp(std::string_view text);

} // namespace ws

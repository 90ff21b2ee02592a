#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <QStringView>
#include <optional>

namespace ws {

// Parses a command-line duration (SPEC §1): a non-negative number followed by a unit, `500ms`,
// `30s`, `5m`, `1h`, `1.5s`; Go-style sequences such as `1m30s` are accepted too. Surrounding
// white space is ignored. On failure returns nullopt and, if `error` is set, one clear sentence
// naming the input, e.g. "bad duration '30x': expected a number followed by ms, s, m or h".
std::optional<TimeUs> parseDuration(QStringView text, QString* error = nullptr);

// The inverse of parseDuration for display: `500ms`, `1.5s`, `1m30s`, `2h`, `0.25ms`; exact to
// the microsecond, so parseDuration(formatDuration(d)) == d for every d >= 0.
QString formatDuration(TimeUs duration);

} // namespace ws

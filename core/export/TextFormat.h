#pragma once

#include "model/ResourceVersion.h"

#include <QStringView>
#include <cstdint>
#include <string>

namespace ws {

// Allocation-free (beyond the output's growth) text formatting for the streaming exporters: every
// timeline sample goes through these, so no QString/QJsonDocument on the way.

void appendInt(std::string& out, std::int64_t value);

// Integers without a decimal point ("1234"), other values with up to 6 decimals, trailing zeros
// trimmed ("0.25"). Non-finite values print as nan, inf, -inf (CSV); see appendJsonNumber.
void appendNumber(std::string& out, double value);

// As appendNumber, but JSON has no NaN or infinity: those print as null.
void appendJsonNumber(std::string& out, double value);

// Capture-relative time in milliseconds, exact to the microsecond: 1234567 us -> "1234.567".
void appendMillis(std::string& out, TimeUs time);

// A JSON string literal, quotes included, UTF-8, with the escapes JSON requires.
void appendJsonString(std::string& out, QStringView text);

// One RFC 4180 CSV field: quoted (quotes doubled) only when it holds a comma, quote or newline.
void appendCsvField(std::string& out, QStringView text);

} // namespace ws

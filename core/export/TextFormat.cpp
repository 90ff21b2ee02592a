#include "TextFormat.h"
#include "util/JsonText.h"

#include <QString>
#include <charconv>
#include <cmath>
#include <string_view>

namespace ws {

namespace {

void appendChars(std::string& out, const char* begin, const char* end) {
    out.append(begin, static_cast<std::size_t>(end - begin));
}

// Finite values only.
void appendFinite(std::string& out, double value) {
    // Doubles this large are integers already; to_chars' shortest form keeps them short.
    constexpr double kInt64Limit = 9.2e18;
    char buf[64];
    if (std::fabs(value) >= kInt64Limit) {
        const auto r = std::to_chars(buf, buf + sizeof buf, value);
        appendChars(out, buf, r.ptr);
        return;
    }
    if (value == std::trunc(value)) {
        appendInt(out, static_cast<std::int64_t>(value));
        return;
    }
    const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, 6);
    const char* end = r.ptr;
    while (end[-1] == '0')
        --end;
    if (end[-1] == '.')
        --end;
    // A value below 0.0000005 in magnitude rounds to "-0" or "0": print plain zero.
    if (end - buf == 2 && buf[0] == '-' && buf[1] == '0') {
        out.push_back('0');
        return;
    }
    appendChars(out, buf, end);
}

} // namespace

void appendInt(std::string& out, std::int64_t value) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    appendChars(out, buf, r.ptr);
}

void appendNumber(std::string& out, double value) {
    if (std::isnan(value))
        out += "nan";
    else if (std::isinf(value))
        out += value > 0 ? "inf" : "-inf";
    else
        appendFinite(out, value);
}

void appendJsonNumber(std::string& out, double value) {
    if (std::isfinite(value))
        appendFinite(out, value);
    else
        out += "null";
}

void appendMillis(std::string& out, TimeUs time) {
    std::uint64_t us = static_cast<std::uint64_t>(time);
    if (time < 0) {
        out.push_back('-');
        us = 0 - us;
    }
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, us / 1000);
    appendChars(out, buf, r.ptr);
    unsigned frac = static_cast<unsigned>(us % 1000);
    if (frac == 0)
        return;
    char digits[4] = {'.', char('0' + frac / 100), char('0' + frac / 10 % 10),
                      char('0' + frac % 10)};
    int len = 4;
    while (digits[len - 1] == '0')
        --len;
    out.append(digits, static_cast<std::size_t>(len));
}

void appendJsonString(std::string& out, QStringView text) {
    const QByteArray utf8 = text.toUtf8();
    appendJsonString(out, std::string_view(utf8.constData(), static_cast<std::size_t>(utf8.size())),
                     JsonEscape::Plain);
}

void appendCsvField(std::string& out, QStringView text) {
    const QByteArray utf8 = text.toUtf8();
    const std::string_view s(utf8.constData(), static_cast<std::size_t>(utf8.size()));
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
        out += s;
        return;
    }
    out.push_back('"');
    for (const char ch : s) {
        if (ch == '"')
            out.push_back('"');
        out.push_back(ch);
    }
    out.push_back('"');
}

} // namespace ws

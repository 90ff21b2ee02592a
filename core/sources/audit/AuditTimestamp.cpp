#include "AuditTimestamp.h"

namespace ws {

namespace {

bool digits(std::string_view s, std::size_t at, std::size_t n, int* out) {
    if (at + n > s.size())
        return false;
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
        const char c = s[i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's algorithm).
std::int64_t daysFromCivil(int y, int m, int d) {
    y -= m <= 2 ? 1 : 0;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return static_cast<std::int64_t>(era) * 146097 + doe - 719468;
}

} // namespace

std::optional<TimeUs> parseAuditTimestamp(std::string_view s) {
    int year, month, day, hour, minute, second;
    if (!digits(s, 0, 4, &year) || s.size() < 20 || s[4] != '-' || !digits(s, 5, 2, &month) ||
        s[7] != '-' || !digits(s, 8, 2, &day) || (s[10] != 'T' && s[10] != 't') ||
        !digits(s, 11, 2, &hour) || s[13] != ':' || !digits(s, 14, 2, &minute) || s[16] != ':' ||
        !digits(s, 17, 2, &second))
        return std::nullopt;
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
        return std::nullopt;
    std::size_t at = 19;
    TimeUs micros = 0;
    if (at < s.size() && s[at] == '.') {
        ++at;
        int n = 0;
        while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
            if (n < 6)
                micros = micros * 10 + (s[at] - '0');
            ++n, ++at;
        }
        if (n == 0)
            return std::nullopt;
        for (; n < 6; ++n)
            micros *= 10;
    }
    TimeUs offset = 0;
    if (at < s.size() && (s[at] == 'Z' || s[at] == 'z')) {
        ++at;
    } else if (at < s.size() && (s[at] == '+' || s[at] == '-')) {
        int oh, om;
        if (!digits(s, at + 1, 2, &oh) || at + 3 >= s.size() || s[at + 3] != ':' ||
            !digits(s, at + 4, 2, &om))
            return std::nullopt;
        offset = (oh * 3600 + om * 60) * kUsPerSecond * (s[at] == '+' ? 1 : -1);
        at += 6;
    } else {
        return std::nullopt;
    }
    if (at != s.size())
        return std::nullopt;
    const std::int64_t secs =
        daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
    return secs * kUsPerSecond + micros - offset;
}

} // namespace ws

#include "Duration.h"

#include <cstdint>

namespace ws {

namespace {

QString badDuration(QStringView text, const char* reason) {
    return QStringLiteral("bad duration '%1': %2").arg(text.toString(), QLatin1String(reason));
}

constexpr const char* kExpected = "expected a number followed by ms, s, m or h";

bool isDigit(QChar c) {
    return c >= QLatin1Char('0') && c <= QLatin1Char('9');
}

// Appends `us` (< 1e6 * 10^k) as a decimal fraction of `unit` microseconds, trailing zeros
// trimmed: appendFraction(out, 500000, 1000000) appends ".5".
void appendFraction(QString& out, std::uint64_t us, std::uint64_t unit) {
    if (us == 0)
        return;
    QString digits = QString::number(us).rightJustified(unit == 1000 ? 3 : 6, QLatin1Char('0'));
    while (digits.endsWith(QLatin1Char('0')))
        digits.chop(1);
    out += QLatin1Char('.') + digits;
}

} // namespace

std::optional<TimeUs> parseDuration(QStringView text, QString* error) {
    const QStringView input = text.trimmed();
    const auto fail = [&](const char* reason) -> std::optional<TimeUs> {
        if (error)
            *error = badDuration(input, reason);
        return std::nullopt;
    };
    if (input.startsWith(QLatin1Char('-')))
        return fail("must not be negative");
    if (input.isEmpty())
        return fail(kExpected);

    // Exact integer arithmetic (no double): "0.1s" must be 100000 us, not 99999.
    TimeUs total = 0;
    qsizetype i = 0;
    const qsizetype n = input.size();
    while (i < n) {
        std::int64_t whole = 0;
        std::int64_t frac = 0;
        std::int64_t fracScale = 1;
        bool anyDigit = false;
        for (; i < n && isDigit(input[i]); ++i) {
            anyDigit = true;
            if (__builtin_mul_overflow(whole, 10, &whole) ||
                __builtin_add_overflow(whole, input[i].unicode() - '0', &whole))
                return fail("too large");
        }
        if (i < n && input[i] == QLatin1Char('.')) {
            for (++i; i < n && isDigit(input[i]); ++i) {
                anyDigit = true;
                // Digits past the ninth are below a microsecond for every unit; ignore them.
                if (fracScale < 1000000000) {
                    frac = frac * 10 + (input[i].unicode() - '0');
                    fracScale *= 10;
                }
            }
        }
        if (!anyDigit)
            return fail(kExpected);

        std::int64_t unit = 0;
        if (input.mid(i).startsWith(QLatin1String("ms"))) {
            unit = kUsPerMs;
            i += 2;
        } else if (i < n && input[i] == QLatin1Char('s')) {
            unit = kUsPerSecond;
            ++i;
        } else if (i < n && input[i] == QLatin1Char('m')) {
            unit = 60 * kUsPerSecond;
            ++i;
        } else if (i < n && input[i] == QLatin1Char('h')) {
            unit = 3600 * kUsPerSecond;
            ++i;
        } else {
            return fail(kExpected);
        }

        std::int64_t part = 0;
        if (__builtin_mul_overflow(whole, unit, &part) ||
            __builtin_add_overflow(part, frac * unit / fracScale, &part) ||
            __builtin_add_overflow(total, part, &total))
            return fail("too large");
    }
    return total;
}

QString formatDuration(TimeUs duration) {
    // Unsigned magnitude so that the most negative value does not overflow on negation.
    const bool negative = duration < 0;
    std::uint64_t us =
        negative ? 0 - static_cast<std::uint64_t>(duration) : static_cast<std::uint64_t>(duration);
    QString out;
    if (negative)
        out += QLatin1Char('-');
    if (us == 0)
        return QStringLiteral("0s");
    if (us < static_cast<std::uint64_t>(kUsPerSecond)) {
        out += QString::number(us / 1000);
        appendFraction(out, us % 1000, 1000);
        return out + QStringLiteral("ms");
    }
    constexpr std::uint64_t kMinute = 60 * kUsPerSecond;
    constexpr std::uint64_t kHour = 60 * kMinute;
    const std::uint64_t hours = us / kHour;
    const std::uint64_t minutes = us % kHour / kMinute;
    const std::uint64_t rest = us % kMinute;
    if (hours > 0)
        out += QString::number(hours) + QLatin1Char('h');
    if (minutes > 0 || (hours > 0 && rest > 0))
        out += QString::number(minutes) + QLatin1Char('m');
    if (rest > 0) {
        out += QString::number(rest / kUsPerSecond);
        appendFraction(out, rest % kUsPerSecond, kUsPerSecond);
        out += QLatin1Char('s');
    }
    return out;
}

} // namespace ws

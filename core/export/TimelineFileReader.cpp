#include "TimelineFileReader.h"

#include "TimelineFormat.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>

namespace ws {

namespace {

// "1234.567" (ms) -> 1234567 us, exactly.
std::optional<TimeUs> parseMillis(std::string_view s) {
    bool negative = false;
    if (!s.empty() && s.front() == '-') {
        negative = true;
        s.remove_prefix(1);
    }
    const auto dot = s.find('.');
    const std::string_view whole = s.substr(0, dot);
    TimeUs ms = 0;
    const auto r = std::from_chars(whole.data(), whole.data() + whole.size(), ms);
    if (whole.empty() || r.ec != std::errc() || r.ptr != whole.data() + whole.size())
        return std::nullopt;
    TimeUs us = ms * kUsPerMs;
    if (dot != std::string_view::npos) {
        const std::string_view frac = s.substr(dot + 1);
        if (frac.empty() || frac.size() > 3)
            return std::nullopt;
        TimeUs scale = 100;
        for (const char c : frac) {
            if (c < '0' || c > '9')
                return std::nullopt;
            us += (c - '0') * scale;
            scale /= 10;
        }
    }
    return negative ? -us : us;
}

std::optional<double> parseValue(std::string_view s) {
    if (s == "nan")
        return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf")
        return std::numeric_limits<double>::infinity();
    if (s == "-inf")
        return -std::numeric_limits<double>::infinity();
    double v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size())
        return std::nullopt;
    return v;
}

// RFC 4180 fields of one line (no embedded newlines: the writer's names have none).
std::optional<std::vector<std::string>> splitCsv(std::string_view line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"' && fields.back().empty()) {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    if (quoted)
        return std::nullopt;
    return fields;
}

using Samples = std::vector<TimelineSample>;
using LineError = QString; // empty: fine

LineError parseCsvLine(std::string_view line, Samples& out) {
    const auto fields = splitCsv(line);
    if (!fields)
        return QStringLiteral("unterminated quote");
    if (fields->size() != 4)
        return QStringLiteral("expected 4 fields, got %1").arg(fields->size());
    const auto time = parseMillis((*fields)[0]);
    if (!time)
        return QStringLiteral("bad time_ms '%1'").arg(QString::fromStdString((*fields)[0]));
    const auto value = parseValue((*fields)[3]);
    if (!value)
        return QStringLiteral("bad value '%1'").arg(QString::fromStdString((*fields)[3]));
    out.push_back({*time, QString::fromStdString((*fields)[1]),
                   QString::fromStdString((*fields)[2]), *value});
    return {};
}

LineError parseJsonLine(const QByteArray& line, Samples& out) {
    QJsonParseError parseError;
    const QJsonObject o = QJsonDocument::fromJson(line, &parseError).object();
    if (parseError.error != QJsonParseError::NoError)
        return QStringLiteral("invalid JSON: %1").arg(parseError.errorString());
    const QJsonValue time = o.value(QLatin1String("time_ms"));
    const QJsonValue resource = o.value(QLatin1String("resource"));
    const QJsonValue series = o.value(QLatin1String("series"));
    const QJsonValue value = o.value(QLatin1String("value"));
    if (!time.isDouble() || !resource.isString() || !series.isString() ||
        !(value.isDouble() || value.isNull()))
        return QStringLiteral("expected time_ms, resource, series and value");
    out.push_back({static_cast<TimeUs>(std::llround(time.toDouble() * kUsPerMs)),
                   resource.toString(), series.toString(),
                   value.isNull() ? std::numeric_limits<double>::quiet_NaN() : value.toDouble()});
    return {};
}

LineError parseTrace(const QByteArray& data, Samples& out) {
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(data, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return QStringLiteral("invalid JSON at offset %1: %2")
            .arg(parseError.offset)
            .arg(parseError.errorString());
    const QJsonArray events = doc.object().value(QLatin1String("traceEvents")).toArray();
    QHash<int, QString> resources;
    for (const QJsonValue& e : events) {
        const QJsonObject o = e.toObject();
        if (o.value(QLatin1String("ph")).toString() == QLatin1String("M") &&
            o.value(QLatin1String("name")).toString() == QLatin1String("process_name"))
            resources.insert(
                o.value(QLatin1String("pid")).toInt(),
                o.value(QLatin1String("args")).toObject().value(QLatin1String("name")).toString());
    }
    for (const QJsonValue& e : events) {
        const QJsonObject o = e.toObject();
        if (o.value(QLatin1String("ph")).toString() != QLatin1String("C"))
            continue;
        out.push_back(
            {static_cast<TimeUs>(o.value(QLatin1String("ts")).toInteger()),
             resources.value(o.value(QLatin1String("pid")).toInt()),
             o.value(QLatin1String("name")).toString(),
             o.value(QLatin1String("args")).toObject().value(QLatin1String("value")).toDouble()});
    }
    return {};
}

} // namespace

std::optional<std::vector<TimelineSample>> TimelineFileReader::read(const QString& path,
                                                                    QString* error) {
    const auto fail = [&](const QString& reason) -> std::optional<Samples> {
        if (error)
            *error = reason;
        return std::nullopt;
    };
    const auto format = timelineFormatForPath(path, error);
    if (!format)
        return std::nullopt;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read '%1': %2").arg(path, file.errorString()));

    Samples out;
    if (*format == TimelineFormat::ChromeTrace) {
        const LineError e = parseTrace(file.readAll(), out);
        if (!e.isEmpty())
            return fail(QStringLiteral("%1: %2").arg(path, e));
        return out;
    }
    int lineNumber = 0;
    while (!file.atEnd()) {
        QByteArray line = file.readLine();
        ++lineNumber;
        while (line.endsWith('\n') || line.endsWith('\r'))
            line.chop(1);
        if (*format == TimelineFormat::Csv && lineNumber == 1) {
            if (line != "time_ms,resource,series,value")
                return fail(QStringLiteral("%1:1: expected the header "
                                           "'time_ms,resource,series,value'")
                                .arg(path));
            continue;
        }
        if (line.isEmpty())
            continue;
        const LineError e =
            *format == TimelineFormat::Csv
                ? parseCsvLine(
                      std::string_view(line.constData(), static_cast<std::size_t>(line.size())),
                      out)
                : parseJsonLine(line, out);
        if (!e.isEmpty())
            return fail(QStringLiteral("%1:%2: %3").arg(path, QString::number(lineNumber), e));
    }
    return out;
}

} // namespace ws

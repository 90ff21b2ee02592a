#include "AnomalyJsonlWriter.h"

#include "TextFormat.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

namespace ws {

namespace {

TimeUs floorToMs(TimeUs us) {
    const TimeUs ms = us / kUsPerMs;
    return (us % kUsPerMs < 0) ? ms - 1 : ms;
}

QString timeText(const QDateTime& start, TimeUs time) {
    return start.addMSecs(floorToMs(time)).toString(Qt::ISODateWithMs);
}

std::optional<QDateTime> parseTime(const QJsonValue& v) {
    if (!v.isString())
        return std::nullopt;
    QDateTime t = QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
    if (!t.isValid())
        return std::nullopt;
    return t.toUTC();
}

} // namespace

AnomalyJsonlWriter::AnomalyJsonlWriter(const QDateTime& wallClockStart)
    : m_start(wallClockStart.toUTC()), m_file(64 * 1024) {}

bool AnomalyJsonlWriter::open(const QString& path, QString* error) {
    return m_file.open(path, error);
}

void AnomalyJsonlWriter::appendLine(const Anomaly& anomaly) {
    m_file.buffer() += formatLine(anomaly, m_start);
    m_file.buffer() += '\n';
    m_file.maybeFlush();
}

void AnomalyJsonlWriter::write(const Anomaly& anomaly) {
    appendLine(anomaly);
    m_file.flush();
}

void AnomalyJsonlWriter::write(const AnomalyList& anomalies) {
    for (const Anomaly& a : anomalies)
        appendLine(a);
    m_file.flush();
}

bool AnomalyJsonlWriter::close(QString* error) {
    return m_file.close(error);
}

std::string AnomalyJsonlWriter::formatLine(const Anomaly& a, const QDateTime& wallClockStart) {
    std::string out;
    out.reserve(256 + static_cast<std::size_t>(a.message.size() + a.key.size()));
    out += "{\"time\":";
    appendJsonString(out, timeText(wallClockStart.toUTC(), a.time));
    out += ",\"kind\":";
    appendJsonString(out, kindName(a.kind));
    out += ',';
    appendFields(out, a);
    out += '}';
    return out;
}

void AnomalyJsonlWriter::appendFields(std::string& out, const Anomaly& a) {
    out += "\"severity\":";
    appendJsonString(out, severityName(a.severity));
    out += ",\"source\":";
    appendJsonString(out, sourceName(a.source));
    out += ",\"resource\":";
    appendJsonString(out, a.resource);
    if (!a.key.isEmpty()) {
        out += ",\"key\":";
        appendJsonString(out, a.key);
    }
    if (a.rv != 0) {
        out += ",\"rv\":\""; // a string: RVs are opaque to clients (and may exceed 2^53)
        appendInt(out, a.rv);
        out += '"';
    }
    if (!a.watcher.isEmpty()) {
        out += ",\"watcher\":";
        appendJsonString(out, a.watcher);
    }
    if (!a.apiserver.isEmpty()) {
        out += ",\"apiserver\":";
        appendJsonString(out, a.apiserver);
    }
    out += ",\"message\":";
    appendJsonString(out, a.message);
    if (a.incident > 0) {
        out += ",\"incident\":";
        appendInt(out, a.incident);
    }
}

std::optional<Anomaly> AnomalyJsonlWriter::parseLine(QByteArrayView line,
                                                     const QDateTime& wallClockStart,
                                                     QString* error) {
    const auto fail = [error](const QString& reason) -> std::optional<Anomaly> {
        if (error)
            *error = reason;
        return std::nullopt;
    };
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(line.toByteArray(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(QStringLiteral("invalid JSON: %1").arg(parseError.errorString()));
    if (!doc.isObject())
        return fail(QStringLiteral("not a JSON object"));
    const QJsonObject o = doc.object();

    const auto text = [&o](const char* key, bool required, QString* value) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined())
            return !required;
        if (!v.isString())
            return false;
        *value = v.toString();
        return true;
    };
    const auto badKey = [&fail](const char* key) {
        return fail(QStringLiteral("missing or invalid '%1'").arg(QLatin1String(key)));
    };

    Anomaly a;
    const auto time = parseTime(o.value(QLatin1String("time")));
    if (!time)
        return badKey("time");
    a.time = wallClockStart.toUTC().msecsTo(*time) * kUsPerMs;

    QString name;
    if (!text("kind", true, &name))
        return badKey("kind");
    const auto kind = kindFromName(name);
    if (!kind)
        return fail(QStringLiteral("unknown kind '%1'").arg(name));
    a.kind = *kind;
    if (!text("severity", true, &name))
        return badKey("severity");
    const auto severity = severityFromName(name);
    if (!severity)
        return fail(QStringLiteral("unknown severity '%1'").arg(name));
    a.severity = *severity;
    if (!text("source", true, &name))
        return badKey("source");
    const auto source = sourceFromName(name);
    if (!source)
        return fail(QStringLiteral("unknown source '%1'").arg(name));
    a.source = *source;

    if (!text("resource", true, &a.resource))
        return badKey("resource");
    if (!text("key", false, &a.key))
        return badKey("key");
    if (!text("watcher", false, &a.watcher))
        return badKey("watcher");
    if (!text("apiserver", false, &a.apiserver))
        return badKey("apiserver");
    if (!text("message", true, &a.message))
        return badKey("message");

    const QJsonValue rv = o.value(QLatin1String("rv"));
    if (rv.isString()) {
        bool ok = false;
        a.rv = rv.toString().toLongLong(&ok);
        if (!ok || a.rv < 0)
            return fail(QStringLiteral("invalid 'rv' '%1'").arg(rv.toString()));
    } else if (!rv.isUndefined()) {
        return badKey("rv");
    }
    const QJsonValue incident = o.value(QLatin1String("incident"));
    if (incident.isDouble() && incident.toDouble() >= 1 &&
        incident.toDouble() == static_cast<double>(incident.toInteger()))
        a.incident = incident.toInteger();
    else if (!incident.isUndefined())
        return badKey("incident");
    return a;
}

std::optional<AnomalyList>
AnomalyJsonlWriter::read(const QString& path, const QDateTime& wallClockStart, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read '%1': %2").arg(path, file.errorString());
        return std::nullopt;
    }
    QDateTime start = wallClockStart.toUTC();
    AnomalyList out;
    int lineNumber = 0;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        ++lineNumber;
        if (line.isEmpty())
            continue;
        if (!start.isValid()) {
            // No known start: the first anomaly's time is zero.
            const auto doc = QJsonDocument::fromJson(line);
            if (const auto t = parseTime(doc.object().value(QLatin1String("time"))))
                start = *t;
        }
        QString reason;
        auto anomaly = parseLine(
            line, start.isValid() ? start : QDateTime::fromMSecsSinceEpoch(0, Qt::UTC), &reason);
        if (!anomaly) {
            if (error)
                *error = QStringLiteral("%1:%2: %3").arg(path, QString::number(lineNumber), reason);
            return std::nullopt;
        }
        out.push_back(std::move(*anomaly));
    }
    if (file.error() != QFileDevice::NoError) {
        if (error)
            *error = QStringLiteral("cannot read '%1': %2").arg(path, file.errorString());
        return std::nullopt;
    }
    return out;
}

} // namespace ws

#pragma once

// What watchscope-cli wrote as JSON lines (--anomalies, --watchers, an apiserver's audit log), read
// back by tests that drive it as a process; and exported anomalies as lines for a failure message.

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QStringList>

namespace ws::test {

// Every line of `path` as an object; empty when it cannot be read.
inline QList<QJsonObject> readJsonLines(const QString& path) {
    QList<QJsonObject> out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return out;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (!line.trimmed().isEmpty())
            out << QJsonDocument::fromJson(line).object();
    return out;
}

// "<severity> <kind> <resource> <watcher>: <message>", one line each.
inline QString describeExported(const QList<QJsonObject>& anomalies) {
    QStringList lines;
    for (const QJsonObject& a : anomalies)
        lines << QStringLiteral("%1 %2 %3 %4: %5")
                     .arg(a.value("severity").toString(), a.value("kind").toString(),
                          a.value("resource").toString(), a.value("watcher").toString(),
                          a.value("message").toString());
    return lines.join(u'\n');
}

} // namespace ws::test

#pragma once

// The rows of the differential tests (tests/real/tst_realclientgo, tst_realserve): with
// WS_CONFORMANCE_DIR set, each row is appended as a JSON line to TABLE.jsonl there, from which
// scripts/conformance.sh writes docs/conformance.md.

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace ws::test {

inline void appendConformanceRow(const QString& table, const QJsonObject& row) {
    const QString dir = qEnvironmentVariable("WS_CONFORMANCE_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    QFile f(dir + u'/' + table + QStringLiteral(".jsonl"));
    if (f.open(QIODevice::Append))
        f.write(QJsonDocument(row).toJson(QJsonDocument::Compact) + '\n');
}

// One row against the differences a test knows: the failure to report (a difference not listed,
// or a listed one that is gone), or an empty string for a row as expected, which is logged.
inline QString conformanceFailure(const QString& key, bool same, const QString& knownReason,
                                  const QString& detail) {
    if (!same && knownReason.isEmpty())
        return key + QStringLiteral(" differs:") + detail;
    if (same && !knownReason.isEmpty())
        return key + QStringLiteral(" is listed as differing (") + knownReason +
               QStringLiteral(") but is the same now:") + detail;
    qInfo("%s %s:%s", qPrintable(key), same ? "same" : "differs as known", qPrintable(detail));
    return {};
}

} // namespace ws::test

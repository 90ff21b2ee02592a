#include "AuditLines.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace ws::test;

// watchscope-cli record --audit-log: the anomalies and timeline files of the seed incident.
class TstAuditCli : public QObject {
    Q_OBJECT

    static AuditLine tooLarge(int round, const QString& user) {
        AuditLine l;
        l.auditId = QStringLiteral("%1-%2").arg(user).arg(round);
        l.uri = QStringLiteral("/api/v1/configmaps?resourceVersion=5000");
        l.user = user;
        l.agent = QStringLiteral("agent/v0.20.0 (linux/amd64) kubernetes/$Format");
        l.code = 504;
        l.status = QStringLiteral("Failure");
        l.reason = QStringLiteral("Timeout");
        l.message = QStringLiteral("Timeout: Too large resource version: 5000, current: 4000");
        l.received = round * 5.0;
        l.at = l.received + 3;
        return l;
    }

    static int run(const QStringList& args, QString* out, QString* err) {
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"), args);
        if (!p.waitForFinished(60000))
            return -1;
        *out = QString::fromUtf8(p.readAllStandardOutput());
        *err = QString::fromUtf8(p.readAllStandardError());
        return p.exitCode();
    }

private slots:
    void record() {
        QTemporaryDir dir;
        QByteArray a, b;
        for (int round = 0; round < 6; ++round) {
            a += auditLine(tooLarge(round, QStringLiteral("agent-a")));
            b += auditLine(tooLarge(round, QStringLiteral("agent-b")));
        }
        b += "{\"kind\":\"Event\",\n"; // a broken last line
        QVERIFY(writeFile(dir.filePath(QStringLiteral("m1/audit.log")), a));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("m2/audit.log")), gzipped(b)));
        QString out, err;
        const QString anomalies = dir.filePath(QStringLiteral("a.jsonl"));
        const QString timeline = dir.filePath(QStringLiteral("t.csv"));
        QCOMPARE(
            run({QStringLiteral("record"), QStringLiteral("--audit-log"),
                 dir.filePath(QStringLiteral("m1")) + u',' +
                     dir.filePath(QStringLiteral("m2/audit.log")),
                 QStringLiteral("--anomalies"), anomalies, QStringLiteral("--timeline"), timeline},
                &out, &err),
            0);
        QVERIFY2(out.contains(QStringLiteral(
                     "of audit log m1/audit.log, m2/audit.log: 12 events, 15 anomalies")),
                 qPrintable(out));
        QVERIFY2(
            err.contains(QStringLiteral(
                "watchscope-cli: warning: audit log: skipped 1 broken line (first: audit.log:7)")),
            qPrintable(err));
        QFile f(anomalies);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QMap<QString, int> kinds;
        QString firstLoop;
        for (const QByteArray& line : f.readAll().split('\n')) {
            if (line.isEmpty())
                continue;
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            ++kinds[o[QStringLiteral("kind")].toString()];
            if (firstLoop.isEmpty() &&
                o[QStringLiteral("kind")].toString() == QLatin1String("retry-loop"))
                firstLoop = o[QStringLiteral("time")].toString() + u' ' +
                            o[QStringLiteral("watcher")].toString();
        }
        QCOMPARE(kinds.value(QStringLiteral("too-large-rv")), 12);
        QCOMPARE(kinds.value(QStringLiteral("retry-loop")), 2);
        QCOMPARE(kinds.value(QStringLiteral("stream-error")), 1);
        // The fifth 504 of the first client, in the log's own time.
        QCOMPARE(firstLoop, QStringLiteral("2026-11-26T10:00:23.000Z agent-a (agent/v0.20.0 "
                                           "(linux/amd64) kubernetes/$Format) configmaps"));
        QFile t(timeline);
        QVERIFY(t.open(QIODevice::ReadOnly));
        const QString csv = QString::fromUtf8(t.readAll());
        QVERIFY(csv.startsWith(QStringLiteral("time_ms,resource,series,value\n")));
        QVERIFY2(csv.contains(QStringLiteral("\n20000,configmaps,requests_list,10\n")),
                 qPrintable(csv.left(2000)));
        QVERIFY(csv.contains(QStringLiteral(",configmaps,list_inflight,0\n")));
        QVERIFY(csv.contains(QStringLiteral(",configmaps,requested_rv:agent-b (agent/v0.20.0 "
                                            "(linux/amd64) kubernetes/$Format),5000\n")));
    }

    void badInput() {
        QString out, err;
        QVERIFY(run({QStringLiteral("record"), QStringLiteral("--audit-log"),
                     QStringLiteral("/nonexistent/audit.log")},
                    &out, &err) != 0);
        QCOMPARE(err, QStringLiteral("watchscope-cli: --audit-log: /nonexistent/audit.log: no such "
                                     "file or directory\n"));
        QVERIFY(run({QStringLiteral("record"), QStringLiteral("--scenario"),
                     QStringLiteral("healthy"), QStringLiteral("--follow")},
                    &out, &err) != 0);
        QCOMPARE(err.count(u'\n'), 1);
        // The log is the record: no capture of it.
        QTemporaryDir dir;
        QVERIFY(writeFile(dir.filePath(QStringLiteral("audit.log")), "\n"));
        QVERIFY(run({QStringLiteral("record"), QStringLiteral("--audit-log"),
                     dir.filePath(QStringLiteral("audit.log")), QStringLiteral("--out"),
                     dir.filePath(QStringLiteral("x.wscap"))},
                    &out, &err) != 0);
        QCOMPARE(err, QStringLiteral("watchscope-cli: --out: this session reads audit logs: they "
                                     "are its record already (copy the files instead)\n"));
    }
};

QTEST_GUILESS_MAIN(TstAuditCli)
#include "tst_auditcli.moc"

// The round trip of issue 13: `watchscope-cli serve --audit-log-path` plays too-large-rv-loop
// (a 1.16 apiserver), the official Python client makes its requests as two users, and the audit
// source reconstructs from the log exactly the requests the clients made and the server answered
// (per client, resource and verb; the RVs asked; the codes), and raises the retry-loop of the
// client that asks for a too-large RV again and again.

#include "AuditLines.h"
#include "AuditRun.h"
#include "sources/audit/AuditLogFiles.h"
#include "sources/audit/AuditProblems.h"
#include "sources/audit/AuditRequestTracker.h"
#include "sources/audit/AuditStream.h"
#include "support/ServeProcess.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace ws;
using namespace ws::test;

class TstAuditRoundTrip : public QObject {
    Q_OBJECT

    QString m_python;

private slots:
    void initTestCase() {
        m_python = QStringLiteral("/usr/bin/python3");
        if (!QFile::exists(m_python))
            QSKIP("python3 is not installed");
        QProcess probe;
        probe.start(m_python, {QStringLiteral("-c"), QStringLiteral("import kubernetes")});
        probe.waitForFinished(30000);
        if (probe.exitCode() != 0)
            QSKIP("cannot import kubernetes (install python3-kubernetes)");
    }

    void roundTrip() {
        QTemporaryDir dir;
        const QString tokens = dir.filePath(QStringLiteral("tokens.csv"));
        QVERIFY(writeFile(tokens, "token-alice-7c1e,alice,uid-alice,\"devs\"\n"
                                  "token-bob-90d2,bob,uid-bob,\"ops\"\n"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("a.token")), "token-alice-7c1e\n"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("b.token")), "token-bob-90d2\n"));
        const QString log = dir.filePath(QStringLiteral("audit.log"));
        ServeProcess serve;
        QString error;
        // Apiserver 1: the scenario restarts apiserver 0 at 10 s, dropping requests unanswered.
        QVERIFY2(serve.start({QStringLiteral("--scenario"), QStringLiteral("too-large-rv-loop"),
                              QStringLiteral("--apiserver"), QStringLiteral("1"),
                              QStringLiteral("--token-file"), tokens,
                              QStringLiteral("--audit-log-path"), log},
                             &error),
                 qPrintable(error));
        QProcess clients;
        clients.start(m_python,
                      {QStringLiteral(WS_AUDIT_CLIENTS), QStringLiteral("--server"), serve.url(),
                       QStringLiteral("--token-a"), dir.filePath(QStringLiteral("a.token")),
                       QStringLiteral("--token-b"), dir.filePath(QStringLiteral("b.token"))});
        QVERIFY(clients.waitForFinished(120000));
        const QByteArray out = clients.readAllStandardOutput();
        QVERIFY2(clients.exitCode() == 0,
                 qPrintable(QString::fromUtf8(out + clients.readAllStandardError()).right(3000)));
        serve.stop(); // every stage written and flushed

        // What the clients sent and the server answered, per client, resource and verb.
        QMap<QString, int> sent;
        QMap<QString, QStringList> rvsSent;
        const QJsonArray requests =
            QJsonDocument::fromJson(out).object().value(QLatin1String("requests")).toArray();
        QCOMPARE(requests.size(), 8);
        for (const QJsonValue& v : requests) {
            const QJsonObject r = v.toObject();
            const QString client = QStringLiteral("%1 (%2)").arg(
                r[QLatin1String("user")].toString(), r[QLatin1String("agent")].toString());
            ++sent[QStringLiteral("%1|%2|%3|%4")
                       .arg(client, r[QLatin1String("resource")].toString(),
                            r[QLatin1String("verb")].toString())
                       .arg(r[QLatin1String("status")].toInt())];
            rvsSent[client] << r[QLatin1String("rv")].toString();
        }

        // What the audit source reconstructs from the log.
        AuditProblems problems;
        AuditStream stream(0, AuditLogGroup{QStringLiteral("audit.log"), {log}}, false, problems);
        QVERIFY(stream.open(&error));
        QMap<QString, int> seen;
        QMap<QString, QStringList> rvsSeen;
        int open = 0;
        AuditRequestTracker tracker(
            {QStringLiteral("audit.log")},
            {[&](const AuditRequest& r) {
                 // The RV asked for as sent: "" (none), "0" or a number.
                 if (r.resource() == QLatin1String("configmaps"))
                     rvsSeen[r.client()]
                         << (r.rvEmpty ? QString() : QString::number(r.requestedRv));
             },
             [&](const AuditRequest&) { ++open; },
             [&](const AuditRequest& r) {
                 if (r.resource() == QLatin1String("configmaps"))
                     ++seen[QStringLiteral("%1|%2|%3|%4")
                                .arg(r.client(), r.resource(),
                                     r.watch ? QStringLiteral("watch") : QStringLiteral("list"))
                                .arg(r.code)];
             }});
        AuditEvent event;
        while (stream.next(&event) == AuditStream::Status::Event)
            QVERIFY2(tracker.add(event, &error), qPrintable(error));
        QCOMPARE(problems.total(), 0);
        QCOMPARE(tracker.open(), std::size_t(0));
        QCOMPARE(open, 1);
        QCOMPARE(seen, sent);
        QCOMPARE(rvsSeen, rvsSent);

        // The whole source on the same log: bob's loop.
        AuditRun run;
        QVERIFY2(run.start({log}), qPrintable(run.error));
        run.drain();
        QString bob;
        for (auto it = rvsSent.constBegin(); it != rvsSent.constEnd(); ++it)
            if (it.key().startsWith(QLatin1String("bob ")))
                bob = it.key() + QStringLiteral(" configmaps");
        QCOMPARE(run.count(AnomalyKind::TooLargeRv, bob), 5);
        QCOMPARE(run.count(AnomalyKind::RetryLoop, bob), 1);
        QCOMPARE(run.count(AnomalyKind::RetryLoop), 1);
        QCOMPARE(run.count(AnomalyKind::RevisionRegression), 0);
        QCOMPARE(run.count(AnomalyKind::WatcherTerminated), 0);
    }
};

QTEST_GUILESS_MAIN(TstAuditRoundTrip)
#include "tst_auditroundtrip.moc"

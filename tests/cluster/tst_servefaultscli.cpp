// The revision accounts as a user meets them: `watchscope-cli record --server` through a serve
// that is killed (SIGKILL) and started again on its --state-dir prints one account per informer
// when it ends, each balanced, a loss in it matching a revision-gap in --anomalies; `export` of
// the capture it wrote prints the same accounts again from the recorded frames.

#include "support/ServeProcess.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using ws::test::ServeProcess;

class TestServeFaultsCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    qint64 journalLines() const {
        QFile f(m_dir.filePath(QStringLiteral("state/store.jsonl")));
        if (!f.open(QIODevice::ReadOnly))
            return 0;
        return f.readAll().count('\n');
    }

    static QStringList accountLines(const QString& out) {
        QStringList lines;
        for (const QString& l : out.split(u'\n'))
            if (l.startsWith(QLatin1String("revision account of the informer/")))
                lines << l;
        return lines;
    }

private slots:
    void initTestCase() {
        if (qEnvironmentVariableIsEmpty("WS_CLI"))
            QSKIP("WS_CLI is not set (run through ctest)");
        QVERIFY(m_dir.isValid());
    }

    void recordThroughARestartAndExport() {
        const QString state = m_dir.filePath(QStringLiteral("state"));
        const QStringList serveArgs{QStringLiteral("--scenario"), QStringLiteral("healthy"),
                                    QStringLiteral("--state-dir"), state};
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start(serveArgs, &error), qPrintable(error));
        const quint16 port = serve.port();
        const QString capture = m_dir.filePath(QStringLiteral("run.wscap"));
        const QString anomalies = m_dir.filePath(QStringLiteral("run.jsonl"));
        QProcess record;
        record.start(qEnvironmentVariable("WS_CLI"),
                     {QStringLiteral("record"), QStringLiteral("--server"), serve.url(),
                      QStringLiteral("--resources"), QStringLiteral("configmaps,pods"),
                      QStringLiteral("--duration"), QStringLiteral("12s"), QStringLiteral("--out"),
                      capture, QStringLiteral("--anomalies"), anomalies});
        QVERIFY(record.waitForStarted(5000));
        // Mid-watch: once serve has written two seconds' worth (60 writes/s) after its start.
        const qint64 start = journalLines();
        QVERIFY(QTest::qWaitFor([&] { return journalLines() >= start + 120; }, 15000));
        serve.process()->kill();
        serve.process()->waitForFinished(5000);
        QVERIFY2(serve.start(serveArgs + QStringList{QStringLiteral("--listen"),
                                                     QStringLiteral("127.0.0.1:%1").arg(port)},
                             &error),
                 qPrintable(error));
        QVERIFY(record.waitForFinished(40000));
        const QString out = QString::fromUtf8(record.readAllStandardOutput());
        QVERIFY2(record.exitCode() == 0, qPrintable(record.readAllStandardError()));
        const QStringList accounts = accountLines(out);
        qInfo("%s", qPrintable(accounts.join(u'\n')));
        QCOMPARE(accounts.size(), 2);
        int lost = 0;
        for (const QString& a : accounts) {
            QVERIFY2(a.endsWith(QLatin1String(", balanced")), qPrintable(a));
            lost += a.contains(QLatin1String(" lost in ")) ? 1 : 0;
        }
        // Each loss is a revision-gap anomaly naming its range.
        QFile f(anomalies);
        QVERIFY(f.open(QIODevice::ReadOnly));
        int gaps = 0;
        // The account's gap "(revisions 621..758 (138))"; the anomaly names the RVs without a
        // count ("events of configmaps at RVs 621..758 (if any ..."): RVs count every resource.
        static const QRegularExpression range(
            QStringLiteral("\\(revisions? (\\d+(?:\\.\\.\\d+)?)(?: \\(\\d+\\))?\\)"));
        for (const QByteArray& line : f.readAll().split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (o.value(QLatin1String("kind")).toString() != QLatin1String("revision-gap"))
                continue;
            ++gaps;
            const QString message = o.value(QLatin1String("message")).toString();
            bool named = false;
            for (const QString& a : accounts) {
                const auto m = range.match(a);
                named = named ||
                        (m.hasMatch() &&
                         message.contains(QStringLiteral(" at RVs %1 (if any").arg(m.captured(1))));
            }
            QVERIFY2(named, qPrintable(message));
        }
        QCOMPARE(gaps, lost);
        // The replay keeps the same books.
        QProcess exportRun;
        exportRun.start(qEnvironmentVariable("WS_CLI"),
                        {QStringLiteral("export"), capture, QStringLiteral("--anomalies"),
                         m_dir.filePath(QStringLiteral("export.jsonl"))});
        QVERIFY(exportRun.waitForFinished(60000));
        QCOMPARE(exportRun.exitCode(), 0);
        QCOMPARE(accountLines(QString::fromUtf8(exportRun.readAllStandardOutput())), accounts);
    }
};

QTEST_GUILESS_MAIN(TestServeFaultsCli)
#include "tst_servefaultscli.moc"

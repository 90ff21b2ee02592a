// Drives watchscope-cli as a user would (the Wireshark/tshark habit): exit codes, one-line
// errors, files written.
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <csignal>
#include <sys/types.h>

class TestCli : public QObject {
    Q_OBJECT
private:
    struct Result {
        int exitCode;
        QString out;
        QString err;
    };
    static Result cli(const QStringList& args) {
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"), args);
        if (!p.waitForFinished(120000))
            qFatal("watchscope-cli did not finish");
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

private slots:
    void initTestCase() {
        QVERIFY2(QFile::exists(qEnvironmentVariable("WS_CLI")), "WS_CLI not built");
    }

    void badInput_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no command") << QStringList{} << "usage:";
        QTest::newRow("unknown command")
            << QStringList{"frobnicate"} << "unknown command 'frobnicate'";
        QTest::newRow("unknown flag") << QStringList{"record", "--scenario", "healthy", "--bogus"}
                                      << "Unknown option 'bogus'";
        QTest::newRow("unknown scenario")
            << QStringList{"record", "--scenario", "nope"} << "unknown scenario 'nope' (known: ";
        QTest::newRow("missing scenario file")
            << QStringList{"record", "--scenario", "./missing.yaml"}
            << "cannot read scenario file './missing.yaml'";
        QTest::newRow("bad duration")
            << QStringList{"record", "--scenario", "healthy", "--duration", "30x"}
            << "--duration: bad duration '30x'";
        QTest::newRow("zero duration")
            << QStringList{"record", "--scenario", "healthy", "--duration", "0s"}
            << "--duration: must be positive";
        QTest::newRow("bad speed")
            << QStringList{"record", "--scenario", "healthy", "--speed", "fast"}
            << "--speed: bad value 'fast'";
        QTest::newRow("bad seed") << QStringList{"record", "--scenario", "healthy", "--seed", "-1"}
                                  << "--seed: bad value '-1'";
        QTest::newRow("no source") << QStringList{"record"} << "give exactly one source";
        QTest::newRow("two sources")
            << QStringList{"record", "--scenario", "healthy", "--server", "http://x"}
            << "give exactly one source";
        QTest::newRow("unknown resource")
            << QStringList{"record", "--scenario", "healthy", "--resources", "secrets"}
            << "--resources: scenario has no resource 'secrets'";
        QTest::newRow("unwritable anomalies")
            << QStringList{"record", "--scenario", "healthy", "--anomalies",
                           "/nonexistent-dir/a.jsonl"}
            << "/nonexistent-dir/a.jsonl";
        QTest::newRow("unreachable etcd")
            << QStringList{"record", "--etcd", "http://127.0.0.1:1", "--duration", "1s"}
            << "etcd at http://127.0.0.1:1: ";
        QTest::newRow("bad etcd url")
            << QStringList{"record", "--etcd", "ftp://x:1"} << "ftp://x:1";
        QTest::newRow("load without etcd")
            << QStringList{"load", "--rate", "10/s"} << "load: --etcd URL[,URL...] is required";
        QTest::newRow("load bad rate")
            << QStringList{"load", "--etcd", "http://127.0.0.1:1", "--rate", "fast"}
            << "--rate: bad value 'fast'";
        QTest::newRow("load unreachable")
            << QStringList{"load", "--etcd", "http://127.0.0.1:1", "--duration", "1s"}
            << "etcd at http://127.0.0.1:1: ";
        QTest::newRow("export without file") << QStringList{"export"} << "export: which capture?";
        QTest::newRow("export missing file")
            << QStringList{"export", "/nonexistent/x.wscap", "--anomalies", "/tmp/a.jsonl"}
            << "cannot read /nonexistent/x.wscap";
        QTest::newRow("export not a capture")
            << QStringList{"export", qEnvironmentVariable("WS_SOURCE_DIR") + "/README.md",
                           "--anomalies", "/tmp/a.jsonl"}
            << "README.md is not a WatchScope capture (.wscap)";
        QTest::newRow("export nothing to write")
            << QStringList{"export", "x.wscap"} << "export: nothing to write";
        QTest::newRow("capture of an unreachable cluster")
            << QStringList{"record", "--server", "http://127.0.0.1:1", "--out", "/tmp/x.wscap"}
            << "http://127.0.0.1:1";
        QTest::newRow("keep-secrets on a scenario")
            << QStringList{"record", "--scenario", "healthy", "--keep-secrets"}
            << "--keep-secrets applies to --etcd, --kubeconfig and --server";
        QTest::newRow("load batch zero")
            << QStringList{"load", "--etcd", "http://127.0.0.1:1", "--batch", "0"}
            << "--batch: bad value '0': expected writes per transaction, 1 to 10000";
        QTest::newRow("whatif without versions")
            << QStringList{"whatif", "x.wscap"} << "whatif: what if what?";
        QTest::newRow("bad timeline format")
            << QStringList{"record", "--scenario", "healthy", "--timeline", "/tmp/x.xml"}
            << "x.xml";
    }
    void badInput() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Result r = cli(args);
        QVERIFY2(r.exitCode > 0, qPrintable(QStringLiteral("exit %1").arg(r.exitCode)));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        if (!args.isEmpty()) // usage is several lines; every other error is one line
            QCOMPARE(r.err.trimmed().count('\n'), 0);
        QVERIFY(!r.err.contains(QLatin1String("terminate called")));
    }

    void captureExportWhatIf_data() {
        QTest::addColumn<QString>("scenario");
        QTest::newRow("cacher-retry-stale-object") << "cacher-retry-stale-object";
        QTest::newRow("restart-relist-storm") << "restart-relist-storm";
    }
    void captureExportWhatIf() {
        // A scenario recorded to a capture, exported: the same files as the live run's own.
        QFETCH(QString, scenario);
        QTemporaryDir dir;
        const QString cap = dir.filePath("s.wscap");
        auto read = [](const QString& path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("unreadable");
        };
        Result r =
            cli({"record", "--scenario", scenario, "--speed", "max", "--out", cap, "--anomalies",
                 dir.filePath("live.jsonl"), "--timeline", dir.filePath("live.trace.json"),
                 "--watchers", dir.filePath("live-watchers.jsonl")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = cli({"export", cap, "--anomalies", dir.filePath("again.jsonl"), "--timeline",
                 dir.filePath("again.trace.json"), "--watchers",
                 dir.filePath("again-watchers.jsonl")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(read(dir.filePath("live.jsonl")).count('\n') > 10);
        QCOMPARE(read(dir.filePath("again.jsonl")), read(dir.filePath("live.jsonl")));
        QCOMPARE(read(dir.filePath("again.trace.json")), read(dir.filePath("live.trace.json")));
        // The watcher table as the session ended: a line per watcher, the same after a replay.
        const QByteArray watchers = read(dir.filePath("live-watchers.jsonl"));
        QVERIFY2(watchers.count('\n') >= 3, watchers.constData());
        const QJsonObject first = QJsonDocument::fromJson(watchers.split('\n').first()).object();
        for (const char* key : {"id", "resource", "state", "rv", "relists", "errors"})
            QVERIFY2(first.contains(QLatin1String(key)), watchers.constData());
        QCOMPARE(read(dir.filePath("again-watchers.jsonl")), watchers);
        if (scenario != QLatin1String("cacher-retry-stale-object"))
            return;
        // What if: on 1.24 the cacher relists after the lost DELETE (no stale pod); on 1.27, as
        // recorded, the pod stays.
        r = cli(
            {"whatif", cap, "--server-version", "1.24", "--anomalies", dir.filePath("124.jsonl")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QRegularExpression("stale-object +[1-9][0-9]*  0   \\(gone\\)")),
                 qPrintable(r.out));
        QVERIFY(!read(dir.filePath("124.jsonl")).contains("\"stale-object\""));
        r = cli(
            {"whatif", cap, "--server-version", "1.27", "--anomalies", dir.filePath("127.jsonl")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(read(dir.filePath("127.jsonl")).contains("\"kind\":\"stale-object\""));
    }

    // Ctrl-C or SIGTERM during a live record ends it as --duration would: the files complete
    // (the trace is valid JSON, the capture exports), the summary printed; a second one kills.
    void stopSignalEndsCleanly_data() {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGTERM") << int(SIGTERM);
    }
    void stopSignalEndsCleanly() {
        QFETCH(int, signal);
        QTemporaryDir dir;
        const QString cap = dir.filePath("s.wscap"), trace = dir.filePath("t.trace.json");
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"),
                {"record", "--scenario", "healthy", "--speed", "1", "--duration", "1h", "--out",
                 cap, "--timeline", trace});
        QVERIFY(p.waitForStarted());
        // Running for real: the session has written its first capture block.
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(cap).size() > 0, 30000);
        QCOMPARE(::kill(static_cast<pid_t>(p.processId()), signal), 0);
        QVERIFY(p.waitForFinished(30000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 0, qPrintable(err));
        QVERIFY2(err.contains(signal == SIGINT ? QLatin1String("stopped by Ctrl-C (SIGINT)")
                                               : QLatin1String("stopped by SIGTERM")),
                 qPrintable(err));
        QVERIFY2(out.contains(QLatin1String("of scenario healthy")), qPrintable(out));
        QFile t(trace);
        QVERIFY(t.open(QIODevice::ReadOnly));
        QJsonParseError error;
        QJsonDocument::fromJson(t.readAll(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const Result r = cli({"export", cap, "--anomalies", dir.filePath("again.jsonl")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    void scenariosLists() {
        const Result r = cli({"scenarios"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.startsWith(QLatin1String("healthy")));
    }

    void recordWritesFiles_data() {
        QTest::addColumn<QString>("timelineName");
        QTest::addColumn<QString>("firstLine");
        QTest::newRow("csv") << "t.csv"
                             << "time_ms,resource,series,value";
        QTest::newRow("jsonl") << "t.jsonl"
                               << "{\"time_ms\":";
        QTest::newRow("trace") << "t.trace.json"
                               << "{";
    }
    void recordWritesFiles() {
        QFETCH(QString, timelineName);
        QFETCH(QString, firstLine);
        QTemporaryDir dir;
        const QString anomalies = dir.filePath("a.jsonl"), timeline = dir.filePath(timelineName);
        const Result r =
            cli({"record", "--scenario", "healthy", "--duration", "20s", "--speed", "max", "--seed",
                 "3", "--anomalies", anomalies, "--timeline", timeline});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QLatin1String("recorded 20s of scenario healthy, seed 3")),
                 qPrintable(r.out));
        QFile a(anomalies), t(timeline);
        QVERIFY(a.open(QIODevice::ReadOnly));
        QCOMPARE(a.size(), 0); // healthy: nothing
        QVERIFY(t.open(QIODevice::ReadOnly));
        QVERIFY(t.readLine().startsWith(firstLine.toUtf8()));
        QVERIFY(t.size() > 10000);
    }

    // --resources applies to every source; the simulator's timeline then holds only them.
    void recordOnlyTheChosenResources() {
        QTemporaryDir dir;
        const QString timeline = dir.filePath("t.csv");
        const Result r = cli({"record", "--scenario", "healthy", "--resources", "pods",
                              "--duration", "10s", "--speed", "max", "--timeline", timeline});
        QCOMPARE(r.exitCode, 0);
        QFile t(timeline);
        QVERIFY(t.open(QIODevice::ReadOnly));
        QCOMPARE(t.readLine().trimmed(), QByteArray("time_ms,resource,series,value"));
        QSet<QByteArray> resources;
        qint64 rows = 0;
        while (!t.atEnd()) {
            const QList<QByteArray> cols = t.readLine().split(',');
            QVERIFY(cols.size() == 4);
            resources.insert(cols[1]);
            ++rows;
        }
        QVERIFY(rows > 1000);
        QCOMPARE(resources, QSet<QByteArray>{"pods"}); // healthy also has configmaps
    }

    // A watcher table that cannot be written is one line before the session runs.
    void watchersFileUnwritable() {
        const Result r = cli({"record", "--scenario", "healthy", "--duration", "2s", "--speed",
                              "max", "--watchers", "/nonexistent-dir/w.jsonl"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out)); // nothing recorded
        QVERIFY2(r.err.startsWith(
                     QLatin1String("watchscope-cli: cannot write /nonexistent-dir/w.jsonl")),
                 qPrintable(r.err));
        QCOMPARE(r.err.trimmed().count(u'\n'), 0);
    }

    // Options of another kind of source are an error, not silently ignored.
    void optionOfAnotherSource() {
        const Result r = cli({"record", "--scenario", "healthy", "--prefix", "/x/"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--prefix only applies to --etcd")),
                 qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"

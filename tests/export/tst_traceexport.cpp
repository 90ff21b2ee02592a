// The `*.trace.json` timeline export (SPEC §3, issue 10) checked as a Trace Event file that
// Perfetto opens: the checker itself on hand-written traces (it must reject what Perfetto or
// chrome://tracing would misread), then the traces `watchscope-cli record` writes for several
// scenarios against the same runs' anomalies JSONL and timeline CSV.
#include "support/TraceEventChecker.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using ws::test::TraceEventChecker;

namespace {

// A trace object around `events` (comma-separated JSON objects), after metadata naming process 1
// "p" and its thread 1 "t".
QByteArray trace(const QByteArray& events) {
    QByteArray out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
                     "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
                     "\"args\":{\"name\":\"p\"}},\n"
                     "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
                     "\"args\":{\"name\":\"t\"}}";
    if (!events.isEmpty())
        out += ",\n" + events;
    return out + "\n]}\n";
}

// A counter event on process 1 with `args` as written.
QByteArray counter(const char* name, const QByteArray& ts, const QByteArray& args) {
    return QByteArray("{\"name\":\"") + name + "\",\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":" + ts +
           ",\"args\":" + args + "}";
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestTraceExport : public QObject {
    Q_OBJECT
private slots:
    // The checker on hand-written files: `error` empty means it must accept the file, else
    // reject it with a message containing `error`. `durationUs` > 0 also checks the time scale
    // against a run of that length.
    void checker_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<double>("durationUs");
        QTest::addColumn<QString>("error");

        const QByteArray ok =
            counter("head_rv", "0", "{\"value\":1}") + ",\n" +
            counter("head_rv", "90000000", "{\"value\":2.5}") + ",\n" +
            counter("cache_rv", "50", "{\"value\":0}") + ",\n" + // another track: may go back
            "{\"name\":\"prevkv-nil\",\"cat\":\"anomaly\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,"
            "\"tid\":1,\"ts\":1500.5,\"args\":{\"message\":\"m\"}},\n"
            "{\"name\":\"list\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5}";
        QTest::newRow("valid object") << trace(ok) << 90e6 << QString();
        QTest::newRow("valid array")
            << QByteArray("[{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":3,\"args\":{\"name\":"
                          "\"x\"}},{\"name\":\"c\",\"ph\":\"C\",\"pid\":3,\"ts\":7,\"args\":{"
                          "\"a\":1,\"b\":-2e3}}]")
            << 0.0 << QString();
        QTest::newRow("valid empty") << trace({}) << 0.0 << QString();

        QTest::newRow("not JSON") << QByteArray("{\"traceEvents\":[{\"ph\":") << 0.0
                                  << "not JSON: ";
        QTest::newRow("not JSON, offset")
            << QByteArray("[{\"ph\":\"C\"},,]") << 0.0 << "at offset 13";
        QTest::newRow("truncated") << trace(ok).chopped(4) << 0.0 << "not JSON";
        QTest::newRow("NaN literal")
            << trace(counter("c", "0", "{\"value\":NaN}")) << 0.0 << "not JSON";
        QTest::newRow("Infinity literal")
            << trace(counter("c", "0", "{\"value\":-Infinity}")) << 0.0 << "not JSON";
        QTest::newRow("no traceEvents")
            << QByteArray("{\"events\":[]}") << 0.0 << "no \"traceEvents\" array";
        QTest::newRow("scalar top level") << QByteArray("42") << 0.0 << "not JSON";
        QTest::newRow("unknown top-level key")
            << QByteArray("{\"traceEvents\":[],\"beginningOfTime\":0}") << 0.0
            << "top-level key 'beginningOfTime'";
        QTest::newRow("displayTimeUnit us")
            << QByteArray("{\"displayTimeUnit\":\"us\",\"traceEvents\":[]}") << 0.0
            << "displayTimeUnit must be";
        QTest::newRow("event not an object") << trace("[1]") << 0.0 << "not an object";
        QTest::newRow("missing ph")
            << trace("{\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"value\":1}}") << 0.0
            << "no one-letter \"ph\"";
        QTest::newRow("unknown ph")
            << trace("{\"name\":\"c\",\"ph\":\"Z\",\"pid\":1,\"tid\":1,\"ts\":0}") << 0.0
            << "unknown phase 'Z'";
        QTest::newRow("missing name")
            << trace("{\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"value\":1}}") << 0.0
            << "no string \"name\"";
        QTest::newRow("missing pid")
            << trace("{\"name\":\"c\",\"ph\":\"C\",\"tid\":1,\"ts\":0,\"args\":{\"value\":1}}")
            << 0.0 << "\"pid\" is absent";
        QTest::newRow("string pid")
            << trace("{\"name\":\"c\",\"ph\":\"C\",\"pid\":\"1\",\"ts\":0,\"args\":{\"value\":1}}")
            << 0.0 << "\"pid\" is \"1\"";
        QTest::newRow("missing tid on a thread instant")
            << trace("{\"name\":\"a\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"ts\":0}") << 0.0
            << "no \"tid\"";
        QTest::newRow("missing ts")
            << trace("{\"name\":\"c\",\"ph\":\"C\",\"pid\":1,\"tid\":1,\"args\":{\"value\":1}}")
            << 0.0 << "\"ts\" is absent";
        QTest::newRow("string ts")
            << trace(counter("c", "\"100\"", "{\"value\":1}")) << 0.0 << "\"ts\" is \"100\"";
        QTest::newRow("negative ts")
            << trace(counter("c", "-1", "{\"value\":1}")) << 0.0 << "\"ts\" is -1";
        QTest::newRow("string counter value") << trace(counter("c", "0", "{\"value\":\"12\"}"))
                                              << 0.0 << "args.value is \"12\", not a finite number";
        QTest::newRow("string NaN counter value")
            << trace(counter("c", "0", "{\"value\":\"NaN\"}")) << 0.0 << "not a finite number";
        QTest::newRow("null counter value (a non-finite one written as null)")
            << trace(counter("c", "0", "{\"value\":null}")) << 0.0
            << "args.value is null, not a finite number";
        QTest::newRow("overflowing counter value")
            << trace(counter("c", "0", "{\"value\":1e999}")) << 0.0 << "illegal number";
        QTest::newRow("bool counter value")
            << trace(counter("c", "0", "{\"value\":true}")) << 0.0 << "not a finite number";
        QTest::newRow("counter without args")
            << trace("{\"name\":\"c\",\"ph\":\"C\",\"pid\":1,\"tid\":1,\"ts\":0}") << 0.0
            << "no args";
        QTest::newRow("bad instant scope")
            << trace("{\"name\":\"a\",\"ph\":\"i\",\"s\":\"x\",\"pid\":1,\"tid\":1,\"ts\":0}")
            << 0.0 << "instant scope \"s\" is \"x\"";
        QTest::newRow("X without dur")
            << trace("{\"name\":\"x\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0}") << 0.0
            << "\"dur\"";
        QTest::newRow("process without process_name")
            << trace("{\"name\":\"c\",\"ph\":\"C\",\"pid\":2,\"tid\":2,\"ts\":0,\"args\":{"
                     "\"value\":1}}")
            << 0.0 << "process 2 has events but no process_name";
        QTest::newRow("thread without thread_name")
            << trace("{\"name\":\"a\",\"ph\":\"i\",\"pid\":1,\"tid\":9,\"ts\":0}") << 0.0
            << "thread 1/9 has events but no thread_name";
        QTest::newRow("process_name without args.name")
            << trace("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{}}") << 0.0
            << "no args.name";
        QTest::newRow("decreasing ts on a counter track")
            << trace(counter("c", "2000", "{\"value\":1}") + "," +
                     counter("c", "1000", "{\"value\":2}"))
            << 0.0 << "ts 1000.000 before the 2000.000 of the previous event on counter 1/c";
        QTest::newRow("decreasing ts on a thread")
            << trace("{\"name\":\"a\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,\"tid\":1,\"ts\":5},"
                     "{\"name\":\"b\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1}")
            << 0.0 << "on thread 1/1";
        QTest::newRow("decreasing ts of global instants")
            << trace("{\"name\":\"a\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":1,\"ts\":5},"
                     "{\"name\":\"b\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":1,\"ts\":4}")
            << 0.0 << "on global instants";
        // A 90 s run written in ms: valid on its own, 1000 times too short.
        QTest::newRow("ms-scaled timestamps") << trace(counter("c", "0", "{\"value\":1}") + "," +
                                                       counter("c", "89910", "{\"value\":2}"))
                                              << 90e6 << "timestamps are not in µs";
        QTest::newRow("s-scaled timestamps") << trace(counter("c", "0", "{\"value\":1}") + "," +
                                                      counter("c", "89.91", "{\"value\":2}"))
                                             << 90e6 << "timestamps are not in µs";
        // µs instants up to the end do not hide counters in ms.
        QTest::newRow("ms-scaled counters, µs instants")
            << trace(counter("c", "0", "{\"value\":1}") + "," +
                     counter("c", "89910", "{\"value\":2}") + "," +
                     "{\"name\":\"a\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":1,"
                     "\"ts\":89000000}")
            << 90e6 << "the last counter ts is 89910 but the run lasted 90000000 µs";
        QTest::newRow("ns-scaled timestamps") << trace(counter("c", "0", "{\"value\":1}") + "," +
                                                       counter("c", "89910000000", "{\"value\":2}"))
                                              << 90e6 << "timestamps are not in µs";
    }
    void checker() {
        QFETCH(QByteArray, json);
        QFETCH(double, durationUs);
        QFETCH(QString, error);
        TraceEventChecker c;
        bool ok = c.check(json);
        if (ok && durationUs > 0)
            ok = c.checkTimeScale(durationUs);
        if (error.isEmpty()) {
            QVERIFY2(ok, qPrintable(c.errorText()));
            return;
        }
        QVERIFY2(!ok, "accepted");
        QVERIFY2(c.errorText().contains(error), qPrintable(c.errorText()));
    }

    // The cross-checks on hand-written files: a trace whose instants or counters do not match
    // the run's anomalies and timeline.
    void crossChecks() {
        const QByteArray anomalies =
            "{\"time\":\"2026-11-21T10:00:01.000Z\",\"kind\":\"prevkv-nil\",\"severity\":"
            "\"error\",\"source\":\"etcd\",\"resource\":\"pods\",\"message\":\"m1\"}\n"
            "{\"time\":\"2026-11-21T10:00:03.000Z\",\"kind\":\"stale-object\",\"severity\":"
            "\"error\",\"source\":\"apiserver\",\"resource\":\"pods\",\"message\":\"m2\"}\n";
        auto instant = [](const char* kind, const char* ts, const char* source, const char* msg) {
            return QByteArray("{\"name\":\"") + kind +
                   "\",\"ph\":\"i\",\"s\":\"g\",\"pid\":1,\"tid\":1,\"ts\":" + ts +
                   ",\"args\":{\"severity\":\"error\",\"source\":\"" + source +
                   "\",\"resource\":\"pods\",\"message\":\"" + msg + "\"}}";
        };
        const QByteArray i1 = instant("prevkv-nil", "1000000", "etcd", "m1");
        const QByteArray i2 = instant("stale-object", "3000000", "apiserver", "m2");
        TraceEventChecker c;
        QVERIFY2(c.check(trace(i1 + "," + i2)), qPrintable(c.errorText()));
        QVERIFY2(c.checkAnomalies(anomalies), qPrintable(c.errorText()));

        QVERIFY(c.check(trace(i1)));
        QVERIFY(!c.checkAnomalies(anomalies));
        QVERIFY2(c.errorText().contains("1 instant events for 2 anomalies"),
                 qPrintable(c.errorText()));

        QVERIFY(c.check(trace(i1 + "," + i2 + "," + i2)));
        QVERIFY(!c.checkAnomalies(anomalies));
        QVERIFY2(c.errorText().contains("kind stale-object: 1 anomalies, 2 instant events"),
                 qPrintable(c.errorText()));

        QVERIFY(c.check(trace(i1 + "," + instant("stale-object", "3000000", "etcd", "m2"))));
        QVERIFY(!c.checkAnomalies(anomalies));
        QVERIFY2(c.errorText().contains("args.source is \"etcd\", the anomaly's \"apiserver\""),
                 qPrintable(c.errorText()));

        // Instants in ms: 2 s between the anomalies, 2 ms between the events.
        QVERIFY(c.check(trace(instant("prevkv-nil", "1000", "etcd", "m1") + "," +
                              instant("stale-object", "3000", "apiserver", "m2"))));
        QVERIFY(!c.checkAnomalies(anomalies));
        QVERIFY2(c.errorText().contains("drift by 1998 ms"), qPrintable(c.errorText()));

        const QByteArray csv = "time_ms,resource,series,value\n"
                               "0,p,head_rv,1\n"
                               "1.5,p,head_rv,2\n"
                               "0,p,\"watcher_rv:a,b\",3\n"
                               "0,p,gaps,nan\n";
        const QByteArray counters = counter("head_rv", "0", "{\"value\":1}") + "," +
                                    counter("head_rv", "1500", "{\"value\":2}") + "," +
                                    counter("watcher_rv:a,b", "0", "{\"value\":3}");
        QVERIFY2(c.check(trace(counters)), qPrintable(c.errorText()));
        QVERIFY2(c.checkCounterTracks(csv), qPrintable(c.errorText()));

        QVERIFY(c.check(trace(counter("head_rv", "0", "{\"value\":1}") + "," +
                              counter("head_rv", "1500", "{\"value\":2}"))));
        QVERIFY(!c.checkCounterTracks(csv));
        QVERIFY2(c.errorText().contains("no counter track for series watcher_rv:a,b of p"),
                 qPrintable(c.errorText()));

        QVERIFY(c.check(trace(counters + "," + counter("extra", "0", "{\"value\":1}"))));
        QVERIFY(!c.checkCounterTracks(csv));
        QVERIFY2(c.errorText().contains("counter track extra of p is no series of the CSV"),
                 qPrintable(c.errorText()));

        QVERIFY(c.check(trace(counters + "," + counter("head_rv", "2000", "{\"value\":1}"))));
        QVERIFY(!c.checkCounterTracks(csv));
        QVERIFY2(c.errorText().contains("counter head_rv of p: 3 samples, the CSV has 2"),
                 qPrintable(c.errorText()));

        // Counters in ms: the series end at 1.5 ms, the track at 1.5 µs.
        QVERIFY(c.check(trace(counter("head_rv", "0", "{\"value\":1}") + "," +
                              counter("head_rv", "1.5", "{\"value\":2}") + "," +
                              counter("watcher_rv:a,b", "0", "{\"value\":3}"))));
        QVERIFY(!c.checkCounterTracks(csv));
        QVERIFY2(c.errorText().contains("counter head_rv of p ends at ts 2, the CSV at 1500 µs"),
                 qPrintable(c.errorText()));
    }

    // Each scenario recorded with a capture, its anomalies and its trace; the capture exported
    // to a CSV timeline (byte-identical to the live run's, see tst_cli): the trace checked on
    // its own and against both.
    void scenarioTrace_data() {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("duration");
        QTest::addColumn<double>("durationUs");
        QTest::addColumn<QString>("mustRaise"); // a kind, or empty for none at all
        QTest::newRow("healthy") << "healthy"
                                 << "30s" << 30e6 << QString();
        QTest::newRow("compaction-prevkv-nil") << "compaction-prevkv-nil"
                                               << "90s" << 90e6 << "prevkv-nil";
        QTest::newRow("cacher-retry-stale-object") << "cacher-retry-stale-object"
                                                   << "90s" << 90e6 << "stale-object";
        QTest::newRow("too-large-rv-loop") // two resources: several processes
            << "too-large-rv-loop"
            << "130s" << 130e6 << "retry-loop";
    }
    void scenarioTrace() {
        QFETCH(QString, scenario);
        QFETCH(QString, duration);
        QFETCH(double, durationUs);
        QFETCH(QString, mustRaise);
        const QString cli = qEnvironmentVariable("WS_CLI");
        QVERIFY2(QFile::exists(cli), "WS_CLI not built");
        QTemporaryDir dir;
        const QString cap = dir.filePath("s.wscap"), anomalies = dir.filePath("a.jsonl"),
                      traceFile = dir.filePath("t.trace.json"), csv = dir.filePath("t.csv");
        auto run = [&](const QStringList& args) {
            QProcess p;
            p.start(cli, args);
            if (!p.waitForFinished(120000))
                return QStringLiteral("did not finish");
            if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
                return QString::fromUtf8(p.readAllStandardError());
            return QString();
        };
        QString err = run({"record", "--scenario", scenario, "--duration", duration, "--speed",
                           "max", "--out", cap, "--anomalies", anomalies, "--timeline", traceFile});
        QVERIFY2(err.isEmpty(), qPrintable(err));
        err = run({"export", cap, "--timeline", csv});
        QVERIFY2(err.isEmpty(), qPrintable(err));

        const QByteArray anomalyLines = readAll(anomalies);
        if (mustRaise.isEmpty())
            QCOMPARE(anomalyLines, QByteArray());
        else
            QVERIFY2(anomalyLines.contains("\"kind\":\"" + mustRaise.toUtf8() + "\""),
                     anomalyLines.left(2000).constData());

        TraceEventChecker c;
        QVERIFY2(c.check(readAll(traceFile)), qPrintable(c.errorText()));
        QVERIFY(c.eventCount() > 1000);
        QVERIFY2(c.checkTimeScale(durationUs), qPrintable(c.errorText()));
        QVERIFY2(c.checkAnomalies(anomalyLines), qPrintable(c.errorText()));
        QVERIFY2(c.checkCounterTracks(readAll(csv)), qPrintable(c.errorText()));
        // The anomalies' process is named, and each resource's counters sit on a process of
        // their own (one pid would merge every resource's head_rv into one track).
        QVERIFY(!c.processNames().isEmpty());
        QSet<qint64> counterPids;
        for (auto it = c.counters().cbegin(); it != c.counters().cend(); ++it)
            counterPids.insert(it.key().first);
        QCOMPARE(counterPids.size(), QSet<QString>(c.processNames().cbegin(),
                                                   c.processNames().cend())
                                             .size() -
                                         1); // less "watchscope", the anomalies' process
    }
};

QTEST_GUILESS_MAIN(TestTraceExport)
#include "tst_traceexport.moc"

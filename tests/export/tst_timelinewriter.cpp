#include "export/TextFormat.h"
#include "export/TimelineFileReader.h"
#include "export/TimelineWriter.h"
#include "timeline/TimelineStore.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <limits>

using namespace ws;

namespace {

struct Fixture {
    QString resource;
    QString series;
    TimeUs time;
    double value;
};

// Every kind of value the engine produces: RVs (large integers), counts, fractional seconds.
std::vector<Fixture> fixtureSamples() {
    return {
        {"pods", "head_rv", 0, 1},
        {"pods", "cache_rv", 1000, 9007199254740992.0}, // 2^53
        {"pods", "watcher_lag_seconds:kubelet/node-1", 1234567, 0.25},
        {"configmaps", "head_rv", 1500000, 42},
        {"configmaps", "buffer_used", 2000001, -3},
        {"configmaps", "watcher_lag_seconds:a", 2500000, 1.0 / 3.0},
        {"deployments.apps", "watcher_rv:client \"x\", y", 3000000, 7},
    };
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

Anomaly anomaly() {
    Anomaly a;
    a.time = 1500000;
    a.kind = AnomalyKind::TooOldRv;
    a.severity = Severity::Warning;
    a.source = AnomalySource::Apiserver;
    a.resource = QStringLiteral("pods");
    a.rv = 77;
    a.watcher = QStringLiteral("kubelet/node-1");
    a.message = QStringLiteral("410 Expired: too old resource version: 77 (1200)");
    return a;
}

} // namespace

class TestTimelineWriter : public QObject {
    Q_OBJECT

private slots:
    void formatsNumbers_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("zero") << 0.0 << QByteArray("0") << QByteArray("0");
        QTest::newRow("negative zero") << -0.0 << QByteArray("0") << QByteArray("0");
        QTest::newRow("integer") << 1234.0 << QByteArray("1234") << QByteArray("1234");
        QTest::newRow("negative integer") << -7.0 << QByteArray("-7") << QByteArray("-7");
        QTest::newRow("2^53") << 9007199254740992.0 << QByteArray("9007199254740992")
                              << QByteArray("9007199254740992");
        QTest::newRow("half") << 0.5 << QByteArray("0.5") << QByteArray("0.5");
        QTest::newRow("third") << 1.0 / 3 << QByteArray("0.333333") << QByteArray("0.333333");
        QTest::newRow("rounds up") << 2.9999996 << QByteArray("3") << QByteArray("3");
        QTest::newRow("tiny") << 1e-9 << QByteArray("0") << QByteArray("0");
        QTest::newRow("negative tiny") << -1e-9 << QByteArray("0") << QByteArray("0");
        QTest::newRow("huge") << 1e300 << QByteArray("1e+300") << QByteArray("1e+300");
        QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << QByteArray("nan")
                             << QByteArray("null");
        QTest::newRow("inf") << std::numeric_limits<double>::infinity() << QByteArray("inf")
                             << QByteArray("null");
    }

    void formatsNumbers() {
        QFETCH(double, value);
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, json);
        std::string out;
        appendNumber(out, value);
        QCOMPARE(QByteArray::fromStdString(out), text);
        out.clear();
        appendJsonNumber(out, value);
        QCOMPARE(QByteArray::fromStdString(out), json);
    }

    void formatsMillis_data() {
        QTest::addColumn<qint64>("us");
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("zero") << qint64(0) << QByteArray("0");
        QTest::newRow("whole ms") << qint64(1500000) << QByteArray("1500");
        QTest::newRow("us") << qint64(1234567) << QByteArray("1234.567");
        QTest::newRow("trailing zero") << qint64(1234560) << QByteArray("1234.56");
        QTest::newRow("one us") << qint64(1) << QByteArray("0.001");
        QTest::newRow("negative") << qint64(-1500) << QByteArray("-1.5");
    }

    void formatsMillis() {
        QFETCH(qint64, us);
        QFETCH(QByteArray, text);
        std::string out;
        appendMillis(out, us);
        QCOMPARE(QByteArray::fromStdString(out), text);
    }

    void roundTrips_data() {
        QTest::addColumn<QString>("fileName");
        QTest::newRow("csv") << "timeline.csv";
        QTest::newRow("jsonl") << "timeline.jsonl";
        QTest::newRow("trace") << "timeline.trace.json";
        QTest::newRow("upper-case extension") << "TIMELINE.CSV";
    }

    void roundTrips() {
        QFETCH(QString, fileName);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(fileName);

        // Tiny limits: the store folds almost everything, the file must still hold every sample.
        TimelineLimits limits;
        limits.fullResolutionSpan = milliseconds(1);
        limits.bucketSpan = seconds(10);
        limits.maxBuckets = 1;
        TimelineStore store(limits);
        TimelineWriter writer;
        QString error;
        QVERIFY2(writer.open(path, &error), qPrintable(error));
        writer.attach(store);

        std::vector<TimelineSample> expected;
        for (const auto& f : fixtureSamples()) {
            store.append(store.series(f.resource, f.series), f.time, f.value);
            expected.push_back({f.time, f.resource, f.series, f.value});
        }
        writer.addAnomaly(anomaly()); // an instant event in traces, ignored elsewhere
        // Samples written directly (no store) land in the same file.
        writer.writeSample(QStringLiteral("secrets"), QStringLiteral("head_rv"), 4000000, 5);
        expected.push_back({4000000, QStringLiteral("secrets"), QStringLiteral("head_rv"), 5});
        const SeriesId busy = store.series(QStringLiteral("pods"), QStringLiteral("buffer_used"));
        for (int i = 0; i < 10000; ++i) {
            store.append(busy, 5000000 + i * 100, i % 97);
            expected.push_back({5000000 + i * 100, QStringLiteral("pods"),
                                QStringLiteral("buffer_used"), double(i % 97)});
        }
        QVERIFY(store.retainedPoints() < 100); // the store downsampled...
        QVERIFY2(writer.close(&error), qPrintable(error));
        store.append(busy, 9000000000, 1); // ...and after close() the listener is inert

        const auto samples = TimelineFileReader::read(path, &error);
        QVERIFY2(samples.has_value(), qPrintable(error));
        QCOMPARE(samples->size(), expected.size()); // ...but the file has every sample
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const TimelineSample& got = (*samples)[i];
            const TimelineSample& want = expected[i];
            QCOMPARE(got.time, want.time);
            QCOMPARE(got.resource, want.resource);
            QCOMPARE(got.series, want.series);
            QVERIFY2(std::fabs(got.value - want.value) <= 5e-7,
                     qPrintable(QStringLiteral("%1 != %2").arg(got.value).arg(want.value)));
        }
    }

    void csvShape() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.csv"));
        TimelineWriter writer;
        QVERIFY(writer.open(path, nullptr));
        QCOMPARE(writer.format(), TimelineFormat::Csv);
        writer.writeSample(QStringLiteral("pods"), QStringLiteral("head_rv"), 1234567, 1200);
        writer.writeSample(QStringLiteral("pods"), QStringLiteral("watcher_lag_seconds:a,b"),
                           1500000, 0.125);
        writer.addAnomaly(anomaly());
        QVERIFY(writer.close());
        QCOMPARE(readAll(path), QByteArray("time_ms,resource,series,value\n"
                                           "1234.567,pods,head_rv,1200\n"
                                           "1500,pods,\"watcher_lag_seconds:a,b\",0.125\n"));
    }

    void jsonlShape() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("t.jsonl"));
        TimelineWriter writer;
        QVERIFY(writer.open(path, nullptr));
        writer.writeSample(QStringLiteral("pods"), QStringLiteral("head_rv"), 1234567, 1200);
        writer.writeSample(QStringLiteral("pods"), QStringLiteral("lag"), 2000, 0.5);
        writer.addAnomaly(anomaly());
        QVERIFY(writer.close());
        QCOMPARE(readAll(path),
                 QByteArray(R"({"time_ms":1234.567,"resource":"pods","series":"head_rv",)"
                            R"("value":1200})"
                            "\n"
                            R"({"time_ms":2,"resource":"pods","series":"lag","value":0.5})"
                            "\n"));
    }

    void traceIsValidChromeTraceJson() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("session.trace.json"));
        TimelineStore store;
        TimelineWriter writer;
        QString error;
        QVERIFY2(writer.open(path, &error), qPrintable(error));
        QCOMPARE(writer.format(), TimelineFormat::ChromeTrace);
        writer.attach(store);
        for (const auto& f : fixtureSamples())
            store.append(store.series(f.resource, f.series), f.time, f.value);
        writer.addAnomaly(anomaly());
        QVERIFY2(writer.close(&error), qPrintable(error));

        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(readAll(path), &parseError);
        QVERIFY2(parseError.error == QJsonParseError::NoError,
                 qPrintable(parseError.errorString()));
        QVERIFY(doc.isObject());
        QCOMPARE(doc.object().value(QLatin1String("displayTimeUnit")).toString(),
                 QStringLiteral("ms"));
        const QJsonArray events = doc.object().value(QLatin1String("traceEvents")).toArray();

        QHash<int, QString> processNames;
        QHash<int, QString> threadNames;
        int counters = 0;
        int instants = 0;
        for (const QJsonValue& v : events) {
            const QJsonObject e = v.toObject();
            const QString ph = e.value(QLatin1String("ph")).toString();
            QVERIFY(e.value(QLatin1String("pid")).isDouble());
            QVERIFY(e.value(QLatin1String("tid")).isDouble());
            const int pid = e.value(QLatin1String("pid")).toInt();
            const QJsonObject args = e.value(QLatin1String("args")).toObject();
            if (ph == QLatin1String("M")) {
                const QString name = e.value(QLatin1String("name")).toString();
                if (name == QLatin1String("process_name"))
                    processNames.insert(pid, args.value(QLatin1String("name")).toString());
                if (name == QLatin1String("thread_name"))
                    threadNames.insert(e.value(QLatin1String("tid")).toInt(),
                                       args.value(QLatin1String("name")).toString());
            } else if (ph == QLatin1String("C")) {
                ++counters;
                QVERIFY(e.value(QLatin1String("ts")).isDouble());
                QVERIFY(args.value(QLatin1String("value")).isDouble());
                QVERIFY2(processNames.contains(pid), "metadata precedes the process' counters");
                QCOMPARE(e.value(QLatin1String("tid")).toInt(), pid);
            } else if (ph == QLatin1String("i")) {
                ++instants;
                QCOMPARE(e.value(QLatin1String("name")).toString(), QStringLiteral("too-old-rv"));
                QCOMPARE(e.value(QLatin1String("s")).toString(), QStringLiteral("g"));
                QCOMPARE(e.value(QLatin1String("ts")).toInteger(), qint64(1500000));
                QCOMPARE(args.value(QLatin1String("message")).toString(), anomaly().message);
                QCOMPARE(args.value(QLatin1String("watcher")).toString(),
                         QStringLiteral("kubelet/node-1"));
                QCOMPARE(args.value(QLatin1String("rv")).toString(), QStringLiteral("77"));
            } else {
                QFAIL(qPrintable(QStringLiteral("unexpected phase %1").arg(ph)));
            }
        }
        QCOMPARE(counters, int(fixtureSamples().size()));
        QCOMPARE(instants, 1);
        // One labelled process per resource (plus "watchscope"): counter tracks are process
        // scoped, so pods' and configmaps' head_rv stay two tracks.
        QCOMPARE(processNames.size(), 4);
        const QStringList resources = processNames.values();
        QVERIFY(resources.contains(QStringLiteral("pods")));
        QVERIFY(resources.contains(QStringLiteral("configmaps")));
        QVERIFY(resources.contains(QStringLiteral("deployments.apps")));
        QCOMPARE(processNames.value(1), QStringLiteral("watchscope"));
        QCOMPARE(threadNames.key(QStringLiteral("pods")), processNames.key(QStringLiteral("pods")));
        // ts is in microseconds.
        const auto samples = TimelineFileReader::read(path, &error);
        QVERIFY2(samples.has_value(), qPrintable(error));
        QCOMPARE(samples->at(2).time, TimeUs(1234567));
    }

    void unsupportedExtensionIsAClearError_data() {
        QTest::addColumn<QString>("fileName");
        QTest::newRow("txt") << "timeline.txt";
        QTest::newRow("plain json") << "timeline.json";
        QTest::newRow("no extension") << "timeline";
    }

    void unsupportedExtensionIsAClearError() {
        QFETCH(QString, fileName);
        QTemporaryDir dir;
        const QString path = dir.filePath(fileName);
        TimelineWriter writer;
        QString error;
        QVERIFY(!writer.open(path, &error));
        QCOMPARE(error, QStringLiteral("unsupported timeline file '%1': use .csv, .jsonl or "
                                       ".trace.json")
                            .arg(path));
        QVERIFY(!QFile::exists(path));
        QVERIFY(!writer.isOpen());
    }

    void unwritablePathIsAClearError() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("no-such-dir/t.trace.json"));
        TimelineWriter writer;
        QString error;
        QVERIFY(!writer.open(path, &error));
        QCOMPARE(error, QStringLiteral("cannot write '%1': No such file or directory").arg(path));
    }

    void fullDiskIsReportedOnClose() {
        if (!QFile::exists(QStringLiteral("/dev/full")))
            QSKIP("no /dev/full");
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("full.csv"));
        QVERIFY(QFile::link(QStringLiteral("/dev/full"), path));
        TimelineWriter writer;
        QString error;
        QVERIFY2(writer.open(path, &error), qPrintable(error));
        writer.writeSample(QStringLiteral("pods"), QStringLiteral("head_rv"), 0, 1);
        QVERIFY(!writer.close(&error));
        QVERIFY2(error.startsWith(QStringLiteral("cannot write '%1': ").arg(path)),
                 qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("space"), Qt::CaseInsensitive), qPrintable(error));
    }

    void writerMayDieBeforeTheStore() {
        TimelineStore store;
        QTemporaryDir dir;
        {
            TimelineWriter writer;
            QVERIFY(writer.open(dir.filePath(QStringLiteral("t.jsonl")), nullptr));
            writer.attach(store);
            store.append(store.series(QStringLiteral("pods"), QStringLiteral("head_rv")), 0, 1);
        }
        store.append(store.series(QStringLiteral("pods"), QStringLiteral("head_rv")), 1, 2);
        const auto samples =
            TimelineFileReader::read(dir.filePath(QStringLiteral("t.jsonl")), nullptr);
        QVERIFY(samples.has_value());
        QCOMPARE(samples->size(), std::size_t(1)); // destructor closed (and flushed) the file
    }

    void readerReportsTheLine() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.csv"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("time_ms,resource,series,value\n1,pods,head_rv,1\n2,pods,head_rv\n");
        f.close();
        QString error;
        QVERIFY(!TimelineFileReader::read(path, &error).has_value());
        QCOMPARE(error, path + QStringLiteral(":3: expected 4 fields, got 3"));
    }

    // Not a benchmark gate (CI machines vary), a guard against an accidental slow path: a
    // million samples through a store into each format.
    void throughput_data() { roundTrips_data(); }

    void throughput() {
        QFETCH(QString, fileName);
        QTemporaryDir dir;
        TimelineStore store;
        TimelineWriter writer;
        QVERIFY(writer.open(dir.filePath(fileName), nullptr));
        writer.attach(store);
        SeriesId ids[8];
        for (int s = 0; s < 8; ++s)
            ids[s] = store.series(QStringLiteral("pods"), QStringLiteral("watcher_rv:w%1").arg(s));
        QElapsedTimer timer;
        timer.start();
        constexpr int kSamples = 1000000;
        for (int i = 0; i < kSamples; ++i)
            store.append(ids[i % 8], TimeUs(i) * 100, 1000000.0 + i / 8 + (i % 3) * 0.5);
        QString error;
        QVERIFY2(writer.close(&error), qPrintable(error));
        const qint64 ms = std::max<qint64>(1, timer.elapsed());
        qInfo("%s: %d samples in %lld ms (%.1f M samples/s, %.1f MB)", qPrintable(fileName),
              kSamples, ms, kSamples / 1000.0 / double(ms),
              double(QFileInfo(dir.filePath(fileName)).size()) / 1e6);
        QVERIFY(ms < 20000);
    }
};

QTEST_GUILESS_MAIN(TestTimelineWriter)
#include "tst_timelinewriter.moc"

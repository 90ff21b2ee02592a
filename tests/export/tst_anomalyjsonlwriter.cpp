#include "export/AnomalyJsonlWriter.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace ws;

namespace {

const QDateTime kStart =
    QDateTime::fromString(QStringLiteral("2026-11-21T10:00:00.000Z"), Qt::ISODateWithMs);

Anomaly fullAnomaly() {
    Anomaly a;
    a.time = milliseconds(123) + 456; // sub-millisecond part is cut, not rounded
    a.kind = AnomalyKind::PrevKvNil;
    a.severity = Severity::Error;
    a.source = AnomalySource::Etcd;
    a.resource = QStringLiteral("configmaps");
    a.key = QStringLiteral("/registry/configmaps/default/a");
    a.rv = 1234;
    a.watcher = QStringLiteral("cacher/configmaps");
    a.message = QStringLiteral("DELETE at 1234 without prev_kv; compact revision 1200");
    return a;
}

bool sameAnomaly(const Anomaly& a, const Anomaly& b) {
    return a.time == b.time && a.kind == b.kind && a.severity == b.severity &&
           a.source == b.source && a.resource == b.resource && a.key == b.key && a.rv == b.rv &&
           a.watcher == b.watcher && a.message == b.message;
}

QString writeFile(const QTemporaryDir& dir, const char* name, const QByteArray& content) {
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(content) != content.size())
        return {};
    return path;
}

} // namespace

class TestAnomalyJsonlWriter : public QObject {
    Q_OBJECT

private slots:
    void formatsSpecShape_data() {
        QTest::addColumn<Anomaly>("anomaly");
        QTest::addColumn<QByteArray>("line");
        QTest::newRow("every key (SPEC §2 example)")
            << fullAnomaly()
            << QByteArray(
                   R"({"time":"2026-11-21T10:00:00.123Z","kind":"prevkv-nil","severity":"error",)"
                   R"("source":"etcd","resource":"configmaps","key":"/registry/configmaps/default/a",)"
                   R"("rv":"1234","watcher":"cacher/configmaps",)"
                   R"("message":"DELETE at 1234 without prev_kv; compact revision 1200"})");

        Anomaly bare;
        bare.time = seconds(3661);
        bare.kind = AnomalyKind::RelistStorm;
        bare.severity = Severity::Warning;
        bare.source = AnomalySource::Apiserver;
        bare.resource = QStringLiteral("pods");
        bare.message = QStringLiteral("12 relists in 10s");
        QTest::newRow("key, rv, watcher omitted")
            << bare
            << QByteArray(R"({"time":"2026-11-21T11:01:01.000Z","kind":"relist-storm",)"
                          R"("severity":"warning","source":"apiserver","resource":"pods",)"
                          R"("message":"12 relists in 10s"})");

        Anomaly escaped = bare;
        escaped.time = 0;
        escaped.kind = AnomalyKind::StreamError;
        escaped.severity = Severity::Info;
        escaped.source = AnomalySource::Simulator;
        escaped.rv = 9007199254740993; // above 2^53: a string keeps it exact
        escaped.message = QStringLiteral("bad \"frame\"\n\tat \\ byte 3 \x01 — ünïcode");
        QTest::newRow("escapes and big rv")
            << escaped
            << QByteArray(
                   R"({"time":"2026-11-21T10:00:00.000Z","kind":"stream-error",)"
                   R"("severity":"info","source":"simulator","resource":"pods",)"
                   R"("rv":"9007199254740993",)"
                   // (not a raw string: moc 6.4 mis-reads backslashes in those)
                   "\"message\":\"bad \\\"frame\\\"\\n\\tat \\\\ byte 3 \\u0001 — ünïcode\"}");
    }

    void formatsSpecShape() {
        QFETCH(Anomaly, anomaly);
        QFETCH(QByteArray, line);
        const std::string got = AnomalyJsonlWriter::formatLine(anomaly, kStart);
        QCOMPARE(QByteArray::fromStdString(got), line);
        // Valid JSON that parses back to the same anomaly (times at millisecond precision).
        QString error;
        const auto parsed = AnomalyJsonlWriter::parseLine(line, kStart, &error);
        QVERIFY2(parsed.has_value(), qPrintable(error));
        Anomaly expected = anomaly;
        expected.time = anomaly.time / 1000 * 1000;
        QVERIFY(sameAnomaly(*parsed, expected));
    }

    void roundTripsThroughFile() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("anomalies.jsonl"));
        AnomalyList list;
        for (int i = 0; i < 2000; ++i) {
            Anomaly a = fullAnomaly();
            a.time = milliseconds(i * 37);
            a.kind = allAnomalyKinds()[std::size_t(i) % allAnomalyKinds().size()];
            a.severity = Severity(i % 3);
            a.source = AnomalySource(i % 3);
            a.rv = i % 5 == 0 ? 0 : 1000 + i;
            a.key = i % 7 == 0 ? QString() : QStringLiteral("/registry/pods/ns/p%1").arg(i);
            a.watcher = i % 4 == 0 ? QString() : QStringLiteral("w%1").arg(i);
            a.message = QStringLiteral("message %1 with \"quotes\"").arg(i);
            list.push_back(a);
        }
        AnomalyJsonlWriter writer(kStart);
        QString error;
        QVERIFY2(writer.open(path, &error), qPrintable(error));
        writer.write(list.first());
        writer.write(list.mid(1));
        QVERIFY2(writer.close(&error), qPrintable(error));

        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QCOMPARE(lines.size(), list.size() + 1); // one object per line, trailing newline
        QVERIFY(lines.last().isEmpty());
        for (int i = 0; i < list.size(); ++i)
            QVERIFY(QJsonDocument::fromJson(lines[i]).isObject());

        const auto read = AnomalyJsonlWriter::read(path, kStart, &error);
        QVERIFY2(read.has_value(), qPrintable(error));
        QCOMPARE(read->size(), list.size());
        for (int i = 0; i < list.size(); ++i)
            QVERIFY2(sameAnomaly(read->at(i), list.at(i)), qPrintable(QString::number(i)));

        // Without a known start the first anomaly is at time zero.
        const auto relative = AnomalyJsonlWriter::read(path, QDateTime(), &error);
        QVERIFY2(relative.has_value(), qPrintable(error));
        QCOMPARE(relative->at(0).time, TimeUs(0));
        QCOMPARE(relative->at(10).time, list.at(10).time);
    }

    void eachWriteReachesTheDisk() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("live.jsonl"));
        AnomalyJsonlWriter writer(kStart);
        QVERIFY(writer.open(path, nullptr));
        writer.write(fullAnomaly());
        QFile file(path); // read while still open, as `tail -f` would
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll().count('\n'), 1);
        QVERIFY(writer.close());
    }

    void unwritablePathIsAClearError() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("missing-dir/anomalies.jsonl"));
        AnomalyJsonlWriter writer(kStart);
        QString error;
        QVERIFY(!writer.open(path, &error));
        QCOMPARE(error, QStringLiteral("cannot write '%1': No such file or directory").arg(path));
        QVERIFY(!writer.close(&error)); // the failure stays visible
    }

    void fullDiskIsReportedOnClose() {
        if (!QFile::exists(QStringLiteral("/dev/full")))
            QSKIP("no /dev/full");
        AnomalyJsonlWriter writer(kStart);
        QString error;
        QVERIFY2(writer.open(QStringLiteral("/dev/full"), &error), qPrintable(error));
        writer.write(fullAnomaly());
        QVERIFY(!writer.close(&error));
        QVERIFY2(error.startsWith(QStringLiteral("cannot write '/dev/full': ")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("space"), Qt::CaseInsensitive), qPrintable(error));
    }

    void readErrorsNameTheLine_data() {
        QTest::addColumn<QByteArray>("badLine");
        QTest::addColumn<QString>("reason");
        QTest::newRow("not JSON") << QByteArray("{\"time\":") << "invalid JSON";
        QTest::newRow("not an object") << QByteArray("[1,2]") << "not a JSON object";
        QTest::newRow("bad time")
            << QByteArray(R"({"time":"yesterday","kind":"prevkv-nil","severity":"error",)"
                          R"("source":"etcd","resource":"pods","message":"m"})")
            << "missing or invalid 'time'";
        QTest::newRow("unknown kind")
            << QByteArray(R"({"time":"2026-11-21T10:00:00.000Z","kind":"gremlins",)"
                          R"("severity":"error","source":"etcd","resource":"pods","message":"m"})")
            << "unknown kind 'gremlins'";
        QTest::newRow("unknown severity")
            << QByteArray(R"({"time":"2026-11-21T10:00:00.000Z","kind":"prevkv-nil",)"
                          R"("severity":"fatal","source":"etcd","resource":"pods","message":"m"})")
            << "unknown severity 'fatal'";
        QTest::newRow("missing message")
            << QByteArray(R"({"time":"2026-11-21T10:00:00.000Z","kind":"prevkv-nil",)"
                          R"("severity":"error","source":"etcd","resource":"pods"})")
            << "missing or invalid 'message'";
        QTest::newRow("bad rv") << QByteArray(
                                       R"({"time":"2026-11-21T10:00:00.000Z","kind":"prevkv-nil",)"
                                       R"("severity":"error","source":"etcd","resource":"pods",)"
                                       R"("rv":"12a","message":"m"})")
                                << "invalid 'rv' '12a'";
    }

    void readErrorsNameTheLine() {
        QFETCH(QByteArray, badLine);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QByteArray good =
            QByteArray::fromStdString(AnomalyJsonlWriter::formatLine(fullAnomaly(), kStart));
        const QString path = writeFile(dir, "bad.jsonl", good + "\n\n" + badLine + "\n" + good);
        QVERIFY(!path.isEmpty());
        QString error;
        QVERIFY(!AnomalyJsonlWriter::read(path, kStart, &error).has_value());
        const QString prefix = path + QStringLiteral(":3: ") + reason;
        QVERIFY2(error.startsWith(prefix), qPrintable(error));
    }

    void readOfMissingFileIsAnError() {
        QString error;
        QVERIFY(!AnomalyJsonlWriter::read(QStringLiteral("/nonexistent/a.jsonl"), kStart, &error));
        QVERIFY2(error.startsWith(QStringLiteral("cannot read '/nonexistent/a.jsonl': ")),
                 qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestAnomalyJsonlWriter)
#include "tst_anomalyjsonlwriter.moc"

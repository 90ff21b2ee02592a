// The .wscap file itself: what the writer writes the reader reads back, in order, across blocks;
// a file still being written reads up to its last whole block; and nothing a damaged file holds
// (cut at any byte, bytes flipped, empty, another format, a newer format) crashes the reader or
// loses what came before the damage — each case ends with one line saying what and where.
#include "capture/CaptureFormat.h"
#include "capture/CaptureReader.h"
#include "capture/CaptureWriter.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

using namespace ws;

namespace {

CaptureHeader header() {
    CaptureHeader h;
    h.creator = QStringLiteral("WatchScope test");
    h.createdUtc = QStringLiteral("2026-11-23T03:00:00.000Z");
    h.sourceKind = QStringLiteral("etcd");
    h.description = QStringLiteral("etcd http://127.0.0.1:2379, prefix /registry/");
    h.replay.insert(QStringLiteral("prefix"), QStringLiteral("/registry/"));
    return h;
}

Frame frame(int i) {
    Frame f;
    f.connection = 1 + i % 3;
    f.received = 1000 * i;
    f.kind = static_cast<std::uint16_t>(1 + i % 9);
    // Compressible like real watch events, different in each frame, some empty.
    f.bytes = i % 17 == 0 ? QByteArray()
                          : QByteArray("/registry/configmaps/ns/object-") + QByteArray::number(i) +
                                QByteArray(40 + i % 300, char('a' + i % 26));
    return f;
}

struct Read {
    QString error;
    QString warning;
    bool complete = false;
    std::vector<CaptureRecord> records;
};

Read readAll(const QString& path) {
    Read out;
    CaptureReader reader;
    if (!reader.open(path, &out.error))
        return out;
    CaptureRecord r;
    while (reader.next(&r))
        out.records.push_back(r);
    out.warning = reader.warning();
    out.complete = reader.complete();
    return out;
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

} // namespace

class TestCaptureFile : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void roundTrip();
    void readableWhileWritten();
    void cutAtEveryBlockBoundaryAndRandomOffsets();
    void flippedBytes();
    void notACapture();
    void unwritablePath();

private:
    QTemporaryDir m_dir;
    QString m_good; // 3 connections, 4,000 frames, small blocks, a clean end
    qint64 m_goodFrames = 4000;
};

void TestCaptureFile::initTestCase() {
    QVERIFY(m_dir.isValid());
    m_good = m_dir.filePath(QStringLiteral("good.wscap"));
    CaptureWriter w;
    w.setBlockLimits(16 * 1024, 1000000); // many blocks
    QString error;
    QVERIFY2(w.open(m_good, header(), &error), qPrintable(error));
    for (int c = 1; c <= 3; ++c) {
        ConnectionInfo info;
        info.id = c;
        info.sourceKind = QStringLiteral("etcd");
        info.endpoint = QStringLiteral("http://127.0.0.1:2379");
        info.resource = c == 2 ? QStringLiteral("configmaps") : QString();
        info.versions = QStringLiteral("etcd 3.4.23 ✓");
        w.writeConnection(info);
    }
    for (int i = 0; i < m_goodFrames; ++i)
        w.writeFrame(frame(i));
    QVERIFY2(w.close(seconds(5), &error), qPrintable(error));
    QCOMPARE(w.frames(), m_goodFrames);
    QCOMPARE(w.fileBytes(), QFileInfo(m_good).size());
}

void TestCaptureFile::roundTrip() {
    const Read r = readAll(m_good);
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QVERIFY2(r.warning.isEmpty(), qPrintable(r.warning));
    QVERIFY(r.complete);
    QCOMPARE(qint64(r.records.size()), 3 + m_goodFrames + 1);
    for (int c = 0; c < 3; ++c) {
        QCOMPARE(r.records[c].type, CaptureRecord::Type::Connection);
        QCOMPARE(r.records[c].connection.id, c + 1);
        QCOMPARE(r.records[c].connection.versions, QStringLiteral("etcd 3.4.23 ✓"));
    }
    QCOMPARE(r.records[1].connection.resource, QStringLiteral("configmaps"));
    for (int i = 0; i < m_goodFrames; ++i) {
        const CaptureRecord& rec = r.records[std::size_t(3 + i)];
        const Frame want = frame(i);
        QCOMPARE(rec.type, CaptureRecord::Type::Frame);
        QCOMPARE(rec.frame.connection, want.connection);
        QCOMPARE(rec.frame.received, want.received);
        QCOMPARE(rec.frame.kind, want.kind);
        QCOMPARE(rec.frame.bytes, want.bytes);
    }
    QCOMPARE(r.records.back().type, CaptureRecord::Type::End);
    QCOMPARE(r.records.back().endTime, seconds(5));
    QCOMPARE(r.records.back().endFrames, m_goodFrames);

    CaptureReader reader;
    QString error;
    QVERIFY(reader.open(m_good, &error));
    QCOMPARE(reader.header().sourceKind, QStringLiteral("etcd"));
    QCOMPARE(reader.header().replay.value(QStringLiteral("prefix")).toString(),
             QStringLiteral("/registry/"));
    QCOMPARE(reader.header().createdUtc, QStringLiteral("2026-11-23T03:00:00.000Z"));
    // Compressed: well under the frames' own bytes.
    qint64 raw = 0;
    for (int i = 0; i < m_goodFrames; ++i)
        raw += frame(i).bytes.size();
    QVERIFY2(QFileInfo(m_good).size() < raw / 3,
             qPrintable(QStringLiteral("%1 of %2").arg(QFileInfo(m_good).size()).arg(raw)));
}

void TestCaptureFile::readableWhileWritten() {
    // A second reader of a file being written sees every flushed block, and says the capture
    // has no end yet rather than failing.
    const QString path = m_dir.filePath(QStringLiteral("growing.wscap"));
    CaptureWriter w;
    w.setBlockLimits(1 << 30, 1000000); // flush only when asked
    QString error;
    QVERIFY(w.open(path, header(), &error));
    for (int i = 0; i < 100; ++i)
        w.writeFrame(frame(i));
    QVERIFY(w.flush());
    for (int i = 100; i < 150; ++i)
        w.writeFrame(frame(i)); // not flushed: not visible
    Read r = readAll(path);
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QCOMPARE(int(r.records.size()), 100);
    QVERIFY(!r.complete);
    QVERIFY2(r.warning.contains(QStringLiteral("no end record")), qPrintable(r.warning));
    QVERIFY(w.close(seconds(1), &error));
    r = readAll(path);
    QCOMPARE(int(r.records.size()), 151);
    QVERIFY(r.complete);
}

void TestCaptureFile::cutAtEveryBlockBoundaryAndRandomOffsets() {
    const QByteArray good = readFile(m_good);
    const QString cut = m_dir.filePath(QStringLiteral("cut.wscap"));
    QList<qsizetype> offsets;
    QRandomGenerator rng(42);
    for (int i = 0; i < 150; ++i)
        offsets << qsizetype(rng.bounded(quint32(good.size())));
    for (qsizetype o = 0; o < 40; ++o) // inside the magic and the header
        offsets << o;
    offsets << good.size() - 1;
    qsizetype previousRecords = -1;
    std::sort(offsets.begin(), offsets.end());
    for (qsizetype at : offsets) {
        writeFile(cut, good.left(at));
        const Read r = readAll(cut);
        if (!r.error.isEmpty()) {
            // Only a cut inside the file header can make it unopenable, and it says so.
            QVERIFY2(at < 8 + 8 + 400, qPrintable(QStringLiteral("%1: %2").arg(at).arg(r.error)));
            QVERIFY2(r.error.contains(QStringLiteral("cut.wscap")), qPrintable(r.error));
            continue;
        }
        QVERIFY(!r.complete);
        QVERIFY2(r.warning.contains(QStringLiteral("cut short")), qPrintable(r.warning));
        // Everything before the cut, in order, and a prefix of the full capture.
        QVERIFY(qsizetype(r.records.size()) >= previousRecords);
        previousRecords = qsizetype(r.records.size());
        for (std::size_t i = 3; i < r.records.size(); ++i)
            QCOMPARE(r.records[i].frame.bytes, frame(int(i) - 3).bytes);
    }
    QVERIFY(previousRecords > 3000); // the last cut keeps all but the last block
}

void TestCaptureFile::flippedBytes() {
    const QByteArray good = readFile(m_good);
    const QString bad = m_dir.filePath(QStringLiteral("flipped.wscap"));
    QRandomGenerator rng(7);
    int damagedSeen = 0;
    for (int round = 0; round < 200; ++round) {
        QByteArray bytes = good;
        const int flips = 1 + int(rng.bounded(4));
        qsizetype first = bytes.size();
        for (int i = 0; i < flips; ++i) {
            const qsizetype at = qsizetype(rng.bounded(quint32(bytes.size())));
            first = std::min(first, at);
            bytes[at] = char(bytes[at] ^ char(1 + rng.bounded(255)));
        }
        writeFile(bad, bytes);
        const Read r = readAll(bad);
        if (!r.error.isEmpty())
            continue; // the header was hit: refused with a line
        if (!r.warning.isEmpty())
            ++damagedSeen;
        // Whatever was read before the damage is what was written.
        for (std::size_t i = 3; i < r.records.size(); ++i)
            if (r.records[i].type == CaptureRecord::Type::Frame)
                QCOMPARE(r.records[i].frame.bytes, frame(int(i) - 3).bytes);
    }
    QVERIFY(damagedSeen > 150); // the checksum catches flips inside compressed data
}

void TestCaptureFile::notACapture() {
    struct Case {
        const char* name;
        QByteArray bytes;
        const char* says;
    };
    QByteArray newer = readFile(m_good);
    newer[8] = 2; // major version 2
    QByteArray crlf = readFile(m_good);
    crlf.replace(6, 2, "\n"); // a newline conversion
    QByteArray hugeHeader = readFile(m_good).left(12) + QByteArray("\xff\xff\xff\x7f", 4);
    const Case cases[] = {
        {"empty.wscap", QByteArray(), "is empty"},
        {"text.wscap", QByteArray("time_ms,resource,series,value\n0,pods,head_rv,1\n"),
         "not a WatchScope capture"},
        {"pcap.wscap", QByteArray("\xd4\xc3\xb2\xa1\x02\x00\x04\x00", 8) + QByteArray(100, 0),
         "not a WatchScope capture"},
        {"newer.wscap", newer, "format 2"},
        {"crlf.wscap", crlf, "not a WatchScope capture"},
        {"header.wscap", hugeHeader, "damaged"},
        {"json.wscap", readFile(m_good).left(16) + QByteArray(400, 'x'), "damaged"},
        {"short.wscap", readFile(m_good).left(30), "cut short"},
    };
    for (const Case& c : cases) {
        const QString path = m_dir.filePath(QLatin1String(c.name));
        writeFile(path, c.bytes);
        const Read r = readAll(path);
        QVERIFY2(!r.error.isEmpty(), c.name);
        QVERIFY2(r.error.contains(QLatin1String(c.says)), qPrintable(r.error));
        QVERIFY2(r.error.contains(QLatin1String(c.name)), qPrintable(r.error));
        QVERIFY2(!r.error.contains(u'\n'), qPrintable(r.error));
    }
    const Read missing = readAll(m_dir.filePath(QStringLiteral("missing.wscap")));
    QVERIFY2(missing.error.startsWith(QStringLiteral("cannot read")), qPrintable(missing.error));
}

void TestCaptureFile::unwritablePath() {
    CaptureWriter w;
    QString error;
    QVERIFY(!w.open(m_dir.filePath(QStringLiteral("no/such/dir/x.wscap")), header(), &error));
    QVERIFY2(error.startsWith(QStringLiteral("cannot write")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestCaptureFile)
#include "tst_capturefile.moc"

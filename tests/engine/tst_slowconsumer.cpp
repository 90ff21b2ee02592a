// A consumer slower than its producer never makes the engine grow without bound, and what it
// could not take is counted and shown, never lost silently (issue 14):
// - the window (the thread that owns the session) that stops taking updates: waiting updates
//   merge up to MergeLimits, the oldest anomalies and samples past them are dropped and counted,
//   and delivered + dropped = published;
// - export files on a pipe nobody reads: the session never waits for them, the lines they could
//   not take are counted, and lines read + dropped = lines made;
// - a capture on a pipe nobody reads: whole blocks of frames are dropped, a Dropped record
//   marks each hole, and frames replayed + frames marked dropped = frames recorded;
// - a capture on a full disk (/dev/full): one clear line, the recording stops, the session and
//   the engine go on.
#include "capture/CaptureReader.h"
#include "capture/CaptureWriter.h"
#include "engine/Session.h"
#include "sources/sim/SimSource.h"

#include <QBuffer>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace ws;

namespace {

ScenarioSourceSpec scenario(const QString& name) {
    ScenarioSourceSpec s;
    s.scenario = name;
    s.speed = 0; // as fast as the machine goes
    return s;
}

std::vector<std::unique_ptr<Source>> simulator(const QString& name,
                                               std::optional<TimeUs> duration = std::nullopt) {
    std::vector<std::unique_ptr<Source>> v;
    v.push_back(std::make_unique<SimSource>(scenario(name), duration));
    return v;
}

// Waits for `done` without processing events (the window is stalled), up to `ms`.
template <typename F> bool waitFor(F done, int ms = 60000) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

// A FIFO in `dir` with a reader that never reads (opened, so a writer may open it).
struct StalledFifo {
    QString path;
    int readFd = -1;
    StalledFifo(const QTemporaryDir& dir, const QString& name) {
        path = dir.filePath(name);
        if (::mkfifo(path.toLocal8Bit().constData(), 0600) == 0)
            readFd = ::open(path.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    }
    ~StalledFifo() {
        if (readFd >= 0)
            ::close(readFd);
    }
    // Reads everything until the writer closes, on a thread (the reader came back).
    std::thread drainInto(QByteArray& out) {
        const int fd = readFd;
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        return std::thread([fd, &out] {
            char buf[65536];
            for (;;) {
                const ssize_t n = ::read(fd, buf, sizeof buf);
                if (n > 0)
                    out.append(buf, qsizetype(n));
                else if (n == 0 || errno != EINTR)
                    break;
            }
        });
    }
    QByteArray readAvailable() {
        QByteArray out;
        char buf[65536];
        for (;;) {
            const ssize_t n = ::read(readFd, buf, sizeof buf);
            if (n <= 0)
                break;
            out.append(buf, qsizetype(n));
        }
        return out;
    }
};

Frame randomFrame(qint64 seq, int size) {
    Frame f;
    f.connection = 1;
    f.received = seq * 1000; // 1 ms apart
    f.kind = 1;
    f.bytes.resize(size);
    // Incompressible, so that the bytes reach the pipe as they are.
    QRandomGenerator rng(quint32(seq + 1));
    rng.fillRange(reinterpret_cast<quint32*>(f.bytes.data()), size / 4);
    // The sequence number first, to find holes on replay.
    std::memcpy(f.bytes.data(), &seq, sizeof seq);
    return f;
}

CaptureHeader captureHeader() {
    CaptureHeader h;
    h.creator = QStringLiteral("tst_slowconsumer");
    h.sourceKind = QStringLiteral("etcd");
    return h;
}

} // namespace

class TestSlowConsumer : public QObject {
    Q_OBJECT
private slots:
    void aWindowThatStopsTakingUpdatesCostsBoundedMemory() {
        auto session = std::make_unique<Session>(
            simulator(QStringLiteral("too-large-rv-loop"), seconds(1800)), PipelineOptions{});
        MergeLimits limits;
        limits.anomalies = 5;
        limits.points = 500;
        limits.minPointsPerSeries = 1;
        session->setMergeLimits(limits);
        qint64 gotAnomalies = 0, missing = 0, gotPoints = 0;
        FlowStats lastFlow;
        connect(session.get(), &Session::updated, this, [&](const EngineUpdate& u) {
            gotAnomalies += u.anomalies.size();
            missing += u.missingAnomalies;
            for (const SeriesDelta& d : u.series)
                gotPoints += d.points.size();
            lastFlow = u.flow;
        });
        QSignalSpy finished(session.get(), &Session::finished);
        session->start();
        // The window does not process a single event while the session runs: every update
        // after the first merges into the one waiting, which never holds more than the limits.
        bool bounded = true;
        QVERIFY(waitFor([&] {
            const Session::DeliveryStats d = session->deliveryStats();
            bounded = bounded && d.waitingAnomalies <= limits.anomalies &&
                      d.waitingPoints <= limits.points;
            return !session->running();
        }));
        QVERIFY(bounded);
        const Session::DeliveryStats stalled = session->deliveryStats();
        QCOMPARE(stalled.delivered, qint64(0));
        QVERIFY(stalled.merged > 0);
        QVERIFY2(stalled.peakWaitingPoints <= limits.points,
                 qPrintable(QString::number(stalled.peakWaitingPoints)));
        QVERIFY(stalled.peakWaitingAnomalies <= limits.anomalies);
        // The stall was long enough to need the bound: something was dropped, and counted.
        QVERIFY2(stalled.pointsDropped > 0, qPrintable(QString::number(stalled.publishedPoints)));
        QVERIFY(stalled.publishedAnomalies > limits.anomalies);
        QVERIFY(stalled.anomaliesDropped > 0);

        // The window comes back: one merged update, saying what it missed.
        QVERIFY(finished.count() > 0 || finished.wait(60000));
        QCoreApplication::processEvents();
        const Session::DeliveryStats d = session->deliveryStats();
        QCOMPARE(d.delivered, qint64(1));
        QCOMPARE(gotAnomalies + missing, d.publishedAnomalies); // conserved
        QCOMPARE(missing, d.anomaliesDropped);
        QCOMPARE(gotPoints + d.pointsDropped, d.publishedPoints);
        QCOMPARE(qint64(session->anomalies().size()), d.publishedAnomalies);
        QCOMPARE(lastFlow.pointsDropped, d.pointsDropped); // what the status bar shows
        QCOMPARE(lastFlow.anomaliesDropped, d.anomaliesDropped);
        QCOMPARE(lastFlow.updatesMerged, d.merged);
        QVERIFY(lastFlow.summary().contains(QStringLiteral("window behind")));
    }

    void exportsToAPipeNobodyReadsDropAndCount() {
        QTemporaryDir dir;
        StalledFifo fifo(dir, QStringLiteral("timeline.csv"));
        QVERIFY(fifo.readFd >= 0);
        PipelineOptions options;
        options.outputs.timelinePath = fifo.path;
        options.outputs.maxQueuedBytes = 64 * 1024;
        auto session = std::make_unique<Session>(simulator(QStringLiteral("healthy"), seconds(300)),
                                                 std::move(options));
        QString error;
        QVERIFY2(session->prepare(&error), qPrintable(error));
        qint64 samples = 0;
        session->pipeline().timeline().addListener([&](SeriesId id, TimeUs, double) {
            samples += id >= 0; // what the timeline file writes a row for
        });
        QElapsedTimer wall;
        wall.start();
        // The session runs to its end although nobody reads the file: it never waits for it
        // (beyond the close's two seconds for a reader that might come back).
        const bool ok = session->runHere({}, &error);
        QVERIFY2(wall.elapsed() < 50000, qPrintable(QString::number(wall.elapsed())));
        QVERIFY(!ok);
        QVERIFY2(error.contains(QStringLiteral("the reader stopped reading")), qPrintable(error));
        QVERIFY2(!error.contains(u'\n'), qPrintable(error));
        const FlowStats flow = session->pipeline().flow({});
        QVERIFY(flow.exportLinesDropped > 0);
        // Every row is either in the pipe (whole lines; the header first) or counted dropped.
        const QByteArray inPipe = fifo.readAvailable();
        QVERIFY(inPipe.startsWith("time_ms,resource,series,value\n"));
        QVERIFY(inPipe.size() <= 1024 * 1024); // a pipe's buffer, not the session's output
        QCOMPARE(qint64(inPipe.count('\n')) + flow.exportLinesDropped, samples + 1);
    }

    void aCaptureOnAPipeNobodyReadsMarksItsHoles() {
        QTemporaryDir dir;
        StalledFifo fifo(dir, QStringLiteral("x.wscap"));
        QVERIFY(fifo.readFd >= 0);
        constexpr qint64 kBound = 256 * 1024;
        CaptureWriter w(CaptureWriter::Overflow::Drop, kBound);
        w.setBlockLimits(32 * 1024, 1000000);
        QString error;
        QVERIFY2(w.open(fifo.path, captureHeader(), &error), qPrintable(error));
        ConnectionInfo c;
        c.id = 1;
        c.sourceKind = QStringLiteral("etcd");
        w.writeConnection(c);
        constexpr qint64 kFrames = 3000; // 6 MB of frames against a 64 KiB pipe and a 256 KiB bound
        qint64 peak = 0;
        for (qint64 i = 0; i < kFrames; ++i) {
            w.writeFrame(randomFrame(i, 2048));
            peak = std::max(peak, w.queuedBytes());
        }
        QVERIFY2(peak <= kBound, qPrintable(QString::number(peak)));
        QVERIFY(w.droppedFrames() > 0);
        QVERIFY(w.error().isEmpty()); // behind is not broken
        // The reader comes back: what was kept, the holes marked, and the End record arrive.
        QByteArray file;
        std::thread reader = fifo.drainInto(file);
        const bool closed = w.close(kFrames * 1000, &error);
        reader.join();
        QVERIFY2(closed, qPrintable(error));

        QBuffer device(&file);
        QVERIFY(device.open(QIODevice::ReadOnly));
        CaptureReader r;
        QVERIFY2(r.open(&device, QStringLiteral("x.wscap"), &error), qPrintable(error));
        CaptureRecord rec;
        qint64 frames = 0, expected = 0, holes = 0;
        bool sequential = true;
        while (r.next(&rec)) {
            if (rec.type != CaptureRecord::Type::Frame)
                continue;
            qint64 seq = 0;
            std::memcpy(&seq, rec.frame.bytes.constData(), sizeof seq);
            holes += seq != expected;
            sequential = sequential && seq >= expected;
            expected = seq + 1;
            ++frames;
        }
        QVERIFY(r.complete());
        QVERIFY(sequential);
        qint64 marked = 0;
        for (const CaptureReader::DroppedSpan& s : r.dropped())
            marked += s.frames;
        QVERIFY(!r.dropped().empty());
        QCOMPARE(frames + marked, kFrames); // every frame replayed or marked dropped
        QCOMPARE(marked, w.droppedFrames());
        QCOMPARE(holes, qint64(r.dropped().size())); // each hole marked where it is
        QVERIFY(r.droppedNote().contains(QStringLiteral("dropped %1 frames").arg(marked)));
    }

    void aCaptureOnAFullDiskStopsWithOneLine() {
        CaptureWriter w;
        QString error;
        QVERIFY2(w.open(QStringLiteral("/dev/full"), captureHeader(), &error), qPrintable(error));
        w.setBlockLimits(4096, 1000000);
        qint64 written = 0;
        QVERIFY(waitFor([&] {
            w.writeFrame(randomFrame(written++, 1024));
            return !w.error().isEmpty();
        }));
        const QString expected = QStringLiteral("cannot write /dev/full: No space left on device");
        QCOMPARE(w.error(), expected);
        QVERIFY(!w.close(0, &error));
        QCOMPARE(error, expected);
        QCOMPARE(w.fileBytes(), qint64(0));
        // The header's write may fail before the first frame arrives (it does under TSan):
        // frames given after the error are refused, not taken, so none may be counted written.
        QVERIFY(written > 0);
        QCOMPARE(w.droppedFrames(), w.frames()); // every frame it took is counted lost
    }

    void aRecordingToAFullDiskStopsAndTheSessionGoesOn() {
        auto session =
            std::make_unique<Session>(simulator(QStringLiteral("healthy")), PipelineOptions{});
        session->start();
        QSignalSpy started(session.get(), &Session::captureStarted);
        QSignalSpy stopped(session.get(), &Session::captureStopped);
        QSignalSpy failed(session.get(), &Session::failed);
        session->startCapture(QStringLiteral("/dev/full"));
        QVERIFY(stopped.wait(20000));
        QCOMPARE(started.count(), 1);
        const QString why = stopped.first().at(2).toString();
        QCOMPARE(why, QStringLiteral("cannot write /dev/full: No space left on device"));
        QVERIFY(session->running()); // the session goes on without its recording
        QCOMPARE(session->captureBytes(), qint64(-1));
        QCOMPARE(failed.count(), 0);
        session->stop();
    }
};

QTEST_MAIN(TestSlowConsumer)
#include "tst_slowconsumer.moc"

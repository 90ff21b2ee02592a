// The session loop sleeps while nothing happens: a source whose transports ring its bell is
// polled when it said it is due, when frames come, or to publish, not every few milliseconds;
// frames and stop() wake it at once; a stream of frames is taken in batches, not one wake-up a
// frame; a source that does not ring is still looked at every few milliseconds.
#include "engine/Pipeline.h"
#include "engine/SessionLoop.h"
#include "engine/Source.h"

#include <QElapsedTimer>
#include <QTest>
#include <atomic>
#include <thread>

using namespace ws;

namespace {

// A source with a transport of frames the test pushes; it counts its polls and frames.
class BellSource : public Source {
public:
    BellSource(bool rings, TimeUs idle) : m_rings(rings), m_idle(idle) {}
    QString description() const override { return QStringLiteral("bell"); }
    QString kind() const override { return QStringLiteral("bell"); }
    bool prepare(QString*) override { return true; }
    bool open(Pipeline&, QString*) override { return true; }
    bool setDoorbell(Doorbell* doorbell) override {
        if (!m_rings)
            return false;
        m_queue.setDoorbell(doorbell);
        return true;
    }
    TimeUs poll(Pipeline&) override {
        ++m_polls;
        m_frames += static_cast<qint64>(m_queue.drain(m_drained));
        return m_idle;
    }
    bool finished() const override { return false; }
    void close(Pipeline&) override {}
    QStringList resources() const override { return {}; }
    TimeUs now() const override { return 0; }
    qint64 totalEvents() const override { return 0; }
    void snapshot(QVector<CacheSnapshot>&, QVector<WatcherSnapshot>&) const override {}

    void push() {
        Frame f;
        f.connection = 1;
        f.bytes = QByteArray(100, 'x');
        m_queue.push(std::move(f));
    }
    qint64 polls() const { return m_polls; }
    qint64 frames() const { return m_frames; }

private:
    const bool m_rings;
    const TimeUs m_idle;
    FrameQueue m_queue;
    std::vector<Frame> m_drained;
    std::atomic<qint64> m_polls{0};
    std::atomic<qint64> m_frames{0};
};

// The loop on a thread of its own, stopped as Session stops it (the flag, then the bell).
class LoopThread {
public:
    LoopThread(BellSource& source, TimeUs publishInterval)
        : m_loop(m_pipeline, {&source}, m_wake, publishInterval) {
        m_thread = std::thread([this] {
            QString error;
            m_loop.run(
                m_stop, [this](EngineUpdate&&) { ++m_publications; }, &error);
            m_done = true;
        });
    }
    ~LoopThread() {
        stop();
        m_thread.join();
    }
    void stop() {
        m_stop = true;
        m_wake.ring();
    }
    qint64 publications() const { return m_publications; }
    bool done() const { return m_done; }

private:
    Pipeline m_pipeline;
    Doorbell m_wake;
    SessionLoop m_loop;
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_publications{0};
    std::atomic<bool> m_done{false};
    std::thread m_thread;
};

} // namespace

class TestSessionLoop : public QObject {
    Q_OBJECT

private slots:
    // Nothing comes and the source is due in a minute: a round per publication, where the
    // loop of 5 ms naps made twenty.
    void quietLoopSleeps() {
        BellSource source(true, seconds(60));
        LoopThread loop(source, milliseconds(100));
        QTRY_VERIFY_WITH_TIMEOUT(loop.publications() >= 10, 20000);
        const qint64 publications = loop.publications();
        const qint64 polls = source.polls();
        qInfo("%lld polls for %lld publications", static_cast<long long>(polls),
              static_cast<long long>(publications));
        QVERIFY2(polls <= publications + 2, qPrintable(QString::number(polls)));
    }

    // A frame wakes the loop at once, though nothing is due for a minute.
    void framesRingTheLoop() {
        BellSource source(true, seconds(60));
        LoopThread loop(source, seconds(60));
        QTRY_VERIFY(source.polls() >= 1);
        source.push();
        QTRY_COMPARE_WITH_TIMEOUT(source.frames(), qint64(1), 10000);
        source.push();
        source.push();
        QTRY_COMPARE_WITH_TIMEOUT(source.frames(), qint64(3), 10000);
        QVERIFY(source.polls() <= 6); // each ring: its round, and one after the batch delay
    }

    // stop() rings: the loop ends though it would sleep for a minute.
    void stopRingsTheLoop() {
        BellSource source(true, seconds(60));
        LoopThread loop(source, seconds(60));
        QTRY_VERIFY(source.polls() >= 1);
        loop.stop();
        QTRY_VERIFY_WITH_TIMEOUT(loop.done(), 10000);
    }

    // A frame every ~0.5 ms for 300 ms: the loop takes them in rounds kBatchDelay apart, not a
    // round per frame.
    void aStreamIsTakenInBatches() {
        BellSource source(true, seconds(60));
        LoopThread loop(source, seconds(60));
        QTRY_VERIFY(source.polls() >= 1);
        const qint64 polls0 = source.polls();
        QElapsedTimer wall;
        wall.start();
        int pushed = 0;
        while (wall.elapsed() < 300) {
            source.push();
            ++pushed;
            std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        const qint64 elapsedUs = wall.nsecsElapsed() / 1000;
        QTRY_COMPARE_WITH_TIMEOUT(source.frames(), qint64(pushed), 10000);
        const qint64 rounds = source.polls() - polls0;
        qInfo("%d frames in %lld rounds over %lld ms", pushed, static_cast<long long>(rounds),
              static_cast<long long>(elapsedUs / 1000));
        QVERIFY2(rounds <= elapsedUs / SessionLoop::kBatchDelay + 3,
                 qPrintable(QString::number(rounds)));
    }

    // A source that does not ring (a reader thread it does not wake the loop for) is still
    // polled every few milliseconds, whatever it says it is due.
    void sourceThatDoesNotRingIsPolledOften() {
        BellSource source(false, seconds(60));
        LoopThread loop(source, seconds(60));
        QTRY_VERIFY_WITH_TIMEOUT(source.polls() >= 20, 10000);
        source.push();
        QTRY_COMPARE_WITH_TIMEOUT(source.frames(), qint64(1), 10000);
    }
};

QTEST_GUILESS_MAIN(TestSessionLoop)
#include "tst_sessionloop.moc"

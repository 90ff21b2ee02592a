// The queue from a source's transport threads to the session thread is bounded by bytes: a
// session thread that stops draining makes the transports wait (nothing is dropped, a frame is
// part of a stream), the bytes queued never pass the bound by more than one frame, every frame
// pushed is drained once, in order, and release() frees a transport waiting on a queue nobody
// drains any more (a source stopping).
#include "engine/FrameQueue.h"

#include <QElapsedTimer>
#include <QTest>
#include <atomic>
#include <thread>

using namespace ws;

namespace {

Frame frameOf(int connection, qint64 seq, int size) {
    Frame f;
    f.connection = connection;
    f.received = seq;
    f.bytes = QByteArray(size, char('a' + seq % 26));
    return f;
}

// Waits for `done`, up to `ms`; not a sleep: it returns as soon as the condition holds.
template <typename F> bool waitFor(F done, int ms = 20000) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

} // namespace

class TestFrameQueue : public QObject {
    Q_OBJECT
private slots:
    void aStalledConsumerHoldsTheProducersNotTheMemory() {
        constexpr qint64 kMax = 256 * 1024;
        constexpr int kFrame = 4000;
        constexpr int kProducers = 3;
        constexpr qint64 kPerProducer = 2000; // ~24 MB in all: far past the bound
        FrameQueue queue(kMax);
        std::vector<Frame> out;
        queue.drain(out); // this thread is the consumer from now on

        std::atomic<qint64> pushed{0};
        std::vector<std::thread> producers;
        for (int p = 0; p < kProducers; ++p)
            producers.emplace_back([&, p] {
                for (qint64 i = 0; i < kPerProducer; ++i) {
                    queue.push(frameOf(p + 1, i, kFrame));
                    ++pushed;
                }
            });
        // Nobody drains: the producers fill the queue to its bound and then wait there.
        QVERIFY(waitFor([&] { return queue.stats().stalls >= kProducers; }));
        const qint64 frameCost = FrameQueue::kFrameOverhead + kFrame;
        const FrameQueue::Stats held = queue.stats();
        QVERIFY2(held.queuedBytes <= kMax, qPrintable(QString::number(held.queuedBytes)));
        QVERIFY(pushed.load() < kProducers * kPerProducer);

        // The consumer comes back: everything arrives, each producer's frames in order.
        std::vector<qint64> next(kProducers + 1, 0);
        qint64 drained = 0;
        bool inOrder = true;
        while (drained < kProducers * kPerProducer) {
            queue.drain(out);
            for (const Frame& f : out) {
                inOrder = inOrder && f.received == next[std::size_t(f.connection)];
                next[std::size_t(f.connection)] = f.received + 1;
            }
            drained += qint64(out.size());
            QVERIFY(queue.stats().peakBytes <= kMax + frameCost);
            if (out.empty())
                std::this_thread::yield();
        }
        for (auto& t : producers)
            t.join();
        QVERIFY(inOrder);
        const FrameQueue::Stats s = queue.stats();
        QCOMPARE(s.pushedFrames, kProducers * kPerProducer);
        QCOMPARE(s.drainedFrames, s.pushedFrames); // nothing dropped, nothing twice
        QVERIFY2(s.peakBytes <= kMax + frameCost, qPrintable(QString::number(s.peakBytes)));
        QVERIFY(s.stalls >= kProducers);
        QVERIFY(s.stalledUs > 0);
        QCOMPARE(s.queuedBytes, qint64(0));
    }

    void releaseFreesAProducerNobodyDrainsFor() {
        FrameQueue queue(10 * 1024);
        std::vector<Frame> out;
        queue.drain(out);
        std::atomic<bool> done{false};
        std::thread producer([&] {
            for (int i = 0; i < 100; ++i)
                queue.push(frameOf(1, i, 1024));
            done = true;
        });
        QVERIFY(waitFor([&] { return queue.stats().stalls >= 1; }));
        QVERIFY(!done.load());
        queue.release(); // the source stops its transports
        QVERIFY(waitFor([&] { return done.load(); }));
        producer.join();
        QCOMPARE(queue.drain(out), std::size_t(100));
    }

    void theConsumersOwnPushesNeverWait() {
        // A source refusing a request on the session thread queues its answer there: waiting
        // for itself to drain would never end.
        FrameQueue queue(1024);
        std::vector<Frame> out;
        queue.drain(out);
        for (int i = 0; i < 50; ++i)
            queue.push(frameOf(1, i, 512));
        QCOMPARE(queue.stats().stalls, qint64(0));
        QCOMPARE(queue.drain(out), std::size_t(50));
    }
};

QTEST_GUILESS_MAIN(TestFrameQueue)
#include "tst_framequeue.moc"

// ReplayControl and ReplayPacer: speed, pause and run-until as a replay source sees them, and
// CaptureSource paced by them over a real capture file.
#include "engine/Pipeline.h"
#include "engine/ReplayControl.h"
#include "sources/capture/CaptureExtent.h"
#include "sources/capture/CaptureSource.h"
#include "support/TickCapture.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <limits>
#include <thread>

using namespace ws;

namespace {

// Polls `source` for `wallMs` of wall time (or until `until` says stop), as SessionLoop does.
template <typename Until>
void pollFor(CaptureSource& source, Pipeline& pipeline, int wallMs, Until until) {
    QElapsedTimer wall;
    wall.start();
    while (wall.elapsed() < wallMs && !source.finished() && !until()) {
        const TimeUs idle = source.poll(pipeline);
        if (idle > 0)
            std::this_thread::sleep_for(std::chrono::microseconds(std::min<TimeUs>(idle, 5000)));
    }
}

} // namespace

class TestReplayControl : public QObject {
    Q_OBJECT
private slots:
    void pacerAlone() {
        ReplayPacer fast(0);
        QCOMPARE(fast.due(seconds(5)), std::numeric_limits<TimeUs>::max());
        ReplayPacer twice(2.0);
        QVERIFY(twice.due(0) < milliseconds(20));
        QTest::qWait(200);
        const TimeUs due = twice.due(0);
        QVERIFY2(due >= milliseconds(380) && due < milliseconds(800),
                 qPrintable(QString::number(due)));
        QVERIFY(twice.waitFor(due + milliseconds(100)) > 0);
        QVERIFY(twice.waitFor(due + seconds(10)) <= milliseconds(5)); // short naps only
    }

    void pausedAndRunUntil() {
        auto control = std::make_shared<ReplayControl>(1.0, true);
        ReplayPacer pacer(0);
        pacer.setControl(control);
        QCOMPARE(pacer.due(seconds(1)), seconds(1)); // paused: nothing beyond where it is
        QTest::qWait(50);
        QCOMPARE(pacer.due(seconds(1)), seconds(1));
        control->runUntil(seconds(3));
        QVERIFY(!control->runUntilReached());
        QCOMPARE(pacer.due(seconds(1)), seconds(3)); // as fast as possible up to the target
        QCOMPARE(pacer.due(seconds(2)), seconds(3));
        QCOMPARE(pacer.due(seconds(3)), seconds(3)); // there: paused again
        QVERIFY(control->runUntilReached());
        QTest::qWait(50);
        QCOMPARE(pacer.due(seconds(3)), seconds(3));
        // Nothing more before the target (a capture's next frame is beyond it): reached too.
        control->runUntil(seconds(10));
        QVERIFY(!control->runUntilReached());
        QCOMPARE(pacer.due(seconds(4)), seconds(10));
        QVERIFY(pacer.waitFor(seconds(12)) > 0);
        QVERIFY(control->runUntilReached());
        QCOMPARE(pacer.due(seconds(4)), seconds(4)); // paused where it is
        // Playing at 10× from there.
        control->setPaused(false);
        control->setSpeed(10);
        // From where it paused: at 10x, the microseconds since setSpeed() already count (ASan
        // once saw 4.00001 s here).
        const TimeUs resumed = pacer.due(seconds(4));
        QVERIFY2(resumed >= seconds(4) && resumed < seconds(4.5),
                 qPrintable(QString::number(resumed)));
        QTest::qWait(100);
        const TimeUs due = pacer.due(seconds(4));
        QVERIFY2(due >= seconds(4.9) && due < seconds(7), qPrintable(QString::number(due)));
        control->setSpeed(0);
        QCOMPARE(pacer.due(seconds(5)), std::numeric_limits<TimeUs>::max());
    }

    void captureSourcePaced() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ticks.wscap"));
        QString error;
        QVERIFY2(test::writeTickCapture(path, seconds(20), &error), qPrintable(error));
        const auto extent = CaptureExtent::measure(path, &error);
        QVERIFY2(extent, qPrintable(error));
        QCOMPARE(extent->duration, seconds(20));
        QVERIFY(extent->complete);
        QCOMPARE(extent->sourceKind, QStringLiteral("etcd"));

        auto control = std::make_shared<ReplayControl>(1.0, true);
        control->runUntil(seconds(5));
        CaptureSource source(path, 1.0);
        source.setReplayControl(control);
        Pipeline pipeline;
        QVERIFY2(source.prepare(&error), qPrintable(error));
        QVERIFY2(source.open(pipeline, &error), qPrintable(error));
        // 5 recorded seconds as fast as possible, then paused there.
        QElapsedTimer wall;
        wall.start();
        pollFor(source, pipeline, 5000, [&] { return control->runUntilReached(); });
        QVERIFY(control->runUntilReached());
        QVERIFY2(wall.elapsed() < 2500, qPrintable(QString::number(wall.elapsed())));
        QCOMPARE(source.now(), seconds(5));
        pollFor(source, pipeline, 300, [] { return false; });
        QCOMPARE(source.now(), seconds(5));
        // 10× for about 300 ms: about 3 recorded seconds.
        control->setSpeed(10);
        control->setPaused(false);
        pollFor(source, pipeline, 300, [] { return false; });
        QVERIFY2(source.now() > seconds(6) && source.now() < seconds(12),
                 qPrintable(QString::number(source.now())));
        // Max: to the end at once.
        control->setSpeed(0);
        pollFor(source, pipeline, 5000, [] { return false; });
        QVERIFY(source.finished());
        QCOMPARE(source.now(), seconds(20));
    }
};

QTEST_GUILESS_MAIN(TestReplayControl)
#include "tst_replaycontrol.moc"

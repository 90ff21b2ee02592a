// The engine runs on its own thread and publishes batched updates, at most ~30 a second.
#include "engine/SimulationSession.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

using namespace ws;

class TestSimulationSession : public QObject {
    Q_OBJECT
private slots:
    void publishesBatchedUpdatesOffTheGuiThread() {
        SimulationOptions options;
        options.speed = 0; // max: the engine would produce far more than 30 frames a second
        options.duration = seconds(400);
        SimulationSession session(options);
        QThread* updateThread = nullptr;
        qint64 updates = 0, samples = 0;
        TimeUs lastNow = -1;
        bool monotonic = true;
        connect(&session, &Session::updated, this, [&](const EngineUpdate& u) {
            ++updates;
            monotonic = monotonic && u.now >= lastNow;
            lastNow = u.now;
            for (const auto& s : u.series)
                samples += s.points.size();
        });
        connect(
            &session, &Session::updated, &session,
            [&](const EngineUpdate&) { updateThread = QThread::currentThread(); },
            Qt::DirectConnection);
        QSignalSpy finished(&session, &Session::finished);
        QElapsedTimer wall;
        wall.start();
        session.start();
        QVERIFY(finished.wait(60000));
        QCoreApplication::processEvents();
        const double elapsedS = double(wall.elapsed()) / 1000.0;
        QVERIFY(updateThread &&
                updateThread != QThread::currentThread()); // emitted by the engine thread
        QVERIFY(updates >= 1);
        QVERIFY2(double(updates) <= 31.0 * elapsedS + 2,
                 qPrintable(QStringLiteral("%1 updates in %2 s").arg(updates).arg(elapsedS)));
        QVERIFY(monotonic);
        QCOMPARE(lastNow, seconds(400)); // the final update arrives
        QVERIFY(samples > 100000);       // every sample reaches the GUI, batched
    }

    void badScenarioFails() {
        SimulationOptions options;
        options.scenario = QStringLiteral("does-not-exist");
        SimulationSession session(options);
        QSignalSpy failed(&session, &Session::failed);
        session.start();
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("unknown scenario")));
    }

    void stopIsPrompt() {
        SimulationOptions options; // real time: 10 minutes of healthy
        SimulationSession session(options);
        session.start();
        QTest::qWait(200);
        QElapsedTimer t;
        t.start();
        session.stop();
        QVERIFY(t.elapsed() < 1000);
    }
};

QTEST_GUILESS_MAIN(TestSimulationSession)
#include "tst_simulationsession.moc"

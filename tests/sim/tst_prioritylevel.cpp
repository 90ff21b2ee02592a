// API Priority and Fairness in the simulated apiserver: the seats of a LIST by the count-based
// (1.20-1.33) and size-based (1.34+) estimators, one priority level's seats, queue and wait
// limit, the Retry-After of its 429s, and a 1.30 apiserver letting 24 of 40 expensive lists run
// while a 1.19 one (max-in-flight only) runs them all.
#include "SimHarness.h"
#include "kube/ApfRules.h"

#include <QTest>

using namespace ws;
using ws::test::SimHarness;

namespace {

struct Counters {
    int started = 0;
    int rejected = 0;
    int lastRetryAfter = 0;
    int lastCode = 0;
};

void admit(PriorityLevel& level, TimeUs now, int seats, Counters& c, const QString& flow = "a") {
    level.admit(
        now, flow, seats, [&c] { ++c.started; },
        [&c](const ApiStatus& s) {
            ++c.rejected;
            c.lastCode = s.code;
            c.lastRetryAfter = s.retryAfterSeconds;
        });
}

} // namespace

class TestPriorityLevel : public QObject {
    Q_OBJECT
private slots:
    void listSeats_data() {
        QTest::addColumn<qint64>("stored");
        QTest::addColumn<qint64>("limit");
        QTest::addColumn<bool>("fromStorage");
        QTest::addColumn<bool>("selector");
        QTest::addColumn<int>("seats");
        // list_work_estimator.go: cache lists process the stored objects, etcd lists with a
        // selector stored + limit, others twice the limit; 1 seat per 100, 1 to 10.
        QTest::newRow("cache, 50 objects") << qint64(50) << qint64(0) << false << false << 1;
        QTest::newRow("cache, 450 objects") << qint64(450) << qint64(500) << false << false << 5;
        QTest::newRow("etcd, limit 100 of 5000")
            << qint64(5000) << qint64(100) << true << false << 2;
        QTest::newRow("etcd, selector, 120 objects")
            << qint64(120) << qint64(0) << true << true << 3;
        QTest::newRow("etcd, selector, 10000 objects")
            << qint64(10000) << qint64(0) << true << true << 10;
    }
    void listSeats() {
        QFETCH(qint64, stored);
        QFETCH(qint64, limit);
        QFETCH(bool, fromStorage);
        QFETCH(bool, selector);
        QFETCH(int, seats);
        QCOMPARE(apf::listSeats(stored, limit, fromStorage, selector), seats);
    }

    // 1.34: per 100 kB loaded; a cache list counts at most 1 MB, an etcd list with a selector at
    // least half of the stored objects.
    void listSeatsBySize() {
        QCOMPARE(apf::listSeatsBySize(10000, 5000, 0, false, true), 10); // 1 MB cap: 10
        QCOMPARE(apf::listSeatsBySize(100, 5000, 0, false, false), 5);   // 500 kB
        QCOMPARE(apf::listSeatsBySize(100, 1000, 0, true, true), 1);     // 100 kB
        QCOMPARE(apf::listSeatsBySize(400, 1000, 10, true, true), 2);    // half of 400 objects
        QCOMPARE(apf::listSeatsBySize(400, 1000, 10, true, false), 1);   // 10 objects
    }

    void workloadLowHas245Seats() { QCOMPARE(apf::workloadLowSeats(), 245); }

    void seatsQueueAndRejection() {
        PriorityLevel level({30, 3, seconds(15)});
        Counters c;
        for (int i = 0; i < 3; ++i)
            admit(level, 0, 10, c);
        QCOMPARE(c.started, 3);
        QCOMPARE(level.seatsInUse(), 30);
        for (int i = 0; i < 3; ++i)
            admit(level, 0, 10, c);
        QCOMPARE(level.waiting(), 3);
        // The flow's queues are full: 429 at once, Retry-After 1.
        admit(level, 0, 10, c);
        QCOMPARE(c.rejected, 1);
        QCOMPARE(c.lastCode, 429);
        QCOMPARE(c.lastRetryAfter, 1);
        // Another flow still queues.
        admit(level, 0, 10, c, QStringLiteral("b"));
        QCOMPARE(level.waiting(), 4);
        // A release lets the first waiter in.
        level.release(10);
        QCOMPARE(c.started, 4);
        QCOMPARE(level.waiting(), 3);
        // Past the wait limit the rest are turned away.
        level.tick(seconds(15));
        QCOMPARE(level.waiting(), 0);
        QCOMPARE(c.rejected, 4);
        QCOMPARE(level.rejected(), 4);
    }

    // A request wider than the level gets through alone, once nothing else runs.
    void wideRequestRunsAlone() {
        PriorityLevel level({5, 10, seconds(15)});
        Counters c;
        admit(level, 0, 3, c);
        admit(level, 0, 10, c);
        QCOMPARE(c.started, 1);
        level.release(3);
        QCOMPARE(c.started, 2);
        QCOMPARE(level.seatsInUse(), 10);
    }

    // dropped_requests_tracker.go: 1 s; doubled when at least 3x its value were dropped within
    // it (at most once per its value); down by one while fewer than its value are dropped.
    void retryAfterGrowsWhileDropsGoOn() {
        PriorityLevel level({1, 0, 0});
        Counters c;
        admit(level, 0, 1, c); // holds the only seat
        QList<int> seen;
        for (int second = 0; second < 20; ++second) {
            for (int i = 0; i < 50; ++i)
                admit(level, seconds(second) + i, 1, c);
            seen << c.lastRetryAfter;
        }
        QCOMPARE(seen.first(), 1);
        QVERIFY2(seen.last() >= 16 && seen.last() <= 32, qPrintable(QString::number(seen.last())));
        for (int i = 1; i < seen.size(); ++i)
            QVERIFY(seen[i] >= seen[i - 1]);
        // Quiet for a while, then one drop a second: it comes down again.
        for (int second = 40; second < 80; ++second)
            admit(level, seconds(second), 1, c);
        QVERIFY2(c.lastRetryAfter < seen.last(), qPrintable(QString::number(c.lastRetryAfter)));
    }

    // 40 RV="" lists of 1,500 objects from one flow, each 10 seats: 1.30 runs 24 and queues 16;
    // 1.19 (max-in-flight, 400 requests) runs all 40.
    void apiserverAdmitsBySeats_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<int>("running");
        QTest::newRow("1.30") << "1.30" << 24;
        QTest::newRow("1.19") << "1.19" << 40;
    }
    void apiserverAdmitsBySeats() {
        QFETCH(QString, version);
        QFETCH(int, running);
        SimHarness h(version, 1500, QStringLiteral("configmaps"), 0, {}, [](ApiServerConfig& c) {
            c.memory.enabled = true;
            c.memory.baselineBytes = 1000000;
            c.memory.listBytesPerSecond = 1000000; // 450 kB a list: about half a second
        });
        h.runFor(seconds(1));
        int answered = 0;
        for (int i = 0; i < 40; ++i) {
            ApiServer::ListOptions o;
            o.resource = h.resource;
            o.rvEmpty = true;
            o.selectorGroup = 0;
            o.flow = QStringLiteral("agents");
            h.server->list(o, [&answered](ApiServer::ListResult r) {
                QVERIFY(r.ok);
                ++answered;
            });
        }
        QCOMPARE(h.server->listPressure().inflight(), running);
        QCOMPARE(h.server->priorityLevel().waiting(), 40 - running);
        h.runFor(seconds(5));
        QCOMPARE(answered, 40);
        QCOMPARE(h.server->priorityLevel().seatsInUse(), 0);
    }
};

QTEST_GUILESS_MAIN(TestPriorityLevel)
#include "tst_prioritylevel.moc"

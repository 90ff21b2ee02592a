#include "kube/WatchCache.h"

#include <QTest>

using namespace ws;

class TestWatchCache : public QObject {
    Q_OBJECT
private:
    static KeyValuePtr object(KeyId key, ResourceVersion rv) {
        return KeyValue::make(key, rv, rv, 1, std::string(100, 'x'));
    }

private slots:
    // reference §4: reject when requested < oldest-1; oldest = listRV+1 while nothing was
    // evicted since the relist, else the first buffered event's RV.
    void tooOldBoundary_data() {
        QTest::addColumn<int>("events"); // events added after a relist at RV 1000
        QTest::addColumn<qint64>("requested");
        QTest::addColumn<bool>("tooOld");
        QTest::addColumn<qint64>("firstRv"); // RV of the first event served (0: none)
        // Nothing evicted: oldest = 1001, so 999 is too old and 1000 is not.
        QTest::newRow("no-eviction, rv=listRV-1") << 50 << qint64(999) << true << qint64(0);
        QTest::newRow("no-eviction, rv=listRV") << 50 << qint64(1000) << false << qint64(1001);
        QTest::newRow("no-eviction, rv in buffer") << 50 << qint64(1020) << false << qint64(1021);
        QTest::newRow("no-eviction, rv=newest") << 50 << qint64(1050) << false << qint64(0);
        QTest::newRow("no-eviction, rv in future") << 50 << qint64(5000) << false << qint64(0);
        // 150 events into a capacity-100 buffer whose events are all older than 75 s (no
        // growth): events 1001..1050 are evicted, oldest = 1051.
        QTest::newRow("evicted, rv=oldest-2") << 150 << qint64(1049) << true << qint64(0);
        QTest::newRow("evicted, rv=oldest-1") << 150 << qint64(1050) << false << qint64(1051);
        QTest::newRow("evicted, rv=oldest") << 150 << qint64(1051) << false << qint64(1052);
        QTest::newRow("evicted, rv=listRV") << 150 << qint64(1000) << true << qint64(0);
    }
    void tooOldBoundary() {
        QFETCH(int, events);
        QFETCH(qint64, requested);
        QFETCH(bool, tooOld);
        QFETCH(qint64, firstRv);
        WatchCache cache;
        cache.replace({}, 1000, 0);
        // Events 100 s apart: the buffer never counts as "fresh", so it does not grow.
        for (int i = 1; i <= events; ++i)
            cache.add(WatchEventType::Added, static_cast<KeyId>(i), 1000 + i, object(i, 1000 + i),
                      seconds(100) * i, 0);
        const auto start = cache.startFrom(requested);
        QCOMPARE(start.tooOld, tooOld);
        if (tooOld) {
            QCOMPARE(start.oldestMinusOne, cache.oldestRv() - 1);
            return;
        }
        if (firstRv == 0)
            QCOMPARE(start.index, cache.ring().endIndex());
        else
            QCOMPARE(cache.ring().at(start.index).rv, firstRv);
    }

    // reference §4: full + oldest younger than 75 s -> double (up to 102400); full + the event at
    // end-capacity/4 older than 75 s -> halve (down to 100), keeping the newest events.
    void resizing_data() {
        QTest::addColumn<int>("events");
        QTest::addColumn<qint64>("spacingMs");
        QTest::addColumn<int>("capacity");
        QTest::addColumn<int>("increases");
        QTest::addColumn<int>("decreases");
        QTest::newRow("fast events grow 100->200->400") << 301 << qint64(10) << 400 << 2 << 0;
        QTest::newRow("very fast events stop at 102400")
            << 220000 << qint64(0) << 102400 << 10 << 0;
        QTest::newRow("slow events stay at minimum") << 500 << qint64(1000) << 100 << 0 << 0;
        QTest::newRow("growth then shrink") << 0 << qint64(0) << 0 << 0 << 0; // special
    }
    void resizing() {
        QFETCH(int, events);
        QFETCH(qint64, spacingMs);
        QFETCH(int, capacity);
        QFETCH(int, increases);
        QFETCH(int, decreases);
        WatchCache cache;
        cache.replace({}, 1, 0);
        if (events == 0) {
            // Burst: 400 events in 4 s grows to 400. Then 2 events per 100 s: when full, the
            // newest quarter is stale, so the buffer halves.
            ResourceVersion rv = 1;
            TimeUs t = 0;
            for (int i = 0; i < 401; ++i) {
                ++rv;
                cache.add(WatchEventType::Added, 1, rv, object(1, rv), t += milliseconds(10), 0);
            }
            QCOMPARE(cache.ring().capacity(), std::size_t(800));
            for (int i = 0; i < 800; ++i) {
                ++rv;
                cache.add(WatchEventType::Modified, 1, rv, object(1, rv), t += seconds(50), 0);
            }
            QVERIFY(cache.capacityDecreases() >= 1);
            QVERIFY(cache.ring().capacity() < 800);
            QCOMPARE(cache.ring().at(cache.ring().endIndex() - 1).rv, rv); // newest kept
            return;
        }
        TimeUs t = 0;
        for (int i = 0; i < events; ++i)
            cache.add(WatchEventType::Added, 1, 2 + i, object(1, 2 + i),
                      t += milliseconds(spacingMs), 0);
        QCOMPARE(cache.ring().capacity(), std::size_t(capacity));
        QCOMPARE(cache.capacityIncreases(), increases);
        QCOMPARE(cache.capacityDecreases(), decreases);
    }

    void replaceEmptiesBuffer() {
        WatchCache cache;
        cache.replace({object(1, 5)}, 5, 0);
        for (int i = 0; i < 10; ++i)
            cache.add(WatchEventType::Modified, 1, 6 + i, object(1, 6 + i), 0, 0);
        QCOMPARE(cache.resourceVersion(), 15);
        cache.replace({object(2, 30)}, 40, 0);
        QCOMPARE(cache.ring().size(), std::size_t(0));
        QCOMPARE(cache.resourceVersion(), 40);
        QCOMPARE(cache.oldestRv(), 41);
        QVERIFY(!cache.object(1));
        QVERIFY(cache.object(2));
    }

    void memoryPerObject() {
        // Store + ring hold the serialized bytes once plus small fixed overheads.
        WatchCache cache;
        std::vector<KeyValuePtr> objects;
        for (KeyId k = 0; k < 1000; ++k)
            objects.push_back(KeyValue::make(k, 1, 1, 1, std::string(1400, 'x')));
        cache.replace(objects, 1, 0);
        for (int i = 0; i < 500; ++i)
            cache.add(WatchEventType::Modified, static_cast<KeyId>(i), 2 + i,
                      KeyValue::make(static_cast<KeyId>(i), 1, 2 + i, 2, std::string(1400, 'y')),
                      milliseconds(i), 0);
        const auto m = cache.memory();
        QCOMPARE(m.distinctObjects, std::size_t(1500));
        QVERIFY2(
            double(m.heldBytes) / double(m.serializedBytes) < 1.3,
            qPrintable(
                QStringLiteral("ratio %1").arg(double(m.heldBytes) / double(m.serializedBytes))));
    }
};

QTEST_GUILESS_MAIN(TestWatchCache)
#include "tst_watchcache.moc"

#include "kube/Rc.h"
#include "util/RingQueue.h"

#include <QTest>
#include <algorithm>
#include <deque>

using namespace ws;

// RingQueue replaces std::deque on the simulator's hot paths: it must behave like one through
// wrap-around and growth, and release what a popped slot held at once.
class TestRingQueue : public QObject {
    Q_OBJECT
private slots:
    void behavesLikeDeque_data() {
        QTest::addColumn<int>("pushes");
        QTest::addColumn<int>("popEvery"); // pop after every n-th push (0: never)
        QTest::newRow("empty") << 0 << 0;
        QTest::newRow("below first capacity") << 10 << 0;
        QTest::newRow("exactly first capacity") << 16 << 0;
        QTest::newRow("growth without pops") << 1000 << 0;
        QTest::newRow("wrap-around, drained each time") << 1000 << 1;
        QTest::newRow("wrap-around then growth") << 5000 << 3;
        QTest::newRow("grow while wrapped") << 777 << 2;
    }
    void behavesLikeDeque() {
        QFETCH(int, pushes);
        QFETCH(int, popEvery);
        RingQueue<int> q;
        std::deque<int> reference;
        for (int i = 0; i < pushes; ++i) {
            q.push_back(i);
            reference.push_back(i);
            if (popEvery > 0 && i % popEvery == 0 && !reference.empty()) {
                QCOMPARE(q.front(), reference.front());
                q.pop_front();
                reference.pop_front();
            }
            QCOMPARE(q.size(), reference.size());
            if (!reference.empty())
                QCOMPARE(q.back(), reference.back());
        }
        QCOMPARE(q.empty(), reference.empty());
        for (std::size_t i = 0; i < reference.size(); ++i)
            QCOMPARE(q[i], reference[i]);
        QVERIFY(std::equal(q.begin(), q.end(), reference.begin(), reference.end()));
        // Random access iterators: a binary search gives the deque's answer.
        if (!reference.empty()) {
            const int probe = reference[reference.size() / 2];
            QCOMPARE(std::upper_bound(q.begin(), q.end(), probe) - q.begin(),
                     std::upper_bound(reference.begin(), reference.end(), probe) -
                         reference.begin());
        }
        q.clear();
        QVERIFY(q.empty());
        QCOMPARE(q.begin(), q.end());
        q.push_back(42);
        QCOMPARE(q.front(), 42);
    }

    void popReleasesAtOnce() {
        RingQueue<Rc<int>> q;
        const Rc<int> value = Rc<int>::make(7);
        for (int i = 0; i < 40; ++i)
            q.push_back(value);
        QCOMPARE(value.useCount(), std::uint32_t(41));
        for (int i = 0; i < 15; ++i)
            q.pop_front();
        QCOMPARE(value.useCount(), std::uint32_t(26));
        q.clear();
        QCOMPARE(value.useCount(), std::uint32_t(1));
    }
};

QTEST_APPLESS_MAIN(TestRingQueue)
#include "tst_ringqueue.moc"

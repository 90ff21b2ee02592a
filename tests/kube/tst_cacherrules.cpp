// The cacher's dispatch and bookmark rules in kube/CacherRules.h, the ones the simulator plays.
#include "kube/CacherRules.h"

#include <QTest>

using namespace ws;

class TestCacherRules : public QObject {
    Q_OBJECT
private slots:
    void watcherChannelSize_data() {
        QTest::addColumn<qulonglong>("ring");
        QTest::addColumn<qulonglong>("channel");
        QTest::newRow("smallest ring") << 100ull << 10ull;
        QTest::newRow("floor") << 750ull << 10ull;
        QTest::newRow("rounds up") << 751ull << 11ull;
        QTest::newRow("middle") << 7500ull << 100ull;
        QTest::newRow("cap") << 102400ull << 1000ull;
    }
    void watcherChannelSize() {
        QFETCH(qulonglong, ring);
        QFETCH(qulonglong, channel);
        QCOMPARE(qulonglong(cacher::watcherChannelSize(ring)), channel);
    }

    void budgetRunsOutAfterAboutATenthOfASecondBlocked() {
        cacher::DispatchBudget budget;
        int ticks = 0;
        while (!budget.tick(0.01, true))
            ++ticks;
        QCOMPARE(ticks, 10); // the 11th 10 ms tick blocked exhausts it
        QCOMPARE(budget.seconds(), 0.0);
        // Unblocked, it refills at 50 ms a second up to 100 ms.
        for (int i = 0; i < 100; ++i)
            QVERIFY(!budget.tick(0.01, false));
        QVERIFY(qFuzzyCompare(budget.seconds(), 0.05));
        for (int i = 0; i < 1000; ++i)
            budget.tick(0.01, false);
        QCOMPARE(budget.seconds(), 0.1);
    }

    void bookmarks() {
        // 1.19+: every interval, at least 1 s ahead, no later than 2 s before the deadline.
        QCOMPARE(cacher::nextBookmarkTime(0, seconds(300), true, seconds(60)), seconds(60));
        QCOMPARE(cacher::nextBookmarkTime(seconds(250), seconds(300), true, seconds(60)),
                 seconds(298));
        QCOMPARE(cacher::nextBookmarkTime(seconds(299), seconds(300), true, seconds(60)),
                 seconds(300));
        // Before 1.19: once, 2 s before the deadline.
        QCOMPARE(cacher::nextBookmarkTime(0, seconds(300), false, seconds(60)), seconds(298));
    }
};

QTEST_GUILESS_MAIN(TestCacherRules)
#include "tst_cacherrules.moc"

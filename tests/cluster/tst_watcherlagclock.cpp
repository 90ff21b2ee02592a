// How long a watcher of a real cluster has been behind a head it could have reached
// (sources/cluster/WatcherLagClock): a watch cache's RV moved by etcd progress notifications is
// reached only by the next bookmark, an event of the resource at once.

#include "sources/cluster/WatcherLagClock.h"

#include <QTest>

using namespace ws;

namespace {
constexpr TimeUs kBookmarkReach = seconds(75); // as ClusterFrameConsumer allows
} // namespace

class TestWatcherLagClock : public QObject {
    Q_OBJECT

private slots:
    // A quiet resource: the cache RV moves every 5 s (progress notifications, scraped), the
    // watcher learns it from a bookmark once a minute. It is never behind anything it could
    // have reached.
    void quietResourceNeverLags() {
        WatcherLagClock clock;
        ResourceVersion cacheRv = 100;
        ResourceVersion watcher = 100;
        clock.reached(watcher);
        double worst = 0;
        for (TimeUs t = 0; t <= seconds(600); t += seconds(1)) {
            if (t % seconds(5) == 0) {
                cacheRv += 7; // other resources' writes
                clock.head(cacheRv, t + kBookmarkReach);
            }
            if (t > 0 && t % seconds(60) == 0) {
                watcher = cacheRv; // the periodic bookmark at the cache's RV
                clock.reached(watcher);
            }
            worst = std::max(worst, clock.lagSeconds(t));
        }
        QCOMPARE(worst, 0.0);
        QVERIFY(clock.heads() <= 13); // what a minute of scrapes left
    }

    // The same watcher without bookmarks: 75 s after the cache RV was seen it is behind it.
    void noBookmarkIsLag() {
        WatcherLagClock clock;
        clock.reached(100);
        clock.head(150, seconds(10) + kBookmarkReach);
        QCOMPARE(clock.lagSeconds(seconds(60)), 0.0);
        QCOMPARE(clock.lagSeconds(seconds(100)), 15.0);
        clock.reached(149);
        QCOMPARE(clock.lagSeconds(seconds(100)), 15.0);
        clock.reached(150); // a bookmark or event at the head
        QCOMPARE(clock.lagSeconds(seconds(100)), 0.0);
    }

    // An event of the resource (another informer received it) can be reached at once: the lag
    // counts from then, and makes the lower cache RVs seen later reachable from then too.
    void eventsAreReachableAtOnce() {
        WatcherLagClock clock;
        clock.reached(100);
        clock.head(120, seconds(5) + kBookmarkReach);
        clock.head(130, seconds(20)); // an event at 130 seen at 20 s
        QCOMPARE(clock.heads(), std::size_t(1));
        QCOMPARE(clock.lagSeconds(seconds(32)), 12.0);
        clock.reached(125);
        QCOMPARE(clock.lagSeconds(seconds(32)), 12.0);
        clock.head(140, seconds(30) + kBookmarkReach); // a later cache RV: not reachable yet
        clock.reached(130);
        QCOMPARE(clock.lagSeconds(seconds(32)), 0.0);
        QCOMPARE(clock.lagSeconds(seconds(30) + kBookmarkReach + seconds(4)), 4.0);
        // An event below a head already known, seen earlier than that head is reachable.
        clock.head(135, seconds(40));
        QCOMPARE(clock.lagSeconds(seconds(50)), 10.0);
        clock.reached(136);
        QCOMPARE(clock.lagSeconds(seconds(50)), 0.0);
        QCOMPARE(clock.heads(), std::size_t(1)); // 140
        // Heads at or below where the watcher is are nothing to reach.
        clock.head(136, 0);
        QCOMPARE(clock.lagSeconds(seconds(50)), 0.0);
    }

    // A watcher that does not move while the heads keep coming: memory stays bounded and the
    // lag is never less than the truth.
    void boundedWhileStuck() {
        WatcherLagClock clock;
        clock.reached(1);
        for (int i = 0; i < 5000; ++i)
            clock.head(10 + i, seconds(i));
        QCOMPARE(clock.heads(), WatcherLagClock::kMaxHeads);
        QCOMPARE(clock.lagSeconds(seconds(5000)), 5000.0);
        clock.reached(5000); // the heads above it were kept as they came: 5001 at 4991 s
        QCOMPARE(clock.lagSeconds(seconds(5000)), 9.0);
    }
};

QTEST_GUILESS_MAIN(TestWatcherLagClock)
#include "tst_watcherlagclock.moc"

// client-go's reflector as one state machine (kube/Reflector.h), the one the simulated client and
// the cluster source's informer both drive: what it asks for next, answer by answer, per client-go
// release. Each case plays answers to a driver that writes down every request.
#include "kube/ApiStatus.h"
#include "kube/ClientProfile.h"
#include "kube/Reflector.h"
#include "kube/ReflectorDriver.h"
#include "kube/ServerProfile.h"
#include "model/Deadline.h"
#include "support/ProfileByName.h"

#include <QTest>

using namespace ws;
using ws::test::clientProfile;
using ws::test::serverProfile;

namespace {

QString rvText(ResourceVersion rv, bool empty) {
    return empty ? QStringLiteral("\"\"") : QString::number(rv);
}

// Writes every request down as one line: "LIST 0 limit=500", "PAGE continue=t1 limit=500",
// "WATCH 12", "WATCHLIST \"\"", "LISTED 12", "RESEND", "ABANDON".
class RecordingDriver : public ReflectorDriver {
public:
    QStringList log;
    std::int64_t lastTimeout = 0;

    QString take() {
        const QString all = log.join(QStringLiteral("; "));
        log.clear();
        return all;
    }
    void listStarted(const ListRequest& list) override {
        log << QStringLiteral("LIST %1 limit=%2%3")
                   .arg(rvText(list.rv, list.rvEmpty))
                   .arg(list.limit)
                   .arg(list.isRelist ? QStringLiteral(" relist") : QString());
    }
    void sendListPage(const ListPageRequest& page) override {
        if (page.isContinuePage())
            log << QStringLiteral("PAGE continue=%1 limit=%2")
                       .arg(QString::fromStdString(page.continueToken))
                       .arg(page.limit);
        else if (!log.isEmpty() && log.last().startsWith(QLatin1String("LIST ")))
            return; // the first page of the list just written down
        else
            log << QStringLiteral("FULL %1 limit=%2")
                       .arg(rvText(page.rv, page.rvEmpty))
                       .arg(page.limit);
    }
    void listed(ResourceVersion rv) override { log << QStringLiteral("LISTED %1").arg(rv); }
    void sendWatch(const WatchRequest& watch) override {
        lastTimeout = watch.timeoutSeconds;
        log << QStringLiteral("%1 %2").arg(watch.sendInitialEvents ? QStringLiteral("WATCHLIST")
                                                                   : QStringLiteral("WATCH"),
                                           rvText(watch.rv, watch.rvEmpty));
    }
    void resend() override { log << QStringLiteral("RESEND"); }
    void abandon() override {}
};

ApiStatus status(int code, const char* reason, const char* message = "") {
    ApiStatus s;
    s.code = code;
    s.reason = QLatin1String(reason);
    s.message = QLatin1String(message);
    return s;
}

// A reflector of one client-go release with its driver; `now` moves as the case says.
struct Rig {
    explicit Rig(const char* release) : rng(7), reflector({clientProfile(release)}, driver, rng) {}
    // Waits out whatever the reflector waits for: the time of its next request.
    TimeUs waitOut() {
        const TimeUs due = reflector.nextDue();
        if (due == kNoDeadline)
            qFatal("nothing due");
        const TimeUs waited = due - now;
        now = due;
        reflector.tick(now);
        return waited;
    }
    // A list of one page at `rv`, then its watch.
    void listAt(ResourceVersion rv) { reflector.pageReceived(rv, {}, now); }

    RecordingDriver driver;
    SeededRandom rng;
    Reflector reflector;
    TimeUs now = seconds(100);
};

} // namespace

class TestReflector : public QObject {
    Q_OBJECT
private slots:
    void pagedListThenWatchFromItsFirstPage() {
        Rig r("0.29");
        r.reflector.start(r.now);
        QCOMPARE(r.driver.take(), QStringLiteral("LIST 0 limit=500"));
        r.reflector.pageReceived(100, "t1", r.now);
        QVERIFY(r.reflector.onContinuePage());
        r.reflector.pageReceived(0, "t2", r.now);
        r.reflector.pageReceived(0, {}, r.now);
        // Continue pages carry no RV; the list is at its first page's.
        QCOMPARE(r.driver.take(), QStringLiteral("PAGE continue=t1 limit=500; PAGE continue=t2 "
                                                 "limit=500; LISTED 100; WATCH 100"));
        QCOMPARE(r.reflector.lastSyncRv(), ResourceVersion(100));
        QCOMPARE(r.reflector.stateName(), QStringLiteral("watching"));
        // Live events move the synced RV; a clean close re-watches from it at once.
        r.reflector.event(104, false);
        r.now += seconds(300);
        r.reflector.watchEnded(r.now);
        QCOMPARE(r.driver.take(), QStringLiteral("WATCH 104"));
        QCOMPARE(r.reflector.relists(), 0);
    }

    // client-go asks timeoutSeconds = int64(minWatchTimeout * (1 + rand)): whole seconds in
    // [300, 600).
    void watchTimeoutIsWholeSecondsFromFiveToTenMinutes() {
        Rig r("0.35");
        r.reflector.start(r.now);
        for (int i = 0; i < 200; ++i) {
            QVERIFY(r.driver.lastTimeout >= 300 && r.driver.lastTimeout < 600);
            r.now += seconds(400);
            r.reflector.watchEnded(r.now);
        }
    }

    // reflector.list: an Expired or too-large answer retries at once with RV="" on the same
    // pager, so an exact-RV relist (no limit, for the cache) retries without a limit too.
    void emptyRvRetryKeepsThePagersPageSize() {
        Rig r("0.29");
        r.reflector.start(r.now);
        r.listAt(100);
        r.driver.take();
        r.reflector.watchErrorEvent(status(410, "Expired", "too old resource version"), r.now);
        QCOMPARE(r.reflector.stateName(), QStringLiteral("backoff (relist)"));
        r.waitOut();
        r.reflector.listFailed(status(410, "Expired", "too old resource version"), r.now);
        QCOMPARE(r.driver.take(),
                 QStringLiteral("LIST 100 limit=0 relist; LIST \"\" limit=0 relist"));
        // A first list at "0" has pages of 500: its retry too.
        Rig first("0.29");
        first.reflector.start(first.now);
        first.reflector.listFailed(status(410, "Expired"), first.now);
        QCOMPARE(first.driver.take(), QStringLiteral("LIST 0 limit=500; LIST \"\" limit=500"));
    }

    // tools/pager: a 410 on a continue page ends the paging in one full list at the RV asked
    // for; an RV="0" list that came back in pages keeps every later list paged.
    void expiredContinuePageListsOnceInFull() {
        Rig r("0.29");
        r.reflector.start(r.now);
        r.reflector.pageReceived(100, "t1", r.now);
        QVERIFY(r.reflector.pagerRecovers(status(410, "Expired"), r.now));
        r.reflector.pageReceived(130, {}, r.now);
        QCOMPARE(r.driver.take(), QStringLiteral("LIST 0 limit=500; PAGE continue=t1 limit=500; "
                                                 "FULL 0 limit=0; LISTED 130; WATCH 130"));
        r.reflector.watchErrorEvent(status(410, "Expired"), r.now);
        r.waitOut();
        QCOMPARE(r.driver.take(), QStringLiteral("LIST 130 limit=500 relist"));
        // Not on the first page: the reflector's own rule, not the pager's.
        Rig f("0.29");
        f.reflector.start(f.now);
        QVERIFY(!f.reflector.pagerRecovers(status(410, "Expired"), f.now));
    }

    // Which 504 "Too large resource version" bodies a release recognises decides between a
    // retry loop on the same RV and a list at RV="" at once.
    void tooLargeResourceVersionPerRelease_data() {
        QTest::addColumn<QString>("release");
        QTest::addColumn<QString>("serverVersion");
        QTest::addColumn<bool>("recovers");
        QTest::newRow("0.18.5 vs 1.18.6 loops") << "0.18.5"
                                                << "1.18.6" << false;
        QTest::newRow("0.18.6 vs 1.18.6 recovers") << "0.18.6"
                                                   << "1.18.6" << true;
        QTest::newRow("0.18.6 vs 1.17 loops") << "0.18.6"
                                              << "1.17" << false;
        QTest::newRow("0.18.9 vs 1.17 recovers") << "0.18.9"
                                                 << "1.17" << true;
        QTest::newRow("0.22 vs 1.16 loops") << "0.22"
                                            << "1.16" << false;
        QTest::newRow("0.27 vs 1.16 recovers") << "0.27"
                                               << "1.16" << true;
    }
    void tooLargeResourceVersionPerRelease() {
        QFETCH(QString, release);
        QFETCH(QString, serverVersion);
        QFETCH(bool, recovers);
        Rig r(qPrintable(release));
        r.reflector.start(r.now);
        r.listAt(500);
        r.reflector.watchErrorEvent(status(410, "Expired"), r.now);
        r.waitOut();
        r.driver.take();
        const ApiStatus tooLarge =
            ApiStatus::tooLarge(serverProfile(qPrintable(serverVersion)), 500, 400);
        r.reflector.listFailed(tooLarge, r.now);
        if (recovers) {
            QCOMPARE(r.driver.take(), QStringLiteral("LIST \"\" limit=0 relist"));
            return;
        }
        QCOMPARE(r.driver.take(), QString());
        QCOMPARE(r.reflector.stateName(), QStringLiteral("backoff (relist)"));
        r.waitOut();
        QCOMPARE(r.driver.take(), QStringLiteral("LIST 500 limit=0 relist"));
    }

    // A watch-list client (0.35) starts every ListAndWatch with a watch-list; a server without
    // the feature (422) makes that ListAndWatch a LIST + WATCH, and the next one tries again.
    void watchListFallsBackForOneListAndWatch() {
        Rig r("0.35");
        r.reflector.start(r.now);
        QCOMPARE(r.driver.take(), QStringLiteral("WATCHLIST \"\""));
        const ApiStatus invalid = status(422, "Invalid", "sendInitialEvents is forbidden");
        QVERIFY(r.reflector.watchListFallsBackQuietly(invalid));
        r.reflector.watchRequestFailed(invalid, r.now);
        r.listAt(200);
        QCOMPARE(r.driver.take(), QStringLiteral("LIST 0 limit=500; LISTED 200; WATCH 200"));
        QVERIFY(!r.reflector.watchListFallsBackQuietly(invalid)); // a plain watch now
        r.reflector.watchErrorEvent(status(410, "Expired"), r.now);
        r.waitOut();
        QCOMPARE(r.driver.take(), QStringLiteral("WATCHLIST 200"));
        QCOMPARE(r.reflector.relists(), 1);
    }

    // reflector.watchList retries an Expired or too-large answer at once with RV="", every time
    // (the simulator used to back off after the first).
    void watchListRetriesExpiredAtOnceEveryTime() {
        Rig r("0.35");
        r.reflector.start(r.now);
        r.reflector.bookmark(300, true);
        r.reflector.watchErrorEvent(status(410, "Expired"), r.now);
        r.waitOut();
        QCOMPARE(r.driver.take(), QStringLiteral("WATCHLIST \"\"; WATCHLIST 300"));
        for (int i = 0; i < 3; ++i)
            r.reflector.watchErrorEvent(status(410, "Expired"), r.now);
        QCOMPARE(r.driver.take(), QStringLiteral("WATCHLIST \"\"; WATCHLIST \"\"; WATCHLIST \"\""));
        QCOMPARE(r.reflector.stateName(), QStringLiteral("initial events"));
        // A 429 backs off first (isWatchErrorRetriable), then watch-lists again.
        r.reflector.watchErrorEvent(ApiStatus::tooManyRequests(1), r.now);
        QCOMPARE(r.driver.take(), QString());
        r.waitOut();
        QCOMPARE(r.driver.take(), QStringLiteral("WATCHLIST \"\""));
    }

    // The initial events are the store only at the initial-events-end bookmark; bookmarks
    // before it do not move the synced RV.
    void watchListSyncsAtItsInitialEventsEnd() {
        Rig r("0.35");
        r.reflector.start(r.now);
        QVERIFY(r.reflector.awaitingInitialEnd());
        QCOMPARE(r.reflector.stateName(), QStringLiteral("initial events"));
        r.reflector.event(90, true);
        QVERIFY(!r.reflector.bookmark(95, false));
        QCOMPARE(r.reflector.lastSyncRv(), ResourceVersion(0));
        QVERIFY(!r.reflector.everSynced());
        QVERIFY(r.reflector.bookmark(120, true));
        QCOMPARE(r.reflector.lastSyncRv(), ResourceVersion(120));
        QVERIFY(r.reflector.everSynced());
        QCOMPARE(r.reflector.stateName(), QStringLiteral("watching"));
        // A watch-list that ended before its bookmark (not very short) opens again at once.
        Rig cut("0.35");
        cut.reflector.start(cut.now);
        cut.now += seconds(30);
        cut.reflector.watchEnded(cut.now);
        QCOMPARE(cut.driver.take(), QStringLiteral("WATCHLIST \"\"; WATCHLIST \"\""));
    }

    // rest.Request: a 429 with Retry-After is sent again after it, up to the release's limit;
    // the reflector sees only the answer after the last retry.
    void retryAfterResendsTheRequestInFlight() {
        Rig r("0.29");
        r.reflector.start(r.now);
        r.driver.take();
        int retries = 0;
        while (const auto wait = r.reflector.retryAfterAnswer(429, 2)) {
            QCOMPARE(*wait, seconds(2));
            r.reflector.resendAfter(*wait, r.now);
            QCOMPARE(r.reflector.stateName(), QStringLiteral("listing (Retry-After)"));
            QCOMPARE(r.waitOut(), seconds(2));
            ++retries;
        }
        QCOMPARE(retries, 10);
        QCOMPARE(r.driver.log.size(), 10);
        QVERIFY(r.driver.log.at(0) == QLatin1String("RESEND"));
        // A page the server answered is a new request: its own ten retries.
        r.driver.take();
        r.reflector.pageReceived(300, "t1", r.now);
        QVERIFY(r.reflector.retryAfterAnswer(429, 1));
        // No Retry-After: not retried.
        Rig plain("0.29");
        plain.reflector.start(plain.now);
        QVERIFY(!plain.reflector.retryAfterAnswer(429, std::nullopt));
        QVERIFY(!plain.reflector.retryAfterAnswer(200, 1));
    }

    // Up to 0.27 a re-watch waits on its own backoff (initConnBackoffManager); from 0.28 on the
    // one the relists used, which is already long after a few failed lists.
    void rewatchBackoffManagers_data() {
        QTest::addColumn<QString>("release");
        QTest::addColumn<bool>("shared");
        QTest::newRow("0.27 apart") << "0.27" << false;
        QTest::newRow("0.28 shared") << "0.28" << true;
    }
    void rewatchBackoffManagers() {
        QFETCH(QString, release);
        QFETCH(bool, shared);
        Rig r(qPrintable(release));
        r.reflector.start(r.now);
        // Three failed lists: 0.8 s, 1.6 s, 3.2 s (each up to twice that with jitter).
        for (int i = 0; i < 3; ++i) {
            r.reflector.listFailed(status(500, "InternalError"), r.now);
            r.waitOut();
        }
        r.listAt(700);
        r.reflector.watchRequestFailed(ApiStatus::connectionRefused(QStringLiteral("a")), r.now);
        QCOMPARE(r.reflector.stateName(), QStringLiteral("backoff (rewatch)"));
        const TimeUs wait = r.waitOut();
        if (shared)
            QVERIFY2(wait >= milliseconds(6400) && wait <= milliseconds(12800),
                     qPrintable(QString::number(wait)));
        else
            QVERIFY2(wait >= milliseconds(800) && wait <= milliseconds(1600),
                     qPrintable(QString::number(wait)));
        QVERIFY(r.driver.log.last() == QLatin1String("WATCH 700"));
    }

    // A watch that ends within a second without an event is an error: back off, relist.
    void veryShortWatchRelists() {
        Rig r("0.29");
        r.reflector.start(r.now);
        r.listAt(50);
        r.now += milliseconds(300);
        r.reflector.watchEnded(r.now);
        QCOMPARE(r.reflector.stateName(), QStringLiteral("backoff (relist)"));
        r.waitOut();
        QVERIFY(r.driver.log.last() == QLatin1String("LIST 50 limit=0 relist"));
    }

    // A 429 ERROR event re-watches from the last RV from 0.22; before, it relists.
    void tooManyRequestsEventPerRelease_data() {
        QTest::addColumn<QString>("release");
        QTest::addColumn<QString>("next");
        QTest::newRow("0.20 relists") << "0.20"
                                      << "LIST 60 limit=0 relist";
        QTest::newRow("0.22 re-watches") << "0.22"
                                         << "WATCH 60";
    }
    void tooManyRequestsEventPerRelease() {
        QFETCH(QString, release);
        QFETCH(QString, next);
        Rig r(qPrintable(release));
        r.reflector.start(r.now);
        r.listAt(60);
        r.now += seconds(5);
        r.reflector.watchErrorEvent(ApiStatus::tooManyRequests(1), r.now);
        r.waitOut();
        QCOMPARE(r.driver.log.last(), next);
    }

    // A process restart forgets what it synced: its first list is at "0" again.
    void restartForgetsTheSync() {
        Rig r("0.29");
        r.reflector.start(r.now);
        r.listAt(80);
        r.driver.take();
        r.reflector.restart(r.now);
        r.reflector.tick(r.now);
        QCOMPARE(r.driver.take(), QStringLiteral("LIST 0 limit=500"));
        QVERIFY(!r.reflector.everSynced());
    }
};

QTEST_GUILESS_MAIN(TestReflector)
#include "tst_reflector.moc"

// The watcher state rules (model/WatcherState.h) as the pipeline derives them from DetectorHub's
// observations, one script of observations per row for one watcher, with the state and the error
// count it must end in. Every source reaches these rules through the same observations, so the
// rows are the rules for the simulator, etcd, a cluster and a capture replay alike.
//
// Script: commands separated by ';', words by spaces.
//   at T                       set the time in seconds
//   list [relist]              listStarted          listed    listCompleted
//   lfail                      listFailed (500)     open [wl] [sel=S]   watchOpened (wl:
//   watch-list) ev [i]                     a watchResponse of one event (i: a synthetic initial
//   ADDED) prog [end]                 watchProgress (end: the initial-events-end bookmark) err
//   watchError (410)     close server|timeout|error|client|broken stop watcherStopped       pos RV
//   HEAD LAGSECONDS   watcherPosition
#include "detect/DetectorHub.h"
#include "model/KeyTable.h"
#include "model/WatcherState.h"

#include <QTest>

using namespace ws;

namespace {

struct Run {
    KeyTable keys;
    DetectorHub hub{keys};
    WatcherId w = -1;
    TimeUs now = 0;

    Run() {
        WatcherInfo info;
        info.id = QStringLiteral("informer-0");
        info.resource = QStringLiteral("pods");
        w = hub.registerWatcher(info);
    }

    // False with *error on a script it does not understand.
    bool play(const QString& script, QString* error) {
        const QStringList commands = script.split(QLatin1Char(';'), Qt::SkipEmptyParts);
        for (const QString& command : commands) {
            const QStringList words = command.simplified().split(QLatin1Char(' '));
            const QString& op = words.at(0);
            const auto has = [&](const char* word) { return words.contains(QLatin1String(word)); };
            if (op == QLatin1String("at")) {
                now = TimeUs(words.value(1).toDouble() * double(kUsPerSecond));
            } else if (op == QLatin1String("list")) {
                ListRequest r;
                r.isRelist = has("relist");
                hub.listStarted(w, now, r);
            } else if (op == QLatin1String("listed")) {
                hub.listCompleted(w, now, 100, 3);
            } else if (op == QLatin1String("lfail")) {
                ObservedStatus st;
                st.code = 500;
                hub.listFailed(w, now, st);
            } else if (op == QLatin1String("open")) {
                WatchRequest r;
                r.rv = 100;
                r.sendInitialEvents = has("wl");
                for (const QString& word : words)
                    if (word.startsWith(QLatin1String("sel=")))
                        r.selector = word.mid(4);
                hub.watchOpened(w, now, r);
            } else if (op == QLatin1String("ev")) {
                ObservedEvent e;
                e.type = WatchEventType::Added;
                e.key = keys.intern("/registry/pods/default/a");
                e.rv = 101;
                e.initial = has("i");
                hub.watchResponse(w, now, std::span<const ObservedEvent>(&e, 1));
            } else if (op == QLatin1String("prog")) {
                hub.watchProgress(w, now, 101, has("end"));
            } else if (op == QLatin1String("err")) {
                ObservedStatus st;
                st.code = 410;
                st.reason = QStringLiteral("Expired");
                hub.watchError(w, now, st);
            } else if (op == QLatin1String("close")) {
                const QString how = words.value(1);
                WatchCloseReason reason = WatchCloseReason::Broken;
                if (how == QLatin1String("server"))
                    reason = WatchCloseReason::ServerClosed;
                else if (how == QLatin1String("timeout"))
                    reason = WatchCloseReason::ClientTimeout;
                else if (how == QLatin1String("error"))
                    reason = WatchCloseReason::AfterError;
                else if (how == QLatin1String("client"))
                    reason = WatchCloseReason::ClientCancelled;
                else if (how != QLatin1String("broken"))
                    return fail(error, command);
                hub.watchClosed(w, now, reason);
            } else if (op == QLatin1String("stop")) {
                hub.watcherStopped(w, now);
            } else if (op == QLatin1String("pos")) {
                if (words.size() != 4)
                    return fail(error, command);
                hub.watcherPosition(w, now, words[1].toLongLong(), words[2].toLongLong(),
                                    words[3].toDouble());
            } else {
                return fail(error, command);
            }
        }
        return true;
    }
    static bool fail(QString* error, const QString& command) {
        *error = QStringLiteral("bad command: ") + command;
        return false;
    }
};

} // namespace

class TestWatcherState : public QObject {
    Q_OBJECT
private slots:
    void names();
    void rules_data();
    void rules();
    void selectorAndLookup();
    void thresholdsAreTheDetectors();
};

void TestWatcherState::names() {
    QStringList all;
    for (int i = 0; i < kWatcherStateCount; ++i) {
        const auto s = static_cast<WatcherState>(i);
        all << watcherStateName(s);
        WatcherState back = WatcherState::Live;
        QVERIFY(parseWatcherState(watcherStateName(s), &back));
        QCOMPARE(back, s);
    }
    QCOMPARE(all, (QStringList{QStringLiteral("listing"), QStringLiteral("syncing"),
                               QStringLiteral("live"), QStringLiteral("lagging"),
                               QStringLiteral("stuck"), QStringLiteral("relisting"),
                               QStringLiteral("backoff"), QStringLiteral("terminated")}));
    WatcherState unused = WatcherState::Live;
    QVERIFY(!parseWatcherState(QStringLiteral("watching"), &unused));
    QVERIFY(watcherStateIsTrouble(WatcherState::Stuck));
    QVERIFY(!watcherStateIsTrouble(WatcherState::Live));
}

void TestWatcherState::rules_data() {
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("state");
    QTest::addColumn<int>("errors");

    // The cycle.
    QTest::newRow("nothing observed yet: listing") << ""
                                                   << "listing" << 0;
    QTest::newRow("first list in flight") << "list"
                                          << "listing" << 0;
    QTest::newRow("list done, watch not open: syncing") << "list; listed"
                                                        << "syncing" << 0;
    QTest::newRow("watch open: live") << "list; listed; open"
                                      << "live" << 0;
    QTest::newRow("events flowing: live") << "list; listed; open; ev; ev"
                                          << "live" << 0;
    QTest::newRow("client timeout re-watches: stays live")
        << "list; listed; open; ev; close timeout; open"
        << "live" << 0;
    // Syncing: the initial events of a watch.
    QTest::newRow("watch-list waits for its bookmark") << "open wl; ev i; ev i"
                                                       << "syncing" << 0;
    QTest::newRow("watch-list: a plain bookmark is not the end") << "open wl; ev i; prog"
                                                                 << "syncing" << 0;
    QTest::newRow("watch-list: initial-events-end makes it live") << "open wl; ev i; prog end; ev"
                                                                  << "live" << 0;
    // A watch-list after a first sync is a relist, as a LIST then is.
    QTest::newRow("a watch-list after a sync: relisting")
        << "open wl; ev i; prog end; ev; err; close error; open wl; ev i"
        << "relisting" << 1;
    QTest::newRow("a watch-list relist: a plain bookmark is not the end")
        << "list; listed; open; close broken; open wl; ev i; prog"
        << "relisting" << 1;
    QTest::newRow("a watch-list relist ends at its initial-events-end bookmark")
        << "list; listed; open; close broken; open wl; ev i; prog end"
        << "live" << 1;
    QTest::newRow("a first watch-list that failed: its LIST is the first")
        << "open wl; ev i; err; close error; list"
        << "listing" << 1;
    QTest::newRow("RV=0 watch replaying synthetic ADDEDs") << "open; ev i; ev i"
                                                           << "syncing" << 0;
    QTest::newRow("RV=0 watch past its ADDEDs") << "open; ev i; ev"
                                                << "live" << 0;
    // Lagging: over 10 s behind, until back under 5 s.
    QTest::newRow("10 s behind is not over the threshold") << "list; listed; open; pos 100 120 10"
                                                           << "live" << 0;
    QTest::newRow("over 10 s behind: lagging") << "list; listed; open; pos 100 120 10.5"
                                               << "lagging" << 0;
    QTest::newRow("lagging until under half the threshold")
        << "list; listed; open; pos 100 120 12; at 1; pos 110 120 6"
        << "lagging" << 0;
    QTest::newRow("back under half: live")
        << "list; listed; open; pos 100 120 12; at 1; pos 119 120 4.9"
        << "live" << 0;
    // Stuck: RV unchanged 90 s while the head moved past it.
    QTest::newRow("RV unchanged 89 s while the head moves: not yet")
        << "list; listed; open; pos 100 100 0; at 89; pos 100 150 0"
        << "live" << 0;
    QTest::newRow("RV unchanged 90 s while the head moves: stuck")
        << "list; listed; open; pos 100 100 0; at 90; pos 100 150 0"
        << "stuck" << 0;
    QTest::newRow("stuck wins over lagging")
        << "list; listed; open; pos 100 100 0; at 95; pos 100 150 30"
        << "stuck" << 0;
    QTest::newRow("an idle resource is not stuck")
        << "list; listed; open; pos 100 100 0; at 200; pos 100 100 0"
        << "live" << 0;
    QTest::newRow("the head moved, but not past the watcher")
        << "list; listed; open; pos 100 90 0; at 200; pos 100 100 0"
        << "live" << 0;
    QTest::newRow("the RV moving again ends it")
        << "list; listed; open; pos 100 100 0; at 95; pos 100 150 0; at 96; pos 101 150 0"
        << "live" << 0;
    // Errors, backoff, relisting.
    QTest::newRow("a failed first list: backoff") << "list; lfail"
                                                  << "backoff" << 1;
    QTest::newRow("410 on the watch: backoff") << "list; listed; open; err; close error"
                                               << "backoff" << 1;
    QTest::newRow("after a 410 the list is a relist")
        << "list; listed; open; err; close error; list relist"
        << "relisting" << 1;
    QTest::newRow("a list after having listed is a relist even unmarked")
        << "list; listed; open; close broken; list"
        << "relisting" << 1;
    QTest::newRow("relisted and watching again: live")
        << "list; listed; open; err; close error; list relist; listed; open"
        << "live" << 1;
    QTest::newRow("a broken stream: backoff, one error") << "list; listed; open; close broken"
                                                         << "backoff" << 1;
    QTest::newRow("errors add up") << "list; lfail; list; lfail; list; listed; open; err"
                                   << "backoff" << 3;
    // Terminated.
    QTest::newRow("closed by the server without an ERROR: terminated, not an error")
        << "list; listed; open; ev; close server"
        << "terminated" << 0;
    QTest::newRow("terminated, then watching again") << "list; listed; open; close server; open"
                                                     << "live" << 0;
    QTest::newRow("cancelled by the client: terminated") << "list; listed; open; close client"
                                                         << "terminated" << 0;
    QTest::newRow("stopped for good: terminated") << "list; listed; open; stop"
                                                  << "terminated" << 0;
    QTest::newRow("stopped, then started again: relisting") << "list; listed; open; stop; list"
                                                            << "relisting" << 0;
    QTest::newRow("positions do not revive a terminated watcher")
        << "list; listed; open; close server; pos 100 120 30"
        << "terminated" << 0;
}

void TestWatcherState::rules() {
    QFETCH(QString, script);
    QFETCH(QString, state);
    QFETCH(int, errors);
    Run run;
    QString error;
    QVERIFY2(run.play(script, &error), qPrintable(error));
    const WatcherStatus status = run.hub.watcherStatus(run.w);
    QCOMPARE(watcherStateName(status.state), state);
    QCOMPARE(status.errors, errors);
}

void TestWatcherState::selectorAndLookup() {
    Run run;
    QString error;
    QVERIFY2(run.play(QStringLiteral("list; listed; open sel=spec.nodeName=node-2"), &error),
             qPrintable(error));
    QCOMPARE(run.hub.watcherStatus(run.w).selector, QStringLiteral("spec.nodeName=node-2"));
    QCOMPARE(run.hub.findWatcher(QStringLiteral("informer-0")), run.w);
    QCOMPARE(run.hub.findWatcher(QStringLiteral("nobody")), -1);
    // A second watcher has its own state.
    WatcherInfo other;
    other.id = QStringLiteral("informer-1");
    const WatcherId w2 = run.hub.registerWatcher(other);
    QCOMPARE(run.hub.findWatcher(QStringLiteral("informer-1")), w2);
    QCOMPARE(run.hub.watcherStatus(w2).state, WatcherState::Listing);
    QCOMPARE(run.hub.watcherStatus(run.w).state, WatcherState::Live);
}

void TestWatcherState::thresholdsAreTheDetectors() {
    // The state and the anomalies agree: lagging when watcher-lag is raised, stuck when
    // stuck-watcher is.
    KeyTable keys;
    DetectorHub hub(keys);
    QStringList raised;
    hub.setSink([&](const Anomaly& a) { raised << kindName(a.kind); });
    WatcherInfo info;
    info.id = QStringLiteral("w");
    const WatcherId w = hub.registerWatcher(info);
    hub.listStarted(w, 0, {});
    hub.listCompleted(w, 0, 100, 0);
    hub.watchOpened(w, 0, {});
    hub.watcherPosition(w, 0, 100, 100, 0);
    hub.watcherPosition(w, seconds(1), 100, 130, 10.5);
    QCOMPARE(hub.watcherStatus(w).state, WatcherState::Lagging);
    QCOMPARE(raised, QStringList{QStringLiteral("watcher-lag")});
    hub.watcherPosition(w, hub.thresholds().stuckWatcherAfter, 100, 150, 20);
    QCOMPARE(hub.watcherStatus(w).state, WatcherState::Stuck);
    QCOMPARE(raised, (QStringList{QStringLiteral("watcher-lag"), QStringLiteral("stuck-watcher")}));
    // A cluster without a head: neither lagging nor stuck, whatever came before.
    hub.watcherPosition(w, hub.thresholds().stuckWatcherAfter + seconds(1), 100, 0,
                        DetectorHub::kLagUnknown);
    QCOMPARE(hub.watcherStatus(w).state, WatcherState::Live);
}

QTEST_MAIN(TestWatcherState)
#include "tst_watcherstate.moc"

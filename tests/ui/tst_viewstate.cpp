// The window's view state without a window (ui/viewstate): pause/hold, which resource is shown
// and when it moves by itself, the charts' time window, the status texts, the scenario note.
// No widget is created: QTEST_GUILESS_MAIN.
#include "SyntheticCluster.h"
#include "viewstate/FollowPolicy.h"
#include "viewstate/ResourceFocus.h"
#include "viewstate/ScenarioNote.h"
#include "viewstate/SessionStatus.h"
#include "viewstate/ThrottledRefresh.h"
#include "viewstate/UpdateHold.h"

#include <QSignalSpy>
#include <QTest>

using namespace ws;
using namespace ws::test;

namespace {

Incident incident(qint64 id, qint64 count) {
    Incident i;
    i.id = id;
    i.kind = AnomalyKind::StaleObject;
    i.resource = QStringLiteral("pods");
    i.count = count;
    return i;
}

EngineUpdate withCaches(std::initializer_list<const char*> resources) {
    EngineUpdate u;
    for (const char* r : resources)
        u.caches.append(
            cache(QString::fromLatin1(r), QStringLiteral("apiserver-0"), 10, 10, 1, 10));
    return u;
}

} // namespace

class TestViewState : public QObject {
    Q_OBJECT
private slots:
    void holdMergesAndReleases();
    void holdIsBounded();
    void holdCountsWhatTheSessionDropped();
    void holdClearResumes();
    void focusDiscoversResources();
    void focusFollowsFirstAnomaly_data();
    void focusFollowsFirstAnomaly();
    void focusRestartStaysOnSharedResource();
    void focusSelectsSeveral();
    void followPolicySpans();
    void followPolicyFollow();
    void statusReadsMostImportantFirst();
    void statusTexts();
    void throttledRefreshLeadsAndTrails();
    void scenarioNoteReflows_data();
    void scenarioNoteReflows();
};

void TestViewState::holdMergesAndReleases() {
    UpdateHold hold;
    QSignalSpy paused(&hold, &UpdateHold::pausedChanged);
    hold.setPaused(true);
    hold.setPaused(true);
    QCOMPARE(paused.count(), 1);
    QVERIFY(hold.paused());

    EngineUpdate a;
    a.watchers = {watcher(QStringLiteral("w1"), QStringLiteral("pods"), 10),
                  watcher(QStringLiteral("w2"), QStringLiteral("pods"), 10)};
    a.caches = {cache(QStringLiteral("pods"), QStringLiteral("apiserver-0"), 10, 10, 1, 10)};
    a.incidents = {incident(1, 1), incident(2, 1)};
    a.anomalies = {anomaly(1, AnomalyKind::StaleObject, Severity::Error, QStringLiteral("pods"), 1,
                           QStringLiteral("w1"), QStringLiteral("a"))};
    EngineUpdate b;
    b.watchers = {watcher(QStringLiteral("w1"), QStringLiteral("pods"), 20)};
    b.incidents = {incident(3, 1), incident(1, 5)};
    b.anomalies = {anomaly(2, AnomalyKind::StaleObject, Severity::Error, QStringLiteral("pods"), 2,
                           QStringLiteral("w1"), QStringLiteral("b"))};
    hold.hold(a, 100, 10);
    hold.hold(b, 100, 10);
    QCOMPARE(hold.anomaliesHeld(), 2);
    QCOMPARE(hold.incidentsHeld(), 3);

    hold.setPaused(false);
    QCOMPARE(paused.count(), 2);
    UpdateHold::Released r = hold.release();
    QCOMPARE(r.missingAnomalies, 0);
    // Latest snapshot per watcher and cache; incidents latest, in the order first seen.
    QCOMPARE(r.update.watchers.size(), 2);
    for (const WatcherSnapshot& w : r.update.watchers)
        QCOMPARE(w.rv, w.id == QLatin1String("w1") ? 20 : 10);
    QCOMPARE(r.update.caches.size(), 1);
    QCOMPARE(r.update.incidents.size(), 3);
    QCOMPARE(r.update.incidents[0].id, 1);
    QCOMPARE(r.update.incidents[0].count, 5);
    QCOMPARE(r.update.incidents[2].id, 3);
    QCOMPARE(r.update.anomalies.size(), 2);
    QCOMPARE(r.update.anomalies[1].message, QStringLiteral("b"));
    // Released once: nothing is left.
    QCOMPARE(hold.anomaliesHeld(), 0);
    QVERIFY(hold.release().update.incidents.isEmpty());
}

void TestViewState::holdIsBounded() {
    UpdateHold hold;
    hold.setPaused(true);
    qint64 rv = 1;
    for (int u = 0; u < 50; ++u) {
        EngineUpdate e;
        for (int i = 0; i < 20; ++i, ++rv)
            e.anomalies.append(anomaly(seconds(u), AnomalyKind::StaleObject, Severity::Error,
                                       QStringLiteral("pods"), rv, QStringLiteral("w"),
                                       QString::number(rv)));
        hold.hold(e, 100, 10);
        QVERIFY2(hold.anomaliesInMemory() <= 100 + 10 + 20, qPrintable(QString::number(u)));
    }
    QCOMPARE(hold.anomaliesHeld(), 1000);
    const UpdateHold::Released r = hold.release();
    // The newest are kept, the count of the others says where they go.
    QCOMPARE(r.missingAnomalies + r.update.anomalies.size(), 1000);
    QCOMPARE(r.update.anomalies.constLast().rv, 1000);
    QCOMPARE(r.update.anomalies.constFirst().rv, r.missingAnomalies + 1);
}

void TestViewState::holdCountsWhatTheSessionDropped() {
    // A paused window that the session also had to drop anomalies for (it merged updates the
    // window did not take): those held before the gap count as missing too, so the list shows
    // a run of consecutive anomalies after a counted gap.
    UpdateHold hold;
    hold.setPaused(true);
    EngineUpdate first;
    for (qint64 rv = 1; rv <= 3; ++rv)
        first.anomalies.append(anomaly(seconds(1), AnomalyKind::StaleObject, Severity::Error,
                                       QStringLiteral("pods"), rv, QStringLiteral("w"), {}));
    hold.hold(first, 100, 10);
    EngineUpdate second;
    second.missingAnomalies = 5; // rvs 4..8, dropped by the session
    for (qint64 rv = 9; rv <= 10; ++rv)
        second.anomalies.append(anomaly(seconds(2), AnomalyKind::StaleObject, Severity::Error,
                                        QStringLiteral("pods"), rv, QStringLiteral("w"), {}));
    hold.hold(second, 100, 10);
    QCOMPARE(hold.anomaliesHeld(), 10);
    const UpdateHold::Released r = hold.release();
    QCOMPARE(r.missingAnomalies, 8);
    QCOMPARE(r.update.anomalies.size(), 2);
    QCOMPARE(r.update.anomalies.constFirst().rv, 9);
}

void TestViewState::holdClearResumes() {
    UpdateHold hold;
    hold.setPaused(true);
    hold.hold(withCaches({"pods"}), 100, 10);
    QSignalSpy paused(&hold, &UpdateHold::pausedChanged);
    hold.clear();
    QVERIFY(!hold.paused());
    QCOMPARE(paused.count(), 1);
    QVERIFY(hold.release().update.caches.isEmpty());
}

void TestViewState::focusSelectsSeveral() {
    // The resource tree picks several resources (or a group's): the charts show the first, the
    // tables all of them.
    ResourceFocus focus;
    focus.offer({QStringLiteral("pods"), QStringLiteral("configmaps"), QStringLiteral("leases")});
    QCOMPARE(focus.selection(), QStringList({QStringLiteral("pods")}));
    QSignalSpy current(&focus, &ResourceFocus::currentChanged);
    QSignalSpy selection(&focus, &ResourceFocus::selectionChanged);
    focus.choose(QStringList{QStringLiteral("configmaps"), QStringLiteral("nodes"),
                             QStringLiteral("leases")});
    QVERIFY(focus.picked());
    QCOMPARE(focus.current(), QStringLiteral("configmaps"));
    // Unknown ones are left out.
    QCOMPARE(focus.selection(),
             QStringList({QStringLiteral("configmaps"), QStringLiteral("leases")}));
    QCOMPARE(current.count(), 1);
    QCOMPARE(selection.count(), 1);
    // The same first one, another set: only the selection changes.
    focus.choose(QStringList{QStringLiteral("configmaps"), QStringLiteral("pods")});
    QCOMPARE(current.count(), 1);
    QCOMPARE(selection.count(), 2);
    QCOMPARE(selection.last().at(0).toStringList(),
             QStringList({QStringLiteral("configmaps"), QStringLiteral("pods")}));
    // Showing one (an anomaly's resource, the chooser) narrows the selection to it.
    focus.show(QStringLiteral("configmaps"));
    QCOMPARE(focus.selection(), QStringList({QStringLiteral("configmaps")}));
    QCOMPARE(current.count(), 1);
    QCOMPARE(selection.count(), 3);
    // None known: nothing happens.
    focus.choose(QStringList{QStringLiteral("nodes")});
    QCOMPARE(focus.current(), QStringLiteral("configmaps"));
    QCOMPARE(selection.count(), 3);
    focus.clear();
    QVERIFY(focus.selection().isEmpty());
}

void TestViewState::focusDiscoversResources() {
    ResourceFocus focus;
    QSignalSpy added(&focus, &ResourceFocus::resourceAdded);
    QSignalSpy current(&focus, &ResourceFocus::currentChanged);
    focus.note(withCaches({"pods", "configmaps"}));
    EngineUpdate u;
    u.watchers = {watcher(QStringLiteral("w"), QStringLiteral("leases"), 1)};
    u.series = {delta(QStringLiteral("pods"), QStringLiteral("head_rv"), {{1, 1}}),
                delta(QStringLiteral("events"), QStringLiteral("head_rv"), {{1, 1}})};
    focus.note(u);
    QCOMPARE(focus.resources(), QStringList({QStringLiteral("pods"), QStringLiteral("configmaps"),
                                             QStringLiteral("leases"), QStringLiteral("events")}));
    QCOMPARE(added.count(), 4);
    // The first one known is shown, once.
    QCOMPARE(focus.current(), QStringLiteral("pods"));
    QCOMPARE(current.count(), 1);
    // Showing is not picking; an unknown resource is not shown.
    focus.show(QStringLiteral("leases"));
    QVERIFY(!focus.picked());
    focus.show(QStringLiteral("nodes"));
    QCOMPARE(focus.current(), QStringLiteral("leases"));
    focus.choose(QStringLiteral("configmaps"));
    QVERIFY(focus.picked());
    QCOMPARE(focus.current(), QStringLiteral("configmaps"));
    QCOMPARE(current.count(), 3);
    QSignalSpy cleared(&focus, &ResourceFocus::cleared);
    focus.clear();
    QCOMPARE(cleared.count(), 1);
    QVERIFY(focus.resources().isEmpty());
    QVERIFY(focus.current().isEmpty());
    QVERIFY(!focus.picked());
}

void TestViewState::focusFollowsFirstAnomaly_data() {
    QTest::addColumn<QString>("picked"); // what the reader chose before the anomaly ("": nothing)
    QTest::addColumn<QString>("anomalyResource");
    QTest::addColumn<int>("severity");
    QTest::addColumn<QString>("shown");
    QTest::addColumn<QString>("moved"); // followFirstAnomaly's answer
    QTest::addColumn<bool>("followed");
    const int error = int(Severity::Error), info = int(Severity::Info);
    QTest::newRow("nothing picked: moves") << ""
                                           << "configmaps" << error << "configmaps"
                                           << "configmaps" << true;
    QTest::newRow("nothing picked, same resource") << ""
                                                   << "pods" << error << "pods"
                                                   << "" << true;
    QTest::newRow("picked: stays") << "pods"
                                   << "configmaps" << error << "pods"
                                   << "" << false;
    QTest::newRow("unknown resource: stays") << ""
                                             << "leases" << error << "pods"
                                             << "" << false;
    QTest::newRow("info: stays") << ""
                                 << "configmaps" << info << "pods"
                                 << "" << false;
}

void TestViewState::focusFollowsFirstAnomaly() {
    QFETCH(QString, picked);
    QFETCH(QString, anomalyResource);
    QFETCH(int, severity);
    QFETCH(QString, shown);
    QFETCH(QString, moved);
    QFETCH(bool, followed);
    ResourceFocus focus;
    focus.offer({QStringLiteral("pods"), QStringLiteral("configmaps")});
    if (!picked.isEmpty())
        focus.choose(picked);
    const AnomalyList first{anomaly(seconds(2), AnomalyKind::TooLargeRv, Severity(severity),
                                    anomalyResource, 95, QStringLiteral("agent-0"),
                                    QStringLiteral("504"))};
    QCOMPARE(focus.followFirstAnomaly(first), moved);
    QCOMPARE(focus.current(), shown);
    QCOMPARE(focus.followedFirstAnomaly(), followed);
    // Only once: a later warning elsewhere leaves the view alone.
    const QString elsewhere =
        shown == QLatin1String("pods") ? QStringLiteral("configmaps") : QStringLiteral("pods");
    const AnomalyList later{anomaly(seconds(3), AnomalyKind::WatcherLag, Severity::Warning,
                                    elsewhere, 90, QStringLiteral("informer-0"),
                                    QStringLiteral("lag"))};
    const QString second = focus.followFirstAnomaly(later);
    QCOMPARE(focus.current(), followed || !picked.isEmpty() ? shown : elsewhere);
    QCOMPARE(second.isEmpty(), followed || !picked.isEmpty());
}

void TestViewState::focusRestartStaysOnSharedResource() {
    ResourceFocus focus;
    focus.offer({QStringLiteral("pods"), QStringLiteral("configmaps")});
    focus.choose(QStringLiteral("configmaps"));
    QSignalSpy current(&focus, &ResourceFocus::currentChanged);
    // The new session has it too: straight there, no detour through its first resource.
    focus.restart({QStringLiteral("leases"), QStringLiteral("configmaps")});
    QCOMPARE(current.count(), 1);
    QCOMPARE(focus.current(), QStringLiteral("configmaps"));
    QVERIFY(!focus.picked()); // a new session: it may move by itself again
    QCOMPARE(focus.resources(),
             QStringList({QStringLiteral("leases"), QStringLiteral("configmaps")}));
    // It does not: its first one.
    focus.restart({QStringLiteral("nodes"), QStringLiteral("pods")});
    QCOMPARE(focus.current(), QStringLiteral("nodes"));
    focus.restart({});
    QVERIFY(focus.current().isEmpty());
}

void TestViewState::followPolicySpans() {
    FollowPolicy policy;
    QCOMPARE(policy.spanSeconds(), 60.0);
    QCOMPARE(policy.spanIndex(), FollowPolicy::kDefaultSpanIndex);
    QCOMPARE(policy.spanLabel(), QStringLiteral("1 min"));
    QSignalSpy span(&policy, &FollowPolicy::spanChanged);
    policy.setSpan(37.2); // a wheel zoom, between presets
    QCOMPARE(policy.spanIndex(), -1);
    QCOMPARE(policy.spanLabel(), QStringLiteral("37 s"));
    policy.setSpan(37.2);
    QCOMPARE(span.count(), 1);
    policy.setSpan(0.01); // clamped as the charts clamp it
    QCOMPARE(policy.spanSeconds(), 1.0);
    policy.setSpan(1e9);
    QCOMPARE(policy.spanSeconds(), 24 * 3600.0);
    policy.setSpan(300);
    QCOMPARE(policy.spanLabel(), QStringLiteral("5 min"));
    QCOMPARE(FollowPolicy::spanChoices().size(), 5);
}

void TestViewState::followPolicyFollow() {
    FollowPolicy policy;
    QVERIFY(policy.followLive());
    QSignalSpy follow(&policy, &FollowPolicy::followLiveChanged);
    policy.setFollowLive(false); // parked on a selected anomaly
    policy.setFollowLive(false);
    QCOMPARE(follow.count(), 1);
    policy.setSpan(10);
    policy.restart(); // a new session follows again; the span stays
    QVERIFY(policy.followLive());
    QCOMPARE(policy.spanSeconds(), 10.0);
    QCOMPARE(follow.count(), 2);
}

void TestViewState::statusReadsMostImportantFirst() {
    SessionStatus status;
    QSignalSpy changed(&status, &SessionStatus::changed);
    QCOMPARE(status.stateText(), QStringLiteral("Waiting for data"));
    EngineUpdate u;
    u.now = seconds(2);
    status.noteArrived(u);
    QCOMPARE(status.stateText(), QStringLiteral("Waiting for data")); // arrived, not shown yet
    status.noteShown();
    QCOMPARE(status.stateText(), QStringLiteral("Live"));
    u.sourceState = QStringLiteral("Reconnecting to http://a:2379");
    status.noteArrived(u);
    QCOMPARE(status.stateText(), QStringLiteral("Reconnecting to http://a:2379"));
    status.setPaused(true);
    QCOMPARE(status.stateText(), QStringLiteral("View paused"));
    status.setHeld(12);
    QCOMPARE(status.stateText(), QStringLiteral("View paused — 12 new anomalies held"));
    status.finish(); // while paused: the pause is what the reader must know first
    QVERIFY(status.stateText().startsWith(QStringLiteral("View paused")));
    status.setPaused(false);
    QCOMPARE(status.stateText(), QStringLiteral("Finished"));
    QVERIFY(!status.isError());
    status.setPaused(true);
    status.fail(QStringLiteral("etcd unreachable"));
    QCOMPARE(status.stateText(), QStringLiteral("Failed: etcd unreachable"));
    QVERIFY(status.isError());
    QCOMPARE(status.lastError(), QStringLiteral("etcd unreachable"));
    QVERIFY(changed.count() >= 8);
    status.noteStale();
    QCOMPARE(status.staleUpdates(), 1);
    QCOMPARE(status.updatesApplied(), 2);
    status.reset();
    QCOMPARE(status.stateText(), QStringLiteral("Waiting for data"));
    QVERIFY(!status.isError());
    QVERIFY(status.lastError().isEmpty());
    QCOMPARE(status.updatesApplied(), 0);
    QCOMPARE(status.staleUpdates(), 0);
    QVERIFY(!status.paused());
}

void TestViewState::statusTexts() {
    SessionStatus status;
    QCOMPARE(status.timeText(), QStringLiteral("t = 0.0 s"));
    QCOMPARE(status.eventsText(), QStringLiteral("events 0"));
    QCOMPARE(status.rateText(), QStringLiteral("0 events/s"));
    EngineUpdate u;
    u.now = milliseconds(12345);
    u.totalEvents = 1234567;
    u.eventsPerSecond = 4321.6;
    status.noteArrived(u);
    QCOMPARE(status.timeText(), QStringLiteral("t = 12.3 s"));
    QCOMPARE(status.eventsText(), QStringLiteral("events 1,234,567"));
    QCOMPARE(status.rateText(), QStringLiteral("4,322 events/s"));
}

void TestViewState::scenarioNoteReflows_data() {
    QTest::addColumn<QString>("note");
    QTest::addColumn<QString>("text");
    QTest::newRow("headings start paragraphs")
        << "What happens: a cacher\nfalls behind.\nWhat to do: upgrade\netcd."
        << "What happens: a cacher falls behind.\n\nWhat to do: upgrade etcd.";
    QTest::newRow("a colon late in a line is not a heading")
        << "The cacher retries from its last RV when the event says: gone\nagain."
        << "The cacher retries from its last RV when the event says: gone again.";
    QTest::newRow("blank line ends a paragraph") << "  First part\n\n\nsecond part  \n"
                                                 << "First part\n\nsecond part";
    QTest::newRow("lower-case label is text") << "one\nnote: two"
                                              << "one note: two";
    QTest::newRow("empty") << ""
                           << "";
}

void TestViewState::scenarioNoteReflows() {
    QFETCH(QString, note);
    QFETCH(QString, text);
    QCOMPARE(reflowScenarioNote(note), text);
}

void TestViewState::throttledRefreshLeadsAndTrails() {
    int runs = 0;
    ThrottledRefresh refresh(50, [&] { ++runs; });
    refresh.request(); // idle: at once
    QCOMPARE(runs, 1);
    for (int i = 0; i < 10; ++i)
        refresh.request(); // within the interval: folded into one, at its end
    QCOMPARE(runs, 1);
    QVERIFY(refresh.pending());
    QTRY_COMPARE(runs, 2);
    QVERIFY(!refresh.pending());
    QTest::qWait(120); // two intervals with no request: nothing runs
    QCOMPARE(runs, 2);
    refresh.request(); // idle again: at once
    QCOMPARE(runs, 3);
}

QTEST_GUILESS_MAIN(TestViewState)
#include "tst_viewstate.moc"

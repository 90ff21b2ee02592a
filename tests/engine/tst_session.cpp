// The one session code every source runs on: the pipeline fed by several sources at once, the
// resource filter, updates at most ~30 a second produced off the GUI thread and merged when the
// GUI falls behind, prompt and non-blocking stops.
#include "engine/Session.h"
#include "sources/SourceFactory.h"
#include "sources/sim/SimSource.h"
#include "sources/sim/Simulation.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <atomic>

using namespace ws;

namespace {

ScenarioSourceSpec scenario(const QString& name, double speed = 0) {
    ScenarioSourceSpec s;
    s.scenario = name;
    s.speed = speed;
    return s;
}

std::unique_ptr<Session> makeSession(std::vector<std::unique_ptr<Source>> sources,
                                     PipelineOptions options = {}) {
    return std::make_unique<Session>(std::move(sources), std::move(options));
}

std::vector<std::unique_ptr<Source>> one(std::unique_ptr<Source> s) {
    std::vector<std::unique_ptr<Source>> v;
    v.push_back(std::move(s));
    return v;
}

// A simulator that notes which thread polls it.
class ThreadNotingSource : public SimSource {
public:
    using SimSource::SimSource;
    TimeUs poll(Pipeline& p) override {
        pollThread = QThread::currentThread();
        return SimSource::poll(p);
    }
    std::atomic<QThread*> pollThread{nullptr};
};

} // namespace

class TestSession : public QObject {
    Q_OBJECT
private slots:
    void publishesBatchedUpdatesFromAnEngineThread() {
        auto source =
            std::make_unique<ThreadNotingSource>(scenario(QStringLiteral("healthy")), seconds(400));
        ThreadNotingSource* probe = source.get();
        auto session = makeSession(one(std::move(source)));
        qint64 updates = 0, samples = 0;
        TimeUs lastNow = -1;
        bool monotonic = true;
        QThread* deliveredOn = nullptr;
        connect(session.get(), &Session::updated, this, [&](const EngineUpdate& u) {
            ++updates;
            deliveredOn = QThread::currentThread();
            monotonic = monotonic && u.now >= lastNow;
            lastNow = u.now;
            for (const auto& s : u.series)
                samples += s.points.size();
        });
        QSignalSpy finished(session.get(), &Session::finished);
        QElapsedTimer wall;
        wall.start();
        session->start();
        QVERIFY(finished.wait(60000));
        QCoreApplication::processEvents();
        const double elapsedS = double(wall.elapsed()) / 1000.0;
        QVERIFY(probe->pollThread.load() && probe->pollThread.load() != QThread::currentThread());
        QCOMPARE(deliveredOn, QThread::currentThread()); // delivered to the owner's thread
        QVERIFY(updates >= 1);
        QVERIFY2(double(updates) <= 31.0 * elapsedS + 2,
                 qPrintable(QStringLiteral("%1 updates in %2 s").arg(updates).arg(elapsedS)));
        QVERIFY(monotonic);
        QCOMPARE(lastNow, seconds(400)); // the final update arrives
        QVERIFY(samples > 100000);       // every sample reaches the GUI, batched
    }

    void updatesMergeWhenTheGuiFallsBehind() {
        auto session = makeSession(one(std::make_unique<SimSource>(
            scenario(QStringLiteral("cacher-retry-stale-object")), std::nullopt)));
        QString error;
        QVERIFY2(session->prepare(&error), qPrintable(error));
        std::atomic<qint64> appended{0}; // every sample the pipeline's timeline took
        session->pipeline().timeline().addListener([&](SeriesId, TimeUs, double) { ++appended; });
        qint64 updates = 0, anomalies = 0, samples = 0;
        bool sawFinished = false;
        connect(session.get(), &Session::updated, this, [&](const EngineUpdate& u) {
            ++updates;
            anomalies += u.anomalies.size();
            sawFinished = sawFinished || u.finished;
            for (const auto& s : u.series)
                samples += s.points.size();
        });
        session->start();
        // The GUI thread is busy (no events processed) for the whole run.
        QElapsedTimer busy;
        busy.start();
        while (session->running() && busy.elapsed() < 60000)
            QThread::msleep(20);
        QVERIFY(!session->running());
        QTRY_VERIFY(sawFinished);
        QVERIFY2(updates <= 2, qPrintable(QString::number(updates))); // merged, not piled up
        QVERIFY(anomalies > 100);
        QCOMPARE(anomalies, qint64(session->anomalies().size())); // none dropped
        QCOMPARE(samples, appended.load());                       // none dropped
    }

    void mergeKeepsEverythingAndTheLatestSnapshots() {
        EngineUpdate a;
        a.now = 1;
        a.totalEvents = 10;
        WatcherSnapshot w;
        w.id = QStringLiteral("w");
        a.watchers = {w};
        a.anomalies = {Anomaly{}};
        a.series = {
            SeriesDelta{QStringLiteral("pods"), QStringLiteral("head_rv"), {QPointF(1, 1)}}};
        SourceRevisionAccount older{QStringLiteral("etcd watch"), {}};
        older.account.begin(5);
        older.account.noteHead(9);
        a.accounts = {older};
        EngineUpdate b;
        b.now = 2;
        b.totalEvents = 20;
        b.finished = true;
        SourceRevisionAccount newer = older;
        newer.account.seen(RevisionRange{5, 9});
        b.accounts = {newer};
        b.anomalies = {Anomaly{}, Anomaly{}};
        b.series = {
            SeriesDelta{QStringLiteral("pods"), QStringLiteral("head_rv"), {QPointF(2, 2)}},
            SeriesDelta{QStringLiteral("pods"), QStringLiteral("cache_rv"), {QPointF(2, 1)}}};
        mergeUpdate(a, std::move(b));
        QCOMPARE(a.now, TimeUs(2));
        QCOMPARE(a.totalEvents, qint64(20));
        QVERIFY(a.finished);
        QVERIFY(a.watchers.isEmpty());  // the newer snapshot wins, even an empty one
        QCOMPARE(a.accounts.size(), 1); // the accounts are a snapshot too: the newer one's
        QVERIFY(a.accounts[0].account.balanced());
        QCOMPARE(a.accounts[0].account.seenCount(), std::int64_t(5));
        QCOMPARE(a.anomalies.size(), 3);
        QCOMPARE(a.series.size(), 2);
        QCOMPARE(a.series[0].points.size(), 2);
        QCOMPARE(a.series[0].points[1], QPointF(2, 2));
    }

    void twoSourcesFeedOnePipeline() {
        std::vector<std::unique_ptr<Source>> sources;
        sources.push_back(
            std::make_unique<SimSource>(scenario(QStringLiteral("healthy")), seconds(60)));
        sources.push_back(std::make_unique<SimSource>(scenario(QStringLiteral("too-large-rv-loop")),
                                                      std::nullopt));
        auto session = makeSession(std::move(sources));
        QSet<QString> resourcesInOneUpdate;
        QSet<QString> anomalyKinds;
        QString error;
        QVERIFY2(session->runHere(
                     [&](const EngineUpdate& u) {
                         QSet<QString> r;
                         for (const auto& w : u.watchers)
                             r.insert(w.resource);
                         if (r.size() > resourcesInOneUpdate.size())
                             resourcesInOneUpdate = r;
                         for (const auto& a : u.anomalies)
                             anomalyKinds.insert(kindName(a.kind));
                     },
                     &error),
                 qPrintable(error));
        // Both clusters' watchers in one EngineUpdate ...
        QVERIFY(resourcesInOneUpdate.contains(QStringLiteral("pods")));           // healthy
        QVERIFY(resourcesInOneUpdate.contains(QStringLiteral("runtimeclasses"))); // the loop
        // ... and both sources' observations in the one hub.
        auto& first = static_cast<SimSource*>(session->source(0))->simulation();
        auto& second = static_cast<SimSource*>(session->source(1))->simulation();
        QCOMPARE(session->pipeline().hub().watcherCount(),
                 int(first.watcherSnapshots().size() + second.watcherSnapshots().size()));
        QVERIFY(anomalyKinds.contains(QStringLiteral("retry-loop")));
        QVERIFY(anomalyKinds.contains(QStringLiteral("too-large-rv")));
        QCOMPARE(session->description(),
                 QStringLiteral("scenario healthy, seed 1, speed max; scenario too-large-rv-loop, "
                                "seed 2, speed max"));
    }

    void resourceFilterAppliesToEverything() {
        SourceSpec spec;
        spec.scenario = scenario(QStringLiteral("too-large-rv-loop"));
        spec.resources = {QStringLiteral("configmaps")};
        QString error;
        auto session = Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error);
        QVERIFY2(session, qPrintable(error));
        QCOMPARE(session->resources(), QStringList{QStringLiteral("configmaps")});
        QSet<QString> seen;
        qint64 anomalies = 0;
        QVERIFY(session->runHere(
            [&](const EngineUpdate& u) {
                for (const auto& s : u.series)
                    seen.insert(s.resource);
                for (const auto& c : u.caches)
                    seen.insert(c.resource);
                for (const auto& w : u.watchers)
                    seen.insert(w.resource);
                for (const auto& a : u.anomalies) {
                    ++anomalies;
                    if (!a.resource.isEmpty())
                        seen.insert(a.resource);
                }
            },
            &error));
        QCOMPARE(seen, QSet<QString>{QStringLiteral("configmaps")});
        // The scenario's incident is on runtimeclasses: filtered out entirely.
        QCOMPARE(anomalies, qint64(0));
    }

    void perResourceEventCounters() {
        // Every update says, per resource, how many events it had so far (ResourceSnapshot):
        // for the simulator, the revisions written to its keys, which add up to the writes.
        SourceSpec spec;
        spec.scenario = scenario(QStringLiteral("too-large-rv-loop"));
        spec.duration = seconds(20);
        QString error;
        auto session = Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error);
        QVERIFY2(session, qPrintable(error));
        QHash<QString, qint64> last;
        qint64 total = 0;
        bool monotonic = true;
        QVERIFY2(session->runHere(
                     [&](const EngineUpdate& u) {
                         for (const ResourceSnapshot& r : u.resources) {
                             monotonic = monotonic && r.events >= last.value(r.resource, 0);
                             last[r.resource] = r.events;
                         }
                         total = u.totalEvents;
                     },
                     &error),
                 qPrintable(error));
        QVERIFY(monotonic);
        QCOMPARE(QSet<QString>(last.keyBegin(), last.keyEnd()),
                 QSet<QString>({QStringLiteral("configmaps"), QStringLiteral("runtimeclasses")}));
        // configmaps change 50 times a second; runtimeclasses are quiet.
        QVERIFY2(last.value(QStringLiteral("configmaps")) > 500,
                 qPrintable(QString::number(last.value(QStringLiteral("configmaps")))));
        QVERIFY(last.value(QStringLiteral("runtimeclasses")) <
                last.value(QStringLiteral("configmaps")) / 10);
        QCOMPARE(last.value(QStringLiteral("configmaps")) +
                     last.value(QStringLiteral("runtimeclasses")),
                 total);

        // The resource filter keeps only the chosen resources' counters.
        spec.resources = {QStringLiteral("runtimeclasses")};
        session = Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error);
        QVERIFY2(session, qPrintable(error));
        QSet<QString> seen;
        QVERIFY(session->runHere(
            [&](const EngineUpdate& u) {
                for (const ResourceSnapshot& r : u.resources)
                    seen.insert(r.resource);
            },
            &error));
        QCOMPARE(seen, QSet<QString>{QStringLiteral("runtimeclasses")});
    }

    void mergeKeepsTheNewerResourceCounters() {
        EngineUpdate a;
        a.resources = {ResourceSnapshot{QStringLiteral("pods"), 10}};
        EngineUpdate b;
        b.resources = {ResourceSnapshot{QStringLiteral("pods"), 25}};
        mergeUpdate(a, std::move(b));
        QCOMPARE(a.resources.size(), 1);
        QCOMPARE(a.resources[0].events, qint64(25));
    }

    void unknownResourceIsBadInput() {
        SourceSpec spec;
        spec.resources = {QStringLiteral("secrets")};
        QString error;
        QVERIFY(!Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error));
        QVERIFY2(
            error.startsWith(QStringLiteral("--resources: scenario has no resource 'secrets'")),
            qPrintable(error));
    }

    void badScenarioFails() {
        auto session = makeSession(one(
            std::make_unique<SimSource>(scenario(QStringLiteral("does-not-exist")), std::nullopt)));
        QSignalSpy failed(session.get(), &Session::failed);
        session->start();
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("unknown scenario")));
    }

    void stopIsPrompt() {
        auto session = makeSession(one(
            std::make_unique<SimSource>(scenario(QStringLiteral("healthy"), 1.0), std::nullopt)));
        session->start();
        QTest::qWait(200);
        QElapsedTimer t;
        t.start();
        session->stop();
        QVERIFY(t.elapsed() < 1000);
    }

    void stopLaterNeverWaits() {
        auto* session = makeSession(one(std::make_unique<SimSource>(
                                        scenario(QStringLiteral("healthy"), 1.0), std::nullopt)))
                            .release();
        QPointer<Session> watch(session);
        session->start();
        QTest::qWait(100);
        QElapsedTimer t;
        t.start();
        session->stopLater();
        QVERIFY(t.elapsed() < 50);
        QTRY_VERIFY_WITH_TIMEOUT(watch.isNull(), 5000); // it deleted itself once stopped
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"

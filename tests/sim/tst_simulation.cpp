#include "scenario/ScenarioLoader.h"
#include "sim/ScenarioRun.h"
#include "sources/sim/Simulation.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ws;

namespace {

AnomalyList runToEnd(const QString& scenario, std::uint64_t seed,
                     std::optional<TimeUs> duration = {}) {
    return test::runScenarioToEnd(scenario, seed, duration).anomalies;
}

QString describe(const AnomalyList& list) {
    QStringList lines;
    for (const auto& a : list)
        lines << QStringLiteral("%1 %2 %3 %4")
                     .arg(a.time)
                     .arg(kindName(a.kind), a.watcher, a.message);
    return lines.join('\n');
}

// A cluster whose single cacher watch stream is slower than the write rate, with compaction
// racing it: the machinery produces PrevKv=nil and what follows from it.
const char* kStarvedYaml = R"(
name: starved-test
description: test scenario
explanation: test
duration: 90s
etcd:
  compactionInterval: 10s
  streamEventsPerSecond: 150
server:
  version: "1.24"
resources:
  - name: configmaps
    objects: 50
    writesPerSecond: 200
    valueBytes: 400
    deleteShare: 0.2
clients:
  - name: informer
    resource: configmaps
    count: 3
)";

} // namespace

class TestSimulation : public QObject {
    Q_OBJECT
private slots:
    void healthyTenMinutesRaisesNothing() {
        const AnomalyList anomalies = runToEnd(QStringLiteral("healthy"), 1, seconds(600));
        QVERIFY2(anomalies.isEmpty(), qPrintable(describe(anomalies)));
    }

    void healthyProgresses() {
        test::ScenarioRun run =
            test::runScenarioToEnd(QStringLiteral("healthy"), std::nullopt, seconds(30));
        Simulation& sim = run.simulation();
        QCOMPARE(sim.now(), seconds(30));
        QVERIFY(sim.totalWrites() > 1500);
        QVERIFY(sim.watcherDeliveries() > 5000);
        for (const auto& w : sim.watcherSnapshots())
            QVERIFY2(w.lagSeconds < 1.0, qPrintable(w.id));
        for (const auto& c : sim.cacheSnapshots()) {
            QVERIFY(c.cacheRv >= c.headRv - 5);
            QVERIFY(c.bufferCapacity >= 100);
        }
    }

    void sameSeedSameAnomalies() {
        QTemporaryDir dir;
        const QString path = dir.filePath("starved.yaml");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kStarvedYaml);
        f.close();
        const AnomalyList a = runToEnd(path, 42);
        const AnomalyList b = runToEnd(path, 42);
        QVERIFY2(!a.isEmpty(), "the starved stream should produce anomalies");
        QCOMPARE(describe(a), describe(b));
        bool prevKvNil = false;
        for (const auto& x : a)
            prevKvNil = prevKvNil || x.kind == AnomalyKind::PrevKvNil;
        QVERIFY2(prevKvNil, qPrintable(describe(a)));
    }
};

QTEST_GUILESS_MAIN(TestSimulation)
#include "tst_simulation.moc"

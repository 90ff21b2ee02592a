// The session's anomalies are held once and bounded (issue 13: a 1 GB audit log raised 37,756
// of them, and two copies grew with the log): past the bound the oldest of the most numerous
// kind leave memory, counted, while the window's updates, the --anomalies file and the
// incidents' counts still see every one.
#include "engine/AnomalyStore.h"
#include "engine/Pipeline.h"
#include "engine/Session.h"
#include "sources/sim/SimSource.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <map>

using namespace ws;

namespace {

Anomaly anomaly(AnomalyKind kind, TimeUs time, const QString& watcher, int serial) {
    Anomaly a;
    a.kind = kind;
    a.time = time;
    a.severity = Severity::Warning;
    a.source = AnomalySource::Apiserver;
    a.resource = QStringLiteral("pods");
    a.watcher = watcher;
    a.message = QStringLiteral("anomaly %1").arg(serial);
    return a;
}

// The serial each message carries, in the order given.
QList<int> serials(const AnomalyList& list, AnomalyKind kind) {
    QList<int> out;
    for (const Anomaly& a : list)
        if (a.kind == kind)
            out << a.message.section(u' ', 1).toInt();
    return out;
}

QList<int> range(int from, int to) { // [from, to)
    QList<int> out;
    for (int i = from; i < to; ++i)
        out << i;
    return out;
}

// The incident id of every line of an --anomalies file.
QList<qint64> incidentsOfFile(const QString& path) {
    QList<qint64> out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return out;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine().trimmed();
        if (!line.isEmpty())
            out << QJsonDocument::fromJson(line).object().value(u"incident").toInteger();
    }
    return out;
}

std::unique_ptr<Session> scenarioSession(qsizetype kept, const QString& anomaliesPath) {
    ScenarioSourceSpec spec;
    spec.scenario = QStringLiteral("cacher-retry-stale-object");
    spec.speed = 0;
    spec.seed = 1;
    std::vector<std::unique_ptr<Source>> sources;
    sources.push_back(std::make_unique<SimSource>(spec, std::nullopt));
    PipelineOptions options;
    options.anomalies.kept = kept;
    options.outputs.anomaliesPath = anomaliesPath;
    return std::make_unique<Session>(std::move(sources), std::move(options));
}

} // namespace

class TestAnomalyStore : public QObject {
    Q_OBJECT
private slots:
    void aFloodOfOneKindEvictsItsOwnOldestOnly() {
        AnomalyStore store(AnomalyStoreLimits{100});
        int serial = 0;
        for (int i = 0; i < 1000; ++i) {
            if (i % 100 == 0)
                store.add(anomaly(AnomalyKind::RetryLoop, i, QStringLiteral("a"), serial++));
            if (i % 200 == 50)
                store.add(anomaly(AnomalyKind::TooLargeRv, i, QStringLiteral("b"), serial++));
            store.add(anomaly(AnomalyKind::WatcherTerminated, i, QStringLiteral("c"), serial++));
        }
        QCOMPARE(store.added(), qint64(1015));
        QCOMPARE(store.evicted(), qint64(915));
        QCOMPARE(store.count(AnomalyKind::WatcherTerminated), qint64(1000));
        QCOMPARE(store.count(AnomalyKind::RetryLoop), qint64(10));
        QCOMPARE(store.count(AnomalyKind::TooLargeRv), qint64(5));
        QCOMPARE(store.count(AnomalyKind::StaleObject), qint64(0));
        const AnomalyList kept = store.kept();
        QCOMPARE(kept.size(), qsizetype(100));
        // The rare kinds are all there; the flood keeps its newest 85.
        QCOMPARE(serials(kept, AnomalyKind::RetryLoop).size(), qsizetype(10));
        QCOMPARE(serials(kept, AnomalyKind::TooLargeRv).size(), qsizetype(5));
        const QList<int> flood = serials(kept, AnomalyKind::WatcherTerminated);
        QCOMPARE(flood.size(), qsizetype(85));
        QCOMPARE(flood.back(), serial - 1);
        QCOMPARE(flood.front(), serial - 1 - 84); // no rare one came among the last 85
        // In the order they were raised, the kinds interleaved again.
        for (qsizetype i = 1; i < kept.size(); ++i)
            QVERIFY(kept[i - 1].message.section(u' ', 1).toInt() <
                    kept[i].message.section(u' ', 1).toInt());
    }

    void belowTheBoundNothingGoes() {
        AnomalyStore store(AnomalyStoreLimits{10});
        for (int i = 0; i < 10; ++i)
            store.add(anomaly(AnomalyKind::StaleObject, i, {}, i));
        QCOMPARE(store.evicted(), qint64(0));
        QCOMPARE(serials(store.kept(), AnomalyKind::StaleObject), range(0, 10));
        store.add(anomaly(AnomalyKind::StaleObject, 10, {}, 10));
        QCOMPARE(store.evicted(), qint64(1));
        QCOMPARE(serials(store.kept(), AnomalyKind::StaleObject), range(1, 11));
    }

    // Through the pipeline as detectors report them: memory keeps 50, the update to the window,
    // the --anomalies file and the incidents have all 600.
    void thePipelineCountsWhatMemoryLetGo() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("anomalies.jsonl"));
        PipelineOptions options;
        options.anomalies.kept = 50;
        options.outputs.anomaliesPath = path;
        Pipeline pipeline(options);
        QString error;
        QVERIFY2(pipeline.openOutputs({}, {}, &error), qPrintable(error));
        int serial = 0;
        // Incident 1: 300 watches closed across 7 watchers within 30 s (resource-wide).
        for (int i = 0; i < 300; ++i)
            pipeline.hub().report(anomaly(AnomalyKind::WatcherTerminated, milliseconds(100) * i,
                                          QStringLiteral("w-%1").arg(i % 7), serial++));
        // Incident 2: one client's retry loop, 200 times.
        for (int i = 0; i < 200; ++i)
            pipeline.hub().report(anomaly(AnomalyKind::RetryLoop, seconds(40) + milliseconds(i),
                                          QStringLiteral("client-a"), serial++));
        // Incident 3: watches closed again after more than the episode gap.
        for (int i = 0; i < 100; ++i)
            pipeline.hub().report(anomaly(AnomalyKind::WatcherTerminated,
                                          seconds(200) + milliseconds(i),
                                          QStringLiteral("w-%1").arg(i % 3), serial++));

        const AnomalyStore& store = pipeline.anomalyStore();
        QCOMPARE(store.added(), qint64(600));
        QCOMPARE(store.evicted(), qint64(550));
        QCOMPARE(pipeline.anomalies().size(), qsizetype(50));
        // The newest of each kind are what memory holds.
        const QList<int> terminated = serials(pipeline.anomalies(), AnomalyKind::WatcherTerminated);
        const QList<int> retries = serials(pipeline.anomalies(), AnomalyKind::RetryLoop);
        QCOMPARE(terminated.size() + retries.size(), qsizetype(50));
        QCOMPARE(terminated, range(600 - int(terminated.size()), 600));
        QCOMPARE(retries, range(500 - int(retries.size()), 500));

        // Incidents count every anomaly, evicted or not.
        QCOMPARE(pipeline.incidents().size(), std::size_t(3));
        QCOMPARE(pipeline.incidents().incident(1)->count, qint64(300));
        QCOMPARE(pipeline.incidents().incident(1)->watcherCount, qint64(7));
        QCOMPARE(pipeline.incidents().incident(2)->count, qint64(200));
        QCOMPARE(pipeline.incidents().incident(3)->count, qint64(100));
        QCOMPARE(pipeline.incidents().incident(3)->first, seconds(200));

        // The window's update carries all 600 and says how many memory let go.
        const EngineUpdate u = pipeline.takeUpdate({}, true, 0);
        QCOMPARE(u.anomalies.size(), qsizetype(600));
        QCOMPARE(u.flow.anomaliesNotKept, qint64(550));
        QCOMPARE(u.incidents.size(), qsizetype(3));

        // The file has every one, each with its incident.
        QVERIFY2(pipeline.closeOutputs(seconds(201), &error), qPrintable(error));
        const QList<qint64> lines = incidentsOfFile(path);
        QCOMPARE(lines.size(), qsizetype(600));
        std::map<qint64, qint64> perIncident;
        for (const qint64 id : lines)
            ++perIncident[id];
        QCOMPARE(perIncident, (std::map<qint64, qint64>{{1, 300}, {2, 200}, {3, 100}}));
    }

    // A whole session on a scenario, bounded far below what it raises, against the same
    // scenario with the default bound: the same counts per kind and per incident, and memory
    // holds the newest of each kind.
    void aBoundedSessionCountsWhatAnUnboundedOneKeeps() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString error;
        auto full = scenarioSession(AnomalyStoreLimits{}.kept, {});
        QVERIFY2(full->runHere({}, &error), qPrintable(error));
        const AnomalyList all = full->anomalies();
        QCOMPARE(full->anomalyStore()->evicted(), qint64(0));
        QVERIFY2(all.size() > 500, qPrintable(QString::number(all.size())));

        const QString path = dir.filePath(QStringLiteral("bounded.jsonl"));
        auto bounded = scenarioSession(100, path);
        qint64 updated = 0;
        FlowStats lastFlow;
        QVERIFY2(bounded->runHere(
                     [&](const EngineUpdate& u) {
                         updated += u.anomalies.size();
                         lastFlow = u.flow;
                     },
                     &error),
                 qPrintable(error));
        const std::shared_ptr<const AnomalyStore> store = bounded->anomalyStore();
        QCOMPARE(updated, qint64(all.size()));
        QCOMPARE(store->added(), qint64(all.size()));
        QCOMPARE(store->evicted(), qint64(all.size() - 100));
        QCOMPARE(lastFlow.anomaliesNotKept, store->evicted());
        const AnomalyList kept = bounded->anomalies();
        QCOMPARE(kept.size(), qsizetype(100));
        for (const AnomalyKind kind : allAnomalyKinds()) {
            qint64 n = 0;
            for (const Anomaly& a : all)
                n += a.kind == kind;
            QCOMPARE(store->count(kind), n);
            // What memory kept of this kind is the newest of it, in order.
            AnomalyList ofKindAll, ofKindKept;
            for (const Anomaly& a : all)
                if (a.kind == kind)
                    ofKindAll << a;
            for (const Anomaly& a : kept)
                if (a.kind == kind)
                    ofKindKept << a;
            const AnomalyList newest = ofKindAll.mid(ofKindAll.size() - ofKindKept.size());
            QCOMPARE(ofKindKept.size(), newest.size());
            for (qsizetype i = 0; i < newest.size(); ++i) {
                QCOMPARE(ofKindKept[i].time, newest[i].time);
                QCOMPARE(ofKindKept[i].message, newest[i].message);
            }
        }
        // Incidents: the same, anomaly for anomaly, and the file has every anomaly of each.
        const IncidentGrouper& fullIncidents = full->pipeline().incidents();
        const IncidentGrouper& boundedIncidents = bounded->pipeline().incidents();
        QCOMPARE(boundedIncidents.size(), fullIncidents.size());
        std::map<qint64, qint64> perIncident;
        for (const qint64 id : incidentsOfFile(path))
            ++perIncident[id];
        QCOMPARE(qint64(perIncident.size()), qint64(fullIncidents.size()));
        for (std::int64_t id = 1; id <= std::int64_t(fullIncidents.size()); ++id) {
            QCOMPARE(boundedIncidents.incident(id)->count, fullIncidents.incident(id)->count);
            QCOMPARE(perIncident[id], fullIncidents.incident(id)->count);
        }
    }

    // Readers on another thread while the session thread adds (TSan runs tests/engine): what
    // they see only grows, and never past the bound.
    void readWhileTheSessionRuns() {
        auto session = scenarioSession(100, {});
        const std::shared_ptr<const AnomalyStore> store = session->anomalyStore();
        session->start();
        qint64 seen = 0;
        bool monotonic = true, bounded = true;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const qint64 added = store->added();
                const AnomalyList kept = session->anomalies();
                monotonic = monotonic && added >= seen;
                bounded = bounded && kept.size() <= 100;
                seen = added;
                return !session->running();
            }(),
            60000);
        QVERIFY(monotonic);
        QVERIFY(bounded);
        QVERIFY(store->added() > 500);
        QCOMPARE(store->evicted(), store->added() - 100);
        QCOMPARE(session->anomalies().size(), qsizetype(100));
    }
};

QTEST_GUILESS_MAIN(TestAnomalyStore)
#include "tst_anomalystore.moc"

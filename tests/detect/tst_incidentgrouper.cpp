// Incidents (SPEC §2): anomalies of one kind, resource and scope within one episode. A lost
// DELETE kept by a cache and three informers is one incident, not a thousand rows; two clients
// in their own retry loops are two; a quiet minute ends an episode.
#include "detect/IncidentGrouper.h"
#include "export/AnomalyJsonlWriter.h"
#include "sim/ScenarioRun.h"

#include <QTest>
#include <map>

using namespace ws;

namespace {

Anomaly anomaly(TimeUs t, AnomalyKind kind, const QString& watcher, const QString& key = {},
                Severity severity = Severity::Error) {
    Anomaly a;
    a.time = t;
    a.kind = kind;
    a.severity = severity;
    a.resource = QStringLiteral("pods");
    a.watcher = watcher;
    a.key = key;
    a.message = QStringLiteral("m");
    return a;
}

} // namespace

class TestIncidentGrouper : public QObject {
    Q_OBJECT
private slots:
    void resourceWideKindsGroupAcrossWatchers() {
        IncidentGrouper g;
        const QStringList watchers{"cacher/pods@apiserver-0", "informer-0", "informer-1"};
        for (int round = 0; round < 3; ++round)
            for (const QString& w : watchers)
                for (int k = 0; k < 4; ++k) {
                    Anomaly a = anomaly(seconds(40 + 5 * round), AnomalyKind::StaleObject, w,
                                        QStringLiteral("/registry/pods/ns/p%1").arg(k),
                                        k == 3 && round == 2 ? Severity::Error : Severity::Warning);
                    g.assign(a);
                    QCOMPARE(a.incident, std::int64_t(1));
                }
        QCOMPARE(g.size(), std::size_t(1));
        const Incident* i = g.incident(1);
        QVERIFY(i);
        QCOMPARE(i->count, qint64(36));
        QCOMPARE(i->keyCount, qint64(4));
        QCOMPARE(i->watchers, watchers);
        QCOMPARE(i->first, seconds(40));
        QCOMPARE(i->last, seconds(50));
        QCOMPARE(i->severity, Severity::Error);
        QVERIFY(i->scope.isEmpty());
    }

    void perWatcherKindsSplit() {
        IncidentGrouper g;
        Anomaly a = anomaly(seconds(1), AnomalyKind::RetryLoop, QStringLiteral("client-a"));
        Anomaly b = anomaly(seconds(2), AnomalyKind::RetryLoop, QStringLiteral("client-b"));
        Anomaly c = anomaly(seconds(3), AnomalyKind::RetryLoop, QStringLiteral("client-a"));
        Anomaly d = anomaly(seconds(3), AnomalyKind::TooLargeRv, QStringLiteral("client-a"));
        g.assign(a), g.assign(b), g.assign(c), g.assign(d);
        QCOMPARE(a.incident, c.incident);
        QVERIFY(a.incident != b.incident);
        QVERIFY(d.incident != a.incident && d.incident != b.incident);
        QCOMPARE(g.incident(a.incident)->scope, QStringLiteral("client-a"));
        QCOMPARE(g.incident(a.incident)->count, qint64(2));
    }

    // A loop of connection failures to a dead apiserver is the apiserver's incident: the clients
    // it touches are its evidence. Per apiserver, and per-watcher loops stay apart.
    void apiserverFailuresGroupAcrossClients() {
        IncidentGrouper g;
        std::vector<Anomaly> loops;
        for (int c = 0; c < 300; ++c) {
            Anomaly a =
                anomaly(seconds(30) + c, AnomalyKind::RetryLoop, QStringLiteral("agent-%1").arg(c));
            a.apiserver =
                c % 3 == 2 ? QStringLiteral("apiserver-2") : QStringLiteral("apiserver-1");
            g.assign(a);
            loops.push_back(a);
        }
        Anomaly own = anomaly(seconds(31), AnomalyKind::RetryLoop, QStringLiteral("agent-0"));
        g.assign(own);
        QCOMPARE(g.size(), std::size_t(3));
        const Incident* one = g.incident(loops[0].incident);
        const Incident* two = g.incident(loops[2].incident);
        QVERIFY(one && two && one != two);
        QCOMPARE(one->apiserver, QStringLiteral("apiserver-1"));
        QVERIFY(one->scope.isEmpty());
        QCOMPARE(one->count, qint64(200));
        QCOMPARE(one->watcherCount, qint64(200));
        QCOMPARE(one->watchers.first(), QStringLiteral("agent-0"));
        QCOMPARE(two->apiserver, QStringLiteral("apiserver-2"));
        QCOMPARE(two->watcherCount, qint64(100));
        for (const Anomaly& a : loops)
            QCOMPARE(a.incident, a.apiserver == QLatin1String("apiserver-1") ? one->id : two->id);
        // The client's own loop (an answer it does not recognise) is its own incident.
        QVERIFY(own.incident != one->id && own.incident != two->id);
        QCOMPARE(g.incident(own.incident)->scope, QStringLiteral("agent-0"));
        QVERIFY(g.incident(own.incident)->apiserver.isEmpty());
    }

    void jsonlCarriesTheApiserver() {
        Anomaly a = anomaly(seconds(1), AnomalyKind::RetryLoop, QStringLiteral("agent-7"));
        a.apiserver = QStringLiteral("apiserver-1");
        const QDateTime start = QDateTime::fromMSecsSinceEpoch(0, Qt::UTC);
        const std::string line = AnomalyJsonlWriter::formatLine(a, start);
        QVERIFY2(QByteArray::fromStdString(line).contains("\"apiserver\":\"apiserver-1\""),
                 line.c_str());
        QString error;
        const auto back =
            AnomalyJsonlWriter::parseLine(QByteArray::fromStdString(line), start, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->apiserver, QStringLiteral("apiserver-1"));
        // Absent where it does not apply.
        a.apiserver.clear();
        QVERIFY(!QByteArray::fromStdString(AnomalyJsonlWriter::formatLine(a, start))
                     .contains("apiserver"));
    }

    void aQuietMinuteEndsTheEpisode() {
        IncidentGrouper g;
        Anomaly a = anomaly(seconds(0), AnomalyKind::WatcherLag, QStringLiteral("w"));
        Anomaly b = anomaly(seconds(60), AnomalyKind::WatcherLag, QStringLiteral("w"));
        Anomaly c = anomaly(seconds(120) + 1, AnomalyKind::WatcherLag, QStringLiteral("w"));
        g.assign(a), g.assign(b), g.assign(c);
        QCOMPARE(a.incident, b.incident); // 60 s apart: still the same episode
        QCOMPARE(c.incident, std::int64_t(2));
        QCOMPARE(g.incident(2)->first, seconds(120) + 1);
    }

    void listsAreCapped() {
        IncidentGrouper g;
        for (int k = 0; k < Incident::kMaxListed + 10; ++k) {
            Anomaly a = anomaly(seconds(1), AnomalyKind::StaleObject, QStringLiteral("w%1").arg(k),
                                QStringLiteral("k%1").arg(k));
            g.assign(a);
        }
        const Incident* i = g.incident(1);
        QCOMPARE(i->keys.size(), Incident::kMaxListed);
        QCOMPARE(i->keyCount, qint64(Incident::kMaxListed + 10));
        QCOMPARE(i->watcherCount, qint64(Incident::kMaxListed + 10));
    }

    void jsonlCarriesTheIncident() {
        Anomaly a = anomaly(seconds(1), AnomalyKind::StaleObject, QStringLiteral("w"));
        a.incident = 7;
        const QDateTime start = QDateTime::fromMSecsSinceEpoch(0, Qt::UTC);
        const std::string line = AnomalyJsonlWriter::formatLine(a, start);
        QVERIFY2(QByteArray::fromStdString(line).contains("\"incident\":7"), line.c_str());
        QString error;
        const auto back =
            AnomalyJsonlWriter::parseLine(QByteArray::fromStdString(line), start, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->incident, std::int64_t(7));
        QVERIFY(!AnomalyJsonlWriter::parseLine(
            "{\"time\":\"1970-01-01T00:00:01.000Z\",\"kind\":\"stale-object\",\"severity\":"
            "\"error\",\"source\":\"apiserver\",\"resource\":\"pods\",\"message\":\"m\","
            "\"incident\":\"x\"}",
            start, &error));
    }

    void cacherRetryStaleObjectIsOneIncidentOfStaleObjects() {
        // SPEC §2: the lost DELETE kept by the cache and three informers is one incident.
        const auto run = test::runScenarioToEnd(QStringLiteral("cacher-retry-stale-object"), {});
        std::map<std::int64_t, int> perIncident;
        std::map<QString, QSet<std::int64_t>> incidentsOfKind;
        for (const Anomaly& a : run.anomalies) {
            QVERIFY(a.incident > 0);
            ++perIncident[a.incident];
            incidentsOfKind[kindName(a.kind)].insert(a.incident);
        }
        QCOMPARE(incidentsOfKind[QStringLiteral("stale-object")].size(), 1);
        const std::int64_t stale = *incidentsOfKind[QStringLiteral("stale-object")].begin();
        const Incident* i = run.session->pipeline().incidents().incident(stale);
        QVERIFY(i);
        QCOMPARE(i->count, qint64(perIncident[stale]));
        QVERIFY2(i->count > 1000, qPrintable(QString::number(i->count)));
        QCOMPARE(i->watcherCount, qint64(4)); // the cache and three informers
        QVERIFY2(i->keyCount >= 200 && i->keyCount < 400, qPrintable(QString::number(i->keyCount)));
        // Everything the scenario raised fits in a handful of incidents.
        QVERIFY2(perIncident.size() <= 6, qPrintable(QString::number(perIncident.size())));
    }
};

QTEST_GUILESS_MAIN(TestIncidentGrouper)
#include "tst_incidentgrouper.moc"

// The etcd source against the real etcd binary: decoding, validation, compaction, restarts,
// failover and connection errors. Skipped only when /usr/bin/etcd is absent.

#include "EtcdTestCluster.h"
#include "engine/Session.h"
#include "model/AnomalyKind.h"
#include "model/WatcherState.h"
#include "sources/etcd/EtcdClient.h"
#include "sources/etcd/EtcdLoadGenerator.h"
#include "sources/etcd/EtcdSource.h"
#include "sources/etcd/EtcdWatchStream.h"
#include "support/AnomalyLines.h"

#include <QSignalSpy>
#include <QTest>

using namespace ws;
using namespace ws::test;

namespace {

int countKind(const AnomalyList& list, AnomalyKind kind) {
    int n = 0;
    for (const Anomaly& a : list)
        n += a.kind == kind;
    return n;
}

// What is more than information: a broken stream that resumes is said as an info stream-error.
AnomalyList aboveInfo(const AnomalyList& list) {
    AnomalyList out;
    for (const Anomaly& a : list)
        if (a.severity != Severity::Info)
            out << a;
    return out;
}

// Retries a write while a cluster elects a leader.
ResourceVersion putRetrying(EtcdClient& c, const std::string& k, const std::string& v) {
    QString error;
    for (int i = 0; i < 100; ++i) {
        if (const ResourceVersion rev = c.put(k, v, &error))
            return rev;
        QThread::msleep(100);
    }
    qWarning("put failed: %s", qPrintable(error));
    return 0;
}

ResourceVersion headOf(EtcdClient& c) {
    QString error;
    const auto st = c.status(&error);
    return st ? st->revision : 0;
}

// A live etcd session on the one pipeline, with the etcd source's views the tests read.
struct LiveSession {
    std::unique_ptr<Session> session;
    EtcdSource* source = nullptr;
    EtcdProcessorStats stats() const { return source->stats(); }
    EtcdWatchStream* stream() const { return source->stream(); }
    AnomalyList anomalies() const { return session->anomalies(); }
    QStringList resources() const { return session->resources(); }
    void stop() { session->stop(); }
};

std::unique_ptr<LiveSession> makeSession(const EtcdConnectOptions& connect,
                                         SessionOutputs outputs = {}) {
    EtcdSourceSpec spec;
    spec.endpoints = connect.endpoints;
    spec.caFile = connect.tls.caFile;
    spec.certFile = connect.tls.certFile;
    spec.keyFile = connect.tls.keyFile;
    auto live = std::make_unique<LiveSession>();
    auto source = std::make_unique<EtcdSource>(spec, std::nullopt);
    live->source = source.get();
    std::vector<std::unique_ptr<Source>> sources;
    sources.push_back(std::move(source));
    PipelineOptions options;
    options.outputs = std::move(outputs);
    live->session = std::make_unique<Session>(std::move(sources), std::move(options));
    return live;
}

std::unique_ptr<LiveSession> startSession(const EtcdConnectOptions& connect,
                                          SessionOutputs outputs = {}) {
    auto live = makeSession(connect, std::move(outputs));
    live->session->start();
    return live;
}

} // namespace

class TestEtcdLive : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void createUpdateDelete_data();
    void createUpdateDelete();
    void cleanLoad_data();
    void cleanLoad();
    void compactionDuringWatch();
    void killAndRestart();
    void threeMembersOneKilled();
    void unreachableEndpoint();
    void wrongTls_data();
    void wrongTls();
};

void TestEtcdLive::initTestCase() {
    qRegisterMetaType<ws::EngineUpdate>();
    REQUIRE_ETCD(); // the whole executable counts as skipped, not passed
}

void TestEtcdLive::createUpdateDelete_data() {
    QTest::addColumn<bool>("json");
    QTest::newRow("protobuf configmap") << false;
    QTest::newRow("json custom resource") << true;
}

void TestEtcdLive::createUpdateDelete() {
    REQUIRE_ETCD();
    QFETCH(bool, json);
    EtcdTestCluster cluster(1);
    START_CLUSTER(cluster);
    auto session = startSession(cluster.connectOptions());
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().state == QLatin1String("watching"), 20000);

    EtcdClient client(cluster.connectOptions());
    const std::string prefix = "/registry/";
    const std::string key = json ? EtcdLoadGenerator::cronTabKey(prefix, "team-a", "obj")
                                 : EtcdLoadGenerator::configMapKey(prefix, "team-a", "obj");
    auto value = [&](std::int64_t gen) {
        return json ? EtcdLoadGenerator::cronTabValue("obj", "team-a", "uid-1", gen, 400)
                    : EtcdLoadGenerator::configMapValue("obj", "team-a", "uid-1", gen, 400);
    };
    QString error;
    QVERIFY(client.put(key, value(1), &error));
    QVERIFY(client.put(key, value(2), &error));
    const ResourceVersion del = client.remove(key, &error);
    QVERIFY2(del, qPrintable(error));

    QTRY_VERIFY_WITH_TIMEOUT(session->stats().lastRevision >= del, 20000);
    // An on-demand progress request is answered (watch_id -1) at the head revision.
    const qint64 progressBefore = session->stats().progressNotifications;
    QVERIFY(session->stream()->requestProgress());
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().progressNotifications > progressBefore, 10000);
    QCOMPARE(session->stats().position, del);
    const EtcdProcessorStats st = session->stats();
    QCOMPARE(st.events, 3);
    QCOMPARE(json ? st.jsonValues : st.protobufValues, 2);
    QCOMPARE(st.undecodableValues, 0);
    const QString resource =
        json ? QStringLiteral("crontabs.stable.example.com") : QStringLiteral("configmaps");
    QVERIFY2(session->resources().contains(resource), qPrintable(session->resources().join(",")));
    session->stop();
    QVERIFY2(session->anomalies().isEmpty(), qPrintable(describe(session->anomalies())));
}

void TestEtcdLive::cleanLoad_data() {
    QTest::addColumn<int>("compactEveryMs");
    QTest::newRow("no compaction") << 0;
    QTest::newRow("compaction every 200ms") << 200;
}

void TestEtcdLive::cleanLoad() {
    REQUIRE_ETCD();
    QFETCH(int, compactEveryMs);
    EtcdTestCluster cluster(1);
    START_CLUSTER(cluster);
    SessionOutputs so;
    so.anomaliesPath = cluster.dir() + QStringLiteral("/anomalies.jsonl");
    so.timelinePath = cluster.dir() + QStringLiteral("/timeline.csv");
    auto session = startSession(cluster.connectOptions(), so);
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().state == QLatin1String("watching"), 20000);
    const ResourceVersion listRev = session->stats().listRevision;

    EtcdLoadOptions lo;
    lo.connect = cluster.connectOptions();
    // Every write must land exactly once: on a loaded machine (TSan, 8 writers, fsync) one may
    // take longer than the session's 3 s, and a write given up on is one missing revision.
    lo.connect.rpcTimeout = std::chrono::milliseconds(60000);
    lo.rate = 0;
    lo.duration = std::chrono::milliseconds(0);
    lo.maxWrites = 10000;
    lo.objects = 300;
    lo.concurrency = 8;
    lo.compactEvery = std::chrono::milliseconds(compactEveryMs);
    EtcdLoadGenerator load(lo);
    QString error;
    QVERIFY2(load.run(&error), qPrintable(error));
    const EtcdLoadStats ls = load.stats();
    QCOMPARE(ls.writes(), 10000);
    QCOMPARE(ls.errors, 0);
    EtcdClient client(cluster.connectOptions());
    const ResourceVersion head = headOf(client);
    QCOMPARE(head, listRev + ls.writes());

    QTRY_VERIFY_WITH_TIMEOUT(session->stats().lastRevision >= head, 60000);
    session->stop();
    const EtcdProcessorStats st = session->stats();
    // Every revision from the list to the head came on the watch, once.
    QCOMPARE(st.revisions, head - listRev);
    QCOMPARE(st.events, ls.writes());
    QCOMPARE(st.firstRevision, listRev + 1);
    QCOMPARE(st.compactedCancels, 0);
    QCOMPARE(st.protobufValues + st.jsonValues, ls.creates + ls.updates);
    QVERIFY2(session->anomalies().isEmpty(), qPrintable(describe(session->anomalies())));
    if (compactEveryMs > 0) {
        // Compactions happened during the watch, and not one revision was lost to them.
        QVERIFY(ls.compactions > 0);
        QVERIFY(ls.compactRevision > listRev && ls.compactRevision <= head);
    }

    QFile anomalies(so.anomaliesPath);
    QVERIFY(anomalies.open(QIODevice::ReadOnly));
    QCOMPARE(anomalies.size(), 0);
    QFile timeline(so.timelinePath);
    QVERIFY(timeline.open(QIODevice::ReadOnly));
    const QByteArray csv = timeline.readAll();
    QVERIFY(csv.startsWith("time_ms,resource,series,value"));
    QVERIFY(csv.contains(",configmaps,head_rv,"));
    QVERIFY(csv.contains(",configmaps,cache_rv,"));
}

void TestEtcdLive::compactionDuringWatch() {
    REQUIRE_ETCD();
    EtcdTestCluster cluster(1);
    START_CLUSTER(cluster);
    auto session = startSession(cluster.connectOptions());
    // The watcher's state in the updates, as the pipeline derives it for every source (each
    // change once), and its error count.
    QStringList states;
    int errors = 0;
    connect(session->session.get(), &Session::updated, this, [&](const EngineUpdate& u) {
        for (const WatcherSnapshot& w : u.watchers) {
            if (w.resource != QLatin1String("configmaps"))
                continue;
            if (states.isEmpty() || states.constLast() != watcherStateName(w.state))
                states << watcherStateName(w.state);
            errors = w.errors;
        }
    });
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().state == QLatin1String("watching"), 20000);
    const ResourceVersion listRev = session->stats().listRevision;
    EtcdClient client(cluster.connectOptions());
    QString error;
    for (int i = 0; i < 50; ++i)
        QVERIFY(client.put(
            EtcdLoadGenerator::configMapKey("/registry/", "ns", "a" + std::to_string(i)),
            EtcdLoadGenerator::configMapValue("a" + std::to_string(i), "ns", "u", 1, 200), &error));
    ResourceVersion head = headOf(client);
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().lastRevision >= head, 20000);

    // The stream breaks (a network blip); while it is down, objects change and etcd compacts
    // past the revision the watch will resume from.
    session->stream()->setHold(true);
    session->stream()->interrupt();
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().brokenStreams >= 1, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!states.isEmpty() && states.constLast() != QLatin1String("live"),
                             10000);
    QVERIFY2(states.contains(QStringLiteral("live")), qPrintable(states.join(QLatin1Char(','))));
    for (int i = 0; i < 50; ++i) {
        const std::string name = "a" + std::to_string(i);
        const std::string key = EtcdLoadGenerator::configMapKey("/registry/", "ns", name);
        if (i % 5 == 0)
            QVERIFY(client.remove(key, &error));
        else
            QVERIFY(client.put(key, EtcdLoadGenerator::configMapValue(name, "ns", "u", 2, 200),
                               &error));
    }
    head = headOf(client);
    QVERIFY2(client.compact(head, true, &error), qPrintable(error));
    session->stream()->setHold(false);

    // Reported as too-old-rv, relisted, resumed from the list revision + 1.
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().compactedCancels == 1, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(
        session->stats().lists == 2 && session->stats().state == QLatin1String("watching"), 20000);
    for (int i = 0; i < 10; ++i)
        QVERIFY(client.put(
            "/registry/configmaps/ns/after" + std::to_string(i),
            EtcdLoadGenerator::configMapValue("after" + std::to_string(i), "ns", "u", 1, 200),
            &error));
    const ResourceVersion finalHead = headOf(client);
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().lastRevision >= finalHead, 20000);
    // Live again, with the broken stream and the compacted cancel counted as errors.
    QTRY_VERIFY_WITH_TIMEOUT(states.constLast() == QLatin1String("live") && errors >= 1, 20000);
    const int lastLive = int(states.lastIndexOf(QStringLiteral("live")));
    QVERIFY2(lastLive > int(states.indexOf(QStringLiteral("live"))),
             qPrintable(states.join(QLatin1Char(','))));
    session->stop();

    const EtcdProcessorStats st = session->stats();
    const AnomalyList anomalies = session->anomalies();
    // The broken stream (information), the compacted cancel, and the revisions the relist
    // replaced: from the last one seen to the compact revision, where it relisted. No false
    // gap, no prevkv-nil, nothing else.
    QCOMPARE(countKind(anomalies, AnomalyKind::TooOldRv), 1);
    QCOMPARE(countKind(anomalies, AnomalyKind::RevisionGap), 1);
    QCOMPARE(countKind(anomalies, AnomalyKind::StreamError), 1);
    QCOMPARE(anomalies.size(), 3);
    QCOMPARE(aboveInfo(anomalies).size(), 2);
    for (const Anomaly& a : anomalies)
        if (a.kind == AnomalyKind::TooOldRv)
            QVERIFY(a.message.contains(QString::number(head)));
    QCOMPARE(st.listRevision, head);
    const RevisionAccount account = session->source->revisionAccounts().value(0).account;
    QVERIFY2(account.balanced(), qPrintable(account.summary()));
    QCOMPARE(account.gaps().size(), std::size_t(1));
    QCOMPARE(account.gaps().front().last, head);
    QCOMPARE(account.lostCount(), st.revisionsByList);
    // Nothing unaccounted for: every revision came on the watch or is covered by the relist.
    QCOMPARE(st.revisions + st.revisionsByList, finalHead - listRev);
    // The relist knows that every fifth object is gone.
    const auto resources = session->stats();
    Q_UNUSED(resources);
}

void TestEtcdLive::killAndRestart() {
    REQUIRE_ETCD();
    EtcdTestCluster cluster(1);
    START_CLUSTER(cluster);
    auto session = startSession(cluster.connectOptions());
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().state == QLatin1String("watching"), 20000);
    const ResourceVersion listRev = session->stats().listRevision;
    EtcdClient client(cluster.connectOptions());
    for (int i = 0; i < 100; ++i)
        QVERIFY(putRetrying(client, "/registry/configmaps/ns/k" + std::to_string(i % 20),
                            EtcdLoadGenerator::configMapValue("k" + std::to_string(i % 20), "ns",
                                                              "u", i + 1, 300)));
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().lastRevision >= headOf(client), 20000);

    cluster.kill(0);
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().brokenStreams >= 1, 20000);
    QString error;
    QVERIFY2(cluster.start(0, &error), qPrintable(error));
    QVERIFY2(cluster.waitReady(90000, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().state == QLatin1String("watching"), 40000);
    for (int i = 100; i < 200; ++i)
        QVERIFY(putRetrying(client, "/registry/configmaps/ns/k" + std::to_string(i % 20),
                            EtcdLoadGenerator::configMapValue("k" + std::to_string(i % 20), "ns",
                                                              "u", i + 1, 300)));
    const ResourceVersion head = headOf(client);
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().lastRevision >= head, 40000);
    session->stop();
    const EtcdProcessorStats st = session->stats();
    QCOMPARE(st.revisions, head - listRev);
    QCOMPARE(st.lists, 1); // resumed, not relisted
    QVERIFY2(aboveInfo(session->anomalies()).isEmpty(), qPrintable(describe(session->anomalies())));
}

void TestEtcdLive::threeMembersOneKilled() {
    REQUIRE_ETCD();
    EtcdTestCluster cluster(3);
    START_CLUSTER(cluster);
    auto session = startSession(cluster.connectOptions());
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().state == QLatin1String("watching"), 30000);
    const ResourceVersion listRev = session->stats().listRevision;
    EtcdClient client(cluster.connectOptions());
    for (int i = 0; i < 100; ++i)
        QVERIFY(putRetrying(
            client, "/registry/stable.example.com/crontabs/ns/c" + std::to_string(i % 10),
            EtcdLoadGenerator::cronTabValue("c" + std::to_string(i % 10), "ns", "u", i + 1, 300)));
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().lastRevision >= headOf(client), 20000);

    // Kill the member the watch is connected to.
    const QString endpoint = session->stats().endpoint;
    const int victim = int(cluster.clientUrls().indexOf(endpoint));
    QVERIFY2(victim >= 0, qPrintable(endpoint));
    cluster.kill(victim);
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().brokenStreams >= 1, 20000);
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().state == QLatin1String("watching") &&
                                 session->stats().endpoint != endpoint,
                             40000);
    for (int i = 100; i < 200; ++i)
        QVERIFY(putRetrying(
            client, "/registry/stable.example.com/crontabs/ns/c" + std::to_string(i % 10),
            EtcdLoadGenerator::cronTabValue("c" + std::to_string(i % 10), "ns", "u", i + 1, 300)));
    const ResourceVersion head = headOf(client);
    QTRY_VERIFY_WITH_TIMEOUT(session->stats().lastRevision >= head, 40000);
    session->stop();
    const EtcdProcessorStats st = session->stats();
    QCOMPARE(st.revisions, head - listRev);
    QCOMPARE(st.jsonValues, 200);
    QVERIFY2(aboveInfo(session->anomalies()).isEmpty(), qPrintable(describe(session->anomalies())));
}

void TestEtcdLive::unreachableEndpoint() {
    const quint16 port = freePort(); // nothing listens there any more
    EtcdConnectOptions o;
    o.endpoints = {QStringLiteral("http://127.0.0.1:%1").arg(port)};
    o.rpcTimeout = std::chrono::milliseconds(3000);
    QString error;
    QVERIFY(!EtcdSource::probe(o, &error));
    qInfo("error line: %s", qPrintable(error));
    QVERIFY(!error.contains(QLatin1Char('\n')));
    QVERIFY2(error.contains(QStringLiteral("127.0.0.1:%1").arg(port)), qPrintable(error));
    QVERIFY2(error.contains(QLatin1String("connection refused")) ||
                 error.contains(QLatin1String("unreachable")),
             qPrintable(error));

    // The session reports the same single line through failed() and finishes.
    auto live = makeSession(o);
    Session& session = *live->session;
    QSignalSpy failed(&session, &Session::failed);
    QSignalSpy finished(&session, &Session::finished);
    session.start();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 15000);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.first().first().toString(), error);

    // A bad URL and a missing CA file are clear too.
    o.endpoints = {QStringLiteral("ftp://x:1")};
    QVERIFY(!EtcdSource::probe(o, &error));
    QVERIFY2(error.contains(QLatin1String("bad etcd endpoint")), qPrintable(error));
    o.endpoints = {QStringLiteral("https://127.0.0.1:%1").arg(port)};
    o.tls.caFile = QStringLiteral("/nonexistent/ca.pem");
    QVERIFY(!EtcdSource::probe(o, &error));
    QVERIFY2(error.contains(QLatin1String("cannot read CA file /nonexistent/ca.pem")),
             qPrintable(error));
}

void TestEtcdLive::wrongTls_data() {
    QTest::addColumn<QString>("mode");
    QTest::newRow("right CA") << "right";
    QTest::newRow("wrong CA") << "wrong";
    QTest::newRow("plain http to a TLS port") << "plain";
    // No --cacert: gRPC's default roots, which do not know the test CA. Refused, not trusted.
    QTest::newRow("no CA: the default roots") << "default";
}

void TestEtcdLive::wrongTls() {
    REQUIRE_ETCD();
    QFETCH(QString, mode);
    QTemporaryDir certs;
    EtcdTls tls, other;
    QString error;
    QVERIFY2(makeTls(certs.path(), QStringLiteral("good"), &tls, &error), qPrintable(error));
    QVERIFY2(makeTls(certs.path(), QStringLiteral("other"), &other, &error), qPrintable(error));
    EtcdTestCluster cluster(1, tls);
    START_CLUSTER(cluster);

    EtcdConnectOptions o = cluster.connectOptions();
    if (mode == QLatin1String("wrong"))
        o.tls.caFile = other.caFile;
    if (mode == QLatin1String("default"))
        o.tls.caFile.clear();
    if (mode == QLatin1String("plain")) {
        o.tls = {};
        o.endpoints = {
            cluster.clientUrl(0).replace(QLatin1String("https://"), QLatin1String("http://"))};
    }
    EtcdStatus status;
    const bool ok = EtcdSource::probe(o, &error, &status);
    qInfo("%s: %s", qPrintable(mode), ok ? "ok" : qPrintable(error));
    if (mode == QLatin1String("right")) {
        QVERIFY2(ok, qPrintable(error));
        QCOMPARE(status.version, QStringLiteral("3.4.23"));
        return;
    }
    QVERIFY(!ok);
    QVERIFY(!error.contains(QLatin1Char('\n')));
    QVERIFY2(error.startsWith(QStringLiteral("etcd at ")), qPrintable(error));
    if (mode == QLatin1String("wrong") || mode == QLatin1String("default"))
        QVERIFY2(error.contains(QLatin1String("TLS")), qPrintable(error));
    // Nothing secret in the line: no key material.
    QVERIFY(!error.contains(QLatin1String("PRIVATE KEY")));
}

QTEST_GUILESS_MAIN(TestEtcdLive)
#include "tst_etcdlive.moc"

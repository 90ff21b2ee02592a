// Faults on the real components, each seen as a user of `watchscope-cli record` sees it: two
// apiservers on one etcd side by side (each watcher's rows its own), an etcd compaction past a
// stalled watcher (410, relist, named), events relisted in pages, the one HTTP/2 connection cut
// under every watch, an apiserver restarted under a watch whose watch cache then takes 45 s to
// initialise (429s, named), and etcd stopped for 10 s. After each, WatchScope's informers end
// with the objects kubectl lists.
//
// One control plane: two kube-apiservers (WS_REAL_APISERVER, default 1.35) on one etcd
// (WS_REAL_ETCD, default 3.6).

#include "support/JsonLinesFile.h"
#include "support/RealCluster.h"
#include "support/StallProxy.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTest>
#include <QUrlQuery>

using ws::test::RealCluster;
using User = ws::test::RealCluster::User;
using ws::EtcdClient;

class TestRealFaults : public QObject {
    Q_OBJECT

    std::unique_ptr<RealCluster> m_cluster;
    // Between the restarted apiserver 1 and etcd from apiserverRestarted() on.
    std::unique_ptr<ws::test::StallProxy> m_etcdProxy;
    int m_runs = 0;

    struct Run {
        std::unique_ptr<QProcess> process;
        QString tag;
        int exitCode = -1;
        QString out, err;
        QList<QJsonObject> watchers, anomalies;

        QSet<QString> kinds() const {
            QSet<QString> k;
            for (const QJsonObject& a : anomalies)
                k << a.value("kind").toString();
            return k;
        }
        QList<QJsonObject> ofSeverity(const QString& severity) const {
            QList<QJsonObject> out;
            for (const QJsonObject& a : anomalies)
                if (a.value("severity").toString() == severity)
                    out << a;
            return out;
        }
    };

    QString file(const QString& name) const { return m_cluster->dir() + QLatin1Char('/') + name; }

    Run start(const QStringList& args, const QString& duration) {
        Run r;
        r.tag = QStringLiteral("faults%1").arg(++m_runs);
        r.process = std::make_unique<QProcess>();
        r.process->start(qEnvironmentVariable("WS_CLI"),
                         QStringList{QStringLiteral("record")} + args +
                             QStringList{"--duration", duration, "--watchers",
                                         file(r.tag + "-watchers.jsonl"), "--anomalies",
                                         file(r.tag + "-anomalies.jsonl")});
        return r;
    }
    void finish(Run& r) {
        if (!r.process->waitForFinished(240000)) {
            r.process->kill();
            r.process->waitForFinished();
        }
        r.exitCode = r.process->exitStatus() == QProcess::NormalExit ? r.process->exitCode() : -2;
        r.out = QString::fromUtf8(r.process->readAllStandardOutput());
        r.err = QString::fromUtf8(r.process->readAllStandardError());
        r.watchers = ws::test::readJsonLines(file(r.tag + "-watchers.jsonl"));
        r.anomalies = ws::test::readJsonLines(file(r.tag + "-anomalies.jsonl"));
    }

    qint64 kubectlCount(const QString& resource) {
        QByteArray out;
        QString error;
        if (!m_cluster->kubectl({"get", resource, "-A", "-o", "name"}, &out, &error))
            qWarning("%s", qPrintable(error));
        return out.trimmed().isEmpty() ? 0 : out.trimmed().split('\n').size();
    }

    int auditEntries(int apiserver) const {
        return static_cast<int>(ws::test::readJsonLines(m_cluster->auditLog(apiserver)).size());
    }
    // The admin's watches of `resource` in apiserver i's audit log after its first `skip`
    // entries; refused ones (a watch-list of a server without it: 422) left out.
    QList<QJsonObject> watches(int apiserver, const QString& resource, int skip) const {
        QList<QJsonObject> found;
        for (const QJsonObject& e :
             ws::test::readJsonLines(m_cluster->auditLog(apiserver)).mid(skip))
            if (e.value("verb").toString() == QLatin1String("watch") &&
                e.value("user").toObject().value("username").toString() == QLatin1String("admin") &&
                e.value("objectRef").toObject().value("resource").toString() == resource &&
                e.value("responseStatus").toObject().value("code").toInt(200) < 400)
                found << e;
        return found;
    }
    bool watching(int apiserver, const QString& resource, int skip) const {
        return !watches(apiserver, resource, skip).isEmpty();
    }
    // Watch-lists of `resource` apiserver i has answered up to their initial-events-end
    // bookmark: apiserver_watch_list_duration_seconds is observed once the bookmark is flushed
    // (endpoints/handlers/watch.go). -1 if /metrics cannot be read.
    qint64 watchListsEnded(int apiserver, const QString& resource) {
        QByteArray out;
        QString error;
        if (!m_cluster->kubectlAt(apiserver, {"get", "--raw", "/metrics"}, &out, &error)) {
            qWarning("%s", qPrintable(error));
            return -1;
        }
        const QByteArray label = "resource=\"" + resource.toUtf8() + '"';
        qint64 n = 0;
        for (const QByteArray& line : out.split('\n'))
            if (line.startsWith("apiserver_watch_list_duration_seconds_count{") &&
                line.contains(label))
                n += line.mid(line.lastIndexOf(' ') + 1).toLongLong();
        return n;
    }
    // The informer holds the state it watches from, so a cut from now on resumes from its RV: a
    // plain watch (after a LIST) has started, or a watch-list's initial events and bookmark
    // have been sent (more watch-lists ended than `listsBefore`); and the proxy has passed on
    // every byte the apiserver sent. The audit log shows a watch-list as soon as its head is
    // sent, before its initial events: stalled then, the informer never synced, and opens a
    // new watch-list after the cut (no 410 to see).
    bool holdsWatchedState(ws::test::StallProxy& proxy, const QString& resource, int skip,
                           qint64 listsBefore) {
        bool watchList = false, plain = false;
        for (const QJsonObject& e : watches(0, resource, skip))
            (e.value("requestURI").toString().contains(QLatin1String("sendInitialEvents=true"))
                 ? watchList
                 : plain) = true;
        if (!plain && !(watchList && watchListsEnded(0, resource) > listsBefore))
            return false;
        return proxy.forwardedAll();
    }

    // The watches through `proxy` go silent, `yaml` is written, etcd compacts past it and the
    // proxy cuts them: each resumes from an RV etcd no longer has (events: no watch cache, so
    // the 410 comes straight from etcd).
    void compactPastStalledWatches(ws::test::StallProxy& proxy, const QByteArray& yaml) {
        proxy.stall();
        write(yaml);
        QString error;
        EtcdClient etcd(m_cluster->etcd().connectOptions());
        const auto status = etcd.status(&error);
        QVERIFY2(status, qPrintable(error));
        QVERIFY2(etcd.compact(status->revision, true, &error), qPrintable(error));
        proxy.dropAll();
        proxy.resume();
    }
    void write(const QByteArray& yaml) {
        QString error;
        QVERIFY2(m_cluster->kubectlAs(User::Writer, 0, {"apply", "-f", "-"}, nullptr, &error, 60000,
                                      yaml),
                 qPrintable(error));
    }
    static QByteArray configMaps(const QString& prefix, int n) {
        QByteArray y;
        for (int i = 0; i < n; ++i)
            y += QStringLiteral("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %1-%2\n"
                                "  namespace: default\n---\n")
                     .arg(prefix)
                     .arg(i)
                     .toUtf8();
        return y;
    }
    static QByteArray events(const QString& prefix, int n) {
        QByteArray y;
        for (int i = 0; i < n; ++i)
            y += QStringLiteral("apiVersion: v1\nkind: Event\nmetadata:\n  name: %1-%2\n"
                                "  namespace: default\ninvolvedObject:\n  kind: ConfigMap\n"
                                "  name: seed\n  namespace: default\nreason: Test\n"
                                "message: event %2\ntype: Normal\n---\n")
                     .arg(prefix)
                     .arg(i)
                     .toUtf8();
        return y;
    }

private slots:
    void initTestCase() {
        m_cluster = std::make_unique<RealCluster>(ws::test::RealClusterOptions::fromEnvironment(2));
        START_REAL_CLUSTER(*m_cluster);
        write(configMaps(QStringLiteral("seed"), 10));
    }

    // Two apiservers of one cluster side by side: one informer per apiserver (and one that
    // moves between them), each row naming its own apiserver, each synced to kubectl's count.
    void twoApiserversSideBySide() {
        Run r = start({"--server", m_cluster->url(0), "--server", m_cluster->url(1), "--kubeconfig",
                       m_cluster->kubeconfig(User::Admin), "--resources", "configmaps"},
                      QStringLiteral("10s"));
        finish(r);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const qint64 expected = kubectlCount(QStringLiteral("configmaps"));
        QSet<QString> apiservers;
        for (const QJsonObject& w : r.watchers) {
            apiservers << w.value("apiserver").toString();
            QVERIFY2(w.value("objects").toInteger() == expected,
                     qPrintable(QJsonDocument(w).toJson(QJsonDocument::Compact)));
        }
        QVERIFY2(r.watchers.size() >= 2 && apiservers.size() >= 2,
                 qPrintable(QStringLiteral("%1 watchers on %2")
                                .arg(r.watchers.size())
                                .arg(QStringList(apiservers.values()).join(u','))));
        QVERIFY2(r.ofSeverity("error").isEmpty(),
                 qPrintable(ws::test::describeExported(r.anomalies)));
    }

    // Events have no watch cache: a watch from a compacted revision gets etcd's 410 straight
    // through the apiserver. A watcher stalled (its connection silent) while events are
    // written and etcd compacts, then cut off, resumes from its old RV, gets 410 and relists.
    void compactionPastAStalledWatcher() {
        ws::test::StallProxy proxy(m_cluster->port(0));
        QString error;
        QVERIFY2(proxy.start(&error), qPrintable(error));
        write(events(QStringLiteral("before"), 3));
        const int skip = auditEntries(0);
        const qint64 listsBefore = watchListsEnded(0, QStringLiteral("events"));
        Run r = start({"--server", proxy.url(QStringLiteral("https")), "--kubeconfig",
                       m_cluster->kubeconfig(User::Admin), "--resources", "events"},
                      QStringLiteral("40s"));
        QTRY_VERIFY_WITH_TIMEOUT(
            holdsWatchedState(proxy, QStringLiteral("events"), skip, listsBefore), 30000);
        compactPastStalledWatches(proxy, events(QStringLiteral("during"), 20));
        if (QTest::currentTestFailed())
            return;
        finish(r);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.kinds().contains(QStringLiteral("too-old-rv")),
                 qPrintable(ws::test::describeExported(r.anomalies)));
        QCOMPARE(r.watchers.size(), 1);
        QVERIFY2(r.watchers.first().value("relists").toInt() >= 1,
                 qPrintable(QJsonDocument(r.watchers.first()).toJson(QJsonDocument::Compact)));
        QCOMPARE(r.watchers.first().value("objects").toInteger(),
                 kubectlCount(QStringLiteral("events")));
    }

    // As client-go: the apiserver offers HTTP/2 by ALPN, and discovery, every LIST and WATCH
    // and the /metrics scrapes share one TCP connection (the proxy in between counts them).
    // The proxy then resets it, as a load balancer that drops it does: every watch ends, each
    // informer watches again over one new connection, and ends with the objects kubectl lists.
    void oneHttp2ConnectionSurvivesACut() {
        ws::test::StallProxy proxy(m_cluster->port(0));
        QString error;
        QVERIFY2(proxy.start(&error), qPrintable(error));
        const QStringList resources = {"configmaps", "namespaces", "serviceaccounts", "secrets",
                                       "events"};
        const int skip = auditEntries(0);
        Run r = start({"--server", proxy.url(QStringLiteral("https")), "--kubeconfig",
                       m_cluster->kubeconfig(User::Admin), "--resources", resources.join(',')},
                      QStringLiteral("45s"));
        for (const QString& resource : resources)
            QTRY_VERIFY_WITH_TIMEOUT(watching(0, resource, skip), 30000);
        QCOMPARE(proxy.accepted(), std::int64_t(1));
        QCOMPARE(proxy.openConnections(), 1);
        const int beforeCut = auditEntries(0);
        proxy.dropAll();
        write(configMaps(QStringLiteral("after-cut"), 5));
        for (const QString& resource : resources)
            QTRY_VERIFY_WITH_TIMEOUT(watching(0, resource, beforeCut), 30000);
        finish(r);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(proxy.accepted(), std::int64_t(2));
        QCOMPARE(r.watchers.size(), resources.size());
        for (const QJsonObject& w : r.watchers)
            QVERIFY2(w.value("objects").toInteger() == kubectlCount(w.value("resource").toString()),
                     qPrintable(QJsonDocument(w).toJson(QJsonDocument::Compact)));
        QVERIFY2(r.ofSeverity("error").isEmpty(),
                 qPrintable(ws::test::describeExported(r.anomalies)));
    }

    // The same with more events than a page, as client-go 0.34 (LIST, not watch-list): the
    // first list (RV="0", limit 500) comes back in pages because events have no watch cache,
    // so after the 410 the relist is paged too, at the exact RV (reflector.paginatedResult); etcd
    // compacted that RV, so it is retried at RV="", still in pages of 500. Every page's events
    // are in the informer.
    void eventsRelistInPages() {
        QString error;
        QVERIFY2(m_cluster->kubectlAs(User::Writer, 0, {"create", "-f", "-"}, nullptr, &error,
                                      180000, events(QStringLiteral("paged"), 620)),
                 qPrintable(error));
        ws::test::StallProxy proxy(m_cluster->port(0));
        QVERIFY2(proxy.start(&error), qPrintable(error));
        const int skip = auditEntries(0);
        const qint64 listsBefore = watchListsEnded(0, QStringLiteral("events"));
        Run r = start({"--server", proxy.url(QStringLiteral("https")), "--kubeconfig",
                       m_cluster->kubeconfig(User::Admin), "--resources", "events", "--client-go",
                       "0.34"},
                      QStringLiteral("40s"));
        QTRY_VERIFY_WITH_TIMEOUT(
            holdsWatchedState(proxy, QStringLiteral("events"), skip, listsBefore), 30000);
        compactPastStalledWatches(proxy, events(QStringLiteral("stalled"), 5));
        if (QTest::currentTestFailed())
            return;
        finish(r);
        // Read before kubectl lists them too (in pages of its own).
        const QList<QJsonObject> audit = ws::test::readJsonLines(m_cluster->auditLog(0)).mid(skip);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.watchers.size(), 1);
        QCOMPARE(r.watchers.first().value("objects").toInteger(),
                 kubectlCount(QStringLiteral("events")));

        // The admin's lists of events, as the audit log shows them: "limit=500&resourceVersion=0
        // 200", "continue=…&limit=500 200", then the relists after the first watch.
        QStringList lists;
        bool watched = false;
        int relistPages = 0;
        bool exactRelistPaged = false;
        for (const QJsonObject& e : audit) {
            if (e.value("stage").toString() != QLatin1String("ResponseComplete") ||
                e.value("user").toObject().value("username").toString() != QLatin1String("admin") ||
                e.value("objectRef").toObject().value("resource").toString() !=
                    QLatin1String("events"))
                continue;
            const QString verb = e.value("verb").toString();
            watched = watched || verb == QLatin1String("watch");
            if (verb != QLatin1String("list"))
                continue;
            const QUrlQuery q(e.value("requestURI").toString().section(u'?', 1));
            const int code = e.value("responseStatus").toObject().value("code").toInt();
            lists << QStringLiteral("%1 %2").arg(q.toString()).arg(code);
            if (!watched)
                continue;
            QVERIFY2(q.queryItemValue("limit") == QLatin1String("500"),
                     qPrintable(lists.join('\n')));
            const QString rv = q.queryItemValue("resourceVersion");
            exactRelistPaged = exactRelistPaged || (!rv.isEmpty() && rv != QLatin1String("0"));
            relistPages += q.hasQueryItem("continue") && code == 200;
        }
        QVERIFY2(lists.value(0) == QLatin1String("limit=500&resourceVersion=0 200") &&
                     lists.value(1).startsWith(QLatin1String("continue=")),
                 qPrintable(lists.join('\n')));
        QVERIFY2(exactRelistPaged && relistPages >= 1, qPrintable(lists.join('\n')));
        qInfo("%s", qPrintable(lists.join('\n')));
    }

    // An apiserver restarted (SIGTERM, as a rolling update does) under a watch, on an etcd slow
    // to answer: its configmaps storage (one etcd connection per storage) is held 45 s from its
    // first request, so that watch cache takes that long to initialise while the others are
    // ready at once. Meanwhile (1.31+) every configmaps watch gets 429 "storage is
    // (re)initializing" with a Retry-After; client-go's REST layer retries those, and the
    // reflector backs off and watches again. The user sees a cache-not-ready for configmaps and
    // the retries on the watcher; then the watch is re-established and every informer ends with
    // the objects written while the apiserver was down and after.
    void apiserverRestarted() {
        const int skip = auditEntries(1);
        Run r = start({"--kubeconfig", m_cluster->kubeconfig(User::Admin, 1), "--resources",
                       "configmaps,namespaces"},
                      QStringLiteral("150s"));
        QTRY_VERIFY_WITH_TIMEOUT(watching(1, QStringLiteral("configmaps"), skip), 30000);
        m_cluster->stopApiserver(1);
        write(configMaps(QStringLiteral("while-down"), 5));
        QString error;
        m_etcdProxy =
            std::make_unique<ws::test::StallProxy>(m_cluster->etcd().member(0).clientPort);
        QVERIFY2(m_etcdProxy->start(&error), qPrintable(error));
        m_etcdProxy->holdOnce("/registry/configmaps/", 45000);
        QVERIFY2(m_cluster->startApiserver(1, &error, m_etcdProxy->url()), qPrintable(error));
        QVERIFY2(m_cluster->waitReady(1, 120000, &error), qPrintable(error));
        QVERIFY(m_etcdProxy->holdBegan());
        write(configMaps(QStringLiteral("after-restart"), 5));
        finish(r);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        qInfo("%s\n%s", qPrintable(r.out.trimmed()),
              qPrintable(ws::test::describeExported(r.anomalies)));
        for (const QJsonObject& w : r.watchers)
            QVERIFY2(w.value("objects").toInteger() == kubectlCount(w.value("resource").toString()),
                     qPrintable(QJsonDocument(w).toJson(QJsonDocument::Compact)));
        QVERIFY2(r.ofSeverity("error").isEmpty(),
                 qPrintable(ws::test::describeExported(r.anomalies)));
        // The initialisation, named, for configmaps alone.
        QList<QJsonObject> notReady;
        for (const QJsonObject& a : r.anomalies)
            if (a.value("kind").toString() == QLatin1String("cache-not-ready"))
                notReady << a;
        QVERIFY2(!notReady.isEmpty(), qPrintable(ws::test::describeExported(r.anomalies)));
        for (const QJsonObject& a : notReady) {
            QCOMPARE(a.value("resource").toString(), QStringLiteral("configmaps"));
            QVERIFY2(a.value("message").toString().contains(
                         QLatin1String("storage is (re)initializing")),
                     qPrintable(a.value("message").toString()));
        }
        for (const QJsonObject& w : r.watchers)
            if (w.value("resource").toString() == QLatin1String("configmaps"))
                QVERIFY2(w.value("http_retries").toInt() >= 10,
                         qPrintable(QJsonDocument(w).toJson(QJsonDocument::Compact)));
    }

    // etcd stopped for 10 s: lists and watches fail, then everything recovers and the revision
    // accounts balance.
    void etcdStoppedFor10s() {
        const int skip = auditEntries(0);
        Run r =
            start({"--kubeconfig", m_cluster->kubeconfig(User::Admin), "--resources", "configmaps"},
                  QStringLiteral("60s"));
        QTRY_VERIFY_WITH_TIMEOUT(watching(0, QStringLiteral("configmaps"), skip), 30000);
        m_cluster->etcd().kill(0);
        QTest::qWait(10000); // the outage itself
        QString error;
        QVERIFY2(m_cluster->etcd().start(0, &error), qPrintable(error));
        QVERIFY2(m_cluster->etcd().waitReady(60000, &error), qPrintable(error));
        QVERIFY2(m_cluster->waitReady(0, 120000, &error), qPrintable(error));
        write(configMaps(QStringLiteral("after-outage"), 5));
        finish(r);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.watchers.size(), 1);
        QCOMPARE(r.watchers.first().value("objects").toInteger(),
                 kubectlCount(QStringLiteral("configmaps")));
        QVERIFY2(r.out.contains(QLatin1String("balanced")), qPrintable(r.out));
        qInfo("%s\n%s", qPrintable(r.out.trimmed()),
              qPrintable(ws::test::describeExported(r.anomalies)));
    }

    void cleanupTestCase() {
        if (m_cluster)
            m_cluster->stop();
    }
};

QTEST_GUILESS_MAIN(TestRealFaults)
#include "tst_realfaults.moc"

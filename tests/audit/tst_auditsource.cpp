#include "AuditLines.h"
#include "AuditRun.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ws;
using namespace ws::test;

namespace {

const QString kCtrl = QStringLiteral(
    "system:serviceaccount:kube-system:replicaset-controller (kube-controller-manager/v1.30.2 "
    "(linux/amd64) kubernetes/3968350/system:serviceaccount:kube-system:replicaset-controller)");

// One list answered at `at` after `took` seconds.
AuditLine list(const QString& id, const QString& uri, double at, double took = 0.01) {
    AuditLine l;
    l.auditId = id;
    l.uri = uri;
    l.received = at;
    l.at = at + took;
    return l;
}

// The seed incident's answer: 504 "Too large resource version" after the cache's 3 s wait.
AuditLine tooLarge(const QString& id, const QString& user, double at, int rv) {
    AuditLine l = list(id, QStringLiteral("/api/v1/configmaps?resourceVersion=%1").arg(rv), at, 3);
    l.user = user;
    l.agent = QStringLiteral("agent/v0.20.0 (linux/amd64) kubernetes/$Format");
    l.code = 504;
    l.status = QStringLiteral("Failure");
    l.reason = QStringLiteral("Timeout");
    l.message = QStringLiteral("Timeout: Too large resource version: %1, current: 4000").arg(rv);
    return l;
}

AuditLine watchStage(const QString& id, const QString& stage, const QString& query, double received,
                     double at, const QString& user = QStringLiteral("system:node:node-1")) {
    AuditLine l;
    l.auditId = id;
    l.stage = stage;
    l.verb = QStringLiteral("watch");
    l.uri = QStringLiteral("/api/v1/configmaps?%1&watch=true").arg(query);
    l.user = user;
    l.agent = QStringLiteral("kubelet/v1.30.2 (linux/amd64) kubernetes/3968350");
    l.received = received;
    l.at = at;
    return l;
}

} // namespace

class TstAuditSource : public QObject {
    Q_OBJECT

private slots:
    // Stages of one auditID are one request; lists, watches and their parameters per client.
    void reconstructs() {
        QTemporaryDir dir;
        QByteArray log;
        AuditLine received =
            list(QStringLiteral("l1"),
                 QStringLiteral("/api/v1/configmaps?limit=500&resourceVersion=0"), 0);
        received.stage = QStringLiteral("RequestReceived");
        received.at = 0;
        log += auditLine(received);
        log += auditLine(list(QStringLiteral("l1"), received.uri, 0, 0.02));
        // A watch: received, started, completed at its timeoutSeconds.
        const QString q =
            QStringLiteral("allowWatchBookmarks=true&resourceVersion=1200&timeoutSeconds=400");
        log +=
            auditLine(watchStage(QStringLiteral("w1"), QStringLiteral("RequestReceived"), q, 1, 1));
        log += auditLine(
            watchStage(QStringLiteral("w1"), QStringLiteral("ResponseStarted"), q, 1, 1.001));
        // Paginated list of another client: two pages, one list.
        AuditLine page1 =
            list(QStringLiteral("p1"),
                 QStringLiteral("/apis/apps/v1/deployments?limit=500&resourceVersion=1300"), 2);
        page1.resource = QStringLiteral("deployments");
        page1.group = QStringLiteral("apps");
        page1.user = QStringLiteral("admin");
        page1.agent = QStringLiteral("kubectl/v1.30.2 (linux/amd64) kubernetes/3968350");
        AuditLine page2 = page1;
        page2.auditId = QStringLiteral("p2");
        page2.uri =
            QStringLiteral("/apis/apps/v1/"
                           "deployments?continue="
                           "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTMwMCwic3RhcnQiOiJhIn0&limit=500");
        page2.received = 3;
        page2.at = 3.01;
        log += auditLine(page1) + auditLine(page2);
        // Not a list or watch: ignored.
        AuditLine get = list(QStringLiteral("g1"),
                             QStringLiteral("/api/v1/namespaces/default/configmaps/a"), 4);
        get.verb = QStringLiteral("get");
        log += auditLine(get);
        log += auditLine(
            watchStage(QStringLiteral("w1"), QStringLiteral("ResponseComplete"), q, 1, 401));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("audit.log")), log));

        AuditRun run;
        QVERIFY2(run.start({dir.filePath(QStringLiteral("audit.log"))}), qPrintable(run.error));
        run.drain();
        QCOMPARE(run.source->requests(), 4);
        QCOMPARE(run.source->totalEvents(), 7); // the get is not one
        QCOMPARE(run.last(QStringLiteral("configmaps"), series::requestsList()), 1.0);
        QCOMPARE(run.last(QStringLiteral("configmaps"), series::requestsWatch()), 1.0);
        QCOMPARE(run.last(QStringLiteral("configmaps"), series::listInflight()), 0.0);
        QCOMPARE(run.last(QStringLiteral("deployments.apps"), series::requestsList()), 2.0);
        const QString node =
            QStringLiteral("system:node:node-1 (kubelet/v1.30.2 (linux/amd64) kubernetes/3968350)");
        QCOMPARE(run.last(QStringLiteral("configmaps"), series::requestedRv(node)), 1200.0);
        QCOMPARE(run.last(QStringLiteral("configmaps"), series::requestedRv(kCtrl)), 0.0);
        const auto watchers = run.watchers();
        QCOMPARE(watchers.size(), 3);
        QCOMPARE(watchers[0].id, kCtrl + QStringLiteral(" configmaps"));
        QCOMPARE(watchers[0].apiserver, QStringLiteral("audit.log"));
        QCOMPARE(watchers[0].detail, QStringLiteral("list 200 in 0.0 s"));
        QCOMPARE(watchers[1].id, node + QStringLiteral(" configmaps"));
        QCOMPARE(watchers[1].rv, ResourceVersion(1200));
        QCOMPARE(watchers[1].detail, QStringLiteral("watch 200 in 400.0 s"));
        QCOMPARE(watchers[2].resource, QStringLiteral("deployments.apps"));
        QCOMPARE(run.pipeline->anomalies().size(), 0);
        QCOMPARE(run.source->warning(), QString());
        QCOMPARE(run.source->wallStart().toString(Qt::ISODateWithMs),
                 QStringLiteral("2026-11-26T10:00:00.000Z"));
    }

    // The seed incident: two apiservers answer a handful of clients' list at the same RV with
    // 504 "Too large resource version", again and again.
    void seedTooLargeLoop() {
        QTemporaryDir dir;
        QByteArray a, b;
        const QStringList users = {QStringLiteral("system:serviceaccount:ops:agent-a"),
                                   QStringLiteral("system:serviceaccount:ops:agent-b"),
                                   QStringLiteral("system:serviceaccount:ops:agent-c")};
        for (int round = 0; round < 6; ++round)
            for (int u = 0; u < users.size(); ++u) {
                const AuditLine l = tooLarge(QStringLiteral("r%1u%2").arg(round).arg(u), users[u],
                                             round * 5.0 + u * 0.1, 5000);
                ((round + u) % 2 ? a : b) += auditLine(l);
            }
        QVERIFY(writeFile(dir.filePath(QStringLiteral("master-1/audit.log")), a));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("master-2/audit.log")), b));
        AuditRun run;
        QVERIFY2(run.start({dir.filePath(QStringLiteral("master-1/audit.log")),
                            dir.filePath(QStringLiteral("master-2/audit.log"))}),
                 qPrintable(run.error));
        run.drain();
        QCOMPARE(run.source->requests(), 18);
        QCOMPARE(run.count(AnomalyKind::TooLargeRv), 18);
        QCOMPARE(run.count(AnomalyKind::RetryLoop), 3);
        for (const QString& user : users) {
            const QString w =
                QStringLiteral("%1 (agent/v0.20.0 (linux/amd64) kubernetes/$Format) configmaps")
                    .arg(user);
            QCOMPARE(run.count(AnomalyKind::RetryLoop, w), 1);
            QCOMPARE(run.count(AnomalyKind::TooLargeRv, w), 6);
        }
        QVERIFY2(run.messages(AnomalyKind::RetryLoop)
                     .first()
                     .startsWith(
                         QStringLiteral("504 Timeout received 5 times in a row without progress")),
                 qPrintable(run.messages(AnomalyKind::RetryLoop).first()));
        QCOMPARE(
            run.messages(AnomalyKind::TooLargeRv).first(),
            QStringLiteral("list from RV 5000 failed: 504 Timeout: Timeout: Too large resource "
                           "version: 5000, current: 4000"));
        // Which apiserver answered last: the file's.
        QCOMPARE(run.watchers().first().apiserver, QStringLiteral("master-1/audit.log"));
        QCOMPARE(run.source->problems().total(), 0);
        // Four in a row are not a loop yet.
        AuditRun four;
        QByteArray c;
        for (int round = 0; round < 4; ++round)
            c += auditLine(tooLarge(QStringLiteral("f%1").arg(round), users[0], round * 5.0, 5000));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("four.log")), c));
        QVERIFY(four.start({dir.filePath(QStringLiteral("four.log"))}));
        four.drain();
        QCOMPARE(four.count(AnomalyKind::TooLargeRv), 4);
        QCOMPARE(four.count(AnomalyKind::RetryLoop), 0);
    }

    // A client moves to another apiserver and asks for a lower RV than it asked for before;
    // RV "0" and "" in between are no regression.
    void regressionAcrossApiservers() {
        QTemporaryDir dir;
        QByteArray a, b;
        const QString q1 = QStringLiteral("resourceVersion=2000&timeoutSeconds=300");
        a += auditLine(
            list(QStringLiteral("l1"), QStringLiteral("/api/v1/configmaps?resourceVersion=0"), 0));
        a += auditLine(
            watchStage(QStringLiteral("w1"), QStringLiteral("ResponseStarted"), q1, 1, 1));
        a += auditLine(
            watchStage(QStringLiteral("w1"), QStringLiteral("ResponseComplete"), q1, 1, 301));
        // After a restart it lists RV="" and RV="0" from the other apiserver ...
        b += auditLine(list(QStringLiteral("l2"), QStringLiteral("/api/v1/configmaps"), 302));
        b += auditLine(list(QStringLiteral("l3"),
                            QStringLiteral("/api/v1/configmaps?resourceVersion=0"), 303));
        // ... whose lagging cache gives it RV 1500 to watch from.
        const QString q2 = QStringLiteral("resourceVersion=1500&timeoutSeconds=300");
        b += auditLine(
            watchStage(QStringLiteral("w2"), QStringLiteral("ResponseStarted"), q2, 304, 304));
        for (auto* l : {&a, &b})
            l->replace("system:serviceaccount:kube-system:replicaset-controller",
                       "system:node:node-1");
        AuditRun run;
        QVERIFY2(run.read(dir.path(), {{QStringLiteral("a.log"), a}, {QStringLiteral("b.log"), b}}),
                 qPrintable(run.error));
        QCOMPARE(run.count(AnomalyKind::RevisionRegression), 1);
        QCOMPARE(run.messages(AnomalyKind::RevisionRegression).first(),
                 QStringLiteral("time travel: watch asked for RV 1500, below RV 2000 this client "
                                "asked for before (500 revisions back)"));
        const Anomaly r = run.pipeline->anomalies().first();
        QCOMPARE(r.rv, ResourceVersion(1500));
        QCOMPARE(r.time, seconds(304));
        // The watch that ran its whole timeout was not cut.
        QCOMPARE(run.count(AnomalyKind::WatcherTerminated), 0);
    }

    // A list is logged when it completes: one that arrived before a watch is learned after it,
    // and is compared only with what arrived before it.
    void regressionByArrival() {
        QTemporaryDir dir;
        const QString q = QStringLiteral("resourceVersion=1002&timeoutSeconds=300");
        QByteArray log =
            auditLine(watchStage(QStringLiteral("w1"), QStringLiteral("ResponseStarted"), q, 2, 2));
        AuditLine slow = list(QStringLiteral("l1"),
                              QStringLiteral("/api/v1/configmaps?resourceVersion=1000"), 1, 2);
        slow.user = QStringLiteral("system:node:node-1");
        slow.agent = QStringLiteral("kubelet/v1.30.2 (linux/amd64) kubernetes/3968350");
        log += auditLine(slow); // arrived at 1, completed at 3
        AuditLine back = slow;
        back.auditId = QStringLiteral("l2");
        back.uri = QStringLiteral("/api/v1/configmaps?resourceVersion=900");
        back.received = 4;
        back.at = 4.1;
        log += auditLine(back);
        AuditRun run;
        QVERIFY2(run.read(dir.path(), {{QStringLiteral("audit.log"), log}}), qPrintable(run.error));
        QCOMPARE(run.messages(AnomalyKind::RevisionRegression),
                 QStringList{QStringLiteral("time travel: list asked for RV 900, below RV 1002 "
                                            "this client asked for before (102 revisions back)")});
    }

    // A collector that merged apiservers into one file names each line's apiserver; a v1beta1
    // line of an older apiserver is read the same way.
    void annotationAndV1beta1() {
        QTemporaryDir dir;
        AuditLine named = list(QStringLiteral("n1"), QStringLiteral("/api/v1/configmaps"), 0);
        named.annotationApiserver = QStringLiteral("master-3");
        AuditLine old = list(QStringLiteral("n2"), QStringLiteral("/api/v1/configmaps"), 1);
        old.apiVersion = QStringLiteral("audit.k8s.io/v1beta1");
        old.user = QStringLiteral("admin");
        AuditRun run;
        QVERIFY2(
            run.read(dir.path(), {{QStringLiteral("all.log"), auditLine(named) + auditLine(old)}}),
            qPrintable(run.error));
        QCOMPARE(run.source->requests(), 2);
        const auto watchers = run.watchers();
        QCOMPARE(watchers.size(), 2);
        QCOMPARE(watchers[0].apiserver, QStringLiteral("master-3"));
        QCOMPARE(watchers[1].apiserver, QStringLiteral("all.log"));
        QCOMPARE(run.source->problems().total(), 0);
    }

    // A watch closed far before its timeoutSeconds: the server cut it.
    void watchCutShort() {
        QTemporaryDir dir;
        const QString q = QStringLiteral("resourceVersion=100&timeoutSeconds=500");
        QByteArray log = auditLine(watchStage(QStringLiteral("w1"),
                                              QStringLiteral("ResponseStarted"), q, 0, 0)) +
                         auditLine(watchStage(QStringLiteral("w1"),
                                              QStringLiteral("ResponseComplete"), q, 0, 12)) +
                         auditLine(watchStage(QStringLiteral("w2"),
                                              QStringLiteral("ResponseStarted"), q, 13, 13)) +
                         auditLine(watchStage(QStringLiteral("w2"),
                                              QStringLiteral("ResponseComplete"), q, 13, 300));
        AuditRun run;
        QVERIFY2(run.read(dir.path(), {{QStringLiteral("audit.log"), log}}), qPrintable(run.error));
        // 12 s of 500 is cut; 287 s of 500 is more than half: not judged.
        QCOMPARE(run.count(AnomalyKind::WatcherTerminated), 1);
        QCOMPARE(run.pipeline->anomalies().first().time, seconds(12));
    }

    void relistStorm() {
        QTemporaryDir dir;
        QByteArray log;
        // 12 node agents relist (RV="") within 3 s after their first lists.
        for (int n = 0; n < 12; ++n) {
            AuditLine first =
                list(QStringLiteral("a%1").arg(n),
                     QStringLiteral("/api/v1/configmaps?resourceVersion=0"), n * 0.01);
            first.user = QStringLiteral("system:node:node-%1").arg(n);
            log += auditLine(first);
        }
        for (int n = 0; n < 12; ++n) {
            AuditLine again = list(QStringLiteral("b%1").arg(n),
                                   QStringLiteral("/api/v1/configmaps?limit=500"), 60 + n * 0.25);
            again.user = QStringLiteral("system:node:node-%1").arg(n);
            log += auditLine(again);
        }
        AuditRun run;
        QVERIFY2(run.read(dir.path(), {{QStringLiteral("audit.log"), log}}), qPrintable(run.error));
        QCOMPARE(run.count(AnomalyKind::RelistStorm), 1);
        QVERIFY2(
            run.messages(AnomalyKind::RelistStorm)
                .first()
                .startsWith(QStringLiteral("6 relists of configmaps in 10 s by 6 of 12 watchers")),
            qPrintable(run.messages(AnomalyKind::RelistStorm).first()));
    }

    // Broken lines, unknown apiVersion and kind: one message each with file:line, the good
    // lines used, the counts at the end.
    void badLines() {
        QTemporaryDir dir;
        QByteArray log =
            auditLine(list(QStringLiteral("g1"), QStringLiteral("/api/v1/configmaps"), 0));
        const QByteArray good2 =
            auditLine(list(QStringLiteral("g2"), QStringLiteral("/api/v1/configmaps"), 1));
        log += good2.left(100) + "\n"; // line 2: cut short
        AuditLine v2 = list(QStringLiteral("g3"), QStringLiteral("/api/v1/configmaps"), 2);
        v2.apiVersion = QStringLiteral("audit.k8s.io/v2");
        log += auditLine(v2); // line 3
        QByteArray eventList =
            auditLine(list(QStringLiteral("g4"), QStringLiteral("/api/v1/configmaps"), 3));
        eventList.replace("\"kind\":\"Event\"", "\"kind\":\"EventList\"");
        log += eventList; // line 4
        log += "\n";      // line 5: empty, nothing to say
        log += auditLine(list(QStringLiteral("g5"), QStringLiteral("/api/v1/configmaps"), 4));
        log +=
            "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"auditID\""; // 7, no newline
        AuditRun run;
        QVERIFY2(run.read(dir.path(), {{QStringLiteral("audit.log"), log}}), qPrintable(run.error));
        QCOMPARE(run.source->requests(), 2);
        const QStringList errors = run.messages(AnomalyKind::StreamError);
        QCOMPARE(errors.size(), 4);
        QVERIFY2(
            errors[0].startsWith(QStringLiteral("audit log audit.log:2: not a JSON audit event")),
            qPrintable(errors[0]));
        QCOMPARE(errors[1], QStringLiteral("audit log audit.log:3: apiVersion \"audit.k8s.io/v2\" "
                                           "is not audit.k8s.io/v1 or v1beta1"));
        QCOMPARE(errors[2],
                 QStringLiteral("audit log audit.log:4: kind \"EventList\" is not an audit Event"));
        QVERIFY2(
            errors[3].startsWith(QStringLiteral("audit log audit.log:7: not a JSON audit event")),
            qPrintable(errors[3]));
        QCOMPARE(
            run.source->warning(),
            QStringLiteral("audit log: skipped 2 broken lines (first: audit.log:2), 1 line of an "
                           "unknown apiVersion (first: audit.log:3), 1 line of an unknown "
                           "kind (first: audit.log:4)"));
    }

    // Compressed backups read like plain ones; a truncated one gives every whole line before
    // the damage and one message.
    void gzip() {
        QTemporaryDir dir;
        QByteArray log;
        for (int i = 0; i < 2000; ++i)
            log += auditLine(list(QStringLiteral("z%1").arg(i),
                                  QStringLiteral("/api/v1/configmaps?resourceVersion=0"), i * 0.1));
        const QByteArray gz = gzipped(log);
        QVERIFY(gz.size() > 1000);
        QVERIFY(writeFile(
            dir.filePath(QStringLiteral("whole/audit-2026-11-26T10-00-00.000.log.gz")), gz));
        AuditRun whole;
        QVERIFY(whole.start({dir.filePath(QStringLiteral("whole"))}));
        whole.drain();
        QCOMPARE(whole.source->requests(), 2000);
        QCOMPARE(whole.source->warning(), QString());

        const QByteArray cut = gz.left(gz.size() / 2);
        const qsizetype wholeLines = gunzipped(cut).count('\n');
        QVERIFY(wholeLines > 100 && wholeLines < 2000);
        QVERIFY(writeFile(dir.filePath(QStringLiteral("cut/audit.log.gz")), cut));
        AuditRun run;
        QVERIFY(run.start({dir.filePath(QStringLiteral("cut/audit.log.gz"))}));
        run.drain();
        QCOMPARE(run.source->requests(), wholeLines);
        const QStringList errors = run.messages(AnomalyKind::StreamError);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(errors[0], QStringLiteral("audit log audit.log.gz:%1: truncated gzip (unexpected "
                                           "end of file): the lines before it were read")
                                .arg(wholeLines + 1));
        QCOMPARE(run.source->warning(),
                 QStringLiteral("audit log: 1 unreadable file end (first: audit.log.gz:%1)")
                     .arg(wholeLines + 1));
    }

    // A folder of rotated files is read oldest first: the RVs asked only rise.
    void rotatedFolder() {
        QTemporaryDir dir;
        auto lines = [](int from, double at) {
            QByteArray out;
            for (int i = 0; i < 3; ++i)
                out += auditLine(list(
                    QStringLiteral("x%1").arg(from + i),
                    QStringLiteral("/api/v1/configmaps?resourceVersion=%1").arg(from + i), at + i));
            return out;
        };
        const QString d = dir.filePath(QStringLiteral("logs"));
        QVERIFY(writeFile(d + QStringLiteral("/audit.log"), lines(300, 30)));
        QVERIFY(
            writeFile(d + QStringLiteral("/audit-2026-11-26T10-00-20.000.log"), lines(200, 20)));
        QVERIFY(writeFile(d + QStringLiteral("/audit-2026-11-26T10-00-10.000.log.gz"),
                          gzipped(lines(100, 10))));
        AuditRun run;
        QVERIFY(run.start({d}));
        run.drain();
        QCOMPARE(run.source->requests(), 9);
        QCOMPARE(run.count(AnomalyKind::RevisionRegression), 0);
        QCOMPARE(run.source->problems().total(), 0);
        QCOMPARE(run.last(QStringLiteral("configmaps"), series::requestedRv(kCtrl)), 302.0);
        QCOMPARE(run.source->description(), QStringLiteral("audit log audit.log"));
    }

    // Two files, one with an event far older than what the other had already given.
    void outOfOrderAcrossFiles() {
        QTemporaryDir dir;
        QByteArray a =
            auditLine(list(QStringLiteral("a1"), QStringLiteral("/api/v1/configmaps"), 0)) +
            auditLine(list(QStringLiteral("a2"), QStringLiteral("/api/v1/configmaps"), 50));
        QByteArray b =
            auditLine(list(QStringLiteral("b1"), QStringLiteral("/api/v1/configmaps"), 60)) +
            auditLine(list(QStringLiteral("b2"), QStringLiteral("/api/v1/configmaps"), 10));
        AuditRun run;
        QVERIFY2(run.read(dir.path(), {{QStringLiteral("a.log"), a}, {QStringLiteral("b.log"), b}}),
                 qPrintable(run.error));
        QCOMPARE(run.source->requests(), 4);
        const QStringList errors = run.messages(AnomalyKind::StreamError);
        QCOMPARE(errors.size(), 1);
        QVERIFY2(errors[0].startsWith(QStringLiteral(
                     "audit log b.log:2: an event 40.000 s older than one of a.log already read")),
                 qPrintable(errors[0]));
        QCOMPARE(run.source->warning(),
                 QStringLiteral("audit log: 1 event out of order (first: b.log:2)"));
    }

    // A live file: appended lines are read as they come, across a rotation.
    void follow() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("audit.log"));
        QVERIFY(writeFile(
            path, auditLine(list(QStringLiteral("f1"), QStringLiteral("/api/v1/configmaps"), 0))));
        AuditRun run;
        QVERIFY(run.start({path}, true));
        QVERIFY(run.pollUntil([&] { return run.source->requests() == 1; }));
        QVERIFY(!run.source->finished());
        // Half a line, then the rest: the line counts once whole.
        const QByteArray next =
            auditLine(list(QStringLiteral("f2"), QStringLiteral("/api/v1/configmaps"), 1));
        QVERIFY(writeFile(path, next.left(40), true));
        run.source->poll(*run.pipeline);
        QVERIFY(writeFile(path, next.mid(40), true));
        QVERIFY(run.pollUntil([&] { return run.source->requests() == 2; }));
        // lumberjack rotates: renames the live file, opens a new one.
        QVERIFY(writeFile(
            path, auditLine(list(QStringLiteral("f3"), QStringLiteral("/api/v1/configmaps"), 2)),
            true));
        QVERIFY(
            QFile::rename(path, dir.filePath(QStringLiteral("audit-2026-11-26T10-00-03.000.log"))));
        QVERIFY(writeFile(
            path, auditLine(list(QStringLiteral("f4"), QStringLiteral("/api/v1/configmaps"), 4))));
        QVERIFY(run.pollUntil([&] { return run.source->requests() == 4; }));
        QCOMPARE(run.last(QStringLiteral("configmaps"), series::requestsList()), 4.0);
        QCOMPARE(run.source->problems().total(), 0);
    }

    void badInput() {
        AuditRun run;
        QVERIFY(!run.start({QStringLiteral("/nonexistent/audit.log")}));
        QCOMPARE(run.error,
                 QStringLiteral("--audit-log: /nonexistent/audit.log: no such file or directory"));
        QTemporaryDir dir;
        AuditRun empty;
        QVERIFY(!empty.start({dir.path()}));
        QCOMPARE(
            empty.error,
            QStringLiteral("--audit-log: %1: no audit log files in this folder").arg(dir.path()));
    }
};

QTEST_GUILESS_MAIN(TstAuditSource)
#include "tst_auditsource.moc"

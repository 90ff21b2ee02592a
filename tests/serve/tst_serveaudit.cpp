// `watchscope-cli serve --audit-log-path`: the real kubectl against serve, and the audit log
// read back as kube-apiserver writes it at level Metadata (audit.k8s.io/v1 Event, one JSON line
// per stage; k8s.io/apiserver/pkg/endpoints/filters/audit.go): every line parses, the auditID
// is the Audit-Id header kubectl received, a list is RequestReceived + ResponseComplete, a watch
// also has ResponseStarted, errors carry their Status, a request that fails authentication is
// one ResponseStarted event with its 401 and no user, and no token is ever written.

#include "audit/AuditRun.h"
#include "support/KubectlTestBed.h"
#include "support/ServeProcess.h"
#include "support/TestPki.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using ws::test::ServeProcess;
using ws::test::TestPki;

namespace {
const QString kToken = QStringLiteral("audit-token-4f1e6c92"); // must never reach the log
}

class TestServeAudit : public ws::test::KubectlTestBed {
    Q_OBJECT

private:
    ServeProcess m_serve; // TLS: kubectl sends a bearer token only over https
    QString m_log;

    QString kubeconfig() const { return m_dir.filePath(QStringLiteral("audit.kubeconfig")); }

    struct Run {
        int exitCode = -1;
        QString out, err;
    };
    Run kubectl(const QStringList& args) {
        QProcess p;
        p.start(m_kubectl, QStringList{QStringLiteral("--kubeconfig"), kubeconfig()} + args);
        Run r;
        if (!p.waitForFinished(30000)) {
            p.kill();
            p.waitForFinished();
            return r;
        }
        r.exitCode = p.exitCode();
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        return r;
    }

    // Every line of the log as an object; a line that does not parse fails the test.
    QList<QJsonObject> events() {
        QFile f(m_log);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        QList<QJsonObject> out;
        for (const QByteArray& line : f.readAll().split('\n')) {
            if (line.isEmpty())
                continue;
            QJsonParseError error;
            const QJsonDocument d = QJsonDocument::fromJson(line, &error);
            if (error.error != QJsonParseError::NoError || !d.isObject()) {
                qWarning("unparseable audit line: %s", line.constData());
                return {};
            }
            out << d.object();
        }
        return out;
    }

    QList<QJsonObject> eventsOf(const QString& auditId) {
        QList<QJsonObject> out;
        for (const QJsonObject& e : events())
            if (e.value(QLatin1String("auditID")).toString() == auditId)
                out << e;
        return out;
    }

    static QStringList stages(const QList<QJsonObject>& es) {
        QStringList out;
        for (const QJsonObject& e : es)
            out << e.value(QLatin1String("stage")).toString();
        return out;
    }

    // The Audit-Id headers kubectl -v=8 logged for requests whose URL matches `url`.
    static QStringList auditIds(const QString& log, const QString& urlPart) {
        QStringList out;
        bool inMatching = false;
        static const QRegularExpression id(QStringLiteral("Audit-Id: ([0-9a-f-]+)"));
        for (const QString& line : log.split(u'\n')) {
            if (line.contains(QLatin1String("GET http")))
                inMatching = line.contains(urlPart);
            const auto m = id.match(line);
            if (m.hasMatch() && inMatching)
                out << m.captured(1);
        }
        return out;
    }

private slots:
    void initTestCase() {
        SET_UP_KUBECTL_TEST_BED(Tls::Yes);
        QString error;
        const QString tokens =
            writeTestFile(QStringLiteral("tokens.csv"),
                          QStringLiteral("%1,dora,uid-dora,\"ops,devs\"\n").arg(kToken).toUtf8());
        QVERIFY(!tokens.isEmpty());
        m_log = m_dir.filePath(QStringLiteral("audit.log"));
        QVERIFY2(m_serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                                QStringLiteral("--server-version"), QStringLiteral("1.30"),
                                QStringLiteral("--tls-cert"), m_pki.serverCert,
                                QStringLiteral("--tls-key"), m_pki.serverKey,
                                QStringLiteral("--token-file"), tokens,
                                QStringLiteral("--audit-log-path"), m_log},
                               &error),
                 qPrintable(error));
        QFile k(kubeconfig());
        QVERIFY(k.open(QIODevice::WriteOnly));
        k.write(QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: served\n"
                               "  cluster:\n    server: %1\n    certificate-authority: %3\n"
                               "contexts:\n- name: served\n"
                               "  context:\n    cluster: served\n    user: dora\n"
                               "current-context: served\nusers:\n- name: dora\n  user:\n"
                               "    token: %2\n")
                    .arg(m_serve.url(), kToken, m_pki.caCert)
                    .toUtf8());
    }

    void listIsReceivedThenComplete() {
        const Run r =
            kubectl({QStringLiteral("get"), QStringLiteral("configmaps"), QStringLiteral("-n"),
                     QStringLiteral("ns-1"), QStringLiteral("-v=8")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(2000)));
        const QStringList ids = auditIds(r.err, QStringLiteral("/namespaces/ns-1/configmaps"));
        QVERIFY2(ids.size() == 1, qPrintable(r.err.right(2000)));
        const QList<QJsonObject> es = eventsOf(ids.first());
        QCOMPARE(stages(es), (QStringList{QStringLiteral("RequestReceived"),
                                          QStringLiteral("ResponseComplete")}));
        for (const QJsonObject& e : es) {
            QCOMPARE(e.value(QLatin1String("kind")).toString(), QStringLiteral("Event"));
            QCOMPARE(e.value(QLatin1String("apiVersion")).toString(),
                     QStringLiteral("audit.k8s.io/v1"));
            QCOMPARE(e.value(QLatin1String("level")).toString(), QStringLiteral("Metadata"));
            QCOMPARE(e.value(QLatin1String("verb")).toString(), QStringLiteral("list"));
            QCOMPARE(e.value(QLatin1String("requestURI")).toString(),
                     QStringLiteral("/api/v1/namespaces/ns-1/configmaps?limit=500"));
            const QJsonObject user = e.value(QLatin1String("user")).toObject();
            QCOMPARE(user.value(QLatin1String("username")).toString(), QStringLiteral("dora"));
            QCOMPARE(user.value(QLatin1String("groups")).toArray().toVariantList(),
                     (QVariantList{QStringLiteral("ops"), QStringLiteral("devs"),
                                   QStringLiteral("system:authenticated")}));
            QCOMPARE(e.value(QLatin1String("sourceIPs")).toArray().toVariantList(),
                     QVariantList{QStringLiteral("127.0.0.1")});
            QVERIFY(e.value(QLatin1String("userAgent")).toString().startsWith(u"kubectl/"));
            const QJsonObject ref = e.value(QLatin1String("objectRef")).toObject();
            QCOMPARE(ref.value(QLatin1String("resource")).toString(), QStringLiteral("configmaps"));
            QCOMPARE(ref.value(QLatin1String("namespace")).toString(), QStringLiteral("ns-1"));
            QCOMPARE(ref.value(QLatin1String("apiVersion")).toString(), QStringLiteral("v1"));
            QVERIFY(!ref.contains(QLatin1String("apiGroup"))); // the core group: omitted
            static const QRegularExpression micro(
                QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z$"));
            QVERIFY(micro.match(e.value(QLatin1String("requestReceivedTimestamp")).toString())
                        .hasMatch());
            QVERIFY(micro.match(e.value(QLatin1String("stageTimestamp")).toString()).hasMatch());
        }
        // RequestReceived: no response yet, no authorization yet, its stage time is the received
        // time. ResponseComplete: the code, and the authorizer's decision.
        QVERIFY(!es[0].contains(QLatin1String("responseStatus")));
        QVERIFY(!es[0].contains(QLatin1String("annotations")));
        QCOMPARE(es[0].value(QLatin1String("stageTimestamp")),
                 es[0].value(QLatin1String("requestReceivedTimestamp")));
        QCOMPARE(es[1].value(QLatin1String("responseStatus")).toObject(),
                 (QJsonObject{{QStringLiteral("metadata"), QJsonObject{}},
                              {QStringLiteral("code"), 200}}));
        QCOMPARE(es[1]
                     .value(QLatin1String("annotations"))
                     .toObject()
                     .value(QLatin1String("authorization.k8s.io/decision"))
                     .toString(),
                 QStringLiteral("allow"));
        QVERIFY(es[1].value(QLatin1String("stageTimestamp")).toString() >=
                es[1].value(QLatin1String("requestReceivedTimestamp")).toString());
    }

    void watchHasResponseStarted() {
        QProcess watch;
        watch.start(m_kubectl,
                    {QStringLiteral("--kubeconfig"), kubeconfig(), QStringLiteral("get"),
                     QStringLiteral("configmaps"), QStringLiteral("-n"), QStringLiteral("audited"),
                     QStringLiteral("-w"), QStringLiteral("-v=8")});
        QVERIFY(watch.waitForStarted());
        // Wait until the watch's headers arrived (kubectl logs its Audit-Id).
        QString log;
        QStringList ids;
        QDeadlineTimer deadline(15000);
        while (ids.isEmpty() && !deadline.hasExpired()) {
            watch.waitForReadyRead(200);
            log += QString::fromUtf8(watch.readAllStandardError());
            ids = auditIds(log, QStringLiteral("watch=true"));
        }
        QVERIFY2(ids.size() == 1, qPrintable(log.right(2000)));
        QCOMPARE(stages(eventsOf(ids.first())), (QStringList{QStringLiteral("RequestReceived"),
                                                             QStringLiteral("ResponseStarted")}));
        watch.kill(); // the client goes away: the handler returns, ResponseComplete
        watch.waitForFinished();
        QTRY_COMPARE_WITH_TIMEOUT(
            stages(eventsOf(ids.first())),
            (QStringList{QStringLiteral("RequestReceived"), QStringLiteral("ResponseStarted"),
                         QStringLiteral("ResponseComplete")}),
            10000);
        const QList<QJsonObject> es = eventsOf(ids.first());
        QCOMPARE(es[1].value(QLatin1String("verb")).toString(), QStringLiteral("watch"));
        QCOMPARE(es[1].value(QLatin1String("responseStatus")).toObject(),
                 (QJsonObject{{QStringLiteral("metadata"), QJsonObject{}},
                              {QStringLiteral("code"), 200}}));
    }

    void errorCarriesItsStatus() {
        const Run r = kubectl({QStringLiteral("get"), QStringLiteral("configmap"),
                               QStringLiteral("not-there"), QStringLiteral("-n"),
                               QStringLiteral("ns-0"), QStringLiteral("-v=8")});
        QVERIFY(r.exitCode != 0);
        const QStringList ids = auditIds(r.err, QStringLiteral("/configmaps/not-there"));
        QVERIFY2(!ids.isEmpty(), qPrintable(r.err.right(2000)));
        const QList<QJsonObject> es = eventsOf(ids.first());
        QCOMPARE(stages(es), (QStringList{QStringLiteral("RequestReceived"),
                                          QStringLiteral("ResponseComplete")}));
        QCOMPARE(es[1].value(QLatin1String("verb")).toString(), QStringLiteral("get"));
        QCOMPARE(es[1]
                     .value(QLatin1String("objectRef"))
                     .toObject()
                     .value(QLatin1String("name"))
                     .toString(),
                 QStringLiteral("not-there"));
        const QJsonObject status = es[1].value(QLatin1String("responseStatus")).toObject();
        QCOMPARE(status.value(QLatin1String("code")).toInt(), 404);
        QCOMPARE(status.value(QLatin1String("status")).toString(), QStringLiteral("Failure"));
        QCOMPARE(status.value(QLatin1String("reason")).toString(), QStringLiteral("NotFound"));
        QCOMPARE(status.value(QLatin1String("message")).toString(),
                 QStringLiteral("configmaps \"not-there\" not found"));
    }

    // filters/authn_audit.go: the authentication filter runs outside the audit filter; its failed
    // handler audits the refusal as a single ResponseStarted event: the 401 (the Unauthorized
    // Status's fields, as LogResponseObject copies them at level Metadata), no user, no
    // authorizer annotations. The audit source reads it as a failed list of an unauthenticated
    // client, not as a request still open.
    void failedAuthenticationIsAudited() {
        const QString badToken = QStringLiteral("wrong-token-0b7d");
        const QString badConfig = m_dir.filePath(QStringLiteral("bad.kubeconfig"));
        QFile k(kubeconfig());
        QVERIFY(k.open(QIODevice::ReadOnly));
        QByteArray yaml = k.readAll();
        yaml.replace(kToken.toUtf8(), badToken.toUtf8());
        QFile b(badConfig);
        QVERIFY(b.open(QIODevice::WriteOnly));
        b.write(yaml);
        b.close();
        QProcess p;
        p.start(m_kubectl, {QStringLiteral("--kubeconfig"), badConfig, QStringLiteral("get"),
                            QStringLiteral("--raw"),
                            QStringLiteral("/api/v1/namespaces/ns-1/configmaps?limit=5"),
                            QStringLiteral("-v=8")});
        QVERIFY(p.waitForFinished(30000));
        const QString log = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() != 0, qPrintable(log.right(2000)));
        QVERIFY2(log.contains(QLatin1String("401 Unauthorized")), qPrintable(log.right(2000)));
        const QStringList ids = auditIds(log, QStringLiteral("/namespaces/ns-1/configmaps"));
        QVERIFY2(!ids.isEmpty(), qPrintable(log.right(2000)));
        for (const QString& id : ids) {
            const QList<QJsonObject> es = eventsOf(id);
            QCOMPARE(stages(es), QStringList{QStringLiteral("ResponseStarted")});
            const QJsonObject& e = es.first();
            QCOMPARE(e.value(QLatin1String("level")).toString(), QStringLiteral("Metadata"));
            QCOMPARE(e.value(QLatin1String("verb")).toString(), QStringLiteral("list"));
            QCOMPARE(e.value(QLatin1String("requestURI")).toString(),
                     QStringLiteral("/api/v1/namespaces/ns-1/configmaps?limit=5"));
            QCOMPARE(e.value(QLatin1String("user")).toObject(), QJsonObject{});
            QCOMPARE(e.value(QLatin1String("sourceIPs")).toArray().toVariantList(),
                     QVariantList{QStringLiteral("127.0.0.1")});
            QCOMPARE(e.value(QLatin1String("objectRef"))
                         .toObject()
                         .value(QLatin1String("resource"))
                         .toString(),
                     QStringLiteral("configmaps"));
            QCOMPARE(e.value(QLatin1String("responseStatus")).toObject(),
                     (QJsonObject{{QStringLiteral("metadata"), QJsonObject{}},
                                  {QStringLiteral("status"), QStringLiteral("Failure")},
                                  {QStringLiteral("message"), QStringLiteral("Unauthorized")},
                                  {QStringLiteral("reason"), QStringLiteral("Unauthorized")},
                                  {QStringLiteral("code"), 401}}));
            QVERIFY(!e.contains(QLatin1String("annotations")));
            QVERIFY(e.value(QLatin1String("stageTimestamp")).toString() >=
                    e.value(QLatin1String("requestReceivedTimestamp")).toString());
        }
        QFile f(m_log);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY2(!f.readAll().contains(badToken.toUtf8()), "the audit log holds the bad token");

        // Read back: the refused list is a finished, failed request of an unauthenticated client.
        ws::test::AuditRun run;
        QVERIFY2(run.start({m_log}), qPrintable(run.error));
        run.drain();
        bool refused = false;
        for (const ws::WatcherSnapshot& w : run.watchers()) {
            if (!w.id.startsWith(QLatin1String("unauthenticated (kubectl/")))
                continue;
            QCOMPARE(w.resource, QStringLiteral("configmaps"));
            QVERIFY2(w.detail.startsWith(QLatin1String("list 401 in")), qPrintable(w.detail));
            refused = true;
        }
        QVERIFY(refused);
    }

    void nonResourceRequestsAndNoToken() {
        const Run r =
            kubectl({QStringLiteral("version"), QStringLiteral("-o"), QStringLiteral("json")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        bool sawVersion = false;
        for (const QJsonObject& e : events())
            if (e.value(QLatin1String("requestURI")).toString().startsWith(u"/version")) {
                sawVersion = true;
                QCOMPARE(e.value(QLatin1String("verb")).toString(), QStringLiteral("get"));
                QVERIFY(!e.contains(QLatin1String("objectRef")));
            }
        QVERIFY(sawVersion);
        QFile f(m_log);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY2(!f.readAll().contains(kToken.toUtf8()), "the audit log holds the token");
    }

    void unwritablePathIsOneLine() {
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"),
                {QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                 QStringLiteral("--audit-log-path"), QStringLiteral("/nonexistent-dir/audit.log")});
        QVERIFY(p.waitForFinished(15000));
        QVERIFY(p.exitCode() != 0);
        const QString err = QString::fromUtf8(p.readAllStandardError()).trimmed();
        QCOMPARE(err.count(u'\n'), 0);
        QVERIFY2(err.contains(QLatin1String("--audit-log-path /nonexistent-dir/audit.log")),
                 qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestServeAudit)
#include "tst_serveaudit.moc"

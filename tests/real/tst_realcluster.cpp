// WatchScope's cluster source (`watchscope-cli record --kubeconfig`) against the real
// kube-apiserver and etcd of tests/peers/, with the real kubectl and a real client-go informer
// as the judges: every resource syncs to the objects kubectl lists, each credential kind works,
// the requests are the ones client-go of the profile sends to that apiserver version, and a
// 2-minute write load through the apiserver raises no warning or error (and its recording
// replays to the same anomalies and timeline).
//
// One control plane per run, chosen by WS_REAL_APISERVER (1.33, 1.35) and WS_REAL_ETCD (3.4:
// Debian's, which the apiserver treats as lacking progress notifications; 3.6: the peer);
// tests/CMakeLists.txt registers each pair. WS_REAL_LOAD_SECONDS shortens the load (default 120).

#include "capture/CaptureReader.h"
#include "sources/cluster/http/HttpFrameRecords.h"
#include "support/JsonLinesFile.h"
#include "support/RealCluster.h"
#include "support/ReplayCheck.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using ws::test::RealCluster;
using User = ws::test::RealCluster::User;

namespace {

// A custom resource whose group ends in .k8s.io, as approved community APIs' do.
const QByteArray kCustomResourceDefinition =
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
    "  name: gizmos.widgets.k8s.io\n  annotations:\n"
    "    api-approved.kubernetes.io: \"https://example.com/approved\"\n"
    "spec:\n  group: widgets.k8s.io\n  scope: Namespaced\n"
    "  names: {plural: gizmos, singular: gizmo, kind: Gizmo}\n"
    "  versions:\n  - name: v1\n    served: true\n    storage: true\n"
    "    schema:\n      openAPIV3Schema:\n        type: object\n"
    "        x-kubernetes-preserve-unknown-fields: true\n";
const QByteArray kGizmo = "apiVersion: widgets.k8s.io/v1\nkind: Gizmo\nmetadata:\n"
                          "  name: first\n  namespace: default\nspec:\n  size: 3\n";

struct RecordRun {
    int exitCode = -1;
    QString out, err;
    QList<QJsonObject> watchers, anomalies;

    // The object count of the watcher of `resource`, -1 when there is none.
    qint64 objects(const QString& resource) const {
        for (const QJsonObject& w : watchers)
            if (w.value("resource").toString() == resource)
                return w.value("objects").toInteger(-1);
        return -1;
    }
    QList<QJsonObject> serious() const {
        QList<QJsonObject> out;
        for (const QJsonObject& a : anomalies)
            if (a.value("severity").toString() != QLatin1String("info"))
                out << a;
        return out;
    }
};

} // namespace

class TestRealCluster : public QObject {
    Q_OBJECT

    std::unique_ptr<RealCluster> m_cluster;
    QString m_apiserver, m_etcd;
    int m_runs = 0;

    QString file(const QString& name) const { return m_cluster->dir() + QLatin1Char('/') + name; }

    std::unique_ptr<QProcess> startRecord(const QStringList& args, const QString& duration,
                                          const QString& tag) {
        auto p = std::make_unique<QProcess>();
        p->setProgram(qEnvironmentVariable("WS_CLI"));
        p->setArguments(QStringList{QStringLiteral("record")} + args +
                        QStringList{QStringLiteral("--duration"), duration,
                                    QStringLiteral("--watchers"),
                                    file(tag + QStringLiteral("-watchers.jsonl")),
                                    QStringLiteral("--anomalies"),
                                    file(tag + QStringLiteral("-anomalies.jsonl"))});
        p->start();
        return p;
    }
    RecordRun finishRecord(QProcess& p, const QString& tag, int timeoutMs) {
        RecordRun r;
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
        }
        r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        r.watchers = ws::test::readJsonLines(file(tag + QStringLiteral("-watchers.jsonl")));
        r.anomalies = ws::test::readJsonLines(file(tag + QStringLiteral("-anomalies.jsonl")));
        return r;
    }
    RecordRun record(const QStringList& args, const QString& duration = QStringLiteral("8s")) {
        const QString tag = QStringLiteral("run%1").arg(++m_runs);
        auto p = startRecord(args, duration, tag);
        return finishRecord(*p, tag, 180000);
    }
    QStringList as(User u) const {
        return {QStringLiteral("--kubeconfig"), m_cluster->kubeconfig(u)};
    }

    // Objects of `resource` as kubectl lists them (all namespaces), -1 on failure.
    qint64 kubectlCount(const QString& resource, QString* error) {
        QByteArray out;
        if (!m_cluster->kubectl({"get", resource, "-A", "-o", "name"}, &out, error))
            return -1;
        return out.trimmed().isEmpty() ? 0 : out.trimmed().split('\n').size();
    }

    int auditEntries() const {
        return static_cast<int>(ws::test::readJsonLines(m_cluster->auditLog()).size());
    }
    // The list and watch requests of `user` for `resource` in the audit log after its first
    // `skip` entries, in order: "watch sendInitialEvents=true 422", "list limit=500 200".
    QStringList requests(const QString& user, const QString& resource, int skip) const {
        QStringList out;
        for (const QJsonObject& e : ws::test::readJsonLines(m_cluster->auditLog()).mid(skip)) {
            if (e.value("stage").toString() != QLatin1String("ResponseComplete") ||
                e.value("user").toObject().value("username").toString() != user)
                continue;
            const QJsonObject ref = e.value("objectRef").toObject();
            if (ref.value("resource").toString() != resource || ref.contains("name"))
                continue;
            const QString uri = e.value("requestURI").toString();
            QString query = uri.section(u'?', 1);
            query.remove(QRegularExpression(QStringLiteral("&?timeoutSeconds=\\d+")));
            query.remove(QRegularExpression(QStringLiteral("&?timeout=[^&]+")));
            out << QStringLiteral("%1 %2 %3")
                       .arg(e.value("verb").toString(), query)
                       .arg(e.value("responseStatus").toObject().value("code").toInt());
        }
        return out;
    }

private slots:
    void initTestCase() {
        const auto o = ws::test::RealClusterOptions::fromEnvironment();
        m_apiserver = o.apiserverVersion;
        m_etcd = o.etcd;
        m_cluster = std::make_unique<RealCluster>(o);
        START_REAL_CLUSTER(*m_cluster);
        QString error;
        // A few objects beyond what the apiserver makes itself.
        QByteArray out;
        QByteArray objects;
        for (int i = 0; i < 12; ++i)
            objects +=
                QStringLiteral("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: seed-%1\n"
                               "  namespace: %2\ndata:\n  n: \"%1\"\n---\n")
                    .arg(i)
                    .arg(i % 2 ? QStringLiteral("default") : QStringLiteral("team-a"))
                    .toUtf8();
        objects += "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: load\n---\n"
                   "apiVersion: v1\nkind: Secret\nmetadata:\n  name: seed\n  namespace: team-a\n"
                   "stringData:\n  password: not-for-any-output\n";
        QVERIFY2(m_cluster->kubectlAs(User::Writer, 0, {"apply", "-f", "-"}, &out, &error, 60000,
                                      objects),
                 qPrintable(error));
    }

    // Every resource WatchScope discovers syncs to exactly the objects `kubectl get -A` lists.
    void everyResourceSyncs() {
        const RecordRun r = record(as(User::Admin), QStringLiteral("15s"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.watchers.size() >= 30,
                 qPrintable(QStringLiteral("%1 watchers: %2").arg(r.watchers.size()).arg(r.err)));
        QStringList wrong;
        for (const QJsonObject& w : r.watchers) {
            const QString resource = w.value("resource").toString();
            QString error;
            const qint64 expected = kubectlCount(resource, &error);
            QVERIFY2(expected >= 0, qPrintable(error));
            const qint64 seen = w.value("objects").toInteger(-1);
            // Events and leases change by themselves (the apiserver's own); they must not
            // differ by more than what changed between the two reads.
            if (seen != expected)
                wrong << QStringLiteral("%1: WatchScope %2, kubectl %3 (state %4)")
                             .arg(resource)
                             .arg(seen)
                             .arg(expected)
                             .arg(w.value("state").toString());
        }
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(u'\n')));
        QVERIFY2(r.serious().isEmpty(), qPrintable(ws::test::describeExported(r.serious())));
    }

    // Token, client certificate and exec plugin over TLS, JSON and protobuf.
    void credentialsAndWires_data() {
        QTest::addColumn<int>("user");
        QTest::addColumn<QString>("wire");
        QTest::newRow("token json") << int(User::Admin) << "json";
        QTest::newRow("token protobuf") << int(User::Admin) << "protobuf";
        QTest::newRow("client certificate") << int(User::CertAdmin) << "json";
        QTest::newRow("exec plugin protobuf") << int(User::ExecAdmin) << "protobuf";
    }
    void credentialsAndWires() {
        QFETCH(int, user);
        QFETCH(QString, wire);
        const RecordRun r =
            record(as(User(user)) +
                   QStringList{"--resources", "configmaps,namespaces,secrets", "--wire", wire});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QString error;
        for (const QString resource : {"configmaps", "namespaces", "secrets"}) {
            const qint64 expected = kubectlCount(resource, &error);
            QVERIFY2(expected > 0, qPrintable(error));
            QCOMPARE(r.objects(resource), expected);
        }
        QVERIFY2(r.serious().isEmpty(), qPrintable(ws::test::describeExported(r.serious())));
        QVERIFY2(!(r.out + r.err).contains(QLatin1String("test-token-of")), "a token leaked");
    }

    // The requests of a client-go 0.35 informer (WatchListClient on) are what that client sends
    // to this apiserver: a watch-list first; where the server has the WatchList gate off (1.33)
    // a 422 and a LIST; where its etcd lacks progress notifications (3.4.23 under 1.34+) an
    // ERROR in the watch stream and a LIST; otherwise the watch-list alone. client-go 0.27
    // lists first.
    void requestsAsClientGoSendsThem() {
        const int before = auditEntries();
        const RecordRun modern = record(
            as(User::ExecAdmin) + QStringList{"--resources", "configmaps", "--client-go", "0.35"});
        QVERIFY2(modern.exitCode == 0, qPrintable(modern.err));
        const QStringList sent =
            requests(QStringLiteral("exec-admin"), QStringLiteral("configmaps"), before);
        QVERIFY2(!sent.isEmpty(), "no request in the audit log");
        QVERIFY2(sent.first().startsWith(QLatin1String("watch ")) &&
                     sent.first().contains(QLatin1String("sendInitialEvents=true")),
                 qPrintable(sent.join(u'\n')));
        const bool gateOff = m_apiserver == QLatin1String("1.33");
        const bool noProgress = m_etcd == QLatin1String("3.4");
        if (gateOff) {
            QVERIFY2(sent.first().endsWith(QLatin1String(" 422")), qPrintable(sent.join(u'\n')));
            QVERIFY2(sent.value(1).startsWith(QLatin1String("list ")),
                     qPrintable(sent.join(u'\n')));
        } else if (noProgress) {
            QVERIFY2(sent.value(1).startsWith(QLatin1String("list ")),
                     qPrintable(sent.join(u'\n')));
        } else {
            for (const QString& s : sent)
                QVERIFY2(!s.startsWith(QLatin1String("list ")), qPrintable(sent.join(u'\n')));
        }
        QString error;
        QCOMPARE(modern.objects(QStringLiteral("configmaps")),
                 kubectlCount(QStringLiteral("configmaps"), &error));

        const int beforeOld = auditEntries();
        const RecordRun old = record(
            as(User::CertAdmin) + QStringList{"--resources", "configmaps", "--client-go", "0.27"});
        QVERIFY2(old.exitCode == 0, qPrintable(old.err));
        const QStringList oldSent =
            requests(QStringLiteral("alice"), QStringLiteral("configmaps"), beforeOld);
        QVERIFY2(!oldSent.isEmpty() && oldSent.first().startsWith(QLatin1String("list ")),
                 qPrintable(oldSent.join(u'\n')));
    }

    // client-go 0.32+ informers of the typed clientset ask for protobuf: the apiserver answers
    // the lists and watches of ConfigMaps in protobuf, and those of a custom resource (its
    // group ends in .k8s.io like a built-in one) in JSON; client-go 0.31 asks JSON for both.
    // The capture holds each answer's Content-Type and Audit-Id, which the audit log names.
    void builtInsOverProtobufCustomResourcesOverJson_data() {
        QTest::addColumn<QString>("clientGo");
        QTest::addColumn<bool>("protobuf");
        QTest::newRow("0.35 (default)") << QString() << true;
        QTest::newRow("0.31") << "0.31" << false;
    }
    void builtInsOverProtobufCustomResourcesOverJson() {
        QFETCH(QString, clientGo);
        QFETCH(bool, protobuf);
        QString error;
        QByteArray out;
        QVERIFY2(m_cluster->kubectlAs(User::Writer, 0, {"apply", "-f", "-"}, &out, &error, 60000,
                                      kCustomResourceDefinition),
                 qPrintable(error));
        QVERIFY2(m_cluster->kubectlAs(User::Writer, 0,
                                      {"wait", "--for", "condition=Established",
                                       "crd/gizmos.widgets.k8s.io", "--timeout", "60s"},
                                      &out, &error, 90000),
                 qPrintable(error));
        QVERIFY2(m_cluster->kubectlAs(User::Writer, 0, {"apply", "-f", "-"}, &out, &error, 60000,
                                      kGizmo),
                 qPrintable(error));
        const QString capture = file(QStringLiteral("wire-%1.wscap").arg(protobuf));
        QStringList args =
            as(User::Admin) +
            QStringList{"--resources", "configmaps,gizmos.widgets.k8s.io", "--out", capture};
        if (!clientGo.isEmpty())
            args += {"--client-go", clientGo};
        const RecordRun r = record(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.objects(QStringLiteral("configmaps")),
                 kubectlCount(QStringLiteral("configmaps"), &error));
        QCOMPARE(r.objects(QStringLiteral("gizmos.widgets.k8s.io")), 1);

        // Every 200 answer to a list or watch, by the resource of its connection.
        ws::CaptureReader reader;
        QVERIFY2(reader.open(capture, &error), qPrintable(error));
        QHash<int, QString> resourceOf;
        QHash<QString, QSet<QString>> types; // resource -> Content-Types (without parameters)
        QSet<QString> auditIds;
        ws::CaptureRecord rec;
        while (reader.next(&rec)) {
            if (rec.type == ws::CaptureRecord::Type::Connection)
                resourceOf.insert(rec.connection.id, rec.connection.resource);
            ws::HttpResponseHead head;
            if (rec.type != ws::CaptureRecord::Type::Frame ||
                rec.frame.kind != quint16(ws::HttpFrameKind::ResponseHead) ||
                !ws::decodeHttpRecord(rec.frame.bytes, &head) || head.status != 200 ||
                resourceOf.value(rec.frame.connection).isEmpty())
                continue;
            types[resourceOf.value(rec.frame.connection)].insert(
                QString::fromLatin1(head.header("Content-Type").split(';').value(0)));
            auditIds.insert(QString::fromLatin1(head.header("Audit-Id")));
        }
        const QString pb = QStringLiteral("application/vnd.kubernetes.protobuf");
        const QString json = QStringLiteral("application/json");
        QCOMPARE(types.value(QStringLiteral("configmaps")), QSet<QString>{protobuf ? pb : json});
        QCOMPARE(types.value(QStringLiteral("gizmos.widgets.k8s.io")), QSet<QString>{json});
        // Those answers are the apiserver's own, to the requests its audit log shows.
        int audited = 0;
        for (const QJsonObject& e : ws::test::readJsonLines(m_cluster->auditLog()))
            audited += auditIds.contains(e.value("auditID").toString());
        QVERIFY2(audited >= 4, qPrintable(QString::number(audited)));
    }

    // ~200 creates/updates/deletes a second through the apiserver for 2 minutes: WatchScope
    // watching every resource raises no warning or error, and ends with the ConfigMaps the
    // real client-go informer and kubectl have.
    void writeLoadWithoutAnomalies() {
        const int seconds = qEnvironmentVariableIntValue("WS_REAL_LOAD_SECONDS") > 0
                                ? qEnvironmentVariableIntValue("WS_REAL_LOAD_SECONDS")
                                : 120;
        const QString informerBinary = ws::test::peerBinary(QStringLiteral("informer-0.35"));
        const QString writerBinary = ws::test::peerBinary(QStringLiteral("writer-0.35"));
        if (informerBinary.isEmpty() || writerBinary.isEmpty())
            QFAIL("informer-0.35 / writer-0.35 are not built (tests/peers/build.sh)");
        const QString tag = QStringLiteral("load");
        const QString capture = file(QStringLiteral("load.wscap"));
        const QString timeline = file(QStringLiteral("load-timeline.csv"));
        auto record =
            startRecord(as(User::Admin) + QStringList{"--out", capture, "--timeline", timeline},
                        QStringLiteral("%1s").arg(seconds + 20), tag);
        QProcess informer;
        informer.start(informerBinary,
                       {"--kubeconfig", m_cluster->kubeconfig(User::Admin), "--resources",
                        "configmaps", "--duration", QStringLiteral("%1s").arg(seconds + 15),
                        "--count-every", "5s"});
        QVERIFY(informer.waitForStarted());
        // Write once the reference informer has synced.
        QByteArray informerOut;
        QTRY_VERIFY_WITH_TIMEOUT((informerOut += informer.readAllStandardOutput(),
                                  informerOut.contains("\"event\":\"synced\"")),
                                 60000);
        QProcess writer;
        writer.start(writerBinary, {"--kubeconfig", m_cluster->kubeconfig(User::Writer),
                                    "--namespace", "load", "--rate", "200", "--duration",
                                    QStringLiteral("%1s").arg(seconds), "--objects", "300"});
        QVERIFY(writer.waitForFinished((seconds + 60) * 1000));
        const QJsonObject written =
            QJsonDocument::fromJson(writer.readAllStandardOutput().trimmed()).object();
        const qint64 writes = written.value("creates").toInteger() +
                              written.value("updates").toInteger() +
                              written.value("deletes").toInteger();
        qInfo("writer: %s", QJsonDocument(written).toJson(QJsonDocument::Compact).constData());
        QVERIFY2(writes >= qint64(seconds) * 150, "the writer did not reach ~200 writes/s");

        QVERIFY(informer.waitForFinished(90000));
        informerOut += informer.readAllStandardOutput();
        const RecordRun r = finishRecord(*record, tag, 120000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.serious().isEmpty(), qPrintable(ws::test::describeExported(r.serious())));

        qint64 informerObjects = -1;
        for (const QByteArray& line : informerOut.split('\n')) {
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            if (o.value("event").toString() == QLatin1String("count"))
                informerObjects = o.value("objects").toInteger(-1);
        }
        QString error;
        const qint64 expected = kubectlCount(QStringLiteral("configmaps"), &error);
        QCOMPARE(informerObjects, expected);
        QCOMPARE(r.objects(QStringLiteral("configmaps")), expected);
        qInfo("%s", qPrintable(r.out.trimmed()));
        // What was recorded replays to the same anomalies and timeline.
        ws::test::checkReplayIdentical(capture, file(tag + QStringLiteral("-anomalies.jsonl")),
                                       timeline);
    }

    void cleanupTestCase() {
        if (m_cluster)
            m_cluster->stop();
    }
};

QTEST_GUILESS_MAIN(TestRealCluster)
#include "tst_realcluster.moc"

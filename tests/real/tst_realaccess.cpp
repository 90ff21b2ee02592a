// What WatchScope's cluster source makes of the access a real kube-apiserver grants, as kubectl
// does: a user allowed to list and watch in one namespace only sees that namespace (and one
// line per resource it may not read); a user with no rights gets one clear line; an APIService
// whose backend is dead costs one warning and everything else works.

#include "support/JsonLinesFile.h"
#include "support/RealCluster.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

using ws::test::RealCluster;
using User = ws::test::RealCluster::User;

namespace {

struct Run {
    int exitCode = -1;
    QString out, err;
    QList<QJsonObject> watchers;
    QStringList warnings() const {
        QStringList w;
        for (const QString& line : err.split(u'\n'))
            if (line.startsWith(QLatin1String("watchscope-cli: warning:")))
                w << line;
        return w;
    }
    const QJsonObject* watcherOf(const QString& resource) const {
        for (const QJsonObject& w : watchers)
            if (w.value("resource").toString() == resource)
                return &w;
        return nullptr;
    }
};

} // namespace

class TestRealAccess : public QObject {
    Q_OBJECT

    std::unique_ptr<RealCluster> m_cluster;
    int m_runs = 0;

    Run record(const QStringList& args, const QString& duration = QStringLiteral("8s")) {
        const QString watchers = m_cluster->dir() + QStringLiteral("/access%1.jsonl").arg(++m_runs);
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"),
                QStringList{"record"} + args +
                    QStringList{"--duration", duration, "--watchers", watchers});
        Run r;
        if (!p.waitForFinished(120000)) {
            p.kill();
            p.waitForFinished();
        }
        r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        r.watchers = ws::test::readJsonLines(watchers);
        return r;
    }
    qint64 count(const QStringList& args) {
        QByteArray out;
        QString error;
        if (!m_cluster->kubectl(QStringList{"get"} + args + QStringList{"-o", "name"}, &out,
                                &error))
            return -1;
        return out.trimmed().isEmpty() ? 0 : out.trimmed().split('\n').size();
    }

private slots:
    void initTestCase() {
        m_cluster = std::make_unique<RealCluster>(ws::test::RealClusterOptions::fromEnvironment());
        START_REAL_CLUSTER(*m_cluster);
        QString error;
        QByteArray seed;
        for (int i = 0; i < 6; ++i)
            seed += QStringLiteral("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%1\n"
                                   "  namespace: %2\n---\n")
                        .arg(i)
                        .arg(i % 2 ? QStringLiteral("default") : QStringLiteral("team-a"))
                        .toUtf8();
        QVERIFY2(m_cluster->kubectlAs(User::Writer, 0, {"apply", "-f", "-"}, nullptr, &error, 60000,
                                      seed),
                 qPrintable(error));
    }

    // The reader may only get/list/watch in team-a (its context's namespace): its namespaced
    // resources are watched there, each cluster-scoped one it cannot read is one line.
    void namespaceReaderSeesItsNamespace_data() {
        QTest::addColumn<QStringList>("extra");
        QTest::newRow("the context's namespace") << QStringList{};
        QTest::newRow("--namespace") << QStringList{"--namespace", "team-a"};
    }
    void namespaceReaderSeesItsNamespace() {
        QFETCH(QStringList, extra);
        const Run r = record(
            QStringList{"--kubeconfig", m_cluster->kubeconfig(User::NamespaceReader)} + extra);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject* configMaps = r.watcherOf(QStringLiteral("configmaps"));
        QVERIFY2(configMaps, qPrintable(r.err));
        QCOMPARE(configMaps->value("objects").toInteger(),
                 count({"configmaps", "-n", RealCluster::kReaderNamespace}));
        // Cluster-scoped resources it may not list: no objects, the informer stopped (shown as
        // terminated), and each named in a line.
        for (const QJsonObject& w : r.watchers) {
            const QString resource = w.value("resource").toString();
            if (resource != QLatin1String("namespaces") && resource != QLatin1String("nodes"))
                continue;
            QVERIFY2(w.value("objects").toInteger() == 0 &&
                         w.value("state").toString() == QLatin1String("terminated"),
                     qPrintable(QJsonDocument(w).toJson(QJsonDocument::Compact)));
            QVERIFY2(extra.isEmpty() == r.err.contains(QLatin1String("not watching ") + resource),
                     qPrintable(r.err));
        }
        // One line per resource it may not read, none twice.
        const QStringList warnings = r.warnings();
        QVERIFY2(!warnings.isEmpty(), qPrintable(r.err));
        QStringList seen;
        for (const QString& w : warnings) {
            QVERIFY2(!seen.contains(w), qPrintable(w));
            seen << w;
        }
        QVERIFY2(r.err.contains(QLatin1String("namespaces")), qPrintable(r.err));
    }

    void noRightsGetsOneLine() {
        const Run r = record({"--kubeconfig", m_cluster->kubeconfig(User::NoRights)});
        QVERIFY2(r.exitCode != 0, qPrintable(r.out));
        const QStringList lines = r.err.trimmed().split(u'\n');
        QVERIFY2(lines.size() == 1, qPrintable(r.err));
        QVERIFY2(lines.first().contains(QLatin1String("403")) &&
                     lines.first().contains(QLatin1String("nobody")),
                 qPrintable(r.err));
    }

    void deadApiServiceIsOneWarning() {
        const QByteArray apiService =
            "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\n"
            "metadata:\n  name: v1beta1.dead.example.com\n"
            "spec:\n  group: dead.example.com\n  version: v1beta1\n"
            "  groupPriorityMinimum: 1000\n  versionPriority: 15\n"
            "  insecureSkipTLSVerify: true\n"
            "  service:\n    name: dead\n    namespace: default\n    port: 443\n";
        QString error;
        QVERIFY2(m_cluster->kubectlAs(User::Writer, 0, {"apply", "-f", "-"}, nullptr, &error, 60000,
                                      apiService),
                 qPrintable(error));
        const Run r = record({"--kubeconfig", m_cluster->kubeconfig(User::Admin)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList warnings = r.warnings().filter(QLatin1String("dead.example.com"));
        QVERIFY2(warnings.size() == 1, qPrintable(r.err));
        const QJsonObject* configMaps = r.watcherOf(QStringLiteral("configmaps"));
        QVERIFY2(configMaps, qPrintable(r.err));
        QCOMPARE(configMaps->value("objects").toInteger(), count({"configmaps", "-A"}));
        QVERIFY2(r.watchers.size() >= 30, qPrintable(QString::number(r.watchers.size())));
    }

    void cleanupTestCase() {
        if (m_cluster)
            m_cluster->stop();
    }
};

QTEST_GUILESS_MAIN(TestRealAccess)
#include "tst_realaccess.moc"

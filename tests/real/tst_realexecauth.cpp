// Exec credential plugins against the real kube-apiserver of tests/peers/ (RealCluster's
// ExecAdmin, whose plugin prints a token the server knows): a device-code style plugin's stderr
// reaches the user while it waits and its credential then works; a credential the server rejects
// gets a real 401 that is returned as it is, the plugin run again, and the next request accepted
// (client-go's exec authenticator); a user with a client certificate never runs its plugin.

#include "engine/FrameQueue.h"
#include "sources/cluster/ClusterTargets.h"
#include "sources/cluster/http/ClusterHttpTransport.h"
#include "sources/cluster/http/HttpFrameKind.h"
#include "sources/cluster/http/HttpFrameRecords.h"
#include "sources/cluster/kubeconfig/ExecCredentialRunner.h"
#include "sources/cluster/kubeconfig/ExecPluginConsole.h"
#include "sources/cluster/kubeconfig/Kubeconfig.h"
#include "support/RealCluster.h"

#include <QTest>
#include <mutex>

using namespace ws;
using ws::test::RealCluster;
using User = ws::test::RealCluster::User;

namespace {

// One GET through `transport`: its status (0: none) and its end.
struct Outcome {
    int status = 0;
    bool credentialReplaced = false;
    int sent = 0;
    HttpResponseEnd end;
    QByteArray body;
};

bool get(ClusterHttpTransport& transport, FrameQueue& queue, int id, const QString& path,
         Outcome* out) {
    HttpRequest r;
    r.id = id;
    r.pathAndQuery = path;
    transport.submit(r);
    QDeadlineTimer deadline(60000);
    std::vector<Frame> frames;
    while (!deadline.hasExpired()) {
        queue.drain(frames);
        for (const Frame& f : frames) {
            if (f.connection != id)
                continue;
            HttpResponseHead head;
            switch (HttpFrameKind(f.kind)) {
            case HttpFrameKind::RequestSent:
                ++out->sent;
                break;
            case HttpFrameKind::ResponseHead:
                if (decodeHttpRecord(f.bytes, &head)) {
                    out->status = head.status;
                    out->credentialReplaced = head.credentialReplaced;
                }
                break;
            case HttpFrameKind::BodyChunk:
                out->body += f.bytes;
                break;
            case HttpFrameKind::ResponseEnd:
                return decodeHttpRecord(f.bytes, &out->end);
            default:
                break;
            }
        }
        frames.clear();
        QTest::qWait(10);
    }
    return false;
}

} // namespace

class TestRealExecAuth : public QObject {
    Q_OBJECT

    std::unique_ptr<RealCluster> m_cluster;

    QString file(const QString& name, const QByteArray& content, bool executable = false) {
        const QString path = m_cluster->dir() + QLatin1Char('/') + name;
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(content);
        f.close();
        if (executable)
            f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
        return path;
    }
    // The ExecAdmin context with `plugin` as its command.
    std::optional<ClusterTarget> execTarget(const QString& name, const QString& plugin) {
        const QString path =
            file(name, QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: real\n"
                                      "  cluster:\n    server: %1\n    certificate-authority: %2\n"
                                      "contexts:\n- name: real\n  context:\n    cluster: real\n"
                                      "    user: exec-admin\ncurrent-context: real\n"
                                      "users:\n- name: exec-admin\n  user:\n    exec:\n"
                                      "      apiVersion: client.authentication.k8s.io/v1\n"
                                      "      command: %3\n      interactiveMode: IfAvailable\n")
                           .arg(m_cluster->url(), m_cluster->caFile(), plugin)
                           .toUtf8());
        QString error;
        const auto k = Kubeconfig::load(path, &error);
        if (!k)
            return std::nullopt;
        return k->target({}, &error);
    }
    QString realPlugin() const { return m_cluster->dir() + QStringLiteral("/exec-plugin.sh"); }

private slots:
    void initTestCase() {
        m_cluster = std::make_unique<RealCluster>(ws::test::RealClusterOptions::fromEnvironment());
        START_REAL_CLUSTER(*m_cluster);
        QString error;
    }

    void deviceCodeLogin() {
        std::mutex mutex;
        QByteArray said;
        ExecPluginConsole console;
        console.stderrText = [&](const QString&, const QByteArray& text) {
            std::lock_guard lock(mutex);
            said += text;
        };
        ExecPluginConsole::install(console);
        const QString release = m_cluster->dir() + QStringLiteral("/signed-in");
        const QString plugin = file(
            QStringLiteral("device-login.sh"),
            QStringLiteral("#!/bin/sh\necho 'open https://login.example/device, code KJHG-5678' "
                           ">&2\nwhile [ ! -e '%1' ]; do sleep 0.05; done\nexec '%2'\n")
                .arg(release, realPlugin())
                .toUtf8(),
            true);
        const auto t = execTarget(QStringLiteral("device.yaml"), plugin);
        QVERIFY(t);
        auto runner = std::make_shared<ExecCredentialRunner>();
        FrameQueue queue;
        ClusterHttpTransport transport(
            *t, queue, [] { return TimeUs(0); }, credentialProviderFor(*t, runner));
        QString error;
        QVERIFY2(transport.start(&error), qPrintable(error));
        HttpRequest r;
        r.id = 1;
        r.pathAndQuery = QStringLiteral("/api/v1/namespaces");
        transport.submit(r);
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                std::lock_guard lock(mutex);
                return said.contains("KJHG-5678");
            }(),
            30000);
        QVERIFY(runner->busy());
        QFile signedIn(release);
        QVERIFY(signedIn.open(QIODevice::WriteOnly));
        signedIn.close();
        Outcome o;
        QVERIFY(get(transport, queue, 2, QStringLiteral("/api/v1/namespaces"), &o));
        QCOMPARE(o.status, 200);
        QVERIFY(o.body.contains("\"kind\":\"NamespaceList\""));
        QCOMPARE(runner->runs(), 1);
        transport.stop();
        ExecPluginConsole::install(ExecPluginConsole());
    }

    void rejectedCredentialIsReplacedForTheNextRequest() {
        // The first run hands out a token the apiserver does not know, the later ones the real
        // plugin's.
        const QString runs = m_cluster->dir() + QStringLiteral("/rotating-runs");
        const QString plugin = file(
            QStringLiteral("rotating.sh"),
            QStringLiteral("#!/bin/sh\necho run >> '%1'\n"
                           "if [ \"$(wc -l < '%1')\" -eq 1 ]; then\n"
                           "  echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
                           "\"ExecCredential\",\"status\":{\"token\":\"revoked-token-0000\"}}'\n"
                           "  exit 0\nfi\nexec '%2'\n")
                .arg(runs, realPlugin())
                .toUtf8(),
            true);
        const auto t = execTarget(QStringLiteral("rotating.yaml"), plugin);
        QVERIFY(t);
        auto runner = std::make_shared<ExecCredentialRunner>();
        FrameQueue queue;
        ClusterHttpTransport transport(
            *t, queue, [] { return TimeUs(0); }, credentialProviderFor(*t, runner));
        QString error;
        QVERIFY2(transport.start(&error), qPrintable(error));
        Outcome first;
        QVERIFY(get(transport, queue, 1, QStringLiteral("/api/v1/namespaces"), &first));
        // The real 401, returned as it is: sent once, not re-sent.
        QCOMPARE(first.status, 401);
        QVERIFY(first.credentialReplaced); // a reflector lists again after its backoff
        QCOMPARE(first.sent, 1);
        QCOMPARE(first.end.error, HttpErrorKind::None);
        QVERIFY(first.body.contains("\"reason\":\"Unauthorized\""));
        // The plugin was run again for the requests that follow.
        QTRY_COMPARE_WITH_TIMEOUT(runner->runs(), 2, 30000);
        Outcome second;
        QVERIFY(get(transport, queue, 2, QStringLiteral("/api/v1/namespaces"), &second));
        QCOMPARE(second.status, 200);
        QCOMPARE(second.sent, 1);
        QCOMPARE(runner->runs(), 2);
        transport.stop();
    }

    void clientCertificateUserSkipsItsPlugin() {
        QString error;
        const auto k = Kubeconfig::load(m_cluster->kubeconfig(User::CertAdmin), &error);
        QVERIFY2(k, qPrintable(error));
        auto t = k->target({}, &error);
        QVERIFY2(t, qPrintable(error));
        t->exec = ExecConfig{};
        t->exec->apiVersion = QStringLiteral("client.authentication.k8s.io/v1");
        t->exec->command = QStringLiteral("/nonexistent/ws-plugin");
        t->exec->interactiveMode = QStringLiteral("Never");
        auto runner = std::make_shared<ExecCredentialRunner>();
        FrameQueue queue;
        ClusterHttpTransport transport(
            *t, queue, [] { return TimeUs(0); }, credentialProviderFor(*t, runner));
        QVERIFY2(transport.start(&error), qPrintable(error));
        Outcome o;
        QVERIFY(get(transport, queue, 1, QStringLiteral("/api/v1/namespaces"), &o));
        QVERIFY2(o.status == 200, qPrintable(o.end.message + QString::fromUtf8(o.body)));
        QCOMPARE(runner->runs(), 0);
        transport.stop();
    }
};

QTEST_GUILESS_MAIN(TestRealExecAuth)
#include "tst_realexecauth.moc"

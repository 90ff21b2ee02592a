#pragma once

// A real Kubernetes control plane for tests: real etcd (Debian's 3.4.23, or the etcd 3.6 of
// tests/peers/) and one or more real kube-apiservers built from k8s.io/kubernetes by
// tests/peers/build.sh, on free loopback ports in a temporary directory, stopped by PID.
//
// The apiservers serve TLS with a test CA (TestPki), authenticate static tokens and client
// certificates, authorise with RBAC, and write an audit log of every list, get and watch of the
// users below (so a test can see the requests a client really sent). For each user a kubeconfig:
//   Admin            token, group system:masters
//   CertAdmin        client certificate CN=alice, O=devs; devs are bound to cluster-admin
//   ExecAdmin        an exec credential plugin (client.authentication.k8s.io/v1) printing a token
//   NamespaceReader  token; get/list/watch of everything in namespace "team-a" only; the
//                    kubeconfig's context names that namespace
//   NoRights         token of a user no role is bound to
//   Writer           token, group system:masters: the load writer's, kept out of the audit log
// The peers are found in $WS_PEERS_BIN, else in the build tree's peers folder (WS_PEERS_BIN_DIR,
// set by tests/CMakeLists.txt).

#include "TestPki.h"
#include "etcd/EtcdTestCluster.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QThread>

#include <csignal>
#include <memory>
#include <sys/prctl.h>
#include <vector>

namespace ws::test {

inline QString peersDir() {
    const QString fromEnv = qEnvironmentVariable("WS_PEERS_BIN");
    if (!fromEnv.isEmpty())
        return fromEnv;
#ifdef WS_PEERS_BIN_DIR
    return QStringLiteral(WS_PEERS_BIN_DIR);
#else
    return {};
#endif
}

// The peer program `name` (e.g. "kube-apiserver-1.35"), or empty when it was not built.
inline QString peerBinary(const QString& name) {
    const QString path = peersDir() + QLatin1Char('/') + name;
    return QFileInfo(path).isExecutable() ? path : QString();
}

// True where the peers must be there (CI sets WS_REQUIRE_PEERS=1 after building them): a
// missing peer then fails the test instead of skipping it.
inline bool peersRequired() {
    return qEnvironmentVariable("WS_REQUIRE_PEERS") == QLatin1String("1");
}

struct RealClusterOptions {
    QString apiserverVersion = QStringLiteral("1.35"); // a tests/peers/kube-apiserver/<v> module
    QString etcd = QStringLiteral("3.4");              // "3.4": Debian's etcd; "3.6": the peer
    int apiservers = 1;

    // The control plane tests/CMakeLists.txt chose for this ctest test (WS_REAL_APISERVER,
    // WS_REAL_ETCD); run by hand without them, 1.35 on etcd 3.6.
    static RealClusterOptions fromEnvironment(int apiservers = 1) {
        RealClusterOptions o;
        o.apiserverVersion = qEnvironmentVariable("WS_REAL_APISERVER", QStringLiteral("1.35"));
        o.etcd = qEnvironmentVariable("WS_REAL_ETCD", QStringLiteral("3.6"));
        o.apiservers = apiservers;
        return o;
    }
};

class RealCluster {
public:
    enum class User { Admin, CertAdmin, ExecAdmin, NamespaceReader, NoRights, Writer };

    explicit RealCluster(RealClusterOptions options = {}) : m_options(std::move(options)) {}
    ~RealCluster() { stop(); }
    RealCluster(const RealCluster&) = delete;
    RealCluster& operator=(const RealCluster&) = delete;

    // What this machine lacks to run the cluster ("kube-apiserver-1.35 is not built ..."), or
    // empty.
    QString missing() const {
        if (apiserverBinary().isEmpty())
            return QStringLiteral("kube-apiserver-%1 is not built in %2 (tests/peers/build.sh)")
                .arg(m_options.apiserverVersion, peersDir());
        if (etcdProgram().isEmpty())
            return m_options.etcd == QLatin1String("3.4")
                       ? QStringLiteral("etcd is not installed (Debian's etcd-server)")
                       : QStringLiteral("etcd-%1 is not built in %2 (tests/peers/build.sh)")
                             .arg(m_options.etcd, peersDir());
        if (QStandardPaths::findExecutable(QStringLiteral("kubectl")).isEmpty())
            return QStringLiteral("kubectl is not installed");
        if (!TestPki::available())
            return QStringLiteral("openssl is not installed");
        return {};
    }

    QString apiserverBinary() const {
        return peerBinary(QStringLiteral("kube-apiserver-") + m_options.apiserverVersion);
    }
    QString etcdProgram() const {
        return m_options.etcd == QLatin1String("3.4") ? etcdBinary()
                                                      : peerBinary("etcd-" + m_options.etcd);
    }
    const RealClusterOptions& options() const { return m_options; }

    // PKI, etcd, every apiserver until ready, the RBAC of the users. False with *error (and
    // the failing component's last log lines) when something did not come up.
    bool start(QString* error) {
        if (!m_dir.isValid())
            return fail(error, QStringLiteral("no temporary directory"));
        if (!m_pki.create(error))
            return false;
        if (!run(QStringLiteral("openssl"),
                 {"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
                  path("service-account.key")},
                 error))
            return false;
        if (!writeFiles(error))
            return false;
        m_etcd = std::make_unique<EtcdTestCluster>(1, std::nullopt, m_dir.path());
        m_etcd->setBinary(etcdProgram());
        if (!m_etcd->startAll(error) || !m_etcd->waitReady(60000, error))
            return fail(error, QStringLiteral("etcd did not start: %1").arg(*error));
        m_apiservers.resize(static_cast<std::size_t>(m_options.apiservers));
        for (Apiserver& a : m_apiservers)
            a.port = freePort();
        for (const User u : {User::Admin, User::CertAdmin, User::ExecAdmin, User::NamespaceReader,
                             User::NoRights, User::Writer})
            writeKubeconfig(u);
        for (int i = 0; i < m_options.apiservers; ++i)
            if (!startApiserver(i, error))
                return false;
        for (int i = 0; i < m_options.apiservers; ++i)
            if (!waitReady(i, 120000, error))
                return false;
        return applyRbac(error);
    }

    void stop() {
        for (std::size_t i = 0; i < m_apiservers.size(); ++i)
            stopApiserver(static_cast<int>(i));
        m_etcd.reset();
    }

    // Apiserver i (again, on its port, after stopApiserver); `etcdServers` instead of the
    // cluster's etcd (a proxy in front of it, support/StallProxy.h) when given.
    bool startApiserver(int i, QString* error, const QString& etcdServers = {}) {
        Apiserver& a = m_apiservers[static_cast<std::size_t>(i)];
        a.process = std::make_unique<QProcess>();
        a.process->setProcessChannelMode(QProcess::MergedChannels);
        a.process->setStandardOutputFile(apiserverLog(i), QIODevice::Append);
        // Killed with the test (a ctest timeout sends SIGKILL, which no destructor sees).
        a.process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
        a.process->start(apiserverBinary(),
                         apiserverArguments(i, etcdServers.isEmpty() ? etcdUrl() : etcdServers));
        if (!a.process->waitForStarted(10000))
            return fail(error, QStringLiteral("cannot start %1: %2")
                                   .arg(apiserverBinary(), a.process->errorString()));
        return true;
    }
    // SIGTERM (a graceful shutdown, as a rolling restart does), then SIGKILL after 30 s.
    void stopApiserver(int i) {
        Apiserver& a = m_apiservers[static_cast<std::size_t>(i)];
        if (!a.process)
            return;
        if (a.process->state() != QProcess::NotRunning) {
            a.process->terminate();
            if (!a.process->waitForFinished(30000)) {
                a.process->kill();
                a.process->waitForFinished(10000);
            }
        }
        a.process.reset();
    }
    bool apiserverRunning(int i) const {
        const Apiserver& a = m_apiservers[static_cast<std::size_t>(i)];
        return a.process && a.process->state() == QProcess::Running;
    }

    // Polls /readyz as the admin until it answers ok.
    bool waitReady(int i, int timeoutMs, QString* error) {
        QDeadlineTimer deadline(timeoutMs);
        QString last;
        while (!deadline.hasExpired()) {
            if (!apiserverRunning(i))
                return fail(error, QStringLiteral("kube-apiserver %1 exited: %2")
                                       .arg(i)
                                       .arg(logTail(apiserverLog(i))));
            QByteArray out;
            if (kubectlAt(i, {"get", "--raw", "/readyz"}, &out, &last, 5000) &&
                out.trimmed() == "ok")
                return true;
            QThread::msleep(250);
        }
        return fail(error, QStringLiteral("kube-apiserver %1 not ready after %2 ms: %3; log: %4")
                               .arg(i)
                               .arg(timeoutMs)
                               .arg(last, logTail(apiserverLog(i))));
    }

    int apiserverCount() const { return static_cast<int>(m_apiservers.size()); }
    quint16 port(int i = 0) const { return m_apiservers[std::size_t(i)].port; }
    QString url(int i = 0) const {
        return QStringLiteral("https://127.0.0.1:%1").arg(m_apiservers[std::size_t(i)].port);
    }
    // The static token of a token user (--token-auth-file), for requests made by hand.
    static QString token(User u) { return QStringLiteral("test-token-of-") + userName(u); }
    QString kubeconfig(User u, int apiserver = 0) const {
        return path(QStringLiteral("kubeconfig-%1-%2").arg(userName(u)).arg(apiserver));
    }
    QString auditLog(int i = 0) const { return path(QStringLiteral("audit-%1.log").arg(i)); }
    QString apiserverLog(int i) const { return path(QStringLiteral("apiserver-%1.log").arg(i)); }
    QString dir() const { return m_dir.path(); }
    QString caFile() const { return m_pki.caCert; }
    EtcdTestCluster& etcd() { return *m_etcd; }
    QString etcdUrl() const { return m_etcd->clientUrl(0); }

    static constexpr const char* kReaderNamespace = "team-a";

    // `kubectl --kubeconfig <admin of apiserver 0> ARGS`, stdin from `input`.
    bool kubectl(const QStringList& args, QByteArray* out, QString* error, int timeoutMs = 60000,
                 const QByteArray& input = {}) const {
        return kubectlAs(User::Admin, 0, args, out, error, timeoutMs, input);
    }
    bool kubectlAt(int apiserver, const QStringList& args, QByteArray* out, QString* error,
                   int timeoutMs = 60000) const {
        return kubectlAs(User::Admin, apiserver, args, out, error, timeoutMs);
    }
    bool kubectlAs(User u, int apiserver, const QStringList& args, QByteArray* out, QString* error,
                   int timeoutMs = 60000, const QByteArray& input = {}) const {
        QProcess p;
        p.start(QStandardPaths::findExecutable(QStringLiteral("kubectl")),
                QStringList{QStringLiteral("--kubeconfig"), kubeconfig(u, apiserver)} + args);
        if (!p.waitForStarted(10000))
            return fail(error, QStringLiteral("cannot start kubectl"));
        if (!input.isEmpty())
            p.write(input);
        p.closeWriteChannel();
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
            return fail(error, QStringLiteral("kubectl %1: timed out").arg(args.join(' ')));
        }
        if (out)
            *out = p.readAllStandardOutput();
        if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
            return fail(error, QStringLiteral("kubectl %1: %2")
                                   .arg(args.join(u' '),
                                        QString::fromUtf8(p.readAllStandardError()).trimmed()));
        return true;
    }

private:
    struct Apiserver {
        quint16 port = 0;
        std::unique_ptr<QProcess> process;
    };

    RealClusterOptions m_options;
    QTemporaryDir m_dir;
    TestPki m_pki;
    std::unique_ptr<EtcdTestCluster> m_etcd;
    std::vector<Apiserver> m_apiservers;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    static QString userName(User u) {
        switch (u) {
        case User::Admin:
            return QStringLiteral("admin");
        case User::CertAdmin:
            return QStringLiteral("alice");
        case User::ExecAdmin:
            return QStringLiteral("exec-admin");
        case User::NamespaceReader:
            return QStringLiteral("reader");
        case User::NoRights:
            return QStringLiteral("nobody");
        case User::Writer:
            return QStringLiteral("writer");
        }
        return {};
    }

    static bool fail(QString* error, const QString& message) {
        if (error)
            *error = message;
        return false;
    }

    static QString logTail(const QString& file) {
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly))
            return QStringLiteral("(no log)");
        const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
        return QString::fromUtf8(lines.mid(std::max<qsizetype>(0, lines.size() - 8)).join('\n'));
    }

    bool write(const QString& name, const QByteArray& bytes, bool executable = false) const {
        QFile f(path(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            return false;
        f.close();
        return !executable || f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    }

    bool run(const QString& program, const QStringList& args, QString* error) const {
        QProcess p;
        p.setWorkingDirectory(dir());
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(program, args);
        if (!p.waitForFinished(60000) || p.exitCode() != 0)
            return fail(error, QStringLiteral("%1 %2 failed: %3")
                                   .arg(program, args.value(0),
                                        QString::fromLocal8Bit(p.readAll()).simplified()));
        return true;
    }

    bool writeFiles(QString* error) const {
        // token,user,uid,"group,..." (kube-apiserver's --token-auth-file)
        QByteArray tokens;
        for (const User u : {User::Admin, User::ExecAdmin, User::Writer})
            tokens += (token(u) + QLatin1Char(',') + userName(u) + QLatin1Char(',') + userName(u) +
                       QStringLiteral(",\"system:masters\"\n"))
                          .toUtf8();
        for (const User u : {User::NamespaceReader, User::NoRights})
            tokens += (token(u) + QLatin1Char(',') + userName(u) + QLatin1Char(',') + userName(u) +
                       QLatin1Char('\n'))
                          .toUtf8();
        // Metadata of every list, get and watch the users under test send; the writer's
        // requests and the apiserver's own are left out.
        const QByteArray policy = "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
                                  "omitStages: [RequestReceived]\nrules:\n"
                                  "- level: Metadata\n"
                                  "  users: [admin, alice, exec-admin, reader, nobody]\n"
                                  "  verbs: [get, list, watch]\n"
                                  "- level: None\n";
        const QByteArray plugin =
            "#!/bin/sh\n"
            "printf '%s\\n' '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
            "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"" +
            token(User::ExecAdmin).toUtf8() + "\"}}'\n";
        if (!write(QStringLiteral("tokens.csv"), tokens) ||
            !write(QStringLiteral("audit-policy.yaml"), policy) ||
            !write(QStringLiteral("exec-plugin.sh"), plugin, true))
            return fail(error, QStringLiteral("cannot write the apiserver's files"));
        return true;
    }

    // The flags controller-runtime's envtest starts kube-apiserver with, plus the
    // authentication, authorisation and audit this harness needs.
    QStringList apiserverArguments(int i, const QString& etcdServers) const {
        const QString port = QString::number(m_apiservers[std::size_t(i)].port);
        return {
            QStringLiteral("--etcd-servers=") + etcdServers,
            QStringLiteral("--bind-address=127.0.0.1"),
            QStringLiteral("--advertise-address=127.0.0.1"),
            QStringLiteral("--secure-port=") + port,
            QStringLiteral("--cert-dir=") + path(QStringLiteral("apiserver-%1-certs").arg(i)),
            QStringLiteral("--tls-cert-file=") + m_pki.serverCert,
            QStringLiteral("--tls-private-key-file=") + m_pki.serverKey,
            QStringLiteral("--client-ca-file=") + m_pki.caCert,
            QStringLiteral("--token-auth-file=") + path(QStringLiteral("tokens.csv")),
            QStringLiteral("--authorization-mode=RBAC"),
            QStringLiteral("--service-account-issuer=https://127.0.0.1:") + port,
            QStringLiteral("--service-account-key-file=") + path("service-account.key"),
            QStringLiteral("--service-account-signing-key-file=") + path("service-account.key"),
            QStringLiteral("--service-cluster-ip-range=10.0.0.0/24"),
            QStringLiteral("--allow-privileged=true"),
            QStringLiteral("--disable-admission-plugins=ServiceAccount"),
            QStringLiteral("--audit-policy-file=") + path(QStringLiteral("audit-policy.yaml")),
            QStringLiteral("--audit-log-path=") + auditLog(i),
            QStringLiteral("--audit-log-format=json"),
            QStringLiteral("--audit-log-mode=blocking"),
            QStringLiteral("--profiling=false"),
            // The kubernetes Service's endpoints may not be a loopback address.
            QStringLiteral("--endpoint-reconciler-type=none"),
        };
    }

    void writeKubeconfig(User u) const {
        QString user;
        switch (u) {
        case User::CertAdmin:
            user = QStringLiteral("    client-certificate: %1\n    client-key: %2\n")
                       .arg(m_pki.clientCert, m_pki.clientKey);
            break;
        case User::ExecAdmin:
            user = QStringLiteral("    exec:\n"
                                  "      apiVersion: client.authentication.k8s.io/v1\n"
                                  "      command: %1\n"
                                  "      interactiveMode: Never\n")
                       .arg(path(QStringLiteral("exec-plugin.sh")));
            break;
        default:
            user = QStringLiteral("    token: %1\n").arg(token(u));
        }
        const QString ns = u == User::NamespaceReader
                               ? QStringLiteral("    namespace: %1\n").arg(kReaderNamespace)
                               : QString();
        for (int i = 0; i < apiserverCount(); ++i)
            write(QFileInfo(kubeconfig(u, i)).fileName(),
                  QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: real\n"
                                 "  cluster:\n    server: %1\n    certificate-authority: %2\n"
                                 "contexts:\n- name: real\n  context:\n    cluster: real\n"
                                 "    user: %3\n%4current-context: real\n"
                                 "users:\n- name: %3\n  user:\n%5")
                      .arg(url(i), m_pki.caCert, userName(u), ns, user)
                      .toUtf8());
    }

    bool applyRbac(QString* error) const {
        const QByteArray rbac =
            QStringLiteral("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %1\n---\n"
                           "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
                           "metadata:\n  name: read-all\n  namespace: %1\n"
                           "rules:\n- apiGroups: ['*']\n  resources: ['*']\n"
                           "  verbs: [get, list, watch]\n---\n"
                           "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\n"
                           "metadata:\n  name: reader-reads\n  namespace: %1\n"
                           "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n"
                           "  name: read-all\nsubjects:\n- kind: User\n  name: reader\n"
                           "  apiGroup: rbac.authorization.k8s.io\n---\n"
                           "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n"
                           "metadata:\n  name: devs-are-admins\n"
                           "roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n"
                           "  name: cluster-admin\nsubjects:\n- kind: Group\n  name: devs\n"
                           "  apiGroup: rbac.authorization.k8s.io\n")
                .arg(kReaderNamespace)
                .toUtf8();
        return kubectlAs(User::Writer, 0, {"apply", "-f", "-"}, nullptr, error, 60000, rbac);
    }
};

} // namespace ws::test

// For a test's initTestCase: skips (or, where WS_REQUIRE_PEERS=1, fails) when a peer or tool is
// missing, and fails with the component's own words when the control plane does not come up.
#define START_REAL_CLUSTER(cluster)                                                                \
    do {                                                                                           \
        if (const QString missingPeer = (cluster).missing(); !missingPeer.isEmpty()) {             \
            if (ws::test::peersRequired())                                                         \
                QFAIL(qPrintable(missingPeer));                                                    \
            QSKIP(qPrintable(missingPeer));                                                        \
        }                                                                                          \
        QString startError;                                                                        \
        QVERIFY2((cluster).start(&startError), qPrintable(startError));                            \
    } while (0)

// The kubeconfig as kubectl reads it (sources/cluster/kubeconfig): one file, KUBECONFIG merged
// the clientcmd way (first file wins per name and for current-context, relative paths per
// file), ~/.kube/config, context selection, every credential kind, clientcmd's validation as one
// line naming the file; exec credential plugins (v1, v1beta1) run as real /bin/sh scripts:
// caching until expiry, invalidate(), KUBERNETES_EXEC_INFO, failures. No error may ever carry a
// token, password, key or a plugin's stdout.
#include "sources/cluster/kubeconfig/ExecCredentialRunner.h"
#include "sources/cluster/kubeconfig/Kubeconfig.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <thread>
#include <vector>

using namespace ws;

namespace {

// Secrets that appear in kubeconfigs and plugin output below: none may reach an error.
const QString kToken = QStringLiteral("s3cr3t-t0ken-4f9a1c");
const QString kPassword = QStringLiteral("hunter2-pa55w0rd-77");
const QString kExecToken = QStringLiteral("exec-t0ken-from-stdout-8d2e");
const QString kProxyPassword = QStringLiteral("pr0xy-pa55-31");
const QByteArray kKeyPem = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIKeyMaterialXyz0123\n"
                           "-----END EC PRIVATE KEY-----\n";
const QByteArray kCertPem = "-----BEGIN CERTIFICATE-----\nMIIBcertMaterialAbc987\n"
                            "-----END CERTIFICATE-----\n";
const QByteArray kCaPem = "-----BEGIN CERTIFICATE-----\nMIIBcaOneAAA\n-----END CERTIFICATE-----\n";

QString b64(const QByteArray& b) {
    return QString::fromLatin1(b.toBase64());
}

// Restores an environment variable when the test function ends, however it ends.
class EnvGuard {
public:
    explicit EnvGuard(const char* name) : m_name(name), m_was(qEnvironmentVariableIsSet(name)) {
        m_value = qgetenv(name);
    }
    ~EnvGuard() {
        if (m_was)
            qputenv(m_name, m_value);
        else
            qunsetenv(m_name);
    }
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;

private:
    const char* m_name;
    bool m_was;
    QByteArray m_value;
};

// The body of a kubeconfig with one cluster "c", one user "u" and one context "ctx" (current),
// the given YAML (indented by 4) as the cluster's and the user's bodies.
QString oneContext(const QString& clusterYaml, const QString& userYaml) {
    return QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: ctx\n"
                          "clusters:\n- name: c\n  cluster:\n%1"
                          "contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n"
                          "users:\n- name: u\n  user:\n%2")
        .arg(clusterYaml, userYaml.isEmpty() ? QStringLiteral("    {}\n") : userYaml);
}

} // namespace

class TestKubeconfig : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_files = 0;
    QStringList m_errors; // every error any test saw: checked for secrets at the end

    QString write(const QString& relative, const QByteArray& content, bool executable = false) {
        const QString path = m_dir.filePath(relative);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            qFatal("cannot write %s", qPrintable(path));
        f.write(content);
        f.close();
        if (executable)
            f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
        return path;
    }
    QString write(const QString& relative, const QString& content) {
        return write(relative, content.toUtf8());
    }
    QString fresh(const QString& stem) { return QStringLiteral("%1-%2").arg(stem).arg(++m_files); }

    // A /bin/sh plugin that appends a line to `count` each time it runs, records its
    // KUBERNETES_EXEC_INFO, arguments and $PLUGIN_VAR in `info`, then runs `body`.
    QString plugin(const QString& name, const QString& body, QString* count = nullptr,
                   QString* info = nullptr) {
        const QString dir = m_dir.filePath(fresh(QStringLiteral("plugin")));
        QDir().mkpath(dir);
        const QString c = dir + QStringLiteral("/count");
        const QString i = dir + QStringLiteral("/info");
        if (count)
            *count = c;
        if (info)
            *info = i;
        const QString script =
            QStringLiteral("#!/bin/sh\necho run >> '%1'\n"
                           "{ printf '%s\\n' \"$KUBERNETES_EXEC_INFO\"; "
                           "echo \"args:$*\"; echo \"var:$PLUGIN_VAR\"; } > '%2'\n"
                           "%3\n")
                .arg(c, i, body);
        return write(QDir(m_dir.path()).relativeFilePath(dir + u'/' + name), script.toUtf8(), true);
    }
    static QString credential(const QString& version, const QString& status) {
        return QStringLiteral("cat <<'EOF'\n{\"kind\":\"ExecCredential\",\"apiVersion\":"
                              "\"client.authentication.k8s.io/%1\",\"spec\":{},\"status\":%2}\nEOF")
            .arg(version, status);
    }
    static int lines(const QString& path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return 0;
        return static_cast<int>(f.readAll().count('\n'));
    }
    static QStringList readLines(const QString& path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QString::fromUtf8(f.readAll()).split(u'\n');
    }
    static ExecConfig exec(const QString& command, const QString& version = QStringLiteral("v1")) {
        ExecConfig x;
        x.apiVersion = QStringLiteral("client.authentication.k8s.io/") + version;
        x.command = command;
        x.interactiveMode = QStringLiteral("Never");
        return x;
    }

    std::optional<ClusterTarget> resolve(const QString& yaml, const QString& context,
                                         QString* error) {
        const QString path = write(fresh(QStringLiteral("kubeconfig")), yaml);
        const auto k = Kubeconfig::load(path, error);
        if (!k)
            return std::nullopt;
        return k->target(context, error);
    }
    ClusterTarget mustResolve(const QString& yaml, const QString& context = {}) {
        QString error;
        const auto t = resolve(yaml, context, &error);
        if (!t)
            qFatal("unexpected error: %s", qPrintable(error));
        return *t;
    }
    // Each error is one line, says something and is kept for the secrets check.
    void sawError(const QString& error) {
        m_errors << error;
        QVERIFY2(!error.isEmpty(), "an empty error");
        QVERIFY2(!error.contains(u'\n'), qPrintable(QStringLiteral("not one line: ") + error));
    }
    void checkNoSecrets(const QString& error) {
        for (const QString& secret :
             {kToken, kPassword, kExecToken, kProxyPassword, QString::fromLatin1(kKeyPem),
              QStringLiteral("MHcCAQEEIKeyMaterialXyz0123"), b64(kKeyPem), b64(kCertPem)})
            QVERIFY2(!error.contains(secret), qPrintable(QStringLiteral("a secret in: ") + error));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        if (!QFileInfo::exists(QStringLiteral("/bin/sh")))
            QSKIP("/bin/sh is not available");
    }

    void singleFile() {
        const QString path =
            write(QStringLiteral("single/config"),
                  QStringLiteral(
                      "apiVersion: v1\nkind: Config\ncurrent-context: prod\n"
                      "preferences: {}\n"
                      "clusters:\n"
                      "- name: prod-cluster\n  cluster:\n    server: https://prod.example:6443\n"
                      "- name: dev-cluster\n  cluster:\n    server: https://dev.example\n"
                      "contexts:\n"
                      "- name: prod\n  context:\n    cluster: prod-cluster\n    user: admin\n"
                      "    namespace: payments\n"
                      "- name: dev\n  context:\n    cluster: dev-cluster\n    user: admin\n"
                      "- name: anonymous\n  context:\n    cluster: dev-cluster\n"
                      "users:\n- name: admin\n  user:\n    token: %1\n")
                      .arg(kToken));
        QString error;
        const auto k = Kubeconfig::load(path, &error);
        QVERIFY2(k, qPrintable(error));
        QCOMPARE(k->files(), QStringList{path});
        QCOMPARE(k->contextNames(), (QStringList{QStringLiteral("anonymous"), QStringLiteral("dev"),
                                                 QStringLiteral("prod")}));
        QCOMPARE(k->currentContext(), QStringLiteral("prod"));
        QCOMPARE(k->contextNamespace(QStringLiteral("prod")), QStringLiteral("payments"));
        QCOMPARE(k->contextNamespace(QStringLiteral("dev")), QStringLiteral("default"));

        // Empty: current-context.
        const auto prod = k->target({}, &error);
        QVERIFY2(prod, qPrintable(error));
        QCOMPARE(prod->context, QStringLiteral("prod"));
        QCOMPARE(prod->cluster, QStringLiteral("prod-cluster"));
        QCOMPARE(prod->user, QStringLiteral("admin"));
        QCOMPARE(prod->server, QUrl(QStringLiteral("https://prod.example:6443")));
        QCOMPARE(prod->defaultNamespace, QStringLiteral("payments"));
        QCOMPARE(prod->token, kToken);
        QVERIFY(prod->certificateAuthorityPem.isEmpty());
        QVERIFY(!prod->insecureSkipTlsVerify);
        QVERIFY(!prod->exec);
        QVERIFY(!prod->describe().contains(kToken));

        // --context.
        const auto dev = k->target(QStringLiteral("dev"), &error);
        QVERIFY2(dev, qPrintable(error));
        QCOMPARE(dev->context, QStringLiteral("dev"));
        QCOMPARE(dev->server, QUrl(QStringLiteral("https://dev.example")));
        QCOMPARE(dev->defaultNamespace, QStringLiteral("default"));

        // A context without a user: no credentials at all.
        const auto anon = k->target(QStringLiteral("anonymous"), &error);
        QVERIFY2(anon, qPrintable(error));
        QVERIFY(anon->user.isEmpty() && anon->token.isEmpty() && !anon->exec);

        // --kubeconfig ignores KUBECONFIG.
        EnvGuard guard("KUBECONFIG");
        qputenv("KUBECONFIG", m_dir.filePath(QStringLiteral("nothing-here")).toUtf8());
        QVERIFY2(Kubeconfig::load(path, &error), qPrintable(error));
    }

    void mergedKubeconfig() {
        // a/config: current-context, the "shared" cluster and user, a CA relative to a/.
        const QString a = write(
            QStringLiteral("merge/a/config"),
            QStringLiteral("current-context: a-ctx\n"
                           "clusters:\n"
                           "- name: shared\n  cluster:\n    server: https://from-a\n"
                           "    certificate-authority: ca.pem\n"
                           "contexts:\n"
                           "- name: a-ctx\n  context:\n    cluster: shared\n    user: shared\n"
                           "users:\n- name: shared\n  user:\n    token: %1\n")
                .arg(kToken));
        write(QStringLiteral("merge/a/ca.pem"), QByteArray("CA OF A"));
        // b/config: no current-context of its own would be needed, but sets one that must lose;
        // redefines "shared" (must lose, as a whole), adds cluster-b with a CA relative to b/,
        // a user with files relative to b/, and a context using them.
        const QString b = write(
            QStringLiteral("merge/b/config"),
            QStringLiteral("current-context: b-ctx\n"
                           "clusters:\n"
                           "- name: shared\n  cluster:\n    server: https://from-b\n"
                           "    insecure-skip-tls-verify: true\n"
                           "- name: cluster-b\n  cluster:\n    server: https://b.example\n"
                           "    certificate-authority: certs/ca.pem\n"
                           "contexts:\n"
                           "- name: a-ctx\n  context:\n    cluster: cluster-b\n    user: b-user\n"
                           "- name: b-ctx\n  context:\n    cluster: cluster-b\n    user: b-user\n"
                           "    namespace: team-b\n"
                           "users:\n"
                           "- name: shared\n  user:\n    username: bob\n    password: %1\n"
                           "- name: b-user\n  user:\n    client-certificate: certs/client.crt\n"
                           "    client-key: certs/client.key\n    tokenFile: ../token\n"
                           "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: ./bin/plugin\n      interactiveMode: Never\n")
                .arg(kPassword));
        write(QStringLiteral("merge/b/certs/ca.pem"), QByteArray("CA OF B"));
        write(QStringLiteral("merge/b/certs/client.crt"), kCertPem);
        write(QStringLiteral("merge/b/certs/client.key"), kKeyPem);
        write(QStringLiteral("merge/token"), QByteArray("file-token\n"));
        // c/config: only a context, and a cluster named like a's.
        const QString c = write(QStringLiteral("merge/c/config"),
                                QStringLiteral("contexts:\n- name: c-ctx\n  context:\n"
                                               "    cluster: shared\n    user: b-user\n"
                                               "clusters:\n- name: shared\n  cluster:\n"
                                               "    server: https://from-c\n"));

        EnvGuard guard("KUBECONFIG");
        // Missing files and empty entries are skipped; a repeated file is read once.
        const QString missing = m_dir.filePath(QStringLiteral("merge/missing"));
        qputenv("KUBECONFIG", QStringLiteral("%1:%2::%3:%2:%4:").arg(missing, a, b, c).toUtf8());
        QString error;
        const auto k = Kubeconfig::load({}, &error);
        QVERIFY2(k, qPrintable(error));
        QCOMPARE(k->files(), (QStringList{a, b, c}));
        QCOMPARE(k->currentContext(), QStringLiteral("a-ctx"));
        QCOMPARE(k->contextNames(), (QStringList{QStringLiteral("a-ctx"), QStringLiteral("b-ctx"),
                                                 QStringLiteral("c-ctx")}));

        // a-ctx as a defined it: a's cluster (CA relative to a/), a's user (token, no basic
        // auth merged in from b), not b's redefinition.
        const auto ta = k->target({}, &error);
        QVERIFY2(ta, qPrintable(error));
        QCOMPARE(ta->server, QUrl(QStringLiteral("https://from-a")));
        QCOMPARE(ta->certificateAuthorityPem, QByteArray("CA OF A"));
        QVERIFY(!ta->insecureSkipTlsVerify);
        QCOMPARE(ta->token, kToken);
        QVERIFY(ta->username.isEmpty() && ta->password.isEmpty());

        // b-ctx: every relative path against b/.
        const auto tb = k->target(QStringLiteral("b-ctx"), &error);
        QVERIFY2(tb, qPrintable(error));
        QCOMPARE(tb->defaultNamespace, QStringLiteral("team-b"));
        QCOMPARE(tb->certificateAuthorityPem, QByteArray("CA OF B"));
        QCOMPARE(tb->clientCertificatePem, kCertPem);
        QCOMPARE(tb->clientKeyPem, kKeyPem);
        QCOMPARE(tb->tokenFile, QDir::cleanPath(m_dir.filePath(QStringLiteral("merge/token"))));
        QVERIFY(tb->token.isEmpty()); // the transport reads the file per request
        QVERIFY(tb->exec);
        QCOMPARE(tb->exec->command, m_dir.filePath(QStringLiteral("merge/b/bin/plugin")));

        // c-ctx: c's context, but "shared" is a's cluster.
        const auto tc = k->target(QStringLiteral("c-ctx"), &error);
        QVERIFY2(tc, qPrintable(error));
        QCOMPARE(tc->server, QUrl(QStringLiteral("https://from-a")));

        // The current-context comes from the first file that sets one.
        qputenv("KUBECONFIG", QStringLiteral("%1:%2").arg(c, b).toUtf8());
        const auto cb = Kubeconfig::load({}, &error);
        QVERIFY2(cb, qPrintable(error));
        QCOMPARE(cb->currentContext(), QStringLiteral("b-ctx"));
        const auto tcb = cb->target({}, &error);
        QVERIFY2(tcb, qPrintable(error));
        QCOMPARE(tcb->context, QStringLiteral("b-ctx"));

        // None exists: an error naming the list.
        qputenv("KUBECONFIG", QStringLiteral("%1:%1-too").arg(missing).toUtf8());
        QVERIFY(!Kubeconfig::load({}, &error));
        sawError(error);
        QVERIFY2(error.contains(QLatin1String("KUBECONFIG")) && error.contains(missing),
                 qPrintable(error));

        // One file of the list is broken: kubectl fails, so do we, naming that file.
        const QString broken =
            write(QStringLiteral("merge/broken"), QByteArray("clusters:\n- name: [\n"));
        qputenv("KUBECONFIG", QStringLiteral("%1:%2").arg(a, broken).toUtf8());
        QVERIFY(!Kubeconfig::load({}, &error));
        sawError(error);
        QVERIFY2(error.contains(broken) && error.contains(QLatin1String("invalid YAML")),
                 qPrintable(error));
    }

    void homeKubeconfig() {
        EnvGuard kubeconfig("KUBECONFIG");
        EnvGuard home("HOME");
        const QString homeDir = m_dir.filePath(QStringLiteral("home"));
        QDir().mkpath(homeDir);
        qputenv("HOME", homeDir.toUtf8());
        qputenv("KUBECONFIG", QByteArray()); // set but empty: as unset
        QString error;
        QVERIFY(!Kubeconfig::load({}, &error));
        sawError(error);
        QVERIFY2(error.contains(QLatin1String(".kube/config")), qPrintable(error));
        const QString path = write(QStringLiteral("home/.kube/config"),
                                   oneContext(QStringLiteral("    server: https://home:6443\n"),
                                              QStringLiteral("    token: %1\n").arg(kToken)));
        qunsetenv("KUBECONFIG");
        const auto k = Kubeconfig::load({}, &error);
        QVERIFY2(k, qPrintable(error));
        QCOMPARE(QFileInfo(k->files().value(0)).canonicalFilePath(),
                 QFileInfo(path).canonicalFilePath());
        const auto t = k->target({}, &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->server, QUrl(QStringLiteral("https://home:6443")));
    }

    void credentialKinds() {
        // A token and a client certificate together: both kept (kubectl uses both).
        write(QStringLiteral("creds/client.crt"), kCertPem);
        write(QStringLiteral("creds/client.key"), kKeyPem);
        const QString cluster = QStringLiteral("    server: https://k:6443\n");
        const QString dir = QStringLiteral("creds/");
        auto here = [&](const QString& yaml) {
            const QString path = write(dir + fresh(QStringLiteral("config")), yaml);
            QString error;
            const auto k = Kubeconfig::load(path, &error);
            if (!k)
                qFatal("%s", qPrintable(error));
            const auto t = k->target({}, &error);
            if (!t)
                qFatal("%s", qPrintable(error));
            return *t;
        };
        const ClusterTarget both =
            here(oneContext(cluster, QStringLiteral("    token: %1\n    client-certificate: "
                                                    "client.crt\n    client-key: client.key\n")
                                         .arg(kToken)));
        QCOMPARE(both.token, kToken);
        QCOMPARE(both.clientCertificatePem, kCertPem);
        QCOMPARE(both.clientKeyPem, kKeyPem);

        // -data fields, base64-decoded.
        const ClusterTarget data =
            here(oneContext(QStringLiteral("    server: https://k:6443\n"
                                           "    certificate-authority-data: %1\n")
                                .arg(b64(kCaPem)),
                            QStringLiteral("    client-certificate-data: %1\n"
                                           "    client-key-data: %2\n")
                                .arg(b64(kCertPem), b64(kKeyPem))));
        QCOMPARE(data.certificateAuthorityPem, kCaPem);
        QCOMPARE(data.clientCertificatePem, kCertPem);
        QCOMPARE(data.clientKeyPem, kKeyPem);

        // Basic auth.
        const ClusterTarget basic = here(oneContext(
            cluster, QStringLiteral("    username: alice\n    password: %1\n").arg(kPassword)));
        QCOMPARE(basic.username, QStringLiteral("alice"));
        QCOMPARE(basic.password, kPassword);
        QVERIFY(basic.token.isEmpty());

        // A token and a tokenFile: both kept (the path, for re-reading).
        write(QStringLiteral("creds/sa/token"), QByteArray("projected-token"));
        const ClusterTarget tokens = here(oneContext(
            cluster, QStringLiteral("    token: %1\n    tokenFile: sa/token\n").arg(kToken)));
        QCOMPARE(tokens.token, kToken);
        QCOMPARE(tokens.tokenFile, m_dir.filePath(QStringLiteral("creds/sa/token")));

        // An exec plugin with everything it can have; a bare command stays a PATH lookup.
        const ClusterTarget ex = here(oneContext(
            cluster + QStringLiteral("    extensions:\n"
                                     "    - name: client.authentication.k8s.io/exec\n"
                                     "      extension:\n        audience: watch\n"
                                     "        port: 8443\n        strict: yes\n"
                                     "        quoted: \"8443\"\n        list: [a, 1]\n"
                                     "    - name: something-else\n      extension: {x: 1}\n"),
            QStringLiteral(
                "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                "      command: kubectl-login\n      args: [get-token, --quiet]\n"
                "      env:\n      - name: AWS_PROFILE\n        value: prod\n"
                "      - name: EMPTY\n"
                "      installHint: run brew install kubectl-login\n"
                "      provideClusterInfo: true\n      interactiveMode: IfAvailable\n")));
        QVERIFY(ex.exec);
        QCOMPARE(ex.exec->apiVersion, QStringLiteral("client.authentication.k8s.io/v1"));
        QCOMPARE(ex.exec->command, QStringLiteral("kubectl-login"));
        QCOMPARE(ex.exec->args,
                 (QStringList{QStringLiteral("get-token"), QStringLiteral("--quiet")}));
        QCOMPARE(ex.exec->env.size(), 2);
        QCOMPARE(ex.exec->env[0].first, QStringLiteral("AWS_PROFILE"));
        QCOMPARE(ex.exec->env[0].second, QStringLiteral("prod"));
        QCOMPARE(ex.exec->env[1].first, QStringLiteral("EMPTY"));
        QVERIFY(ex.exec->env[1].second.isEmpty());
        QCOMPARE(ex.exec->installHint, QStringLiteral("run brew install kubectl-login"));
        QVERIFY(ex.exec->provideClusterInfo);
        QCOMPARE(ex.exec->interactiveMode, QStringLiteral("IfAvailable"));
        const QJsonObject ext = QJsonDocument::fromJson(ex.exec->clusterConfig).object();
        QCOMPARE(ext.value(QLatin1String("audience")).toString(), QStringLiteral("watch"));
        QCOMPARE(ext.value(QLatin1String("port")).toInteger(), 8443);
        QCOMPARE(ext.value(QLatin1String("strict")).toBool(), true);
        QCOMPARE(ext.value(QLatin1String("quoted")).toString(), QStringLiteral("8443"));
        QCOMPARE(ext.value(QLatin1String("list")).toArray().size(), 2);

        // v1beta1: interactiveMode defaults to IfAvailable; a path command resolves.
        const ClusterTarget beta = here(oneContext(
            cluster, QStringLiteral("    exec:\n      apiVersion: client.authentication.k8s.io/"
                                    "v1beta1\n      command: ../tools/plugin.sh\n")));
        QVERIFY(beta.exec);
        QCOMPARE(beta.exec->interactiveMode, QStringLiteral("IfAvailable"));
        QCOMPARE(beta.exec->command, m_dir.filePath(QStringLiteral("tools/plugin.sh")));
        QVERIFY(!beta.exec->provideClusterInfo);
        QVERIFY(beta.exec->clusterConfig.isEmpty());
    }

    void clusterSettings() {
        // insecure-skip-tls-verify (YAML 1.1 "yes" too), tls-server-name, proxy-url.
        const ClusterTarget t =
            mustResolve(oneContext(QStringLiteral("    server: https://10.0.0.1:6443\n"
                                                  "    insecure-skip-tls-verify: true\n"
                                                  "    tls-server-name: kubernetes.default\n"
                                                  "    proxy-url: socks5://proxy.corp:1080\n"),
                                   {}));
        QVERIFY(t.insecureSkipTlsVerify);
        QCOMPARE(t.tlsServerName, QStringLiteral("kubernetes.default"));
        QCOMPARE(t.proxyUrl, QUrl(QStringLiteral("socks5://proxy.corp:1080")));
        QVERIFY(t.certificateAuthorityPem.isEmpty());
        const ClusterTarget yes = mustResolve(
            oneContext(QStringLiteral("    server: https://k\n    insecure-skip-tls-verify: yes\n"
                                      "    proxy-url: http://user:%1@proxy:3128\n")
                           .arg(kProxyPassword),
                       {}));
        QVERIFY(yes.insecureSkipTlsVerify);
        QCOMPARE(yes.proxyUrl.password(), kProxyPassword);
        const ClusterTarget off = mustResolve(oneContext(
            QStringLiteral("    server: https://k\n    insecure-skip-tls-verify: false\n"), {}));
        QVERIFY(!off.insecureSkipTlsVerify);

        // A server without a scheme: https when TLS is configured, http otherwise
        // (client-go's DefaultServerURL).
        QCOMPARE(mustResolve(oneContext(QStringLiteral("    server: 127.0.0.1:6443\n"
                                                       "    certificate-authority-data: %1\n")
                                            .arg(b64(kCaPem)),
                                        {}))
                     .server,
                 QUrl(QStringLiteral("https://127.0.0.1:6443")));
        QCOMPARE(mustResolve(oneContext(QStringLiteral("    server: localhost:8080\n"), {})).server,
                 QUrl(QStringLiteral("http://localhost:8080")));
        // A path in the server URL is kept (apiservers behind a prefix).
        QCOMPARE(
            mustResolve(oneContext(QStringLiteral("    server: https://h/k8s/clusters/c-1\n"), {}))
                .server.path(),
            QStringLiteral("/k8s/clusters/c-1"));
        // JSON is YAML: kubectl reads JSON kubeconfigs too.
        const ClusterTarget json = mustResolve(QStringLiteral(
            R"({"current-context":"j","clusters":[{"name":"c","cluster":{"server":"https://json"}}],)"
            R"("contexts":[{"name":"j","context":{"cluster":"c","user":"u","namespace":"ns"}}],)"
            R"("users":[{"name":"u","user":{"token":"tok"}}]})"));
        QCOMPARE(json.server, QUrl(QStringLiteral("https://json")));
        QCOMPARE(json.defaultNamespace, QStringLiteral("ns"));
        QVERIFY(json.namespaceNamed);
        QCOMPARE(json.token, QStringLiteral("tok"));
    }

    // as, as-uid, as-groups, as-user-extra: who the user acts as (client-go's ImpersonateConfig).
    void impersonation() {
        const ClusterTarget t =
            mustResolve(oneContext(QStringLiteral("    server: https://k:6443\n"),
                                   QStringLiteral("    token: tok\n    as: jane\n    as-uid: u-42\n"
                                                  "    as-groups: [auditors]\n    as-user-extra:\n"
                                                  "      scopes: [view]\n")));
        QCOMPARE(t.impersonate.user, QStringLiteral("jane"));
        QCOMPARE(t.impersonate.uid, QStringLiteral("u-42"));
        QCOMPARE(t.impersonate.groups, QStringList{QStringLiteral("auditors")});
        QCOMPARE(t.impersonate.extra.size(), 1);
        QCOMPARE(t.impersonate.extra.front().first, QStringLiteral("scopes"));
        QCOMPARE(t.impersonate.extra.front().second, QStringList{QStringLiteral("view")});
        QVERIFY(!mustResolve(oneContext(QStringLiteral("    server: https://k:6443\n"), {}))
                     .impersonate.isSet());
    }

    void errors_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("context");
        QTest::addColumn<QStringList>("expected");

        const QString server = QStringLiteral("    server: https://k:6443\n");
        const QString token = QStringLiteral("    token: %1\n").arg(kToken);
        QTest::newRow("invalid YAML")
            << QStringLiteral("clusters:\n- name: c\n  cluster:\n    server: https://k\n"
                              "users:\n- name: u\n  user: {token: %1\n")
                   .arg(kToken)
            << QString() << QStringList{QStringLiteral("invalid YAML at line ")};
        QTest::newRow("invalid YAML line 3")
            << QStringLiteral("current-context: x\nclusters:\n  - name: c\n  cluster: {\n")
            << QString() << QStringList{QStringLiteral("invalid YAML at line ")};
        QTest::newRow("not a map") << QStringLiteral("- just\n- a list\n") << QString()
                                   << QStringList{QStringLiteral("not a kubeconfig")};
        QTest::newRow("clusters not a list")
            << QStringLiteral("clusters: {c: 1}\n") << QString()
            << QStringList{QStringLiteral("'clusters' must be a list")};
        QTest::newRow("entry without a name")
            << QStringLiteral("users:\n- user: {token: %1}\n").arg(kToken) << QString()
            << QStringList{QStringLiteral("an entry of 'users' has no name")};
        QString noCurrent = oneContext(server, token);
        noCurrent.remove(QStringLiteral("current-context: ctx\n"));
        QTest::newRow("no current-context")
            << noCurrent << QString()
            << QStringList{QStringLiteral("has no current-context"), QStringLiteral("ctx")};
        QTest::newRow("unknown context lists the contexts")
            << oneContext(server, token) << QStringLiteral("prod")
            << QStringList{QStringLiteral("context 'prod' not found"),
                           QStringLiteral("(contexts: ctx)")};
        QString many = QStringLiteral("contexts:\n");
        for (int i = 0; i < 15; ++i)
            many += QStringLiteral("- name: ctx-%1\n  context: {cluster: c}\n")
                        .arg(i, 2, 10, QLatin1Char('0'));
        QTest::newRow("unknown context, list truncated")
            << many << QStringLiteral("nope")
            << QStringList{QStringLiteral("context 'nope' not found"),
                           QStringLiteral("ctx-00, ctx-01"), QStringLiteral("ctx-09, ... 5 more")};
        QTest::newRow("current-context names a missing context")
            << QStringLiteral("current-context: gone\n") << QString()
            << QStringList{QStringLiteral("context 'gone' not found"),
                           QStringLiteral("contexts: none")};
        QString missingCluster = oneContext(server, token);
        missingCluster.replace(QStringLiteral("    cluster: c\n"),
                               QStringLiteral("    cluster: nowhere\n"));
        QTest::newRow("missing cluster")
            << missingCluster << QString()
            << QStringList{QStringLiteral("context 'ctx' names cluster 'nowhere', which is not "
                                          "defined")};
        QString missingUser = oneContext(server, token);
        missingUser.replace(QStringLiteral("    user: u\n"), QStringLiteral("    user: nobody\n"));
        QTest::newRow("missing user")
            << missingUser << QString()
            << QStringList{QStringLiteral("names user 'nobody', which is not defined")};
        QTest::newRow("cluster without server")
            << oneContext(QStringLiteral("    insecure-skip-tls-verify: true\n"), token)
            << QString() << QStringList{QStringLiteral("cluster 'c' has no server")};
        QTest::newRow("invalid server URL, userinfo never shown")
            << oneContext(QStringLiteral("    server: ftp://user:%1@files\n").arg(kPassword), token)
            << QString() << QStringList{QStringLiteral("cluster 'c' has an invalid server URL")};
        QTest::newRow("unreadable CA file")
            << oneContext(server + QStringLiteral("    certificate-authority: no/ca.pem\n"), token)
            << QString()
            << QStringList{QStringLiteral("cannot read the certificate-authority of cluster 'c'"),
                           QStringLiteral("no/ca.pem")};
        QTest::newRow("unreadable client key")
            << oneContext(server, QStringLiteral("    client-certificate-data: %1\n"
                                                 "    client-key: /nonexistent/client.key\n")
                                      .arg(b64(kCertPem)))
            << QString()
            << QStringList{QStringLiteral("cannot read the client-key of user 'u'"),
                           QStringLiteral("/nonexistent/client.key")};
        QTest::newRow("unreadable tokenFile")
            << oneContext(server, QStringLiteral("    tokenFile: missing-token\n")) << QString()
            << QStringList{QStringLiteral("tokenFile of user 'u'"),
                           QStringLiteral("missing-token")};
        QTest::newRow("invalid base64, value never shown")
            << oneContext(server, QStringLiteral("    client-certificate-data: %1\n"
                                                 "    client-key-data: %2!!\n")
                                      .arg(b64(kCertPem),
                                           QString::fromLatin1(kKeyPem).simplified().remove(u' ')))
            << QString()
            << QStringList{QStringLiteral("client-key-data of user 'u' is not valid base64")};
        QTest::newRow("invalid CA base64")
            << oneContext(server + QStringLiteral("    certificate-authority-data: '%%%'\n"), token)
            << QString()
            << QStringList{QStringLiteral("certificate-authority-data of cluster 'c' is not "
                                          "valid base64")};
        QTest::newRow("certificate without key")
            << oneContext(server,
                          QStringLiteral("    client-certificate-data: %1\n").arg(b64(kCertPem)))
            << QString() << QStringList{QStringLiteral("client certificate without its key")};
        QTest::newRow("CA file and data")
            << oneContext(server + QStringLiteral("    certificate-authority: ca.pem\n"
                                                  "    certificate-authority-data: %1\n")
                                       .arg(b64(kCaPem)),
                          token)
            << QString()
            << QStringList{QStringLiteral("sets both certificate-authority and "
                                          "certificate-authority-data")};
        QTest::newRow("key file and data")
            << oneContext(server, QStringLiteral("    client-certificate-data: %1\n"
                                                 "    client-key: k.pem\n"
                                                 "    client-key-data: %2\n")
                                      .arg(b64(kCertPem), b64(kKeyPem)))
            << QString() << QStringList{QStringLiteral("sets both client-key and client-key-data")};
        QTest::newRow("insecure with a CA")
            << oneContext(server + QStringLiteral("    insecure-skip-tls-verify: true\n"
                                                  "    certificate-authority-data: %1\n")
                                       .arg(b64(kCaPem)),
                          token)
            << QString()
            << QStringList{QStringLiteral("both a certificate authority and "
                                          "insecure-skip-tls-verify")};
        QTest::newRow("proxy-url scheme")
            << oneContext(
                   server +
                       QStringLiteral("    proxy-url: ftp://u:%1@proxy:21\n").arg(kProxyPassword),
                   token)
            << QString() << QStringList{QStringLiteral("proxy-url with an unsupported scheme")};
        QTest::newRow("token and basic auth")
            << oneContext(server, QStringLiteral("    token: %1\n    username: a\n"
                                                 "    password: %2\n")
                                      .arg(kToken, kPassword))
            << QString() << QStringList{QStringLiteral("only one authentication method")};
        // client-go 0.35 still has the oidc provider; it needs an issuer and a client id.
        QTest::newRow("auth-provider oidc without idp-issuer-url")
            << oneContext(server, QStringLiteral("    auth-provider:\n      name: oidc\n"
                                                 "      config:\n        id-token: %1\n"
                                                 "        client-id: kubectl\n")
                                      .arg(kToken))
            << QString()
            << QStringList{QStringLiteral("the oidc auth-provider of user 'u' has no "
                                          "idp-issuer-url")};
        QTest::newRow("auth-provider oidc without client-id")
            << oneContext(server, QStringLiteral("    auth-provider:\n      name: oidc\n"
                                                 "      config:\n        id-token: %1\n"
                                                 "        idp-issuer-url: https://idp\n")
                                      .arg(kToken))
            << QString()
            << QStringList{QStringLiteral("the oidc auth-provider of user 'u' has no client-id")};
        QTest::newRow("auth-provider azure")
            << oneContext(server, QStringLiteral("    auth-provider:\n      name: azure\n"
                                                 "      config:\n        access-token: %1\n")
                                      .arg(kToken))
            << QString()
            << QStringList{QStringLiteral("user 'u' uses auth-provider 'azure'"),
                           QStringLiteral("not supported")};
        QTest::newRow("impersonation without a user")
            << oneContext(server, token + QStringLiteral("    as-groups: [auditors]\n"))
            << QString()
            << QStringList{QStringLiteral("requests uid, groups or user-extra without "
                                          "impersonating a user")};
        QTest::newRow("impersonating two groups")
            << oneContext(server, token + QStringLiteral("    as: jane\n    as-groups: [a, b]\n"))
            << QString() << QStringList{QStringLiteral("more than one value in as-groups")};
        QTest::newRow("auth-provider unknown")
            << oneContext(server, QStringLiteral("    auth-provider:\n      name: keystone\n"))
            << QString()
            << QStringList{QStringLiteral("auth-provider 'keystone', which client-go does not "
                                          "know")};
        const QString execHead =
            QStringLiteral("    exec:\n      apiVersion: client.authentication.k8s.io/");
        QTest::newRow("exec v1 without interactiveMode")
            << oneContext(server, execHead + QStringLiteral("v1\n      command: p\n")) << QString()
            << QStringList{QStringLiteral("needs interactiveMode")};
        QTest::newRow("exec bad interactiveMode")
            << oneContext(server, execHead + QStringLiteral("v1\n      command: p\n"
                                                            "      interactiveMode: Sometimes\n"))
            << QString() << QStringList{QStringLiteral("invalid interactiveMode 'Sometimes'")};
        QTest::newRow("exec v1alpha1")
            << oneContext(server, execHead + QStringLiteral("v1alpha1\n      command: p\n"))
            << QString()
            << QStringList{QStringLiteral("apiVersion 'client.authentication.k8s.io/v1alpha1'")};
        QTest::newRow("exec without command")
            << oneContext(server, execHead + QStringLiteral("v1beta1\n")) << QString()
            << QStringList{QStringLiteral("exec plugin of user 'u' has no command")};
        QTest::newRow("exec env without name")
            << oneContext(server, execHead + QStringLiteral("v1beta1\n      command: p\n"
                                                            "      env:\n      - value: %1\n")
                                                 .arg(kToken))
            << QString() << QStringList{QStringLiteral("env entry without a name")};
    }
    void errors() {
        QFETCH(QString, yaml);
        QFETCH(QString, context);
        QFETCH(QStringList, expected);
        const QString path =
            write(QStringLiteral("errors/") + fresh(QStringLiteral("config")), yaml);
        QString error;
        const auto k = Kubeconfig::load(path, &error);
        const auto t = k ? k->target(context, &error) : std::nullopt;
        QVERIFY2(!t, "resolved a broken kubeconfig");
        sawError(error);
        checkNoSecrets(error);
        QVERIFY2(error.contains(path), qPrintable(QStringLiteral("no file named: ") + error));
        for (const QString& e : expected)
            QVERIFY2(error.contains(e),
                     qPrintable(QStringLiteral("'%1' not in: %2").arg(e, error)));
    }

    void yamlErrorLine() {
        // The line yaml-cpp reports is the line of the fault, 1-based.
        const QString path = write(QStringLiteral("errors/line"),
                                   QByteArray("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n"
                                              "  cluster:\n    server: https://k: 6443\n"));
        QString error;
        QVERIFY(!Kubeconfig::load(path, &error));
        sawError(error);
        QVERIFY2(error.contains(QStringLiteral("%1: invalid YAML at line 6").arg(path)),
                 qPrintable(error));
        // Unreadable and missing files.
        QVERIFY(!Kubeconfig::load(m_dir.filePath(QStringLiteral("errors/none")), &error));
        sawError(error);
        QVERIFY2(error.contains(QLatin1String("no such file")), qPrintable(error));
        QVERIFY(!Kubeconfig::load(m_dir.filePath(QStringLiteral("errors")), &error));
        sawError(error);
        QVERIFY2(error.contains(QLatin1String("cannot read kubeconfig")), qPrintable(error));
    }

    void emptyFiles() {
        // An empty file and null sections contribute nothing (kubectl reads them fine).
        const QString empty = write(QStringLiteral("empty/a"), QByteArray());
        const QString nulls =
            write(QStringLiteral("empty/b"), QByteArray("clusters:\ncontexts: ~\nusers: null\n"));
        EnvGuard guard("KUBECONFIG");
        qputenv("KUBECONFIG", QStringLiteral("%1:%2").arg(empty, nulls).toUtf8());
        QString error;
        const auto k = Kubeconfig::load({}, &error);
        QVERIFY2(k, qPrintable(error));
        QVERIFY(k->contextNames().isEmpty());
        QVERIFY(!k->target({}, &error));
        sawError(error);
        QVERIFY2(error.contains(QLatin1String("no current-context")), qPrintable(error));
    }

    // --- exec credential plugins ------------------------------------------------------------

    void execV1CachedUntilExpiry() {
        QString count, info;
        const QString future = QDateTime::currentDateTimeUtc().addSecs(3600).toString(Qt::ISODate);
        const QString p =
            plugin(QStringLiteral("v1.sh"),
                   credential(QStringLiteral("v1"),
                              QStringLiteral(R"({"token":"%1","expirationTimestamp":"%2"})")
                                  .arg(kExecToken, future)),
                   &count, &info);
        ExecConfig x = exec(p);
        x.args = {QStringLiteral("get-token"), QStringLiteral("--cluster=c 1")};
        x.env = {{QStringLiteral("PLUGIN_VAR"), QStringLiteral("from-config")}};
        ExecCredentialRunner runner;
        QString error;
        const auto c = runner.get(x, QUrl(QStringLiteral("https://k:6443")), &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->token, kExecToken);
        QVERIFY(c->clientCertificatePem.isEmpty());
        QCOMPARE(c->expiry, QDateTime::fromString(future, Qt::ISODate));
        // Cached: the plugin ran once.
        const auto again = runner.get(x, QUrl(QStringLiteral("https://k:6443")), &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->token, kExecToken);
        QCOMPARE(lines(count), 1);
        QCOMPARE(runner.runs(), 1);
        // What the plugin saw.
        const QStringList seen = readLines(info);
        const QJsonObject execInfo = QJsonDocument::fromJson(seen.value(0).toUtf8()).object();
        QCOMPARE(execInfo.value(QLatin1String("kind")).toString(),
                 QStringLiteral("ExecCredential"));
        QCOMPARE(execInfo.value(QLatin1String("apiVersion")).toString(),
                 QStringLiteral("client.authentication.k8s.io/v1"));
        const QJsonObject spec = execInfo.value(QLatin1String("spec")).toObject();
        QCOMPARE(spec.value(QLatin1String("interactive")), QJsonValue(false));
        QVERIFY(!spec.contains(QLatin1String("cluster"))); // provideClusterInfo is off
        QCOMPARE(seen.value(1), QStringLiteral("args:get-token --cluster=c 1"));
        QCOMPARE(seen.value(2), QStringLiteral("var:from-config"));
        // A 401: invalidate() makes the next get() run it again.
        runner.invalidate();
        QVERIFY2(runner.get(x, QUrl(QStringLiteral("https://k:6443")), &error), qPrintable(error));
        QCOMPARE(lines(count), 2);
        // Another exec config (other args) is another credential.
        ExecConfig other = x;
        other.args << QStringLiteral("--other");
        QVERIFY2(runner.get(other, QUrl(QStringLiteral("https://k:6443")), &error),
                 qPrintable(error));
        QCOMPARE(lines(count), 3);
        QVERIFY2(runner.get(x, QUrl(QStringLiteral("https://k:6443")), &error), qPrintable(error));
        QCOMPARE(lines(count), 3);
    }

    void execV1beta1CertificateNoExpiry() {
        QString count;
        QJsonObject status{{QStringLiteral("clientCertificateData"), QString::fromLatin1(kCertPem)},
                           {QStringLiteral("clientKeyData"), QString::fromLatin1(kKeyPem)}};
        const QString p = plugin(
            QStringLiteral("beta.sh"),
            credential(QStringLiteral("v1beta1"),
                       QString::fromUtf8(QJsonDocument(status).toJson(QJsonDocument::Compact))),
            &count);
        ExecCredentialRunner runner;
        QString error;
        const auto c = runner.get(exec(p, QStringLiteral("v1beta1")), QUrl(), &error);
        QVERIFY2(c, qPrintable(error));
        QVERIFY(c->token.isEmpty());
        QCOMPARE(c->clientCertificatePem, kCertPem);
        QCOMPARE(c->clientKeyPem, kKeyPem);
        QVERIFY(!c->expiry.isValid());
        // No expiry: reused until invalidate().
        for (int i = 0; i < 3; ++i)
            QVERIFY2(runner.get(exec(p, QStringLiteral("v1beta1")), QUrl(), &error),
                     qPrintable(error));
        QCOMPARE(lines(count), 1);
        runner.invalidate();
        QVERIFY2(runner.get(exec(p, QStringLiteral("v1beta1")), QUrl(), &error), qPrintable(error));
        QCOMPARE(lines(count), 2);
    }

    void execExpiredRerun() {
        // Expired on arrival: every get() runs the plugin again.
        QString count;
        const QString p =
            plugin(QStringLiteral("expired.sh"),
                   credential(QStringLiteral("v1"), QStringLiteral(R"({"token":"%1",)"
                                                                   R"("expirationTimestamp":)"
                                                                   R"("2001-02-03T04:05:06Z"})")
                                                        .arg(kExecToken)),
                   &count);
        ExecCredentialRunner runner;
        QString error;
        for (int i = 1; i <= 3; ++i) {
            const auto c = runner.get(exec(p), QUrl(), &error);
            QVERIFY2(c, qPrintable(error));
            QCOMPARE(c->token, kExecToken);
            QCOMPARE(c->expiry, QDateTime(QDate(2001, 2, 3), QTime(4, 5, 6), Qt::UTC));
            QCOMPARE(lines(count), i);
        }
        // RFC 3339 with fractions and an offset, in the future: cached.
        QString count2;
        const QString later =
            QDateTime::currentDateTimeUtc().addSecs(7200).toOffsetFromUtc(3600).toString(
                QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzz+01:00"));
        const QString p2 = plugin(
            QStringLiteral("frac.sh"),
            credential(QStringLiteral("v1"),
                       QStringLiteral(R"({"token":"t","expirationTimestamp":"%1"})").arg(later)),
            &count2);
        for (int i = 0; i < 2; ++i) {
            const auto c = runner.get(exec(p2), QUrl(), &error);
            QVERIFY2(c, qPrintable(error));
            QVERIFY(c->expiry > QDateTime::currentDateTimeUtc().addSecs(7000));
        }
        QCOMPARE(lines(count2), 1);
    }

    void execClusterInfo() {
        QString info;
        const QString p = plugin(
            QStringLiteral("info.sh"),
            credential(QStringLiteral("v1"), QStringLiteral(R"({"token":"%1"})").arg(kExecToken)),
            nullptr, &info);
        // Through a kubeconfig: the extension, the CA and the rest of the cluster reach the
        // plugin.
        const ClusterTarget t = mustResolve(oneContext(
            QStringLiteral("    server: https://api.example:6443/prefix\n"
                           "    certificate-authority-data: %1\n"
                           "    tls-server-name: api.internal\n"
                           "    proxy-url: http://proxy:3128\n"
                           "    extensions:\n    - name: client.authentication.k8s.io/exec\n"
                           "      extension: {audience: watchscope}\n")
                .arg(b64(kCaPem)),
            QStringLiteral("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: %1\n      interactiveMode: Never\n"
                           "      provideClusterInfo: true\n")
                .arg(p)));
        QVERIFY(t.exec);
        ExecCredentialRunner runner;
        QString error;
        QVERIFY2(runner.get(*t.exec, t, &error), qPrintable(error));
        const QJsonObject seen =
            QJsonDocument::fromJson(readLines(info).value(0).toUtf8()).object();
        const QJsonObject cluster =
            seen.value(QLatin1String("spec")).toObject().value(QLatin1String("cluster")).toObject();
        QCOMPARE(cluster.value(QLatin1String("server")).toString(),
                 QStringLiteral("https://api.example:6443/prefix"));
        QCOMPARE(cluster.value(QLatin1String("tls-server-name")).toString(),
                 QStringLiteral("api.internal"));
        QCOMPARE(cluster.value(QLatin1String("proxy-url")).toString(),
                 QStringLiteral("http://proxy:3128"));
        QCOMPARE(
            QByteArray::fromBase64(
                cluster.value(QLatin1String("certificate-authority-data")).toString().toLatin1()),
            kCaPem);
        QVERIFY(!cluster.contains(QLatin1String("insecure-skip-tls-verify")));
        QCOMPARE(cluster.value(QLatin1String("config")).toObject().value(QLatin1String("audience")),
                 QJsonValue(QStringLiteral("watchscope")));
        // The cluster is part of the cache key when the plugin sees it.
        ClusterTarget other = t;
        other.server = QUrl(QStringLiteral("https://other:6443"));
        QVERIFY2(runner.get(*t.exec, other, &error), qPrintable(error));
        QCOMPARE(runner.runs(), 2);
        QVERIFY2(runner.get(*t.exec, t, &error), qPrintable(error));
        QCOMPARE(runner.runs(), 2);
    }

    void execFromKubeconfigRelativeCommand() {
        // "command: ./bin/get-token" resolves against the kubeconfig's folder, not the working
        // directory.
        write(QStringLiteral("relexec/bin/get-token"),
              (QStringLiteral("#!/bin/sh\n") +
               credential(QStringLiteral("v1beta1"),
                          QStringLiteral(R"({"token":"%1"})").arg(kExecToken)))
                  .toUtf8(),
              true);
        const QString path = write(
            QStringLiteral("relexec/config"),
            oneContext(QStringLiteral("    server: https://k\n"),
                       QStringLiteral("    exec:\n      apiVersion: client.authentication.k8s.io/"
                                      "v1beta1\n      command: ./bin/get-token\n")));
        QString error;
        const auto k = Kubeconfig::load(path, &error);
        QVERIFY2(k, qPrintable(error));
        const auto t = k->target({}, &error);
        QVERIFY2(t && t->exec, qPrintable(error));
        ExecCredentialRunner runner;
        const auto c = runner.get(*t->exec, *t, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->token, kExecToken);
    }

    void execFailures_data() {
        QTest::addColumn<QString>("body"); // empty: no script (command not found)
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("command"); // used when body is empty
        QTest::addColumn<QString>("interactiveMode");
        QTest::addColumn<QStringList>("expected");
        const QString tokenJson = QStringLiteral(R"({"token":"%1"})").arg(kExecToken);
        const QString v1 = QStringLiteral("v1");
        const QString never = QStringLiteral("Never");
        QTest::newRow("exit 1 with stderr")
            << QStringLiteral("echo '%1'\necho 'error: refresh token expired' >&2\n"
                              "echo 'second line' >&2\nexit 1")
                   .arg(kExecToken)
            << v1 << QString() << never
            << QStringList{QStringLiteral("failed (exit code 1): error: refresh token expired")};
        QTest::newRow("killed") << QStringLiteral("echo '%1'\nkill -9 $$").arg(kExecToken) << v1
                                << QString() << never << QStringList{QStringLiteral("crashed")};
        QTest::newRow("not found in PATH")
            << QString() << v1 << QStringLiteral("ws-no-such-credential-plugin") << never
            << QStringList{QStringLiteral("executable ws-no-such-credential-plugin not found "
                                          "in PATH"),
                           QStringLiteral("(install it: brew install no-such-plugin)")};
        QTest::newRow("not found at a path")
            << QString() << v1 << QStringLiteral("/nonexistent/dir/plugin") << never
            << QStringList{QStringLiteral("executable /nonexistent/dir/plugin not found")};
        QTest::newRow("bad JSON")
            << QStringLiteral("echo '{\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%1'")
                   .arg(kExecToken)
            << v1 << QString() << never << QStringList{QStringLiteral("printed invalid JSON")};
        QTest::newRow("not an ExecCredential")
            << QStringLiteral("echo '{\"kind\":\"Secret\",\"token\":\"%1\"}'").arg(kExecToken) << v1
            << QString() << never << QStringList{QStringLiteral("did not print an ExecCredential")};
        QTest::newRow("wrong apiVersion")
            << credential(QStringLiteral("v1beta1"), tokenJson) << v1 << QString() << never
            << QStringList{QStringLiteral("answered with client.authentication.k8s.io/v1beta1, "
                                          "the kubeconfig asks for "
                                          "client.authentication.k8s.io/v1")};
        QTest::newRow("garbage apiVersion is not echoed")
            << QStringLiteral("echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%1\","
                              "\"status\":{\"token\":\"%1\"}}'")
                   .arg(kExecToken)
            << v1 << QString() << never << QStringList{QStringLiteral("another apiVersion")};
        QTest::newRow("no status")
            << QStringLiteral("echo '{\"kind\":\"ExecCredential\",\"apiVersion\":"
                              "\"client.authentication.k8s.io/v1\"}'")
            << v1 << QString() << never << QStringList{QStringLiteral("returned no status")};
        QTest::newRow("neither token nor certificate")
            << credential(v1, QStringLiteral(R"({"expirationTimestamp":"2030-01-01T00:00:00Z"})"))
            << v1 << QString() << never
            << QStringList{QStringLiteral("neither a token nor a client certificate and key")};
        QTest::newRow("certificate without key")
            << credential(v1, QStringLiteral(R"({"clientCertificateData":"x"})")) << v1 << QString()
            << never << QStringList{QStringLiteral("certificate without its key")};
        QTest::newRow("bad expirationTimestamp")
            << credential(
                   v1,
                   QStringLiteral(R"({"token":"%1","expirationTimestamp":"soon"})").arg(kExecToken))
            << v1 << QString() << never
            << QStringList{QStringLiteral("invalid expirationTimestamp")};
        QTest::newRow("timeout") << QStringLiteral("exec sleep 30") << v1 << QString() << never
                                 << QStringList{QStringLiteral("did not finish within 0.4 s")};
        QTest::newRow("interactiveMode Always")
            << credential(v1, tokenJson) << v1 << QString() << QStringLiteral("Always")
            << QStringList{QStringLiteral("standard input is not a terminal")};
    }
    void execFailures() {
        QFETCH(QString, body);
        QFETCH(QString, version);
        QFETCH(QString, command);
        QFETCH(QString, interactiveMode);
        QFETCH(QStringList, expected);
        QString count;
        ExecConfig x = exec(
            body.isEmpty() ? command : plugin(QStringLiteral("fail.sh"), body, &count), version);
        x.interactiveMode = interactiveMode;
        x.installHint = QStringLiteral("install it:\n\x1b[1mbrew install no-such-plugin\x1b[0m");
        ExecCredentialRunner runner;
        // Short only where the timeout is the point: a loaded machine starts /bin/sh slowly.
        runner.setTimeoutMs(body.startsWith(QLatin1String("exec sleep")) ? 400 : 30000);
        QString error;
        QVERIFY(!runner.get(x, QUrl(QStringLiteral("https://k")), &error));
        sawError(error);
        checkNoSecrets(error);
        for (const QString& e : expected)
            QVERIFY2(error.contains(e),
                     qPrintable(QStringLiteral("'%1' not in: %2").arg(e, error)));
        // A failure is not cached: the next get() tries again.
        const int before = body.isEmpty() ? 0 : lines(count);
        QVERIFY(!runner.get(x, QUrl(QStringLiteral("https://k")), &error));
        if (!body.isEmpty() && interactiveMode != QLatin1String("Always"))
            QCOMPARE(lines(count), before + 1);
        if (interactiveMode == QLatin1String("Always"))
            QCOMPARE(runner.runs(), 0);
    }

    void execStdinIsClosed() {
        // A plugin that reads stdin gets EOF at once instead of hanging until the timeout.
        const QString p =
            plugin(QStringLiteral("stdin.sh"),
                   QStringLiteral("cat > /dev/null\n") +
                       credential(QStringLiteral("v1"), QStringLiteral(R"({"token":"t"})")));
        ExecCredentialRunner runner;
        runner.setTimeoutMs(5000);
        QString error;
        QVERIFY2(runner.get(exec(p), QUrl(), &error), qPrintable(error));
    }

    void execFromWorkerThreads() {
        // Eight workers ask at once: the plugin runs once, the others get the cached credential.
        QString count;
        const QString p =
            plugin(QStringLiteral("slow.sh"),
                   QStringLiteral("sleep 0.3\n") +
                       credential(QStringLiteral("v1"),
                                  QStringLiteral(R"({"token":"%1"})").arg(kExecToken)),
                   &count);
        ExecCredentialRunner runner;
        std::atomic<int> ok{0};
        std::vector<std::thread> threads;
        for (int i = 0; i < 8; ++i)
            threads.emplace_back([&] {
                QString error;
                const auto c = runner.get(exec(p), QUrl(QStringLiteral("https://k")), &error);
                if (c && c->token == kExecToken)
                    ++ok;
            });
        for (auto& t : threads)
            t.join();
        QCOMPARE(ok.load(), 8);
        QCOMPARE(lines(count), 1);
    }

    void cleanupTestCase() {
        for (const QString& e : std::as_const(m_errors))
            checkNoSecrets(e);
    }
};

QTEST_GUILESS_MAIN(TestKubeconfig)
#include "tst_kubeconfig.moc"

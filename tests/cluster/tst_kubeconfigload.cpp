// Kubeconfig loading checked against client-go's clientcmd (loader.go, client_config.go,
// validation.go, api/v1 conversion): KUBECONFIG merging (first file wins per name and for
// current-context, missing files skipped, relative paths per file), ~/.kube/config, an explicit
// file, context selection, every credential kind and the validation errors; the exec credential
// runner with real /bin/sh plugins; ClusterTarget::describe(). Every error produced here is
// checked for secrets (tokens, passwords, key and certificate data, a plugin's stdout).
#include "sources/cluster/kubeconfig/ClusterTarget.h"
#include "sources/cluster/kubeconfig/ExecCredentialRunner.h"
#include "sources/cluster/kubeconfig/ExecPluginConsole.h"
#include "sources/cluster/kubeconfig/Kubeconfig.h"
#include "sources/cluster/kubeconfig/LoginShellPath.h"
#include "support/FuzzReproducer.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <mutex>

using namespace ws;

namespace {

// Every secret below contains "SECRET" (or is the base64 of one that does): no error may.
const QString kToken = QStringLiteral("kc-token-SECRET-9c1e");
const QString kPassword = QStringLiteral("kc-password-SECRET-71b2");
const QString kPluginToken = QStringLiteral("plugin-token-SECRET-55aa");
const QString kUrlPassword = QStringLiteral("url-password-SECRET-3");
const QByteArray kKey = "-----BEGIN RSA PRIVATE KEY-----\nMIIEkeyDataSECRET0001\n"
                        "-----END RSA PRIVATE KEY-----\n";
const QByteArray kCert = "-----BEGIN CERTIFICATE-----\nMIIDcertDataSECRET0002\n"
                         "-----END CERTIFICATE-----\n";
const QByteArray kCa = "-----BEGIN CERTIFICATE-----\nMIIDcaData0003\n-----END CERTIFICATE-----\n";
const QString kV1 = QStringLiteral("client.authentication.k8s.io/v1");
const QString kV1beta1 = QStringLiteral("client.authentication.k8s.io/v1beta1");

QString b64(const QByteArray& b) {
    return QString::fromLatin1(b.toBase64());
}

// Saves an environment variable and puts it back when the test function ends, however it ends.
class EnvGuard {
public:
    explicit EnvGuard(const char* name)
        : m_name(name), m_set(qEnvironmentVariableIsSet(name)), m_value(qgetenv(name)) {}
    ~EnvGuard() {
        if (m_set)
            qputenv(m_name, m_value);
        else
            qunsetenv(m_name);
    }
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;

private:
    const char* m_name;
    bool m_set;
    QByteArray m_value;
};

// Each line of `body` indented by four spaces: the body of a cluster / user entry.
QString indent(const QString& body) {
    if (body.isEmpty())
        return QStringLiteral("    {}\n");
    QString out;
    for (const QString& line : body.split(u'\n', Qt::SkipEmptyParts))
        out += QStringLiteral("    ") + line + u'\n';
    return out;
}

// Cluster "c", user "u" and the current context "ctx" joining them.
QString kubeconfig(const QString& cluster, const QString& user) {
    return QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: ctx\n"
                          "clusters:\n- name: c\n  cluster:\n") +
           indent(cluster) +
           QStringLiteral("contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n"
                          "users:\n- name: u\n  user:\n") +
           indent(user);
}

// The script lines that print an ExecCredential with this status.
QString credential(const QString& apiVersion, const QString& status) {
    return QStringLiteral("cat <<'EOF'\n{\"kind\":\"ExecCredential\",\"apiVersion\":\"%1\","
                          "\"status\":%2}\nEOF\n")
        .arg(apiVersion, status);
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

ExecConfig execConfig(const QString& command, const QString& apiVersion) {
    ExecConfig x;
    x.apiVersion = apiVersion;
    x.command = command;
    x.interactiveMode = QStringLiteral("Never");
    return x;
}

} // namespace

class TestKubeconfigLoad : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    int m_serial = 0;
    QStringList m_errors; // every error seen, checked once more at the end

    QString path(const QString& relative) const { return m_tmp.filePath(relative); }
    QString unique(const QString& stem) {
        return QStringLiteral("%1-%2").arg(stem).arg(++m_serial);
    }

    QString write(const QString& relative, const QByteArray& content, bool executable = false) {
        const QString p = path(relative);
        QDir().mkpath(QFileInfo(p).absolutePath());
        QFile f(p);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            qFatal("cannot write %s", qPrintable(p));
        f.write(content);
        f.close();
        if (executable)
            f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
        return p;
    }
    QString write(const QString& relative, const QString& content) {
        return write(relative, content.toUtf8());
    }

    // One error: recorded, one line, free of secrets, and it says each of `fragments`.
    void checkError(const QString& error, const QStringList& fragments = {}) {
        m_errors << error;
        QVERIFY2(!error.isEmpty(), "empty error");
        QVERIFY2(!error.contains(u'\n'), qPrintable(QStringLiteral("not one line: ") + error));
        checkNoSecret(error);
        for (const QString& f : fragments)
            QVERIFY2(error.contains(f),
                     qPrintable(QStringLiteral("'%1' not in: %2").arg(f, error)));
    }
    static void checkNoSecret(const QString& text) {
        for (const QString& s :
             {QStringLiteral("SECRET"), b64(kKey), b64(kCert), b64(kToken.toUtf8()),
              QString::fromLatin1(kKey), QString::fromLatin1(kCert)})
            QVERIFY2(!text.contains(s), qPrintable(QStringLiteral("a secret in: ") + text));
    }

    // Loads `yaml` from a fresh file; fails the test when it does not load.
    std::optional<Kubeconfig> loadYaml(const QString& yaml, QString* file = nullptr) {
        const QString p = write(unique(QStringLiteral("cfg")) + QStringLiteral("/config"), yaml);
        if (file)
            *file = p;
        QString error;
        auto k = Kubeconfig::load(p, &error);
        if (!k)
            qWarning("load failed: %s", qPrintable(error));
        return k;
    }
    std::optional<ClusterTarget> targetOf(const QString& yaml, QString* error,
                                          const QString& context = {}) {
        const auto k = loadYaml(yaml);
        if (!k) {
            *error = QStringLiteral("load failed");
            return std::nullopt;
        }
        return k->target(context, error);
    }

    // A /bin/sh plugin in a folder of its own: each run appends to <dir>/runs, writes its
    // KUBERNETES_EXEC_INFO to <dir>/info and "$WS_PLUGIN_VAR|$WS_INHERITED_VAR" to <dir>/env,
    // then runs `body`.
    QString plugin(const QString& body, QString* dir = nullptr) {
        const QString d = path(unique(QStringLiteral("plugin")));
        if (dir)
            *dir = d;
        const QString script =
            QStringLiteral("#!/bin/sh\necho run >> '%1/runs'\n"
                           "printf '%s' \"$KUBERNETES_EXEC_INFO\" > '%1/info'\n"
                           "printf '%s|%s' \"$WS_PLUGIN_VAR\" \"$WS_INHERITED_VAR\" > '%1/env'\n")
                .arg(d) +
            body;
        return write(QDir(m_tmp.path()).relativeFilePath(d + QStringLiteral("/plugin.sh")),
                     script.toUtf8(), true);
    }
    static int runsOf(const QString& dir) {
        return static_cast<int>(readAll(dir + QStringLiteral("/runs")).count('\n'));
    }

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        if (!QFileInfo(QStringLiteral("/bin/sh")).isExecutable())
            QSKIP("/bin/sh is needed for the exec plugin tests");
    }

    // --- load("") with KUBECONFIG ---------------------------------------------------------

    void kubeconfigEnvMerges() {
        EnvGuard guard("KUBECONFIG");
        // one/: no current-context; "shared" cluster, context "both" and user "shared", with
        // paths relative to one/.
        const QString one = write(
            QStringLiteral("merge/one/config"),
            QStringLiteral("apiVersion: v1\nkind: Config\n"
                           "clusters:\n"
                           "- name: shared\n  cluster:\n    server: https://one.example:6443\n"
                           "    certificate-authority: pki/ca.crt\n"
                           "contexts:\n"
                           "- name: both\n  context:\n    cluster: shared\n    user: shared\n"
                           "    namespace: from-one\n"
                           "users:\n"
                           "- name: shared\n  user:\n    tokenFile: secrets/token\n"));
        write(QStringLiteral("merge/one/pki/ca.crt"), QByteArray("CA OF ONE"));
        write(QStringLiteral("merge/one/secrets/token"), QByteArray("token-from-file\n"));
        // two/: the first current-context; redefines "shared" and "both" (both must lose as a
        // whole: no field of theirs may leak into one's), adds its own with paths relative to
        // two/.
        const QString two =
            write(QStringLiteral("merge/two/config"),
                  QStringLiteral(
                      "apiVersion: v1\nkind: Config\ncurrent-context: from-two\n"
                      "clusters:\n"
                      "- name: shared\n  cluster:\n    server: https://two.example\n"
                      "    tls-server-name: two.internal\n    proxy-url: http://two-proxy:3128\n"
                      "- name: only-two\n  cluster:\n    server: https://only-two.example\n"
                      "    certificate-authority: ../common/ca2.crt\n"
                      "contexts:\n"
                      "- name: both\n  context:\n    cluster: only-two\n    user: only-two\n"
                      "    namespace: from-two\n"
                      "- name: from-two\n  context:\n    cluster: only-two\n    user: only-two\n"
                      "- name: mixed\n  context:\n    cluster: shared\n    user: only-two\n"
                      "- name: pathless\n  context:\n    cluster: only-two\n    user: pathless\n"
                      "users:\n"
                      "- name: shared\n  user:\n    username: bob\n    password: %1\n"
                      "- name: only-two\n  user:\n    client-certificate: tls/client.crt\n"
                      "    client-key: ./tls/client.key\n"
                      "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                      "      command: bin/get-token\n      interactiveMode: Never\n"
                      "- name: pathless\n  user:\n"
                      "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
                      "      command: kubelogin\n      args: [get-token, --server-id, abc]\n")
                      .arg(kPassword));
        write(QStringLiteral("merge/common/ca2.crt"), QByteArray("CA OF TWO"));
        write(QStringLiteral("merge/two/tls/client.crt"), kCert);
        write(QStringLiteral("merge/two/tls/client.key"), kKey);
        // three/: a later current-context (loses), its own context using one's user and
        // two's cluster, and a redefinition of only-two (loses).
        const QString three =
            write(QStringLiteral("merge/three/config"),
                  QStringLiteral("current-context: from-three\n"
                                 "contexts:\n"
                                 "- name: from-three\n  context:\n    cluster: only-two\n"
                                 "    user: shared\n"
                                 "users:\n- name: only-two\n  user:\n    token: %1\n")
                      .arg(kToken));
        const QString missing = path(QStringLiteral("merge/missing/config"));
        qputenv("KUBECONFIG",
                QStringLiteral("%1:%2::%3:%4").arg(missing, one, two, three).toUtf8());

        QString error;
        const auto k = Kubeconfig::load({}, &error);
        QVERIFY2(k, qPrintable(error));
        QCOMPARE(k->files(), (QStringList{one, two, three}));
        QCOMPARE(k->currentContext(), QStringLiteral("from-two"));
        QCOMPARE(k->contextNames(),
                 (QStringList{QStringLiteral("both"), QStringLiteral("from-three"),
                              QStringLiteral("from-two"), QStringLiteral("mixed"),
                              QStringLiteral("pathless")}));
        QCOMPARE(k->contextNamespace(QStringLiteral("both")), QStringLiteral("from-one"));

        // "both" exactly as one/ has it.
        auto t = k->target(QStringLiteral("both"), &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->cluster, QStringLiteral("shared"));
        QCOMPARE(t->user, QStringLiteral("shared"));
        QCOMPARE(t->defaultNamespace, QStringLiteral("from-one"));
        QCOMPARE(t->server, QUrl(QStringLiteral("https://one.example:6443")));
        QCOMPARE(t->certificateAuthorityPem, QByteArray("CA OF ONE"));
        QVERIFY(t->tlsServerName.isEmpty());
        QVERIFY(t->proxyUrl.isEmpty());
        QCOMPARE(t->tokenFile, path(QStringLiteral("merge/one/secrets/token")));
        QVERIFY(t->token.isEmpty());
        QVERIFY(t->username.isEmpty() && t->password.isEmpty());
        QVERIFY(!t->exec);

        // The current context: two's cluster and user, paths relative to two/.
        t = k->target({}, &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->context, QStringLiteral("from-two"));
        QCOMPARE(t->server, QUrl(QStringLiteral("https://only-two.example")));
        QCOMPARE(t->certificateAuthorityPem, QByteArray("CA OF TWO"));
        QCOMPARE(t->clientCertificatePem, kCert);
        QCOMPARE(t->clientKeyPem, kKey);
        QVERIFY(t->token.isEmpty()); // three's redefinition of only-two lost
        QVERIFY(t->exec);
        QCOMPARE(t->exec->command, path(QStringLiteral("merge/two/bin/get-token")));
        QCOMPARE(t->exec->apiVersion, kV1);

        // one's cluster under two's context.
        t = k->target(QStringLiteral("mixed"), &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->server, QUrl(QStringLiteral("https://one.example:6443")));
        QCOMPARE(t->certificateAuthorityPem, QByteArray("CA OF ONE"));
        QCOMPARE(t->clientCertificatePem, kCert);

        // three's context, two's cluster, one's user: each path against its own file.
        t = k->target(QStringLiteral("from-three"), &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->certificateAuthorityPem, QByteArray("CA OF TWO"));
        QCOMPARE(t->tokenFile, path(QStringLiteral("merge/one/secrets/token")));
        QCOMPARE(t->defaultNamespace, QStringLiteral("default"));

        // A command without a '/' is looked up in PATH, not resolved; v1beta1 defaults
        // interactiveMode to IfAvailable.
        t = k->target(QStringLiteral("pathless"), &error);
        QVERIFY2(t && t->exec, qPrintable(error));
        QCOMPARE(t->exec->command, QStringLiteral("kubelogin"));
        QCOMPARE(t->exec->args,
                 (QStringList{QStringLiteral("get-token"), QStringLiteral("--server-id"),
                              QStringLiteral("abc")}));
        QCOMPARE(t->exec->interactiveMode, QStringLiteral("IfAvailable"));
    }

    void kubeconfigEnvCurrentContext_data() {
        QTest::addColumn<QStringList>("order"); // file stems, in KUBECONFIG order
        QTest::addColumn<QString>("expected");
        const QString a = QStringLiteral("a"), b = QStringLiteral("b"), e = QStringLiteral("e");
        QTest::newRow("a first") << QStringList{a, b} << QStringLiteral("ctx-a");
        QTest::newRow("b first") << QStringList{b, a} << QStringLiteral("ctx-b");
        QTest::newRow("empty one first") << QStringList{e, b, a} << QStringLiteral("ctx-b");
        QTest::newRow("only the empty one") << QStringList{e} << QString();
    }
    void kubeconfigEnvCurrentContext() {
        QFETCH(QStringList, order);
        QFETCH(QString, expected);
        EnvGuard guard("KUBECONFIG");
        QHash<QString, QString> files;
        const QString dir = unique(QStringLiteral("current"));
        for (const QString& stem : {QStringLiteral("a"), QStringLiteral("b")})
            files[stem] =
                write(dir + u'/' + stem,
                      QStringLiteral("current-context: ctx-%1\ncontexts:\n- name: ctx-%1\n"
                                     "  context:\n    cluster: c-%1\n")
                          .arg(stem));
        // current-context set but empty does not count as set (mergo keeps the earlier value).
        files[QStringLiteral("e")] =
            write(dir + QStringLiteral("/e"), QByteArray("current-context: \"\"\ncontexts: []\n"));
        QStringList list;
        for (const QString& stem : std::as_const(order))
            list << files.value(stem);
        qputenv("KUBECONFIG", list.join(u':').toUtf8());
        QString error;
        const auto k = Kubeconfig::load({}, &error);
        QVERIFY2(k, qPrintable(error));
        QCOMPARE(k->currentContext(), expected);
        QCOMPARE(k->files(), list);
    }

    void kubeconfigEnvRelativeEntry() {
        // A relative KUBECONFIG entry is relative to the working directory; the paths inside
        // it then resolve against that file's folder (client-go: filepath.Abs(Dir(origin))).
        EnvGuard guard("KUBECONFIG");
        const QString dir = unique(QStringLiteral("relenv"));
        write(dir + QStringLiteral("/kube/ca.crt"), QByteArray("RELATIVE CA"));
        write(dir + QStringLiteral("/kube/config"),
              kubeconfig(QStringLiteral("server: https://k\ncertificate-authority: ca.crt"), {}));
        const QString cwd = QDir::currentPath();
        QVERIFY(QDir::setCurrent(path(dir)));
        qputenv("KUBECONFIG", "kube/config");
        QString error;
        const auto k = Kubeconfig::load({}, &error);
        const auto t = k ? k->target({}, &error) : std::nullopt;
        QDir::setCurrent(cwd);
        QVERIFY2(k, qPrintable(error));
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->certificateAuthorityPem, QByteArray("RELATIVE CA"));
    }

    void kubeconfigEnvNoneExists() {
        EnvGuard guard("KUBECONFIG");
        const QString m1 = path(QStringLiteral("none/first"));
        const QString m2 = path(QStringLiteral("none/second"));
        qputenv("KUBECONFIG", (m1 + u':' + m2).toUtf8());
        QString error;
        QVERIFY(!Kubeconfig::load({}, &error));
        checkError(error, {QStringLiteral("KUBECONFIG"), m1, m2});
    }

    void kubeconfigEnvUnsetUsesHome() {
        EnvGuard kubeconfigGuard("KUBECONFIG");
        EnvGuard homeGuard("HOME");
        const QString home = path(unique(QStringLiteral("home")));
        QDir().mkpath(home);
        qunsetenv("KUBECONFIG");
        qputenv("HOME", home.toUtf8());
        const QString expected = home + QStringLiteral("/.kube/config");

        QString error;
        QVERIFY(!Kubeconfig::load({}, &error));
        checkError(error, {expected});

        write(QDir(m_tmp.path()).relativeFilePath(home) + QStringLiteral("/.kube/ca.crt"),
              QByteArray("HOME CA"));
        write(QDir(m_tmp.path()).relativeFilePath(expected),
              kubeconfig(QStringLiteral("server: https://home.example\ncertificate-authority: "
                                        "ca.crt"),
                         QStringLiteral("token: ") + kToken));
        const auto k = Kubeconfig::load({}, &error);
        QVERIFY2(k, qPrintable(error));
        QCOMPARE(k->files(), QStringList{expected});
        const auto t = k->target({}, &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->server, QUrl(QStringLiteral("https://home.example")));
        QCOMPARE(t->certificateAuthorityPem, QByteArray("HOME CA"));
        QCOMPARE(t->token, kToken);

        // Set but empty is unset (client-go: len(KUBECONFIG) == 0).
        qputenv("KUBECONFIG", QByteArray());
        const auto again = Kubeconfig::load({}, &error);
        QVERIFY2(again, qPrintable(error));
        QCOMPARE(again->files(), QStringList{expected});
    }

    // --- load(explicit path) ------------------------------------------------------------------

    void explicitPathOnly() {
        EnvGuard kubeconfigGuard("KUBECONFIG");
        EnvGuard homeGuard("HOME");
        const QString dir = unique(QStringLiteral("explicit"));
        const QString fromEnv =
            write(dir + QStringLiteral("/env"),
                  QStringLiteral("current-context: env-ctx\ncontexts:\n- name: env-ctx\n"
                                 "  context:\n    cluster: env\n"));
        write(dir + QStringLiteral("/home/.kube/config"),
              QStringLiteral("contexts:\n- name: home-ctx\n  context:\n    cluster: home\n"));
        qputenv("KUBECONFIG", fromEnv.toUtf8());
        qputenv("HOME", path(dir + QStringLiteral("/home")).toUtf8());
        const QString explicitFile =
            write(dir + QStringLiteral("/explicit"),
                  QStringLiteral("contexts:\n- name: mine\n  context:\n    cluster: mine\n"));

        QString error;
        const auto k = Kubeconfig::load(explicitFile, &error);
        QVERIFY2(k, qPrintable(error));
        QCOMPARE(k->files(), QStringList{explicitFile});
        QCOMPARE(k->contextNames(), QStringList{QStringLiteral("mine")});
        QVERIFY(k->currentContext().isEmpty()); // not env-ctx
        QVERIFY(!k->target({}, &error));
        checkError(error,
                   {explicitFile, QStringLiteral("current-context"), QStringLiteral("mine")});

        const QString missing = path(dir + QStringLiteral("/not-there"));
        QVERIFY(!Kubeconfig::load(missing, &error));
        checkError(error, {missing});
    }

    // --- contexts ------------------------------------------------------------------------------

    void contextsAndNamespaces() {
        const auto k = loadYaml(
            QStringLiteral("current-context: mid\n"
                           "clusters:\n- name: c\n  cluster:\n    server: https://k\n"
                           "contexts:\n"
                           "- name: zeta\n  context:\n    cluster: c\n    namespace: z-ns\n"
                           "- name: alpha\n  context:\n    cluster: c\n"
                           "- name: mid\n  context:\n    cluster: c\n    namespace: kube-system\n"
                           "- name: beta\n  context:\n    cluster: c\n    namespace: \"\"\n"));
        QVERIFY(k);
        QCOMPARE(k->contextNames(), (QStringList{QStringLiteral("alpha"), QStringLiteral("beta"),
                                                 QStringLiteral("mid"), QStringLiteral("zeta")}));
        QCOMPARE(k->currentContext(), QStringLiteral("mid"));
        QCOMPARE(k->contextNamespace(QStringLiteral("zeta")), QStringLiteral("z-ns"));
        QCOMPARE(k->contextNamespace(QStringLiteral("mid")), QStringLiteral("kube-system"));
        QCOMPARE(k->contextNamespace(QStringLiteral("alpha")), QStringLiteral("default"));
        QCOMPARE(k->contextNamespace(QStringLiteral("beta")), QStringLiteral("default"));
        QCOMPARE(k->contextNamespace(QStringLiteral("no-such")), QStringLiteral("default"));
    }

    void targetSelection() {
        QString file;
        const auto k = loadYaml(
            QStringLiteral("current-context: dev\n"
                           "clusters:\n- name: dev-c\n  cluster:\n    server: https://dev\n"
                           "- name: prod-c\n  cluster:\n    server: https://prod:8443\n"
                           "contexts:\n"
                           "- name: dev\n  context:\n    cluster: dev-c\n    user: dev-u\n"
                           "- name: prod\n  context:\n    cluster: prod-c\n    user: prod-u\n"
                           "    namespace: shop\n"
                           "- name: anonymous\n  context:\n    cluster: prod-c\n"
                           "users:\n- name: dev-u\n  user:\n    token: %1\n"
                           "- name: prod-u\n  user:\n    username: admin\n    password: %2\n")
                .arg(kToken, kPassword),
            &file);
        QVERIFY(k);
        QString error;
        const auto dev = k->target({}, &error);
        QVERIFY2(dev, qPrintable(error));
        QCOMPARE(dev->context, QStringLiteral("dev"));
        QCOMPARE(dev->server, QUrl(QStringLiteral("https://dev")));
        QCOMPARE(dev->token, kToken);
        QCOMPARE(dev->defaultNamespace, QStringLiteral("default"));

        const auto prod = k->target(QStringLiteral("prod"), &error);
        QVERIFY2(prod, qPrintable(error));
        QCOMPARE(prod->context, QStringLiteral("prod"));
        QCOMPARE(prod->cluster, QStringLiteral("prod-c"));
        QCOMPARE(prod->user, QStringLiteral("prod-u"));
        QCOMPARE(prod->server, QUrl(QStringLiteral("https://prod:8443")));
        QCOMPARE(prod->defaultNamespace, QStringLiteral("shop"));
        QVERIFY(prod->token.isEmpty());
        QCOMPARE(prod->username, QStringLiteral("admin"));
        QCOMPARE(prod->password, kPassword);

        // No user: no credentials, and no error (kubectl goes on anonymously).
        const auto anonymous = k->target(QStringLiteral("anonymous"), &error);
        QVERIFY2(anonymous, qPrintable(error));
        QVERIFY(anonymous->user.isEmpty() && anonymous->token.isEmpty() &&
                anonymous->password.isEmpty() && !anonymous->exec);

        QVERIFY(!k->target(QStringLiteral("staging"), &error));
        checkError(error, {file, QStringLiteral("'staging'"), QStringLiteral("not found"),
                           QStringLiteral("anonymous, dev, prod")});
    }

    // --- target(): validation ---------------------------------------------------------------

    void targetErrors_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QStringList>("fragments");
        const QString server = QStringLiteral("server: https://k.example\n");
        const QString token = QStringLiteral("token: ") + kToken;
        const auto ctxYaml = [&](const QString& context) {
            return QStringLiteral("current-context: ctx\n"
                                  "clusters:\n- name: c\n  cluster:\n    server: https://k\n"
                                  "contexts:\n- name: ctx\n  context:\n") +
                   context + QStringLiteral("users:\n- name: u\n  user:\n    token: ") + kToken +
                   u'\n';
        };
        const QString exec = QStringLiteral("exec:\n  command: /bin/true\n");

        QTest::newRow("context names a missing cluster")
            << ctxYaml(QStringLiteral("    cluster: nope\n    user: u\n"))
            << QStringList{QStringLiteral("'ctx'"), QStringLiteral("'nope'")};
        QTest::newRow("context names a missing user")
            << ctxYaml(QStringLiteral("    cluster: c\n    user: ghost\n"))
            << QStringList{QStringLiteral("'ghost'")};
        QTest::newRow("context names no cluster")
            << ctxYaml(QStringLiteral("    user: u\n"))
            << QStringList{QStringLiteral("names no cluster")};
        QTest::newRow("cluster without server")
            << kubeconfig(QStringLiteral("certificate-authority-data: ") + b64(kCa), token)
            << QStringList{QStringLiteral("cluster 'c'"), QStringLiteral("no server")};
        for (const QString& bad :
             {QStringLiteral("ftp://k.example"), QStringLiteral("https://exa mple.com"),
              QStringLiteral("https://admin:%1@k.example:notaport").arg(kUrlPassword),
              QStringLiteral("https://k.example:99999"), QStringLiteral("https://"),
              QStringLiteral("unix:///var/run/k.sock")})
            QTest::newRow(qPrintable(QStringLiteral("invalid server ") + bad))
                << kubeconfig(QStringLiteral("server: \"%1\"").arg(bad), token)
                << QStringList{QStringLiteral("invalid server URL")};
        QTest::newRow("certificate-authority-data not base64")
            << kubeconfig(server + QStringLiteral("certificate-authority-data: \"*SECRET*ca\""),
                          token)
            << QStringList{QStringLiteral("certificate-authority-data"),
                           QStringLiteral("not valid base64")};
        QTest::newRow("client-key-data not base64")
            << kubeconfig(server, QStringLiteral("client-certificate-data: %1\n"
                                                 "client-key-data: \"QUJD%%SECRET\"")
                                      .arg(b64(kCert)))
            << QStringList{QStringLiteral("client-key-data"), QStringLiteral("user 'u'"),
                           QStringLiteral("not valid base64")};
        QTest::newRow("certificate-authority file missing")
            << kubeconfig(server + QStringLiteral("certificate-authority: pki/missing-ca.crt"),
                          token)
            << QStringList{QStringLiteral("pki/missing-ca.crt"),
                           QStringLiteral("certificate-authority")};
        QTest::newRow("certificate-authority file and data")
            << kubeconfig(server +
                              QStringLiteral("certificate-authority: ca.crt\n"
                                             "certificate-authority-data: ") +
                              b64(kCa),
                          token)
            << QStringList{QStringLiteral("both certificate-authority and "
                                          "certificate-authority-data")};
        QTest::newRow("insecure-skip-tls-verify with a CA")
            << kubeconfig(server +
                              QStringLiteral("insecure-skip-tls-verify: true\n"
                                             "certificate-authority-data: ") +
                              b64(kCa),
                          token)
            << QStringList{QStringLiteral("insecure-skip-tls-verify")};
        QTest::newRow("proxy-url socks4")
            << kubeconfig(server + QStringLiteral("proxy-url: socks4://proxy:1080"), token)
            << QStringList{QStringLiteral("proxy-url"), QStringLiteral("unsupported scheme")};
        QTest::newRow("proxy-url without host, with a password")
            << kubeconfig(server + QStringLiteral("proxy-url: http://user:%1@").arg(kUrlPassword),
                          token)
            << QStringList{QStringLiteral("invalid proxy-url")};
        QTest::newRow("client certificate data without key")
            << kubeconfig(server, QStringLiteral("client-certificate-data: ") + b64(kCert))
            << QStringList{QStringLiteral("without its key")};
        QTest::newRow("client key data without certificate")
            << kubeconfig(server, QStringLiteral("client-key-data: ") + b64(kKey))
            << QStringList{QStringLiteral("without its certificate")};
        QTest::newRow("client-certificate file and data")
            << kubeconfig(server, QStringLiteral("client-certificate: c.crt\n"
                                                 "client-certificate-data: %1\n"
                                                 "client-key-data: %2")
                                      .arg(b64(kCert), b64(kKey)))
            << QStringList{QStringLiteral("both client-certificate and client-certificate-data")};
        QTest::newRow("client-key file missing")
            << kubeconfig(server, QStringLiteral("client-certificate-data: %1\n"
                                                 "client-key: keys/missing.key")
                                      .arg(b64(kCert)))
            << QStringList{QStringLiteral("keys/missing.key"), QStringLiteral("client-key")};
        QTest::newRow("token and basic auth")
            << kubeconfig(server, token + QStringLiteral("\nusername: bob\npassword: ") + kPassword)
            << QStringList{QStringLiteral("only one authentication method")};
        QTest::newRow("tokenFile missing")
            << kubeconfig(server, QStringLiteral("tokenFile: tokens/missing-token"))
            << QStringList{QStringLiteral("tokens/missing-token"), QStringLiteral("tokenFile")};
        QTest::newRow("exec v1 without interactiveMode")
            << kubeconfig(server, exec + QStringLiteral("  apiVersion: ") + kV1)
            << QStringList{QStringLiteral("interactiveMode"), kV1};
        QTest::newRow("exec v1alpha1 unsupported")
            << kubeconfig(server, exec + QStringLiteral("  apiVersion: "
                                                        "client.authentication.k8s.io/v1alpha1\n"
                                                        "  interactiveMode: Never"))
            << QStringList{QStringLiteral("client.authentication.k8s.io/v1alpha1"), kV1, kV1beta1};
        QTest::newRow("exec without apiVersion")
            << kubeconfig(server, exec + QStringLiteral("  interactiveMode: Never"))
            << QStringList{QStringLiteral("no apiVersion")};
        QTest::newRow("exec without command")
            << kubeconfig(server, QStringLiteral("exec:\n  apiVersion: %1\n"
                                                 "  interactiveMode: Never")
                                      .arg(kV1))
            << QStringList{QStringLiteral("no command")};
        QTest::newRow("exec invalid interactiveMode")
            << kubeconfig(server, exec + QStringLiteral("  apiVersion: %1\n"
                                                        "  interactiveMode: Sometimes")
                                             .arg(kV1))
            << QStringList{QStringLiteral("'Sometimes'")};
        QTest::newRow("exec env entry without a name")
            << kubeconfig(server,
                          exec + QStringLiteral("  apiVersion: %1\n  interactiveMode: Never\n"
                                                "  env:\n  - value: %2")
                                     .arg(kV1, kToken))
            << QStringList{QStringLiteral("env entry without a name")};
        QTest::newRow("auth-provider")
            << kubeconfig(server, QStringLiteral("auth-provider:\n  name: gcp\n  config:\n"
                                                 "    access-token: %1\n"
                                                 "    cmd-path: /usr/bin/gcloud")
                                      .arg(kToken))
            << QStringList{QStringLiteral("auth-provider 'gcp'"), QStringLiteral("not supported")};
    }
    void targetErrors() {
        QFETCH(QString, yaml);
        QFETCH(QStringList, fragments);
        QString file;
        const auto k = loadYaml(yaml, &file);
        QVERIFY(k);
        QString error;
        const auto t = k->target({}, &error);
        QVERIFY2(!t,
                 qPrintable(QStringLiteral("target() accepted it, server %1")
                                .arg(t ? t->server.toString(QUrl::RemoveUserInfo) : QString())));
        checkError(error, fragments + QStringList{file});
    }

    // --- target(): what it resolves ---------------------------------------------------------

    void serverUrl_data() {
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QUrl>("expected");
        QTest::newRow("https with port")
            << QStringLiteral("server: https://k.example:6443") << QString()
            << QUrl(QStringLiteral("https://k.example:6443"));
        QTest::newRow("path prefix kept")
            << QStringLiteral("server: https://gw.example/clusters/one") << QString()
            << QUrl(QStringLiteral("https://gw.example/clusters/one"));
        QTest::newRow("plain http") << QStringLiteral("server: http://127.0.0.1:8080") << QString()
                                    << QUrl(QStringLiteral("http://127.0.0.1:8080"));
        // client-go's DefaultServerURL: no scheme → https when TLS is configured, else http.
        QTest::newRow("host:port, no TLS") << QStringLiteral("server: 10.0.0.1:6443") << QString()
                                           << QUrl(QStringLiteral("http://10.0.0.1:6443"));
        QTest::newRow("host:port, CA")
            << QStringLiteral("server: localhost:6443\ncertificate-authority-data: ") + b64(kCa)
            << QString() << QUrl(QStringLiteral("https://localhost:6443"));
        QTest::newRow("host:port, insecure")
            << QStringLiteral("server: 10.0.0.1:6443\ninsecure-skip-tls-verify: true") << QString()
            << QUrl(QStringLiteral("https://10.0.0.1:6443"));
        QTest::newRow("host:port, client certificate")
            << QStringLiteral("server: k.example:6443")
            << QStringLiteral("client-certificate-data: %1\nclient-key-data: %2")
                   .arg(b64(kCert), b64(kKey))
            << QUrl(QStringLiteral("https://k.example:6443"));
        QTest::newRow("host:port, token only")
            << QStringLiteral("server: k.example:6443") << QStringLiteral("token: ") + kToken
            << QUrl(QStringLiteral("http://k.example:6443"));
    }
    void serverUrl() {
        QFETCH(QString, cluster);
        QFETCH(QString, user);
        QFETCH(QUrl, expected);
        QString error;
        const auto t = targetOf(kubeconfig(cluster, user), &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->server, expected);
    }

    void certificateAuthority() {
        QString error;
        // Data.
        auto t = targetOf(kubeconfig(QStringLiteral("server: https://k\n"
                                                    "certificate-authority-data: ") +
                                         b64(kCa),
                                     {}),
                          &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->certificateAuthorityPem, kCa);
        QVERIFY(!t->insecureSkipTlsVerify);
        // A file, relative to the kubeconfig (not the working directory), and absolute.
        const QString dir = unique(QStringLiteral("cafile"));
        write(dir + QStringLiteral("/pki/ca.crt"), kCa);
        const QString cfg = write(
            dir + QStringLiteral("/config"),
            kubeconfig(QStringLiteral("server: https://k\ncertificate-authority: pki/ca.crt"), {}));
        auto k = Kubeconfig::load(cfg, &error);
        QVERIFY2(k, qPrintable(error));
        t = k->target({}, &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->certificateAuthorityPem, kCa);
        t = targetOf(kubeconfig(QStringLiteral("server: https://k\ncertificate-authority: ") +
                                    path(dir + QStringLiteral("/pki/ca.crt")),
                                {}),
                     &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->certificateAuthorityPem, kCa);
        // The file is read by each target() call: a rotated CA is seen.
        write(dir + QStringLiteral("/pki/ca.crt"), QByteArray("ROTATED"));
        t = k->target({}, &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->certificateAuthorityPem, QByteArray("ROTATED"));
        // None: the system's.
        t = targetOf(kubeconfig(QStringLiteral("server: https://k"), {}), &error);
        QVERIFY2(t, qPrintable(error));
        QVERIFY(t->certificateAuthorityPem.isEmpty());
    }

    void tlsOptions_data() {
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<bool>("insecure");
        QTest::addColumn<QString>("serverName");
        QTest::addColumn<QUrl>("proxy");
        QTest::newRow("nothing") << QString() << false << QString() << QUrl();
        QTest::newRow("insecure true")
            << QStringLiteral("insecure-skip-tls-verify: true") << true << QString() << QUrl();
        QTest::newRow("insecure false")
            << QStringLiteral("insecure-skip-tls-verify: false") << false << QString() << QUrl();
        QTest::newRow("tls-server-name") << QStringLiteral("tls-server-name: api.internal") << false
                                         << QStringLiteral("api.internal") << QUrl();
        QTest::newRow("proxy http") << QStringLiteral("proxy-url: http://proxy.corp:3128") << false
                                    << QString() << QUrl(QStringLiteral("http://proxy.corp:3128"));
        QTest::newRow("proxy socks5 with credentials")
            << QStringLiteral("proxy-url: socks5://me:%1@proxy:1080").arg(kUrlPassword) << false
            << QString() << QUrl(QStringLiteral("socks5://me:%1@proxy:1080").arg(kUrlPassword));
        QTest::newRow("all") << QStringLiteral(
                                    "insecure-skip-tls-verify: true\ntls-server-name: n\n"
                                    "proxy-url: https://p:8443")
                             << true << QStringLiteral("n")
                             << QUrl(QStringLiteral("https://p:8443"));
    }
    void tlsOptions() {
        QFETCH(QString, cluster);
        QFETCH(bool, insecure);
        QFETCH(QString, serverName);
        QFETCH(QUrl, proxy);
        QString error;
        const auto t = targetOf(
            kubeconfig(QStringLiteral("server: https://k.example\n") + cluster, {}), &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->insecureSkipTlsVerify, insecure);
        QCOMPARE(t->tlsServerName, serverName);
        QCOMPARE(t->proxyUrl, proxy);
        checkNoSecret(t->describe());
    }

    void clientCertificate() {
        QString error;
        auto t = targetOf(kubeconfig(QStringLiteral("server: https://k"),
                                     QStringLiteral("client-certificate-data: %1\n"
                                                    "client-key-data: %2")
                                         .arg(b64(kCert), b64(kKey))),
                          &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->clientCertificatePem, kCert);
        QCOMPARE(t->clientKeyPem, kKey);
        QVERIFY(t->token.isEmpty());

        const QString dir = unique(QStringLiteral("certfiles"));
        write(dir + QStringLiteral("/tls/client.crt"), kCert);
        write(dir + QStringLiteral("/tls/client.key"), kKey);
        const QString cfg = write(dir + QStringLiteral("/config"),
                                  kubeconfig(QStringLiteral("server: https://k"),
                                             QStringLiteral("client-certificate: tls/client.crt\n"
                                                            "client-key: tls/client.key\ntoken: ") +
                                                 kToken));
        const auto k = Kubeconfig::load(cfg, &error);
        QVERIFY2(k, qPrintable(error));
        t = k->target({}, &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->clientCertificatePem, kCert);
        QCOMPARE(t->clientKeyPem, kKey);
        // A certificate goes with a token (clientcmd counts only token and basic auth).
        QCOMPARE(t->token, kToken);
        // Data and a file for different halves is fine.
        t = targetOf(
            kubeconfig(QStringLiteral("server: https://k"),
                       QStringLiteral("client-certificate-data: %1\nclient-key: %2")
                           .arg(b64(kCert), path(dir + QStringLiteral("/tls/client.key")))),
            &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->clientKeyPem, kKey);
    }

    void tokenKinds() {
        QString error;
        auto t = targetOf(
            kubeconfig(QStringLiteral("server: https://k"), QStringLiteral("token: ") + kToken),
            &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->token, kToken);
        QVERIFY(t->tokenFile.isEmpty() && t->username.isEmpty() && t->password.isEmpty());

        // tokenFile: the path is kept (resolved), not the content: the transport re-reads it.
        const QString dir = unique(QStringLiteral("tokenfile"));
        write(dir + QStringLiteral("/sa/token"), QByteArray("projected-token\n"));
        const QString cfg = write(
            dir + QStringLiteral("/config"),
            kubeconfig(QStringLiteral("server: https://k"), QStringLiteral("tokenFile: sa/token")));
        auto k = Kubeconfig::load(cfg, &error);
        QVERIFY2(k, qPrintable(error));
        t = k->target({}, &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->tokenFile, path(dir + QStringLiteral("/sa/token")));
        QVERIFY(t->token.isEmpty());

        // Both: client-go keeps both (BearerToken and BearerTokenFile).
        t = targetOf(kubeconfig(QStringLiteral("server: https://k"),
                                QStringLiteral("token: %1\ntokenFile: %2")
                                    .arg(kToken, path(dir + QStringLiteral("/sa/token")))),
                     &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->token, kToken);
        QCOMPARE(t->tokenFile, path(dir + QStringLiteral("/sa/token")));

        // Basic auth.
        t = targetOf(kubeconfig(QStringLiteral("server: https://k"),
                                QStringLiteral("username: alice\npassword: ") + kPassword),
                     &error);
        QVERIFY2(t, qPrintable(error));
        QCOMPARE(t->username, QStringLiteral("alice"));
        QCOMPARE(t->password, kPassword);
        QVERIFY(t->token.isEmpty());
    }

    void execConfigs_data() {
        QTest::addColumn<QString>("exec");
        QTest::addColumn<QString>("apiVersion");
        QTest::addColumn<QString>("interactiveMode");
        QTest::newRow("v1 Never")
            << QStringLiteral("apiVersion: %1\ninteractiveMode: Never").arg(kV1) << kV1
            << QStringLiteral("Never");
        QTest::newRow("v1 IfAvailable")
            << QStringLiteral("apiVersion: %1\ninteractiveMode: IfAvailable").arg(kV1) << kV1
            << QStringLiteral("IfAvailable");
        QTest::newRow("v1beta1 default") << QStringLiteral("apiVersion: %1").arg(kV1beta1)
                                         << kV1beta1 << QStringLiteral("IfAvailable");
        QTest::newRow("v1beta1 Always")
            << QStringLiteral("apiVersion: %1\ninteractiveMode: Always").arg(kV1beta1) << kV1beta1
            << QStringLiteral("Always");
    }
    void execConfigs() {
        QFETCH(QString, exec);
        QFETCH(QString, apiVersion);
        QFETCH(QString, interactiveMode);
        QString body = QStringLiteral("exec:\n  command: /opt/bin/get-token\n"
                                      "  args: [--cluster, one, \"--flag=x y\"]\n"
                                      "  env:\n  - name: A\n    value: one\n"
                                      "  - name: B\n    value: \"\"\n"
                                      "  installHint: \"brew install get-token\"\n"
                                      "  provideClusterInfo: true\n");
        for (const QString& line : exec.split(u'\n'))
            body += QStringLiteral("  ") + line + u'\n';
        QString error;
        const auto t = targetOf(
            kubeconfig(QStringLiteral("server: https://k\n"
                                      "extensions:\n- name: client.authentication.k8s.io/exec\n"
                                      "  extension:\n    audience: ws\n    retries: 3\n"
                                      "    debug: true\n    label: \"007\""),
                       body),
            &error);
        QVERIFY2(t, qPrintable(error));
        QVERIFY(t->exec);
        const ExecConfig& x = *t->exec;
        QCOMPARE(x.apiVersion, apiVersion);
        QCOMPARE(x.interactiveMode, interactiveMode);
        QCOMPARE(x.command, QStringLiteral("/opt/bin/get-token"));
        QCOMPARE(x.args, (QStringList{QStringLiteral("--cluster"), QStringLiteral("one"),
                                      QStringLiteral("--flag=x y")}));
        QCOMPARE(x.env.size(), 2);
        QCOMPARE(x.env.at(0),
                 (QPair<QString, QString>(QStringLiteral("A"), QStringLiteral("one"))));
        QCOMPARE(x.env.at(1), (QPair<QString, QString>(QStringLiteral("B"), QString())));
        QCOMPARE(x.installHint, QStringLiteral("brew install get-token"));
        QVERIFY(x.provideClusterInfo);
        const QJsonObject ext = QJsonDocument::fromJson(x.clusterConfig).object();
        QCOMPARE(ext.value(QLatin1String("audience")).toString(), QStringLiteral("ws"));
        QCOMPARE(ext.value(QLatin1String("retries")).toInt(), 3);
        QCOMPARE(ext.value(QLatin1String("debug")).toBool(), true);
        QCOMPARE(ext.value(QLatin1String("label")).toString(), QStringLiteral("007"));
        QVERIFY(t->token.isEmpty());
    }

    // --- YAML-level errors --------------------------------------------------------------------

    void yamlErrors_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QStringList>("fragments");
        QTest::newRow("unclosed flow sequence, line 4")
            << QByteArray("apiVersion: v1\nclusters:\n- name: c\n  cluster: [\n")
            << QStringList{QStringLiteral("invalid YAML"), QStringLiteral("line ")};
        QTest::newRow("bad indentation, line 3")
            << (QStringLiteral("users:\n- name: u\n  user:\n    token: %1\n   bad: x\n")
                    .arg(kToken)
                    .toUtf8())
            << QStringList{QStringLiteral("invalid YAML"), QStringLiteral("line 5")};
        QTest::newRow("unclosed flow map holding a token")
            << (QStringLiteral("users:\n- name: u\n  user: {token: %1\n").arg(kToken).toUtf8())
            << QStringList{QStringLiteral("invalid YAML"), QStringLiteral("line ")};
        QTest::newRow("root is a list") << QByteArray("- apiVersion: v1\n- kind: Config\n")
                                        << QStringList{QStringLiteral("not a kubeconfig")};
        QTest::newRow("root is a bare token")
            << kToken.toUtf8() << QStringList{QStringLiteral("not a kubeconfig")};
        QTest::newRow("clusters is a map")
            << QByteArray("clusters:\n  c:\n    server: https://k\n")
            << QStringList{QStringLiteral("'clusters' must be a list")};
        QTest::newRow("entry without a name")
            << QByteArray("contexts:\n- name: a\n  context: {cluster: c}\n- context: {}\n")
            << QStringList{QStringLiteral("'contexts'"), QStringLiteral("no name"),
                           QStringLiteral("line 4")};
        // fuzz_kubeconfig: yaml-cpp names the bad escape by its byte, here a newline, which
        // used to reach the error line raw.
        QTest::newRow("fuzz: escaped newline in a double-quoted scalar")
            << test::fuzzReproducer(QStringLiteral("kubeconfig"),
                                    QStringLiteral("regress-yaml-escape-newline"))
            << QStringList{QStringLiteral("invalid YAML at line 27, column 1"),
                           QStringLiteral("unknown escape character: \\n")};
    }
    void yamlErrors() {
        QFETCH(QByteArray, content);
        QFETCH(QStringList, fragments);
        const QString file =
            write(unique(QStringLiteral("yaml")) + QStringLiteral("/config"), content);
        QString error;
        QVERIFY(!Kubeconfig::load(file, &error));
        checkError(error, fragments + QStringList{file});
        // Through KUBECONFIG too, after a good file: the broken one is still an error.
        EnvGuard guard("KUBECONFIG");
        const QString good = write(unique(QStringLiteral("good")), QByteArray("contexts: []\n"));
        qputenv("KUBECONFIG", (good + u':' + file).toUtf8());
        QVERIFY(!Kubeconfig::load({}, &error));
        checkError(error, fragments + QStringList{file});
    }

    void emptyFileContributesNothing() {
        EnvGuard guard("KUBECONFIG");
        const QString empty = write(unique(QStringLiteral("empty")), QByteArray());
        const QString real =
            write(unique(QStringLiteral("real")), kubeconfig(QStringLiteral("server: https://k"),
                                                             QStringLiteral("token: ") + kToken));
        qputenv("KUBECONFIG", (empty + u':' + real).toUtf8());
        QString error;
        const auto k = Kubeconfig::load({}, &error);
        QVERIFY2(k, qPrintable(error));
        QCOMPARE(k->files(), (QStringList{empty, real}));
        QCOMPARE(k->currentContext(), QStringLiteral("ctx"));
        QVERIFY2(k->target({}, &error), qPrintable(error));
    }

    // --- where WatchScope and kubectl disagree ------------------------------------------------

    // client-go's v1 → internal conversion (Convert_Slice_v1_NamedCluster_To_Map_..., and the
    // same for contexts and auth infos) refuses a file that names an entry twice: "error
    // converting *[]NamedCluster into *map[string]*api.Cluster: duplicate name \"c\" in list".
    // Kubeconfig::addFile keeps the first one silently.
    void duplicateNameInOneFile_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("list");
        QTest::addColumn<QString>("name");
        const QString head = QStringLiteral("current-context: ctx\n");
        const QString clusters = QStringLiteral("clusters:\n- name: c\n  cluster:\n"
                                                "    server: https://k\n");
        const QString contexts = QStringLiteral("contexts:\n- name: ctx\n  context:\n"
                                                "    cluster: c\n    user: u\n");
        const QString users =
            QStringLiteral("users:\n- name: u\n  user:\n    token: %1\n").arg(kToken);
        QTest::newRow("clusters") << head + clusters +
                                         QStringLiteral(
                                             "- name: c\n  cluster:\n    server: https://other\n") +
                                         contexts + users
                                  << QStringLiteral("clusters") << QStringLiteral("c");
        QTest::newRow("contexts") << head + clusters + contexts +
                                         QStringLiteral(
                                             "- name: ctx\n  context:\n    cluster: c\n") +
                                         users
                                  << QStringLiteral("contexts") << QStringLiteral("ctx");
        QTest::newRow("users")
            << head + clusters + contexts + users +
                   QStringLiteral("- name: u\n  user:\n    password: %1\n").arg(kPassword)
            << QStringLiteral("users") << QStringLiteral("u");
    }
    void duplicateNameInOneFile() {
        QFETCH(QString, yaml);
        QFETCH(QString, list);
        QFETCH(QString, name);
        const QString file = write(unique(QStringLiteral("dup")) + QStringLiteral("/config"), yaml);
        QString error;
        const auto k = Kubeconfig::load(file, &error);
        QVERIFY2(!k, qPrintable(QStringLiteral("a file naming an entry of '%1' twice was "
                                               "accepted; kubectl refuses it (duplicate name)")
                                    .arg(list)));
        // The error names the file, the list and the name, never the entries' content.
        checkError(error, {file, list, name});
    }

    // kubectl decodes *-data fields with Go's base64.StdEncoding, which ignores '\r' and '\n':
    // base64 wrapped at 76 columns (`base64` without -w0) in a YAML block scalar works there.
    void base64DataWithLineBreaks() {
        QByteArray wrapped;
        const QByteArray flat = kCa.toBase64();
        for (int i = 0; i < flat.size(); i += 16)
            wrapped += "      " + flat.mid(i, 16) + '\n';
        QString error;
        const auto t =
            targetOf(QStringLiteral("current-context: ctx\nclusters:\n- name: c\n  cluster:\n"
                                    "    server: https://k\n    certificate-authority-data: |\n") +
                         QString::fromLatin1(wrapped) +
                         QStringLiteral("contexts:\n- name: ctx\n  context:\n    cluster: c\n"),
                     &error);
        if (!t)
            checkError(error);
        QVERIFY2(t, qPrintable(QStringLiteral("kubectl accepts base64 with line breaks; got: ") +
                               error));
        QCOMPARE(t->certificateAuthorityPem, kCa);
    }

    // --- ExecCredentialRunner -----------------------------------------------------------------

    void execCredential_data() {
        QTest::addColumn<QString>("apiVersion");
        QTest::newRow("v1") << kV1;
        QTest::newRow("v1beta1") << kV1beta1;
    }
    void execCredential() {
        QFETCH(QString, apiVersion);
        EnvGuard inherited("WS_INHERITED_VAR");
        EnvGuard overridden("WS_PLUGIN_VAR");
        qputenv("WS_INHERITED_VAR", "from-parent");
        qputenv("WS_PLUGIN_VAR", "parent-value-must-lose");
        QString dir;
        const QString p = plugin(
            credential(apiVersion, QStringLiteral(R"({"token":"%1"})").arg(kPluginToken)), &dir);
        ExecConfig x = execConfig(p, apiVersion);
        x.env.append({QStringLiteral("WS_PLUGIN_VAR"), QStringLiteral("from-kubeconfig")});
        ExecCredentialRunner runner;
        QString error;
        const auto c = runner.get(x, QUrl(QStringLiteral("https://k.example:6443")), &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->token, kPluginToken);
        QVERIFY(c->clientCertificatePem.isEmpty() && c->clientKeyPem.isEmpty());
        QVERIFY(!c->expiry.isValid());
        QCOMPARE(runner.runs(), 1);

        QJsonParseError parse;
        const QJsonDocument info =
            QJsonDocument::fromJson(readAll(dir + QStringLiteral("/info")), &parse);
        QVERIFY2(parse.error == QJsonParseError::NoError, qPrintable(parse.errorString()));
        QCOMPARE(info.object().value(QLatin1String("apiVersion")).toString(), apiVersion);
        QCOMPARE(info.object().value(QLatin1String("kind")).toString(),
                 QStringLiteral("ExecCredential"));
        const QJsonObject spec = info.object().value(QLatin1String("spec")).toObject();
        QCOMPARE(spec.value(QLatin1String("interactive")), QJsonValue(false));
        QVERIFY(!spec.contains(QLatin1String("cluster"))); // provideClusterInfo is off
        QCOMPARE(readAll(dir + QStringLiteral("/env")), QByteArray("from-kubeconfig|from-parent"));
    }

    void execClientCertificate() {
        const QString p = plugin(credential(
            kV1, QStringLiteral(R"({"clientCertificateData":"%1","clientKeyData":"%2"})")
                     .arg(QString::fromLatin1(kCert).replace(u'\n', QStringLiteral("\\n")),
                          QString::fromLatin1(kKey).replace(u'\n', QStringLiteral("\\n")))));
        ExecCredentialRunner runner;
        QString error;
        const auto c = runner.get(execConfig(p, kV1), QUrl(), &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->clientCertificatePem, kCert);
        QCOMPARE(c->clientKeyPem, kKey);
        QVERIFY(c->token.isEmpty());
    }

    void execCaching() {
        QString dir;
        const QString p =
            plugin(credential(kV1, QStringLiteral(R"({"token":"%1"})").arg(kPluginToken)), &dir);
        const ExecConfig x = execConfig(p, kV1);
        ExecCredentialRunner runner;
        QString error;
        for (int i = 0; i < 3; ++i) {
            const auto c = runner.get(x, QUrl(QStringLiteral("https://k")), &error);
            QVERIFY2(c, qPrintable(error));
            QCOMPARE(c->token, kPluginToken);
        }
        QCOMPARE(runner.runs(), 1);
        QCOMPARE(runsOf(dir), 1);

        runner.invalidate();
        QVERIFY2(runner.get(x, QUrl(QStringLiteral("https://k")), &error), qPrintable(error));
        QCOMPARE(runner.runs(), 2);
        QVERIFY2(runner.get(x, QUrl(QStringLiteral("https://k")), &error), qPrintable(error));
        QCOMPARE(runner.runs(), 2);

        // Another configuration (other args) is another credential.
        ExecConfig other = x;
        other.args << QStringLiteral("--other");
        QVERIFY2(runner.get(other, QUrl(QStringLiteral("https://k")), &error), qPrintable(error));
        QCOMPARE(runner.runs(), 3);
        QVERIFY2(runner.get(x, QUrl(QStringLiteral("https://k")), &error), qPrintable(error));
        QCOMPARE(runner.runs(), 3);
        QCOMPARE(runsOf(dir), 3);
    }

    void execExpiry_data() {
        QTest::addColumn<QString>("timestamp");
        QTest::addColumn<bool>("expired");
        const QDateTime now = QDateTime::currentDateTimeUtc();
        QTest::newRow("past, Z") << QStringLiteral("2001-02-03T04:05:06Z") << true;
        QTest::newRow("past, offset") << QStringLiteral("2020-06-01T12:00:00-07:00") << true;
        QTest::newRow("future, Z")
            << now.addSecs(3600).toString(QStringLiteral("yyyy-MM-ddTHH:mm:ssZ")) << false;
        QTest::newRow("future, offset") << now.addSecs(3600).toOffsetFromUtc(-5 * 3600).toString(
                                               QStringLiteral("yyyy-MM-ddTHH:mm:ss-05:00"))
                                        << false;
        QTest::newRow("future, milliseconds")
            << now.addSecs(3600).toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzzZ")) << false;
        // Go's time.Parse(time.RFC3339) takes any number of fractional digits.
        QTest::newRow("future, nanoseconds")
            << now.addSecs(3600).toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzz123456Z"))
            << false;
    }
    void execExpiry() {
        QFETCH(QString, timestamp);
        QFETCH(bool, expired);
        QString dir;
        const QString p =
            plugin(credential(kV1, QStringLiteral(R"({"token":"%1","expirationTimestamp":"%2"})")
                                       .arg(kPluginToken, timestamp)),
                   &dir);
        ExecCredentialRunner runner;
        QString error;
        for (int i = 1; i <= 3; ++i) {
            const auto c = runner.get(execConfig(p, kV1), QUrl(), &error);
            QVERIFY2(c, qPrintable(error));
            QCOMPARE(c->token, kPluginToken);
            QVERIFY(c->expiry.isValid());
            QCOMPARE(c->expiry <= QDateTime::currentDateTimeUtc(), expired);
            QCOMPARE(runner.runs(), expired ? i : 1);
        }
        QCOMPARE(runsOf(dir), expired ? 3 : 1);
    }

    void execFailures_data() {
        QTest::addColumn<QString>("body"); // empty: `command` names no executable
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("fragments");
        QTest::addColumn<QStringList>("absent");
        const QString token = QStringLiteral(R"({"token":"%1"})").arg(kPluginToken);
        QTest::newRow("exit 1 with stderr")
            << QStringLiteral("echo '%1'\necho 'stdout line two'\n"
                              "echo 'error: login expired, run: sso login' >&2\n"
                              "echo 'more detail' >&2\nexit 1\n")
                   .arg(kPluginToken)
            << QString()
            << QStringList{QStringLiteral("exit code 1"),
                           QStringLiteral("error: login expired, run: sso login")}
            << QStringList{QStringLiteral("stdout line two"), QStringLiteral("more detail")};
        QTest::newRow("exit 3, silent")
            << QStringLiteral("echo '%1'\nexit 3\n").arg(kPluginToken) << QString()
            << QStringList{QStringLiteral("exit code 3")} << QStringList{};
        QTest::newRow("not in PATH")
            << QString() << QStringLiteral("ws-test-no-such-plugin-x9")
            << QStringList{QStringLiteral("ws-test-no-such-plugin-x9"), QStringLiteral("not found"),
                           QStringLiteral("brew install ws-plugin")}
            << QStringList{};
        QTest::newRow("no such path")
            << QString() << path(QStringLiteral("nowhere/bin/plugin"))
            << QStringList{path(QStringLiteral("nowhere/bin/plugin")), QStringLiteral("not found"),
                           QStringLiteral("brew install ws-plugin")}
            << QStringList{};
        QTest::newRow("bad JSON")
            << QStringLiteral("echo '{\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%1\"'\n")
                   .arg(kPluginToken)
            << QString() << QStringList{QStringLiteral("invalid JSON")} << QStringList{};
        QTest::newRow("not JSON at all")
            << QStringLiteral("echo 'token=%1'\n").arg(kPluginToken) << QString()
            << QStringList{QStringLiteral("invalid JSON")} << QStringList{};
        QTest::newRow("wrong apiVersion")
            << credential(kV1beta1, token) << QString()
            << QStringList{QStringLiteral("answered with ") + kV1beta1, kV1} << QStringList{};
        // fuzz_exec_credential: "$" also matched before a final newline, so this apiVersion
        // passed as a well-formed group/version and its newline reached the error line.
        QTest::newRow("fuzz: apiVersion with a trailing newline")
            << QStringLiteral("cat <<'EOF'\n%1\nEOF\n")
                   .arg(QString::fromUtf8(
                       test::fuzzReproducer(QStringLiteral("exec_credential"),
                                            QStringLiteral("regress-apiversion-trailing-newline"))
                           .mid(1))) // the first byte picks the kubeconfig's apiVersion
            << QString()
            << QStringList{QStringLiteral("answered with another apiVersion, the kubeconfig asks "
                                          "for ") +
                           kV1}
            << QStringList{kV1beta1};
        QTest::newRow("apiVersion is the token")
            << credential(kPluginToken, token) << QString()
            << QStringList{QStringLiteral("another apiVersion")} << QStringList{};
        QTest::newRow("no token, no certificate")
            << credential(kV1, QStringLiteral(R"({"expirationTimestamp":"2099-01-01T00:00:00Z"})"))
            << QString() << QStringList{QStringLiteral("neither a token nor a client certificate")}
            << QStringList{};
        QTest::newRow("key without certificate")
            << credential(kV1, QStringLiteral(R"({"clientKeyData":"%1"})")
                                   .arg(QString::fromLatin1(kKey).replace(u'\n', u' ')))
            << QString() << QStringList{QStringLiteral("without its")} << QStringList{};
        QTest::newRow("no status")
            << QStringLiteral("echo '{\"kind\":\"ExecCredential\",\"apiVersion\":\"%1\"}'\n")
                   .arg(kV1)
            << QString() << QStringList{QStringLiteral("no status")} << QStringList{};
        QTest::newRow("bad expirationTimestamp")
            << credential(
                   kV1,
                   QStringLiteral(R"({"token":"%1","expirationTimestamp":"%1"})").arg(kPluginToken))
            << QString() << QStringList{QStringLiteral("expirationTimestamp")} << QStringList{};
    }
    void execFailures() {
        QFETCH(QString, body);
        QFETCH(QString, command);
        QFETCH(QStringList, fragments);
        QFETCH(QStringList, absent);
        QString dir;
        ExecConfig x = execConfig(body.isEmpty() ? command : plugin(body, &dir), kV1);
        x.installHint = QStringLiteral("brew install ws-plugin");
        ExecCredentialRunner runner;
        QString error;
        QVERIFY(!runner.get(x, QUrl(QStringLiteral("https://k")), &error));
        checkError(error, fragments);
        for (const QString& a : absent)
            QVERIFY2(!error.contains(a), qPrintable(QStringLiteral("'%1' in: %2").arg(a, error)));
        // A failure is not cached: the plugin runs again.
        QVERIFY(!runner.get(x, QUrl(QStringLiteral("https://k")), &error));
        checkError(error, fragments);
        if (!body.isEmpty())
            QCOMPARE(runsOf(dir), 2);
    }

    void execTimeout() {
        // The runner's real limit is 60 s (kTimeoutMs); waiting for it would make this test a
        // minute long, so the same path is taken with a short limit set through setTimeoutMs().
        QCOMPARE(ExecCredentialRunner::kTimeoutMs, 60000);
        ExecCredentialRunner runner;
        QCOMPARE(runner.timeoutMs(), 60000);
        runner.setTimeoutMs(300);
        const QString p = plugin(QStringLiteral("echo '%1'\nexec sleep 20\n").arg(kPluginToken));
        QElapsedTimer timer;
        timer.start();
        QString error;
        QVERIFY(!runner.get(execConfig(p, kV1), QUrl(), &error));
        QVERIFY2(timer.elapsed() < 10000, "the plugin was not stopped at the limit");
        checkError(error, {QStringLiteral("did not finish within 0.3 s")});
    }

    void execStderrReachesTheUserWhileThePluginRuns() {
        // A device-code login prints its code on stderr and waits for the user: the text must
        // reach them while the plugin runs, not in an error line after it ended.
        std::mutex mutex;
        QByteArray shown;
        QThread* shownOn = nullptr;
        ExecPluginConsole console;
        console.stderrText = [&](const QString&, const QByteArray& text) {
            std::lock_guard lock(mutex);
            shown += text;
            shownOn = QThread::currentThread();
        };
        ExecPluginConsole::install(console);
        const QString release = path(unique(QStringLiteral("release")));
        QString dir;
        const QString p = plugin(
            QStringLiteral("echo 'To sign in, open https://login.example/device and enter the "
                           "code ABCD-1234' >&2\n"
                           "while [ ! -e '%1' ]; do sleep 0.05; done\n")
                    .arg(release) +
                credential(kV1, QStringLiteral(R"({"token":"%1"})").arg(kPluginToken)),
            &dir);
        ExecConfig x = execConfig(p, kV1);
        x.interactiveMode = QStringLiteral("IfAvailable");
        ExecCredentialRunner runner;
        std::mutex doneMutex;
        std::optional<ExecCredential> got;
        QString error;
        bool done = false;
        QThread* answeredOn = nullptr;
        runner.fetch(x, ClusterTarget{}, [&](std::optional<ExecCredential> c, QString why) {
            std::lock_guard lock(doneMutex);
            got = c;
            error = why;
            done = true;
            answeredOn = QThread::currentThread();
        });
        // fetch() returned while the plugin waits for its user.
        QVERIFY(runner.busy());
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                std::lock_guard lock(mutex);
                return shown.contains("ABCD-1234");
            }(),
            10000);
        {
            std::lock_guard lock(doneMutex);
            QVERIFY(!done);
        }
        QVERIFY(runner.busy());
        // A second caller joins the run under way instead of starting a second login.
        bool secondDone = false;
        runner.fetch(x, ClusterTarget{}, [&](std::optional<ExecCredential> c, QString) {
            std::lock_guard lock(doneMutex);
            secondDone = c.has_value();
        });
        write(QDir(m_tmp.path()).relativeFilePath(release), QByteArray("go"));
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                std::lock_guard lock(doneMutex);
                return done && secondDone;
            }(),
            10000);
        QVERIFY2(got, qPrintable(error));
        QCOMPARE(got->token, kPluginToken);
        QVERIFY(answeredOn != QThread::currentThread()); // run on the runner's thread
        QVERIFY(shownOn != QThread::currentThread());
        QCOMPARE(runsOf(dir), 1);
        QVERIFY(!runner.busy());
        ExecPluginConsole::install(ExecPluginConsole());
    }

    void execInteractiveLimit() {
        // IfAvailable and Always may wait for a person: not the 60 s of a plugin that never does.
        QCOMPARE(ExecCredentialRunner::kInteractiveTimeoutMs, 10 * 60 * 1000);
        ExecPluginConsole::install(ExecPluginConsole());
        const QString p = plugin(QStringLiteral("exec sleep 20\n"));
        ExecCredentialRunner runner;
        runner.setTimeoutMs(300);
        runner.setInteractiveTimeoutMs(600);
        ExecConfig x = execConfig(p, kV1);
        x.interactiveMode = QStringLiteral("IfAvailable");
        QString error;
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!runner.get(x, QUrl(), &error));
        QVERIFY2(timer.elapsed() >= 600, "the interactive limit was not the one applied");
        checkError(error, {QStringLiteral("did not finish within 0.6 s, the time allowed for an "
                                          "interactive login")});
        // Always needs a terminal, which this process (and the window) does not lend.
        x.interactiveMode = QStringLiteral("Always");
        QVERIFY(!runner.get(x, QUrl(), &error));
        checkError(error, {QStringLiteral("standard input is not a terminal")});
    }

    void execInteractiveGetsTheTerminal() {
        // With a terminal (the CLI's), an IfAvailable plugin is told it is interactive and reads
        // stdin; with none (the window), it is not.
        for (const bool terminal : {true, false}) {
            ExecPluginConsole console;
            console.terminal = terminal;
            ExecPluginConsole::install(console);
            QString dir;
            const QString p = plugin(
                credential(kV1, QStringLiteral(R"({"token":"%1"})").arg(kPluginToken)), &dir);
            ExecConfig x = execConfig(p, kV1);
            x.interactiveMode = QStringLiteral("IfAvailable");
            ExecCredentialRunner runner;
            QString error;
            QVERIFY2(runner.get(x, QUrl(), &error), qPrintable(error));
            const QJsonObject spec = QJsonDocument::fromJson(readAll(dir + "/info"))
                                         .object()
                                         .value(QLatin1String("spec"))
                                         .toObject();
            QCOMPARE(spec.value(QLatin1String("interactive")), QJsonValue(terminal));
        }
        ExecPluginConsole::install(ExecPluginConsole());
    }

    void execFoundOnTheLoginShellsPath() {
        // Started from a desktop menu, the program's PATH lacks what the login shell adds.
        const QString binDir = path(unique(QStringLiteral("loginbin")));
        QVERIFY(QDir().mkpath(binDir));
        const QString name = QStringLiteral("ws-test-login-only-plugin");
        write(QDir(m_tmp.path()).relativeFilePath(binDir + u'/' + name),
              (QStringLiteral("#!/bin/sh\nprintf '%s' \"$PATH\" > '%1/seen-path'\n").arg(binDir) +
               credential(kV1, QStringLiteral(R"({"token":"%1"})").arg(kPluginToken)))
                  .toUtf8(),
              true);
        const QString shell = write(
            QDir(m_tmp.path()).relativeFilePath(path(unique(QStringLiteral("shell")) + "/sh")),
            QStringLiteral("#!/bin/sh\n[ \"$1\" = -lc ] || exit 9\nPATH=\"$PATH:%1\"\n"
                           "echo 'a profile that talks'\neval \"$2\"\n")
                .arg(binDir)
                .toUtf8(),
            true);
        EnvGuard shellGuard("SHELL");
        qputenv("SHELL", shell.toUtf8());
        ExecConfig x = execConfig(name, kV1);
        QString error;
        {
            // Not on PATH, and no login shell asked: not found, as before.
            ExecCredentialRunner runner;
            LoginShellPath noShell;
            EnvGuard noShellGuard("SHELL");
            qputenv("SHELL", "/nonexistent/shell");
            runner.setLoginShellPath(&noShell);
            QVERIFY(!runner.get(x, QUrl(), &error));
            checkError(error, {name, QStringLiteral("not found in PATH")});
        }
        ExecCredentialRunner runner;
        LoginShellPath lookup;
        runner.setLoginShellPath(&lookup);
        const auto c = runner.get(x, QUrl(), &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->token, kPluginToken);
        QVERIFY(lookup.loginShellDirs().contains(binDir));
        // The plugin runs with the login shell's directories too (its helpers live there).
        QVERIFY(QString::fromUtf8(readAll(binDir + "/seen-path")).split(u':').contains(binDir));
    }

    void execFromKubeconfig() {
        // A relative command resolved against the kubeconfig runs, with the cluster info the
        // plugin asked for.
        const QString dir = unique(QStringLiteral("execcfg"));
        QString pluginDir;
        const QString script =
            plugin(credential(kV1beta1, QStringLiteral(R"({"token":"%1"})").arg(kPluginToken)),
                   &pluginDir);
        const QString relative = QDir(path(dir)).relativeFilePath(script);
        QVERIFY(relative.startsWith(QLatin1String("../")));
        const QString cfg =
            write(dir + QStringLiteral("/config"),
                  kubeconfig(QStringLiteral("server: https://api.example:6443\n"
                                            "tls-server-name: api.internal\n"
                                            "certificate-authority-data: ") +
                                 b64(kCa),
                             QStringLiteral("exec:\n  apiVersion: %1\n  command: %2\n"
                                            "  provideClusterInfo: true\n")
                                 .arg(kV1beta1, relative)));
        QString error;
        const auto k = Kubeconfig::load(cfg, &error);
        QVERIFY2(k, qPrintable(error));
        const auto t = k->target({}, &error);
        QVERIFY2(t && t->exec, qPrintable(error));
        QCOMPARE(QFileInfo(t->exec->command).canonicalFilePath(),
                 QFileInfo(script).canonicalFilePath());
        ExecCredentialRunner runner;
        const auto c = runner.get(*t->exec, *t, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->token, kPluginToken);
        const QJsonObject cluster = QJsonDocument::fromJson(readAll(pluginDir + "/info"))
                                        .object()
                                        .value(QLatin1String("spec"))
                                        .toObject()
                                        .value(QLatin1String("cluster"))
                                        .toObject();
        QCOMPARE(cluster.value(QLatin1String("server")).toString(),
                 QStringLiteral("https://api.example:6443"));
        QCOMPARE(cluster.value(QLatin1String("tls-server-name")).toString(),
                 QStringLiteral("api.internal"));
        QCOMPARE(
            QByteArray::fromBase64(
                cluster.value(QLatin1String("certificate-authority-data")).toString().toLatin1()),
            kCa);
    }

    // --- describe() ------------------------------------------------------------------------------

    void describeHidesSecrets() {
        ClusterTarget t;
        t.context = QStringLiteral("kind-dev");
        t.cluster = QStringLiteral("kind-cluster");
        t.user = QStringLiteral("admin");
        t.server = QUrl(QStringLiteral("https://root:%1@127.0.0.1:6443/base?token=%2#%2")
                            .arg(kUrlPassword, kToken));
        t.token = kToken;
        t.password = kPassword;
        t.username = QStringLiteral("root");
        t.clientKeyPem = kKey;
        t.clientCertificatePem = kCert;
        t.proxyUrl = QUrl(QStringLiteral("http://p:%1@proxy:3128").arg(kUrlPassword));
        const QString d = t.describe();
        checkNoSecret(d);
        QVERIFY2(!d.contains(QLatin1String("root")), qPrintable(d));
        QCOMPARE(d, QStringLiteral("context kind-dev (cluster kind-cluster, user admin) at "
                                   "https://127.0.0.1:6443/base"));

        // From --server alone: the URL only, still without userinfo.
        ClusterTarget bare;
        bare.server = QUrl(QStringLiteral("https://u:%1@k.example").arg(kUrlPassword));
        bare.token = kToken;
        QCOMPARE(bare.describe(), QStringLiteral("https://k.example"));

        // Through a kubeconfig.
        QString error;
        const auto fromFile = targetOf(
            kubeconfig(QStringLiteral("server: https://me:%1@k.example:6443").arg(kUrlPassword),
                       QStringLiteral("token: ") + kToken),
            &error);
        QVERIFY2(fromFile, qPrintable(error));
        QCOMPARE(fromFile->describe(),
                 QStringLiteral("context ctx (cluster c, user u) at https://k.example:6443"));
    }

    void cleanupTestCase() {
        QVERIFY(!m_errors.isEmpty());
        for (const QString& e : std::as_const(m_errors))
            checkNoSecret(e);
    }
};

QTEST_GUILESS_MAIN(TestKubeconfigLoad)
#include "tst_kubeconfigload.moc"

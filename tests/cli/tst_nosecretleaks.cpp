// Issue 14's secrets test: every command of watchscope-cli (and the desktop program's command
// line) runs with a kubeconfig whose credentials are marked strings — a token, a token file, a
// client key, an exec plugin's token, a password, an auth-provider's tokens, a password in a
// --server URL — against a `watchscope-cli serve` over TLS whose token file makes those tokens
// really authenticate, and which holds Secrets whose data is marked too. Every stdout, stderr
// and file written (captures decompressed) is searched for every marker, as is, in hex and in
// base64: a credential must appear nowhere, a Secret's data only in a --keep-secrets capture.
// Bad input is part of it: a wrong token (401), basic auth serve does not take (401), an
// unsupported auth-provider, an unreachable server, an https --server without its CA (the
// system's CAs do not know serve's: refused), a plugin printing broken JSON, broken YAML.

#include "etcd/EtcdTestCluster.h"
#include "support/Kubectl.h"
#include "support/KubectlTestBed.h"
#include "support/SecretScan.h"
#include "support/SecretsScenario.h"
#include "support/ServeProcess.h"
#include "support/TestPki.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <vector>

using ws::test::KubectlRun;
using ws::test::SecretScan;
using ws::test::ServeProcess;
using ws::test::TestPki;

class TestNoSecretLeaks : public ws::test::KubectlTestBed {
    Q_OBJECT

    QString m_out; // every file a command writes is under it
    QString m_runtimeDir;
    ServeProcess m_serve;
    QString m_kubeconfig;
    QString m_auditLog;
    quint16 m_closedPort = 0;

    SecretScan m_credentials; // never anywhere
    SecretScan m_secretData;  // Secrets' values: only where --keep-secrets asked for them
    QByteArray m_token, m_fileToken, m_execToken, m_password, m_wrongToken, m_idToken,
        m_refreshToken, m_clientSecret, m_urlPassword, m_brokenExecToken, m_brokenYamlToken,
        m_unusedToken, m_malformedLineToken;
    QByteArray m_secretLiteral, m_secretApplied, m_secretLive, m_secretEtcd, m_secretEtcdLive,
        m_secretAudit;

    struct Command {
        QString name;
        QString program; // empty: watchscope-cli
        QStringList args;
        enum class Expect { Success, Failure, Either } expect = Expect::Success;
        QString stderrHas; // a failure's line (or a warning) must contain it
        std::unique_ptr<QProcess> process;
        QElapsedTimer clock;
    };

    QString path(const QString& name) const { return m_out + QLatin1Char('/') + name; }

    bool write(const QString& file, const QByteArray& bytes, bool executable = false) {
        QFile f(file);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            return false;
        f.close();
        return !executable || f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    }

    static QString b64(const QString& file) {
        return QString::fromLatin1(TestPki::pem(file).toBase64());
    }

    // The kubeconfig: one context per way of authenticating, all on serve's cluster (and one
    // on a port nothing listens on).
    QString kubeconfig(const QString& execScript, const QString& brokenExecScript) {
        const QString file = m_dir.filePath(QStringLiteral("kubeconfig"));
        const QString tokenFile = m_dir.filePath(QStringLiteral("token"));
        if (!write(tokenFile, m_fileToken + '\n'))
            return {};
        QString users;
        const auto user = [&](const char* name, const QString& body) {
            users += QStringLiteral("- name: %1\n  user:\n%2").arg(QLatin1String(name), body);
        };
        user("token", QStringLiteral("    token: %1\n").arg(QLatin1String(m_token)));
        user("token-file", QStringLiteral("    tokenFile: %1\n").arg(tokenFile));
        user("cert", QStringLiteral("    client-certificate-data: %1\n    client-key-data: %2\n")
                         .arg(b64(m_pki.clientCert), b64(m_pki.clientKey)));
        user("exec", QStringLiteral("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                                    "      command: %1\n      interactiveMode: Never\n")
                         .arg(execScript));
        user("broken-exec",
             QStringLiteral("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                            "      command: %1\n      interactiveMode: Never\n")
                 .arg(brokenExecScript));
        user("basic", QStringLiteral("    username: admin\n    password: %1\n")
                          .arg(QLatin1String(m_password)));
        user("wrong-token", QStringLiteral("    token: %1\n").arg(QLatin1String(m_wrongToken)));
        user("auth-provider",
             QStringLiteral("    auth-provider:\n      name: oidc\n      config:\n"
                            "        client-id: watchscope\n        client-secret: %1\n"
                            "        id-token: %2\n        refresh-token: %3\n"
                            "        idp-issuer-url: https://127.0.0.1:1/\n")
                 .arg(QLatin1String(m_clientSecret), QLatin1String(m_idToken),
                      QLatin1String(m_refreshToken)));
        // gcp was dropped from client-go: refused before anything is sent (oidc is not).
        user("gcp-provider",
             QStringLiteral("    auth-provider:\n      name: gcp\n      config:\n"
                            "        access-token: %1\n        expiry: \"2099-01-01T00:00:00Z\"\n")
                 .arg(QLatin1String(m_idToken)));
        const QString served = QStringLiteral("    server: %1\n    certificate-authority: %2\n")
                                   .arg(m_serve.url(), m_pki.caCert);
        QString clusters =
            QStringLiteral("- name: served\n  cluster:\n%1").arg(served) +
            QStringLiteral("- name: insecure\n  cluster:\n    server: %1\n"
                           "    insecure-skip-tls-verify: true\n")
                .arg(m_serve.url()) +
            QStringLiteral("- name: closed\n  cluster:\n    server: https://127.0.0.1:%1\n"
                           "    certificate-authority: %2\n")
                .arg(m_closedPort)
                .arg(m_pki.caCert);
        QString contexts;
        const auto context = [&](const QString& name, const char* cluster, const char* user) {
            contexts += QStringLiteral("- name: %1\n  context:\n    cluster: %2\n    user: %3\n")
                            .arg(name, QLatin1String(cluster), QLatin1String(user));
        };
        for (const char* u : {"token", "token-file", "cert", "exec", "broken-exec", "basic",
                              "wrong-token", "auth-provider", "gcp-provider"})
            context(QLatin1String(u), "served", u);
        context(QStringLiteral("insecure"), "insecure", "token");
        context(QStringLiteral("closed"), "closed", "token");
        const QString text = QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n%1"
                                            "contexts:\n%2current-context: token\nusers:\n%3")
                                 .arg(clusters, contexts, users);
        return write(file, text.toUtf8()) ? file : QString();
    }

    std::vector<std::unique_ptr<Command>> m_commands;
    int m_commandsRun = 0;

    Command& add(const QString& name, const QStringList& args,
                 Command::Expect expect = Command::Expect::Success, const QString& stderrHas = {},
                 const QString& program = {}) {
        auto c = std::make_unique<Command>();
        c->name = name;
        c->args = args;
        c->expect = expect;
        c->stderrHas = stderrHas;
        c->program = program;
        m_commands.push_back(std::move(c));
        return *m_commands.back();
    }

    // Starts every queued command at once (most wait on the network), waits for them all,
    // checks each: its exit, its stderr line, and no marker in what it printed.
    void runQueued() {
        for (auto& c : m_commands) {
            c->process = std::make_unique<QProcess>();
            c->process->setProgram(c->program.isEmpty() ? qEnvironmentVariable("WS_CLI")
                                                        : c->program);
            c->process->setArguments(c->args);
            c->process->setWorkingDirectory(m_out);
            // The desktop program's Qt says so on stderr when it is not set.
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            if (!env.contains(QStringLiteral("XDG_RUNTIME_DIR")))
                env.insert(QStringLiteral("XDG_RUNTIME_DIR"), m_runtimeDir);
            c->process->setProcessEnvironment(env);
            c->clock.start();
            c->process->start();
        }
        QStringList problems;
        for (auto& c : m_commands) {
            QProcess& p = *c->process;
            if (!p.waitForFinished(120000)) {
                p.kill();
                p.waitForFinished();
                problems << QStringLiteral("%1: did not finish within 120 s").arg(c->name);
            }
            const QByteArray out = p.readAllStandardOutput();
            const QByteArray err = p.readAllStandardError();
            const QString errText = QString::fromUtf8(err).trimmed();
            qInfo().noquote() << QStringLiteral("%1 (%2 ms, exit %3): %4")
                                     .arg(c->name)
                                     .arg(c->clock.elapsed())
                                     .arg(p.exitCode())
                                     .arg(errText.isEmpty() ? QString::fromUtf8(out).trimmed()
                                                            : errText)
                                     .left(400);
            if (p.exitStatus() != QProcess::NormalExit)
                problems << QStringLiteral("%1: crashed: %2").arg(c->name, errText);
            else if (c->expect == Command::Expect::Success && p.exitCode() != 0)
                problems << QStringLiteral("%1: exit %2: %3")
                                .arg(c->name)
                                .arg(p.exitCode())
                                .arg(errText);
            else if (c->expect == Command::Expect::Failure) {
                if (p.exitCode() == 0)
                    problems
                        << QStringLiteral("%1: succeeded, a failure was expected").arg(c->name);
                else if (errText.count(u'\n') != 0 && !errText.contains(QLatin1String("warning: ")))
                    problems << QStringLiteral("%1: more than one line: %2").arg(c->name, errText);
            }
            if (!c->stderrHas.isEmpty() && !errText.contains(c->stderrHas, Qt::CaseInsensitive))
                problems << QStringLiteral("%1: stderr lacks '%2': %3")
                                .arg(c->name, c->stderrHas, errText);
            for (const auto& [bytes, stream] :
                 {std::pair{out, "stdout"}, std::pair{err, "stderr"}}) {
                const QString where = QStringLiteral("%1's %2").arg(c->name, QLatin1String(stream));
                problems << m_credentials.find(bytes, where) << m_secretData.find(bytes, where);
            }
        }
        m_commandsRun += static_cast<int>(m_commands.size());
        m_commands.clear();
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    }

    QString gui() const {
        return QFileInfo(qEnvironmentVariable("WS_CLI")).absolutePath() +
               QStringLiteral("/watchscope");
    }

    static QStringList record(const QString& context, const QString& name,
                              const QString& timelineExt) {
        return {QStringLiteral("record"),
                QStringLiteral("--kubeconfig"),
                QStringLiteral("KUBECONFIG"),
                QStringLiteral("--context"),
                context,
                QStringLiteral("--resources"),
                QStringLiteral("secrets,configmaps"),
                QStringLiteral("--duration"),
                QStringLiteral("3s"),
                QStringLiteral("--out"),
                name + QStringLiteral(".wscap"),
                QStringLiteral("--anomalies"),
                name + QStringLiteral(".anomalies.jsonl"),
                QStringLiteral("--timeline"),
                name + QStringLiteral(".timeline.") + timelineExt};
    }
    QStringList withKubeconfig(QStringList args) const {
        args.replaceInStrings(QStringLiteral("KUBECONFIG"), m_kubeconfig);
        return args;
    }

    void kubectl(const QStringList& args) {
        const KubectlRun r = ws::test::runKubectl(
            m_kubectl, m_kubeconfig,
            QStringList{QStringLiteral("--context"), QStringLiteral("token")} + args, 60000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

private slots:
    void initTestCase() {
        if (QStandardPaths::findExecutable(QStringLiteral("zstd")).isEmpty())
            QSKIP("zstd is not installed (captures are searched decompressed)");
        SET_UP_KUBECTL_TEST_BED(Tls::Yes); // kubectl writes the Secrets
        m_out = m_dir.filePath(QStringLiteral("out"));
        QVERIFY(QDir().mkpath(m_out));
        m_runtimeDir = m_dir.filePath(QStringLiteral("runtime"));
        QVERIFY(QDir().mkpath(m_runtimeDir));
        QVERIFY(QFile::setPermissions(m_runtimeDir, QFileDevice::ReadOwner |
                                                        QFileDevice::WriteOwner |
                                                        QFileDevice::ExeOwner));
        QString error;

        const auto mark = [](QByteArray* into, SecretScan& scan, const char* what) {
            *into = SecretScan::marker(what);
            scan.add(*into, QLatin1String(what));
        };
        mark(&m_token, m_credentials, "token");
        mark(&m_fileToken, m_credentials, "token-file");
        mark(&m_execToken, m_credentials, "exec-token");
        mark(&m_password, m_credentials, "password");
        mark(&m_wrongToken, m_credentials, "wrong-token");
        mark(&m_idToken, m_credentials, "id-token");
        mark(&m_refreshToken, m_credentials, "refresh-token");
        mark(&m_clientSecret, m_credentials, "client-secret");
        mark(&m_urlPassword, m_credentials, "url-password");
        mark(&m_brokenExecToken, m_credentials, "broken-exec-token");
        mark(&m_brokenYamlToken, m_credentials, "broken-yaml-token");
        mark(&m_unusedToken, m_credentials, "serve-token-file");
        mark(&m_malformedLineToken, m_credentials, "malformed-token-line");
        mark(&m_secretLiteral, m_secretData, "secret-literal");
        mark(&m_secretApplied, m_secretData, "secret-applied");
        mark(&m_secretLive, m_secretData, "secret-live");
        mark(&m_secretEtcd, m_secretData, "secret-etcd");
        mark(&m_secretEtcdLive, m_secretData, "secret-etcd-live");
        mark(&m_secretAudit, m_secretData, "secret-audit");
        // The client key: a line of its PEM body, and a piece of the kubeconfig's base64 of it.
        const QList<QByteArray> keyLines = TestPki::pem(m_pki.clientKey).split('\n');
        QVERIFY(keyLines.size() > 4);
        m_credentials.add(keyLines.at(2), QStringLiteral("client key (PEM)"));
        m_credentials.add(TestPki::pem(m_pki.clientKey).toBase64().mid(120, 48),
                          QStringLiteral("client-key-data"));
        m_credentials.add(TestPki::pem(m_pki.serverKey).split('\n').at(2),
                          QStringLiteral("serve's TLS key (PEM)"));

        // Who serve lets in: the kubeconfig's token, token file and exec plugin's token.
        const QString tokens = m_dir.filePath(QStringLiteral("tokens.csv"));
        QVERIFY(write(tokens, m_token + ",alice,uid-alice,\"admins\"\n" + m_fileToken +
                                  ",bob,uid-bob,\"admins\"\n" + m_execToken +
                                  ",carol,uid-carol,\"admins\"\n" + m_unusedToken +
                                  ",dave,uid-dave\n"));
        m_auditLog = path(QStringLiteral("serve-audit.log"));
        QVERIFY2(m_serve.start(
                     {QStringLiteral("--scenario"), ws::test::writeSecretsScenario(m_dir.path()),
                      QStringLiteral("--tls-cert"), m_pki.serverCert, QStringLiteral("--tls-key"),
                      m_pki.serverKey, QStringLiteral("--client-ca"), m_pki.caCert,
                      QStringLiteral("--token-file"), tokens, QStringLiteral("--audit-log-path"),
                      m_auditLog},
                     &error),
                 qPrintable(error));
        {
            ServeProcess gone; // a port that was just free
            QVERIFY2(gone.start({}, &error), qPrintable(error));
            m_closedPort = gone.port();
        }
        const QString exec = m_dir.filePath(QStringLiteral("plugin.sh"));
        QVERIFY(write(exec,
                      "#!/bin/sh\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":"
                      "\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"" +
                          m_execToken + "\"}}'\n",
                      true));
        const QString brokenExec = m_dir.filePath(QStringLiteral("broken-plugin.sh"));
        QVERIFY(write(brokenExec,
                      "#!/bin/sh\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":"
                      "\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"" +
                          m_brokenExecToken + "\" oops'\n",
                      true));
        m_kubeconfig = kubeconfig(exec, brokenExec);
        QVERIFY(!m_kubeconfig.isEmpty());

        // Secrets with marked values: one created, one applied (its last-applied-configuration
        // annotation holds the data in clear).
        kubectl(
            {QStringLiteral("create"), QStringLiteral("secret"), QStringLiteral("generic"),
             QStringLiteral("marked-literal"), QStringLiteral("-n"), QStringLiteral("default"),
             QStringLiteral("--from-literal=password=") + QString::fromLatin1(m_secretLiteral)});
        const QString manifest = m_dir.filePath(QStringLiteral("secret.yaml"));
        QVERIFY(write(manifest, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: marked-applied\n"
                                "  namespace: default\ntype: Opaque\ndata:\n  key: " +
                                    m_secretApplied.toBase64() + "\n"));
        kubectl({QStringLiteral("apply"), QStringLiteral("--validate=false"), QStringLiteral("-f"),
                 manifest});
    }

    // The search finds what it looks for: the kubeconfig holds every credential it gives, the
    // client key's PEM line inside its base64 (client-key-data) included.
    void searchFindsMarkers() {
        const QString hits = m_credentials.findInFile(m_kubeconfig).join(u'\n');
        for (const char* what : {"token", "password", "id-token", "refresh-token", "client-secret",
                                 "wrong-token", "client-key-data", "client key (PEM) (base64"}) {
            const QString w = QStringLiteral(": ") + QLatin1String(what);
            QVERIFY2(hits.contains(w + QStringLiteral(" at")) || hits.contains(w + u' ') ||
                         hits.contains(w + u','),
                     qPrintable(w + QStringLiteral(" not found in:\n") + hits));
        }
    }

    // record from each way of authenticating, in every timeline format, while a third Secret
    // is created; an insecure context (verification off: a warning first); --server.
    void liveRecords() {
        add(QStringLiteral("record token"),
            withKubeconfig(
                record(QStringLiteral("token"), QStringLiteral("token"), QStringLiteral("csv"))));
        add(QStringLiteral("record token-file"),
            withKubeconfig(record(QStringLiteral("token-file"), QStringLiteral("tokenfile"),
                                  QStringLiteral("jsonl"))));
        add(QStringLiteral("record client certificate"),
            withKubeconfig(record(QStringLiteral("cert"), QStringLiteral("cert"),
                                  QStringLiteral("trace.json"))));
        add(QStringLiteral("record exec plugin"),
            withKubeconfig(
                record(QStringLiteral("exec"), QStringLiteral("exec"), QStringLiteral("csv"))));
        add(QStringLiteral("record insecure-skip-tls-verify"),
            withKubeconfig(record(QStringLiteral("insecure"), QStringLiteral("insecure"),
                                  QStringLiteral("jsonl"))),
            Command::Expect::Success, QStringLiteral("warning: TLS verification is off for"));
        add(QStringLiteral("record --server with the kubeconfig's user"),
            withKubeconfig({QStringLiteral("record"), QStringLiteral("--server"), m_serve.url(),
                            QStringLiteral("--kubeconfig"), QStringLiteral("KUBECONFIG"),
                            QStringLiteral("--context"), QStringLiteral("token"),
                            QStringLiteral("--resources"), QStringLiteral("secrets"),
                            QStringLiteral("--duration"), QStringLiteral("3s"),
                            QStringLiteral("--out"), QStringLiteral("server.wscap"),
                            QStringLiteral("--timeline"), QStringLiteral("server.trace.json")}));
        QProcess create;
        // Once the records are under way: its event reaches them on their watches.
        QTimer::singleShot(1500, this, [&] {
            create.start(m_kubectl,
                         {QStringLiteral("--kubeconfig"), m_kubeconfig, QStringLiteral("--context"),
                          QStringLiteral("token"), QStringLiteral("create"),
                          QStringLiteral("secret"), QStringLiteral("generic"),
                          QStringLiteral("marked-live"), QStringLiteral("-n"),
                          QStringLiteral("default"),
                          QStringLiteral("--from-literal=k=") + QString::fromLatin1(m_secretLive)});
        });
        runQueued();
        QTRY_VERIFY_WITH_TIMEOUT(create.state() == QProcess::NotRunning &&
                                     create.exitStatus() == QProcess::NormalExit,
                                 30000);
        QCOMPARE(create.exitCode(), 0);
        // What was recorded holds Secrets (as digests): the capture is not empty of them.
        const QByteArray raw = [&] {
            QFile f(path(QStringLiteral("token.wscap")));
            QString e;
            return f.open(QIODevice::ReadOnly) ? SecretScan::decompressCapture(f.readAll(), &e)
                                               : QByteArray();
        }();
        QVERIFY2(raw.contains("marked-literal") && raw.contains("marked-applied"),
                 "the token capture has no Secret in it");
    }

    // Replays of what was recorded, and a scenario's what-if; the audit log serve wrote, read
    // back as a source.
    void replays() {
        add(QStringLiteral("export csv"),
            {QStringLiteral("export"), QStringLiteral("token.wscap"), QStringLiteral("--anomalies"),
             QStringLiteral("export-token.jsonl"), QStringLiteral("--timeline"),
             QStringLiteral("export-token.csv")});
        add(QStringLiteral("export jsonl"),
            {QStringLiteral("export"), QStringLiteral("exec.wscap"), QStringLiteral("--anomalies"),
             QStringLiteral("export-exec.jsonl"), QStringLiteral("--timeline"),
             QStringLiteral("export-exec.timeline.jsonl")});
        add(QStringLiteral("export trace"),
            {QStringLiteral("export"), QStringLiteral("cert.wscap"), QStringLiteral("--timeline"),
             QStringLiteral("export-cert.trace.json")});
        add(QStringLiteral("whatif of a cluster capture"),
            {QStringLiteral("whatif"), QStringLiteral("token.wscap"),
             QStringLiteral("--server-version"), QStringLiteral("1.24"),
             QStringLiteral("--anomalies"), QStringLiteral("whatif-token.jsonl")},
            Command::Expect::Either);
        add(QStringLiteral("record scenario"),
            {QStringLiteral("record"), QStringLiteral("--scenario"), QStringLiteral("healthy"),
             QStringLiteral("--duration"), QStringLiteral("5s"), QStringLiteral("--speed"),
             QStringLiteral("max"), QStringLiteral("--out"), QStringLiteral("scenario.wscap")});
        add(QStringLiteral("record audit log"),
            {QStringLiteral("record"), QStringLiteral("--audit-log"), m_auditLog,
             QStringLiteral("--anomalies"), QStringLiteral("audit.anomalies.jsonl"),
             QStringLiteral("--timeline"), QStringLiteral("audit.timeline.trace.json")});
        // An audit log at RequestResponse level: Secrets in responseObject and requestObject,
        // and a line cut off inside one.
        const QByteArray data = "{\"k\":\"" + m_secretAudit.toBase64() + "\"}";
        const QByteArray event =
            "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"RequestResponse\","
            "\"auditID\":\"@ID@\",\"stage\":\"ResponseComplete\",\"requestURI\":"
            "\"/api/v1/namespaces/default/secrets\",\"verb\":\"VERB\",\"user\":{\"username\":"
            "\"admin\"},\"objectRef\":{\"resource\":\"secrets\",\"namespace\":\"default\","
            "\"apiVersion\":\"v1\"},\"responseStatus\":{\"metadata\":{},\"code\":200},"
            "\"requestReceivedTimestamp\":\"2026-11-26T10:00:01.000000Z\",\"stageTimestamp\":"
            "\"2026-11-26T10:00:01.200000Z\",OBJECT}";
        QByteArray list = event;
        list.replace("@ID@", "a1").replace("VERB", "list");
        list.replace("OBJECT", "\"responseObject\":{\"kind\":\"SecretList\",\"apiVersion\":"
                               "\"v1\",\"metadata\":{\"resourceVersion\":\"7\"},\"items\":[{"
                               "\"metadata\":{\"name\":\"s\",\"namespace\":\"default\"},"
                               "\"data\":" +
                                   data + "}]}");
        QByteArray create = event;
        create.replace("@ID@", "a2").replace("VERB", "create");
        create.replace("OBJECT", "\"requestObject\":{\"kind\":\"Secret\",\"apiVersion\":\"v1\","
                                 "\"data\":" +
                                     data + "}");
        const QString auditLog = m_dir.filePath(QStringLiteral("request-response-audit.log"));
        QVERIFY(write(auditLog, list + '\n' + create + '\n' + list.left(list.indexOf("items")) +
                                    "items\":[{\"data\":" + data.left(12) + '\n'));
        add(QStringLiteral("record a RequestResponse audit log"),
            {QStringLiteral("record"), QStringLiteral("--audit-log"), auditLog,
             QStringLiteral("--anomalies"), QStringLiteral("audit-rr.anomalies.jsonl"),
             QStringLiteral("--timeline"), QStringLiteral("audit-rr.timeline.jsonl")},
            Command::Expect::Either);
        add(QStringLiteral("scenarios"), {QStringLiteral("scenarios")});
        add(QStringLiteral("--help"), {QStringLiteral("--help")});
        add(QStringLiteral("--version"), {QStringLiteral("--version")});
        runQueued();
        add(QStringLiteral("whatif"),
            {QStringLiteral("whatif"), QStringLiteral("scenario.wscap"),
             QStringLiteral("--server-version"), QStringLiteral("1.24"),
             QStringLiteral("--anomalies"), QStringLiteral("whatif.jsonl"),
             QStringLiteral("--timeline"), QStringLiteral("whatif.trace.json")});
        runQueued();
    }

    // Every way of failing, each one line, none quoting a credential.
    void failures() {
        const QString kc = m_kubeconfig;
        const auto rec = [&](const QString& context) {
            return QStringList{QStringLiteral("record"),
                               QStringLiteral("--kubeconfig"),
                               kc,
                               QStringLiteral("--context"),
                               context,
                               QStringLiteral("--duration"),
                               QStringLiteral("20s"),
                               QStringLiteral("--out"),
                               QStringLiteral("failed-%1.wscap").arg(context)};
        };
        using E = Command::Expect;
        add(QStringLiteral("wrong token"), rec(QStringLiteral("wrong-token")), E::Failure,
            QStringLiteral("401"));
        add(QStringLiteral("basic auth"), rec(QStringLiteral("basic")), E::Failure,
            QStringLiteral("401"));
        add(QStringLiteral("auth-provider"), rec(QStringLiteral("auth-provider")), E::Failure,
            QStringLiteral("auth-provider"));
        add(QStringLiteral("broken exec plugin"), rec(QStringLiteral("broken-exec")), E::Failure,
            QStringLiteral("invalid JSON"));
        add(QStringLiteral("unreachable"), rec(QStringLiteral("closed")), E::Failure,
            QStringLiteral("refused"));
        // https without a CA: the system's CAs, which do not know serve's; a password in the URL.
        QString withPassword = m_serve.url();
        withPassword.replace(QLatin1String("https://"),
                             QStringLiteral("https://admin:%1@").arg(QLatin1String(m_urlPassword)));
        add(QStringLiteral("--server without its CA"),
            {QStringLiteral("record"), QStringLiteral("--server"), withPassword,
             QStringLiteral("--duration"), QStringLiteral("20s")},
            E::Failure, QStringLiteral("TLS"));
        add(QStringLiteral("--server not http(s)"),
            {QStringLiteral("record"), QStringLiteral("--server"),
             QStringLiteral("ftp://admin:%1@127.0.0.1:1").arg(QLatin1String(m_urlPassword))},
            E::Failure, QStringLiteral("not an http(s) URL"));
        const QString brokenYaml = m_dir.filePath(QStringLiteral("broken-kubeconfig"));
        QVERIFY(write(brokenYaml, "apiVersion: v1\nkind: Config\nusers:\n- name: x\n  user:\n"
                                  "    token: [" +
                                      m_brokenYamlToken + "\n  oops: {\n"));
        add(QStringLiteral("broken kubeconfig"),
            {QStringLiteral("record"), QStringLiteral("--kubeconfig"), brokenYaml}, E::Failure,
            QStringLiteral("YAML"));
        add(QStringLiteral("load, etcd unreachable over TLS"),
            {QStringLiteral("load"), QStringLiteral("--etcd"),
             QStringLiteral("https://127.0.0.1:%1").arg(m_closedPort), QStringLiteral("--cacert"),
             m_pki.caCert, QStringLiteral("--cert"), m_pki.clientCert, QStringLiteral("--key"),
             m_pki.clientKey, QStringLiteral("--duration"), QStringLiteral("1s")},
            E::Failure, QStringLiteral("etcd"));
        add(QStringLiteral("record etcd with the client key as its CA"),
            {QStringLiteral("record"), QStringLiteral("--etcd"),
             QStringLiteral("https://127.0.0.1:%1").arg(m_closedPort), QStringLiteral("--cacert"),
             m_pki.clientKey, QStringLiteral("--duration"), QStringLiteral("1s")},
            E::Failure, QStringLiteral("holds no PEM certificate"));
        const QString malformed = m_dir.filePath(QStringLiteral("malformed-tokens.csv"));
        QVERIFY(write(malformed, m_unusedToken + ",dave,uid-dave\n" + m_malformedLineToken + "\n"));
        add(QStringLiteral("serve with a malformed token file"),
            {QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
             QStringLiteral("--token-file"), malformed},
            E::Failure, QStringLiteral("--token-file"));
        add(QStringLiteral("serve with a key for a certificate"),
            {QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
             QStringLiteral("--tls-cert"), m_pki.serverKey, QStringLiteral("--tls-key"),
             m_pki.serverKey},
            E::Failure, QStringLiteral("--tls-cert"));
        // The desktop program's command line: the same checks before any window.
        add(QStringLiteral("watchscope auth-provider"),
            {QStringLiteral("--kubeconfig"), kc, QStringLiteral("--context"),
             QStringLiteral("gcp-provider")},
            E::Failure, QStringLiteral("auth-provider"), gui());
        add(QStringLiteral("watchscope broken kubeconfig"),
            {QStringLiteral("--kubeconfig"), brokenYaml}, E::Failure, QStringLiteral("YAML"),
            gui());
        add(QStringLiteral("watchscope --help"), {QStringLiteral("--help")}, E::Success, {}, gui());
        runQueued();
    }

    // The etcd source over TLS with the client certificate and key, a Secret in etcd (JSON,
    // as a CRD-less writer would put it) listed and another watched; load, export and whatif
    // of what it recorded.
    void etcdSource() {
        if (ws::test::etcdBinary().isEmpty())
            QSKIP("etcd binary not found (/usr/bin/etcd from Debian's etcd-server)");
        ws::test::EtcdTestCluster etcd(
            1, ws::test::EtcdTls{m_pki.caCert, m_pki.serverCert, m_pki.serverKey}, m_dir.path());
        QString error;
        QVERIFY2(etcd.startAll(&error), qPrintable(error));
        QVERIFY2(etcd.waitReady(60000, &error), qPrintable(error));
        ws::EtcdClient client(etcd.connectOptions());
        const auto secret = [](const char* name, const QByteArray& value) {
            return "{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" +
                   std::string(name) +
                   "\",\"namespace\":\"default\"},\"type\":\"Opaque\",\"data\":{\"k\":\"" +
                   value.toBase64().toStdString() + "\"}}";
        };
        QVERIFY2(client.put("/registry/secrets/default/etcd-listed",
                            secret("etcd-listed", m_secretEtcd), &error) > 0,
                 qPrintable(error));
        const QStringList tls{QStringLiteral("--cacert"), m_pki.caCert,
                              QStringLiteral("--cert"),   m_pki.clientCert,
                              QStringLiteral("--key"),    m_pki.clientKey};
        add(QStringLiteral("record etcd"),
            QStringList{QStringLiteral("record"), QStringLiteral("--etcd"), etcd.clientUrl(0)} +
                tls +
                QStringList{QStringLiteral("--duration"), QStringLiteral("3s"),
                            QStringLiteral("--out"), QStringLiteral("etcd.wscap"),
                            QStringLiteral("--anomalies"), QStringLiteral("etcd.anomalies.jsonl"),
                            QStringLiteral("--timeline"), QStringLiteral("etcd.timeline.csv")});
        add(QStringLiteral("load"),
            QStringList{QStringLiteral("load"), QStringLiteral("--etcd"), etcd.clientUrl(0)} + tls +
                QStringList{QStringLiteral("--duration"), QStringLiteral("2s"),
                            QStringLiteral("--objects"), QStringLiteral("20"),
                            QStringLiteral("--rate"), QStringLiteral("50/s")});
        QTimer::singleShot(1500, this, [&] {
            QString e;
            client.put("/registry/secrets/default/etcd-watched",
                       secret("etcd-watched", m_secretEtcdLive), &e);
        });
        runQueued();
        QByteArray raw;
        {
            QFile f(path(QStringLiteral("etcd.wscap")));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QString e;
            raw = SecretScan::decompressCapture(f.readAll(), &e);
        }
        QVERIFY2(raw.contains("/registry/secrets/default/etcd-listed"),
                 "the etcd capture has no Secret in it");
        add(QStringLiteral("export etcd"),
            {QStringLiteral("export"), QStringLiteral("etcd.wscap"), QStringLiteral("--anomalies"),
             QStringLiteral("export-etcd.jsonl"), QStringLiteral("--timeline"),
             QStringLiteral("export-etcd.trace.json")});
        add(QStringLiteral("whatif etcd"),
            {QStringLiteral("whatif"), QStringLiteral("etcd.wscap"),
             QStringLiteral("--server-version"), QStringLiteral("1.24"),
             QStringLiteral("--anomalies"), QStringLiteral("whatif-etcd.jsonl"),
             QStringLiteral("--timeline"), QStringLiteral("whatif-etcd.timeline.jsonl")});
        runQueued();
    }

    // With --keep-secrets the user asked for the values: the capture has them (this search
    // would see a leak), and still no credential.
    void keepSecretsIsTheOnlyWayOut() {
        QStringList args = withKubeconfig(
            record(QStringLiteral("token"), QStringLiteral("kept"), QStringLiteral("csv")));
        args << QStringLiteral("--keep-secrets");
        add(QStringLiteral("record --keep-secrets"), args);
        runQueued();
        const QStringList hits = m_secretData.findInFile(path(QStringLiteral("kept.wscap")));
        QVERIFY2(hits.join(u'\n').contains(QLatin1String("secret-literal (base64")),
                 qPrintable(hits.join(u'\n')));
        QVERIFY2(hits.join(u'\n').contains(QLatin1String("secret-applied")),
                 qPrintable(hits.join(u'\n')));
        QVERIFY(QFile::rename(path(QStringLiteral("kept.wscap")),
                              m_dir.filePath(QStringLiteral("kept.wscap"))));
    }

    // What serve printed and its audit log, then every file any command wrote.
    void everyFileWritten() {
        QVERIFY(m_serve.process()->state() == QProcess::Running);
        QStringList hits;
        const QByteArray serveOut =
            m_serve.process()->readAllStandardOutput() + m_serve.process()->readAllStandardError();
        hits << m_credentials.find(serveOut, QStringLiteral("serve's output"))
             << m_secretData.find(serveOut, QStringLiteral("serve's output"));
        int files = 0, captures = 0;
        QDirIterator it(m_out, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString file = it.next();
            ++files;
            captures += file.endsWith(QLatin1String(".wscap"));
            hits << m_credentials.findInFile(file) << m_secretData.findInFile(file);
        }
        qInfo("searched %d files (%d captures) and %d commands' output for %d forms of the "
              "markers",
              files, captures, m_commandsRun, m_credentials.size() + m_secretData.size());
        QVERIFY2(hits.isEmpty(), qPrintable(hits.join(u'\n')));
        QVERIFY2(files >= 25 && captures >= 7, qPrintable(QString::number(files)));
    }

    void cleanupTestCase() { m_serve.stop(); }
};

QTEST_GUILESS_MAIN(TestNoSecretLeaks)
#include "tst_nosecretleaks.moc"

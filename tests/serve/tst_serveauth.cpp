// Authentication and authorization of `watchscope-cli serve` seen by the real kubectl: TLS with
// client certificates (CN = user, O = groups) and a static token file, 401 for bad or missing
// credentials, RBAC-like 403s under --authorize-group, a client that does not trust the
// server's CA, and the one-line errors serve exits with when its options are wrong.

#include "support/KubectlTestBed.h"
#include "support/ServeProcess.h"
#include "support/TestPki.h"

#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using ws::test::ServeProcess;
using ws::test::TestPki;

namespace {
// The token file: bob is an admin, carol is not. None of these may ever be printed.
const QString kBobToken = QStringLiteral("bob-token-7c1d9e44");
const QString kCarolToken = QStringLiteral("carol-token-2b8f4a13");
const QString kBadToken = QStringLiteral("not-a-token-93e0aa58");
const QString kLoneToken = QStringLiteral("lone-token-5d20c7b1"); // a malformed line's token
} // namespace

class TestServeAuth : public ws::test::KubectlTestBed {
    Q_OBJECT

private:
    QString m_tokenFile;
    ServeProcess m_serve; // TLS, --client-ca, --token-file: every authenticated user may act
    ServeProcess m_authz; // the same with --authorize-group admins

    struct Run {
        int exitCode = -1;
        QString out, err;
    };

    // A kubeconfig for `url` trusting `ca`, with `user` as the user's YAML body (indented 4).
    QString writeKubeconfig(const QString& name, const QString& url, const QString& ca,
                            const QString& user) {
        const QString text =
            QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: served\n"
                           "  cluster:\n    server: %1\n    certificate-authority: %2\n"
                           "contexts:\n- name: served\n  context:\n    cluster: served\n"
                           "    user: tester\ncurrent-context: served\nusers:\n- name: tester\n"
                           "  user:\n%3")
                .arg(url, ca, user);
        return writeTestFile(name, text.toUtf8());
    }
    QString certUser(const QString& cert, const QString& key) const {
        return QStringLiteral("    client-certificate: %1\n    client-key: %2\n").arg(cert, key);
    }
    static QString tokenUser(const QString& token) {
        return QStringLiteral("    token: %1\n").arg(token);
    }

    Run kubectl(const QString& kubeconfig, const QStringList& args, int timeoutMs = 30000) {
        QProcess p;
        p.setProgram(m_kubectl);
        p.setArguments(QStringList{QStringLiteral("--kubeconfig"), kubeconfig} + args);
        p.start();
        p.closeWriteChannel(); // nothing to prompt for
        Run r;
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
            r.err = QStringLiteral("timed out");
            return r;
        }
        r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        return r;
    }

    static int rows(const QString& out) { return int(out.split(u'\n', Qt::SkipEmptyParts).size()); }

    static bool mentionsAToken(const QString& text) {
        for (const QString& t : {kBobToken, kCarolToken, kBadToken, kLoneToken})
            if (text.contains(t))
                return true;
        return false;
    }

private slots:
    void initTestCase() {
        SET_UP_KUBECTL_TEST_BED(Tls::Yes);
        QString error;
        m_tokenFile =
            writeTestFile(QStringLiteral("tokens.csv"),
                          QStringLiteral("# static tokens\n%1,bob,uid-bob,\"admins,devs\"\n"
                                         "%2,carol,uid-carol,\"viewers\"\n")
                              .arg(kBobToken, kCarolToken)
                              .toUtf8());
        QVERIFY(!m_tokenFile.isEmpty());
        const QStringList tls{QStringLiteral("--scenario"),   QStringLiteral("healthy"),
                              QStringLiteral("--tls-cert"),   m_pki.serverCert,
                              QStringLiteral("--tls-key"),    m_pki.serverKey,
                              QStringLiteral("--client-ca"),  m_pki.caCert,
                              QStringLiteral("--token-file"), m_tokenFile};
        QVERIFY2(m_serve.start(tls, &error), qPrintable(error));
        QVERIFY2(m_serve.url().startsWith(QLatin1String("https://127.0.0.1:")),
                 qPrintable(m_serve.url()));
        QVERIFY2(m_authz.start(tls + QStringList{QStringLiteral("--authorize-group"),
                                                 QStringLiteral("admins")},
                               &error),
                 qPrintable(error));
    }

    // (a) CN=alice, O=devs, in each key form a kubeconfig may carry.
    void clientCertificate_data() {
        QTest::addColumn<QString>("cert");
        QTest::addColumn<QString>("key");
        QTest::newRow("RSA, PKCS#8 key") << m_pki.clientCert << m_pki.clientKey;
        QTest::newRow("RSA, PKCS#1 key") << m_pki.clientCert << m_pki.clientKeyPkcs1;
        QTest::newRow("EC, SEC1 key") << m_pki.clientEcCert << m_pki.clientEcKey;
        QTest::newRow("EC, PKCS#8 key") << m_pki.clientEcCert << m_pki.clientEcKeyPkcs8;
    }
    void clientCertificate() {
        QFETCH(QString, cert);
        QFETCH(QString, key);
        const QString kc = writeKubeconfig(QStringLiteral("cert.kubeconfig"), m_serve.url(),
                                           m_pki.caCert, certUser(cert, key));
        const Run r = kubectl(kc, {QStringLiteral("get"), QStringLiteral("configmaps"),
                                   QStringLiteral("-A"), QStringLiteral("--no-headers")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(rows(r.out) > 200, qPrintable(r.out.left(300)));
    }

    // (b)
    void goodToken() {
        const QString kc = writeKubeconfig(QStringLiteral("bob.kubeconfig"), m_serve.url(),
                                           m_pki.caCert, tokenUser(kBobToken));
        Run r = kubectl(kc, {QStringLiteral("get"), QStringLiteral("configmaps"),
                             QStringLiteral("-A"), QStringLiteral("--no-headers")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(rows(r.out) > 200, qPrintable(r.out.left(300)));
        r = kubectl(kc, {QStringLiteral("create"), QStringLiteral("configmap"),
                         QStringLiteral("by-bob"), QStringLiteral("-n"), QStringLiteral("auth")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        r = kubectl(kc, {QStringLiteral("delete"), QStringLiteral("configmap"),
                         QStringLiteral("by-bob"), QStringLiteral("-n"), QStringLiteral("auth")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    // (c) kubectl's own words for a 401, and the token it sent is nowhere in them.
    void badToken() {
        const QString kc = writeKubeconfig(QStringLiteral("bad.kubeconfig"), m_serve.url(),
                                           m_pki.caCert, tokenUser(kBadToken));
        const Run r = kubectl(kc, {QStringLiteral("get"), QStringLiteral("configmaps")});
        QVERIFY(r.exitCode > 0);
        QVERIFY2(
            r.err.contains(QLatin1String("You must be logged in to the server (Unauthorized)")),
            qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        QVERIFY2(!mentionsAToken(r.err), "kubectl's error shows the token");
    }

    // (d) kubectl would prompt for a user name before sending a credential-less request over
    // TLS, so the request is made here: 401 with kube-apiserver's Unauthorized Status.
    void noCredentials() {
        if (!QSslSocket::supportsSsl())
            QSKIP("Qt has no TLS backend");
        QNetworkAccessManager nam;
        QNetworkRequest request(QUrl(m_serve.url() + QStringLiteral("/api/v1/configmaps")));
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        ssl.setCaCertificates(QSslCertificate::fromPath(m_pki.caCert));
        request.setSslConfiguration(ssl);
        QNetworkReply* reply = nam.get(request);
        QEventLoop loop;
        connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(15000, &loop, &QEventLoop::quit);
        loop.exec();
        QVERIFY(reply->isFinished());
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 401);
        const QJsonObject status = QJsonDocument::fromJson(reply->readAll()).object();
        QCOMPARE(status.value(QLatin1String("kind")).toString(), QStringLiteral("Status"));
        QCOMPARE(status.value(QLatin1String("reason")).toString(), QStringLiteral("Unauthorized"));
        QCOMPARE(status.value(QLatin1String("code")).toInt(), 401);
        reply->deleteLater();

        // The same through kubectl: with nothing to identify the user it asks for a name,
        // finds stdin closed and gives up without listing anything.
        const QString kc = writeKubeconfig(QStringLiteral("anonymous.kubeconfig"), m_serve.url(),
                                           m_pki.caCert, QStringLiteral("    {}\n"));
        const Run r = kubectl(
            kc, {QStringLiteral("get"), QStringLiteral("configmaps"), QStringLiteral("-A")});
        QVERIFY2(r.exitCode > 0, qPrintable(r.out + r.err));
        QVERIFY2(!r.out.contains(QLatin1String("configmap-")), qPrintable(r.out.left(300)));
    }

    // (e) Under --authorize-group admins: bob (admins) may act, alice (O=devs) and carol
    // (viewers) get RBAC's Forbidden, worded as kube-apiserver words it.
    void forbidden_data() {
        QTest::addColumn<QString>("who");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        // kubectl puts "Error from server (Forbidden): " or "error: failed to create
        // configmap: " before the Status's message.
        const QString prefix = QStringLiteral("configmaps is "
                                              "forbidden: User \"%1\" cannot %2 resource "
                                              "\"configmaps\" in API group \"\" %3");
        QTest::newRow("alice (certificate) lists a namespace")
            << QStringLiteral("alice")
            << QStringList{QStringLiteral("get"), QStringLiteral("configmaps"),
                           QStringLiteral("-n"), QStringLiteral("default")}
            << prefix.arg(QStringLiteral("alice"), QStringLiteral("list"),
                          QStringLiteral("in the namespace \"default\""));
        QTest::newRow("carol (token) lists all namespaces")
            << QStringLiteral("carol")
            << QStringList{QStringLiteral("get"), QStringLiteral("configmaps"),
                           QStringLiteral("-A")}
            << prefix.arg(QStringLiteral("carol"), QStringLiteral("list"),
                          QStringLiteral("at the cluster scope"));
        QTest::newRow("carol (token) watches")
            << QStringLiteral("carol")
            << QStringList{QStringLiteral("get"), QStringLiteral("--raw"),
                           QStringLiteral("/api/v1/namespaces/ns-0/configmaps?watch=1")}
            << prefix.arg(QStringLiteral("carol"), QStringLiteral("watch"),
                          QStringLiteral("in the namespace \"ns-0\""));
        QTest::newRow("alice (certificate) creates")
            << QStringLiteral("alice")
            << QStringList{QStringLiteral("create"), QStringLiteral("configmap"),
                           QStringLiteral("by-alice"), QStringLiteral("-n"), QStringLiteral("auth")}
            << prefix.arg(QStringLiteral("alice"), QStringLiteral("create"),
                          QStringLiteral("in the namespace \"auth\""));
    }
    void forbidden() {
        QFETCH(QString, who);
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const QString user = who == QLatin1String("alice")
                                 ? certUser(m_pki.clientCert, m_pki.clientKey)
                                 : tokenUser(kCarolToken);
        const QString kc = writeKubeconfig(QStringLiteral("authz-%1.kubeconfig").arg(who),
                                           m_authz.url(), m_pki.caCert, user);
        const Run r = kubectl(kc, args);
        QVERIFY(r.exitCode > 0);
        bool found = false;
        for (const QString& line : r.err.split(u'\n'))
            found = found || line.endsWith(QStringLiteral(": ") + message);
        QVERIFY2(found, qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        QVERIFY2(!mentionsAToken(r.err), "kubectl's error shows the token");
    }
    void authorizedGroupMember() {
        const QString kc = writeKubeconfig(QStringLiteral("authz-bob.kubeconfig"), m_authz.url(),
                                           m_pki.caCert, tokenUser(kBobToken));
        const Run r = kubectl(kc, {QStringLiteral("get"), QStringLiteral("configmaps"),
                                   QStringLiteral("-A"), QStringLiteral("--no-headers")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(rows(r.out) > 200, qPrintable(r.out.left(300)));
    }

    // (f) The client does not trust the server's certificate.
    void wrongCa() {
        const QString kc = writeKubeconfig(QStringLiteral("wrong-ca.kubeconfig"), m_serve.url(),
                                           m_pki.otherCaCert, tokenUser(kBobToken));
        const Run r = kubectl(kc, {QStringLiteral("get"), QStringLiteral("configmaps")});
        QVERIFY(r.exitCode > 0);
        QVERIFY2(r.err.contains(QLatin1String("x509: certificate signed by unknown authority")),
                 qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        QVERIFY2(!mentionsAToken(r.err), "kubectl's error shows the token");
    }

    // A client certificate from a CA serve does not trust (CN=mallory) gets nothing: serve
    // fails the handshake (kube-apiserver would answer 401 instead; either way, no access).
    void untrustedClientCertificate() {
        const QString kc =
            writeKubeconfig(QStringLiteral("mallory.kubeconfig"), m_serve.url(), m_pki.caCert,
                            certUser(m_pki.otherClientCert, m_pki.otherClientKey));
        const Run r = kubectl(kc, {QStringLiteral("get"), QStringLiteral("configmaps")});
        QVERIFY(r.exitCode > 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(QLatin1String("tls: unknown certificate authority")) ||
                     r.err.contains(QLatin1String("(Unauthorized)")),
                 qPrintable(r.err));
    }

    // An expired client certificate of the trusted CA gets nothing either.
    void expiredClientCertificate() {
        QString error;
        QVERIFY2(m_pki.createExpiredClient(&error), qPrintable(error));
        const QString kc =
            writeKubeconfig(QStringLiteral("expired.kubeconfig"), m_serve.url(), m_pki.caCert,
                            certUser(m_pki.expiredClientCert, m_pki.clientKey));
        const Run r = kubectl(kc, {QStringLiteral("get"), QStringLiteral("configmaps")});
        QVERIFY(r.exitCode > 0);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains(QLatin1String("certificate expired")) ||
                     r.err.contains(QLatin1String("(Unauthorized)")),
                 qPrintable(r.err));
    }

    // Tokens compare byte for byte: bob's in upper case, or with a character more, is unknown.
    void tokenOfAnotherSpelling_data() {
        QTest::addColumn<QString>("token");
        QTest::newRow("upper case") << kBobToken.toUpper();
        QTest::newRow("a character more") << kBobToken + u'0';
        QTest::newRow("a character less") << kBobToken.chopped(1);
    }
    void tokenOfAnotherSpelling() {
        QFETCH(QString, token);
        const QString kc = writeKubeconfig(QStringLiteral("spelling.kubeconfig"), m_serve.url(),
                                           m_pki.caCert, tokenUser(token));
        const Run r = kubectl(kc, {QStringLiteral("get"), QStringLiteral("configmaps")});
        QVERIFY(r.exitCode > 0);
        QVERIFY2(
            r.err.contains(QLatin1String("You must be logged in to the server (Unauthorized)")),
            qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    // --listen without a host is loopback; a bind beyond loopback without TLS or without
    // authentication serves, and says on stderr what that exposes.
    void listenAddress_data() {
        QTest::addColumn<QString>("listen");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("urlPrefix");
        QTest::addColumn<QString>("warning"); // empty: none
        const QStringList tls{QStringLiteral("--tls-cert"), m_pki.serverCert,
                              QStringLiteral("--tls-key"), m_pki.serverKey};
        QTest::newRow(":PORT") << QStringLiteral(":0") << QStringList()
                               << QStringLiteral("http://127.0.0.1:") << QString();
        QTest::newRow("PORT") << QStringLiteral("0") << QStringList()
                              << QStringLiteral("http://127.0.0.1:") << QString();
        QTest::newRow("localhost:PORT") << QStringLiteral("localhost:0") << QStringList()
                                        << QStringLiteral("http://127.0.0.1:") << QString();
        QTest::newRow("[::1]:PORT") << QStringLiteral("[::1]:0") << QStringList()
                                    << QStringLiteral("http://[::1]:") << QString();
        QTest::newRow("0.0.0.0, plain")
            << QStringLiteral("0.0.0.0:0") << QStringList() << QStringLiteral("http://")
            << QStringLiteral("warning: serving on 0.0.0.0 (not loopback) without TLS or "
                              "authentication");
        QTest::newRow("0.0.0.0, TLS only")
            << QStringLiteral("0.0.0.0:0") << tls << QStringLiteral("https://")
            << QStringLiteral("warning: serving on 0.0.0.0 (not loopback) without "
                              "authentication: anyone who can reach it may read and change");
        QTest::newRow("0.0.0.0, TLS and tokens")
            << QStringLiteral("0.0.0.0:0")
            << tls + QStringList{QStringLiteral("--token-file"), m_tokenFile}
            << QStringLiteral("https://") << QString();
    }
    void listenAddress() {
        QFETCH(QString, listen);
        QFETCH(QStringList, extra);
        QFETCH(QString, urlPrefix);
        QFETCH(QString, warning);
        if (listen.contains(QLatin1String("::1")) &&
            QProcess::execute(
                QStringLiteral("sh"),
                {QStringLiteral("-c"), QStringLiteral("grep -q . /proc/net/if_inet6")}) != 0)
            QSKIP("no IPv6 here");
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"),
                QStringList{QStringLiteral("serve"), QStringLiteral("--listen"), listen,
                            QStringLiteral("--duration"), QStringLiteral("60s")} +
                    extra);
        QVERIFY2(p.waitForStarted(), qPrintable(p.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(p.canReadLine() || p.state() == QProcess::NotRunning, 15000);
        const QString line = QString::fromUtf8(p.readLine()).trimmed();
        p.terminate();
        QVERIFY(p.waitForFinished(10000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(line.contains(QStringLiteral(" on ") + urlPrefix), qPrintable(line + err));
        if (warning.isEmpty()) {
            QVERIFY2(err.isEmpty(), qPrintable(err));
        } else {
            QVERIFY2(err.startsWith(QStringLiteral("watchscope-cli: ") + warning), qPrintable(err));
            QCOMPARE(err.count(u'\n'), 1);
        }
    }

    // (g) Bad options: exit code 2 and exactly one line on stderr, "watchscope-cli: ...",
    // naming what is wrong; nothing on stdout, no crash, no credential in the line.
    void serveErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("expected");
        const QString missing = m_dir.filePath(QStringLiteral("no-such-dir/missing.pem"));
        const QStringList listen{QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")};
        QTest::newRow("--tls-cert missing")
            << listen + QStringList{QStringLiteral("--tls-cert"), missing,
                                    QStringLiteral("--tls-key"), m_pki.serverKey}
            << QStringLiteral("--tls-cert ") + missing;
        QTest::newRow("--tls-cert not a certificate")
            << listen + QStringList{QStringLiteral("--tls-cert"), m_pki.serverKey,
                                    QStringLiteral("--tls-key"), m_pki.serverKey}
            << QStringLiteral("--tls-cert ") + m_pki.serverKey;
        QTest::newRow("--tls-key missing")
            << listen + QStringList{QStringLiteral("--tls-cert"), m_pki.serverCert,
                                    QStringLiteral("--tls-key"), missing}
            << QStringLiteral("--tls-key ") + missing;
        QTest::newRow("--tls-key of another certificate")
            << listen + QStringList{QStringLiteral("--tls-cert"), m_pki.serverCert,
                                    QStringLiteral("--tls-key"), m_pki.clientKey}
            << QStringLiteral("--tls-key %1: key values mismatch").arg(m_pki.clientKey);
        QTest::newRow("--tls-cert without --tls-key")
            << listen + QStringList{QStringLiteral("--tls-cert"), m_pki.serverCert}
            << QStringLiteral("--tls-cert needs --tls-key");
        QTest::newRow("--tls-key without --tls-cert")
            << listen + QStringList{QStringLiteral("--tls-key"), m_pki.serverKey}
            << QStringLiteral("--tls-key needs --tls-cert");
        QTest::newRow("--client-ca without TLS")
            << listen + QStringList{QStringLiteral("--client-ca"), m_pki.caCert}
            << QStringLiteral("--client-ca needs TLS");
        QTest::newRow("--client-ca missing")
            << listen + QStringList{QStringLiteral("--tls-cert"),  m_pki.serverCert,
                                    QStringLiteral("--tls-key"),   m_pki.serverKey,
                                    QStringLiteral("--client-ca"), missing}
            << QStringLiteral("--client-ca ") + missing;
        QTest::newRow("--token-file missing")
            << listen + QStringList{QStringLiteral("--token-file"), missing}
            << QStringLiteral("--token-file %1: No such file or directory").arg(missing);
        QTest::newRow("--token-file malformed")
            << listen + QStringList{QStringLiteral("--token-file"),
                                    m_dir.filePath(QStringLiteral("malformed.csv"))}
            << QStringLiteral("--token-file %1:2: expected token,user")
                   .arg(m_dir.filePath(QStringLiteral("malformed.csv")));
        QTest::newRow("--authorize-group without authentication")
            << listen + QStringList{QStringLiteral("--authorize-group"), QStringLiteral("admins")}
            << QStringLiteral("--authorize-group needs --client-ca or --token-file");
        QTest::newRow("port in use")
            << QStringList{QStringLiteral("--listen"),
                           QStringLiteral("127.0.0.1:%1").arg(m_serve.port())}
            << QStringLiteral("--listen 127.0.0.1:%1: Address already in use").arg(m_serve.port());
        QTest::newRow("--listen not an address")
            << QStringList{QStringLiteral("--listen"), QStringLiteral("no-such-host:0")}
            << QStringLiteral("--listen: 'no-such-host' is not an IP address");
        QTest::newRow("unknown scenario")
            << listen + QStringList{QStringLiteral("--scenario"), QStringLiteral("no-such-one")}
            << QStringLiteral("unknown scenario 'no-such-one'");
        QTest::newRow("--server-version 1.15")
            << listen + QStringList{QStringLiteral("--server-version"), QStringLiteral("1.15")}
            << QStringLiteral("--server-version: unsupported server version '1.15'");
        QTest::newRow("--server-version 1.37")
            << listen + QStringList{QStringLiteral("--server-version"), QStringLiteral("1.37")}
            << QStringLiteral("--server-version: unsupported server version '1.37'");
        QTest::newRow("--feature-gates Bogus=true")
            << listen + QStringList{QStringLiteral("--feature-gates"), QStringLiteral("Bogus=true")}
            << QStringLiteral("--feature-gates: unknown gate 'Bogus'");
        // kube-apiserver's own refusals: a gate its release does not have, a locked one.
        QTest::newRow("--feature-gates SeparateCacheWatchRPC on 1.28.5")
            << listen + QStringList{QStringLiteral("--server-version"), QStringLiteral("1.28.5"),
                                    QStringLiteral("--feature-gates"),
                                    QStringLiteral("SeparateCacheWatchRPC=true")}
            << QStringLiteral("--feature-gates: unrecognized feature gate: SeparateCacheWatchRPC "
                              "(kube-apiserver 1.28.5 does not have it; it exists in 1.28.8+, "
                              "1.29.3+, 1.30-1.36)");
        QTest::newRow("--feature-gates WatchFromStorageWithoutResourceVersion on 1.36")
            << listen + QStringList{QStringLiteral("--server-version"), QStringLiteral("1.36"),
                                    QStringLiteral("--feature-gates"),
                                    QStringLiteral("WatchFromStorageWithoutResourceVersion=true")}
            << QStringLiteral("--feature-gates: unrecognized feature gate: "
                              "WatchFromStorageWithoutResourceVersion (kube-apiserver 1.36");
        QTest::newRow("--feature-gates locked on 1.34")
            << listen + QStringList{QStringLiteral("--server-version"), QStringLiteral("1.34"),
                                    QStringLiteral("--feature-gates"),
                                    QStringLiteral("ConsistentListFromCache=false")}
            << QStringLiteral("--feature-gates: cannot set feature gate ConsistentListFromCache "
                              "to false, feature is locked to true (kube-apiserver 1.34)");
        QTest::newRow("unknown option") << listen + QStringList{QStringLiteral("--no-such-option")}
                                        << QStringLiteral("serve: Unknown option 'no-such-option'");
    }
    void serveErrors() {
        QFETCH(QStringList, args);
        QFETCH(QString, expected);
        // A line with a token and nothing else: its error must not quote the line.
        QVERIFY(!writeTestFile(
                     QStringLiteral("malformed.csv"),
                     QStringLiteral("%1,bob,uid-bob\n%2\n").arg(kBobToken, kLoneToken).toUtf8())
                     .isEmpty());
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"), QStringList{QStringLiteral("serve")} + args);
        QVERIFY2(p.waitForStarted(), qPrintable(p.errorString()));
        if (!p.waitForFinished(15000)) {
            p.kill();
            p.waitForFinished();
            QFAIL(qPrintable(QStringLiteral("serve did not exit: %1")
                                 .arg(QString::fromUtf8(p.readAllStandardOutput()))));
        }
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit, qPrintable(err)); // not a signal
        QCOMPARE(p.exitCode(), 2);
        QCOMPARE(QString::fromUtf8(p.readAllStandardOutput()), QString());
        QVERIFY2(err.endsWith(u'\n') && err.count(u'\n') == 1, qPrintable(err));
        QVERIFY2(err.startsWith(QLatin1String("watchscope-cli: ")), qPrintable(err));
        QVERIFY2(err.contains(expected), qPrintable(err));
        QVERIFY2(!mentionsAToken(err), "serve's error shows a token");
    }

    // After all of the above, serve has logged no credential.
    void serveLogsNoToken() {
        for (ServeProcess* s : {&m_serve, &m_authz}) {
            QVERIFY(s->process()->state() == QProcess::Running);
            const QString out = QString::fromUtf8(s->process()->readAllStandardOutput() +
                                                  s->process()->readAllStandardError());
            QVERIFY2(!mentionsAToken(out), "serve's output shows a token");
        }
    }

    void cleanupTestCase() {
        m_serve.stop();
        m_authz.stop();
    }
};

QTEST_GUILESS_MAIN(TestServeAuth)
#include "tst_serveauth.moc"

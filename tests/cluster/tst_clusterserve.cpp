// WatchScope's cluster source (`watchscope-cli record --kubeconfig/--server`) against
// `watchscope-cli serve` over real sockets: each credential kind over TLS with a test CA, the
// failures a user meets (one clear line each, nothing secret), scenarios whose anomalies a
// client sees on the wire, and two serve processes as two apiservers of one cluster.

#include "capture/CaptureReader.h"
#include "engine/Session.h"
#include "sources/SourceFactory.h"
#include "sources/cluster/ClusterFrameConsumer.h"
#include "support/ReplayCheck.h"
#include "support/ServeProcess.h"
#include "support/TestPki.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using ws::test::ServeProcess;
using ws::test::TestPki;
using namespace ws;

namespace {
const char* kToken = "s3cr3t-t0ken-value-0123456789";
const char* kExecToken = "exec-t0ken-from-the-plugin-9876";
} // namespace

class TestClusterServe : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    TestPki m_pki;
    bool m_havePki = false;

    QString file(const QString& name, const QByteArray& content, bool executable = false) {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(content);
        f.close();
        if (executable)
            f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
        return path;
    }

    // A kubeconfig for `url` with `userYaml` as the user's body (indented 4).
    QString kubeconfig(const QString& name, const QString& url, const QString& userYaml,
                       const QString& ca = {}) {
        QString cluster = QStringLiteral("    server: %1\n").arg(url);
        if (!ca.isEmpty())
            cluster += QStringLiteral("    certificate-authority: %1\n").arg(ca);
        const QString text = QStringLiteral("apiVersion: v1\nkind: Config\n"
                                            "clusters:\n- name: served\n  cluster:\n%1"
                                            "contexts:\n- name: served\n  context:\n"
                                            "    cluster: served\n    user: tester\n"
                                            "current-context: served\n"
                                            "users:\n- name: tester\n  user:\n%2")
                                 .arg(cluster, userYaml);
        return file(name, text.toUtf8());
    }

    struct Run {
        int exitCode = -1;
        bool crashed = false;
        QString out, err;
        qint64 events = -1, anomalies = -1;
        QStringList kinds;
        QString anomaliesPath, timelinePath, capturePath; // what the live run wrote
    };
    Run record(const QStringList& sourceArgs, const QString& duration = QStringLiteral("6s")) {
        const QString anomalies =
            m_dir.filePath(QStringLiteral("anomalies-%1.jsonl").arg(++m_runs));
        Run r;
        r.anomaliesPath = anomalies;
        r.timelinePath = m_dir.filePath(QStringLiteral("timeline-%1.csv").arg(m_runs));
        r.capturePath = m_dir.filePath(QStringLiteral("capture-%1.wscap").arg(m_runs));
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"),
                QStringList{QStringLiteral("record")} + sourceArgs +
                    QStringList{QStringLiteral("--duration"), duration,
                                QStringLiteral("--anomalies"), anomalies,
                                QStringLiteral("--timeline"), r.timelinePath,
                                QStringLiteral("--out"), r.capturePath});
        if (!p.waitForFinished(120000)) {
            p.kill();
            p.waitForFinished();
        }
        r.crashed = p.exitStatus() != QProcess::NormalExit;
        r.exitCode = p.exitCode();
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        static const QRegularExpression summary(QStringLiteral(": (\\d+) events, (\\d+) anomal"));
        if (const auto m = summary.match(r.out + r.err); m.hasMatch()) {
            r.events = m.captured(1).toLongLong();
            r.anomalies = m.captured(2).toLongLong();
        }
        QFile f(anomalies);
        if (f.open(QIODevice::ReadOnly))
            for (const QByteArray& line : f.readAll().split('\n'))
                if (!line.trimmed().isEmpty())
                    r.kinds << QJsonDocument::fromJson(line)
                                   .object()
                                   .value(QLatin1String("kind"))
                                   .toString();
        return r;
    }
    int m_runs = 0;

    void checkReplay(const Run& r) {
        ws::test::checkReplayIdentical(r.capturePath, r.anomaliesPath, r.timelinePath);
    }

    // The failure contract: non-zero, no crash, exactly one line on stderr, containing `what`,
    // and no secret anywhere.
    static void checkOneLine(const Run& r, const QString& what) {
        QVERIFY2(!r.crashed, qPrintable(r.err));
        QVERIFY2(r.exitCode != 0, qPrintable(r.out));
        const QStringList lines = r.err.trimmed().split(u'\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.size() == 1, qPrintable(r.err));
        qInfo().noquote() << lines.front();
        QVERIFY2(lines.front().contains(what, Qt::CaseInsensitive), qPrintable(lines.front()));
        QVERIFY2(!r.err.contains(QLatin1String(kToken)) && !r.out.contains(QLatin1String(kToken)),
                 "a token was printed");
        QVERIFY2(!r.err.contains(QLatin1String(kExecToken)) &&
                     !r.out.contains(QLatin1String(kExecToken)),
                 "an exec token was printed");
    }

    ServeProcess m_tls; // healthy over TLS with client-cert and token authentication

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(qEnvironmentVariable("WS_CLI")), "WS_CLI not built");
        if (TestPki::available()) {
            QString error;
            QVERIFY2(m_pki.create(&error), qPrintable(error));
            m_havePki = true;
            const QString tokens =
                file(QStringLiteral("tokens.csv"), QByteArray(kToken) + ",bob,1001,\"devs\"\n" +
                                                       kExecToken + ",carol,1002,\"devs\"\n" +
                                                       "outsider-token,eve,1003,\"guests\"\n");
            QVERIFY2(m_tls.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                                  QStringLiteral("--tls-cert"), m_pki.serverCert,
                                  QStringLiteral("--tls-key"), m_pki.serverKey,
                                  QStringLiteral("--client-ca"), m_pki.caCert,
                                  QStringLiteral("--token-file"), tokens,
                                  QStringLiteral("--authorize-group"), QStringLiteral("devs")},
                                 &error),
                     qPrintable(error));
        }
    }

    void credentialKinds_data() {
        QTest::addColumn<QString>("user");
        QTest::newRow("token") << QStringLiteral("    token: %1\n").arg(QLatin1String(kToken));
        QTest::newRow("client certificate") << QString();
        QTest::newRow("exec plugin v1") << QStringLiteral("exec-v1");
        QTest::newRow("exec plugin v1beta1") << QStringLiteral("exec-v1beta1");
    }
    void credentialKinds() {
        if (!m_havePki)
            QSKIP("openssl is not installed");
        QFETCH(QString, user);
        if (user.isEmpty()) {
            user = QStringLiteral("    client-certificate: %1\n    client-key: %2\n")
                       .arg(m_pki.clientCert, m_pki.clientKey);
        } else if (user.startsWith(QLatin1String("exec-"))) {
            const QString version = user.mid(5);
            const QString script =
                file(QStringLiteral("plugin-%1.sh").arg(version),
                     QStringLiteral(
                         "#!/bin/sh\necho '{\"kind\":\"ExecCredential\",\"apiVersion\":"
                         "\"client.authentication.k8s.io/%1\",\"status\":{\"token\":\"%2\"}}'\n")
                         .arg(version, QLatin1String(kExecToken))
                         .toUtf8(),
                     true);
            user = QStringLiteral("    exec:\n      apiVersion: client.authentication.k8s.io/%1\n"
                                  "      command: %2\n      interactiveMode: Never\n")
                       .arg(version, script);
        }
        const QString kc = kubeconfig(QStringLiteral("cred-%1.yaml").arg(++m_runs), m_tls.url(),
                                      user, m_pki.caCert);
        const Run r = record({QStringLiteral("--kubeconfig"), kc, QStringLiteral("--resources"),
                              QStringLiteral("configmaps")},
                             QStringLiteral("4s"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.events > 50, qPrintable(r.out + r.err)); // healthy writes 40 configmaps/s
        QCOMPARE(r.anomalies, 0);
        QVERIFY(!r.out.contains(QLatin1String(kToken)) &&
                !r.out.contains(QLatin1String(kExecToken)));
        // The capture holds what was received, never what authenticated the client.
        ws::CaptureReader reader;
        QString error;
        QVERIFY2(reader.open(r.capturePath, &error), qPrintable(error));
        QByteArray everything = reader.header().toJson();
        ws::CaptureRecord rec;
        int frames = 0;
        while (reader.next(&rec)) {
            everything += rec.connection.endpoint.toUtf8() + rec.frame.bytes;
            frames += rec.type == ws::CaptureRecord::Type::Frame;
        }
        QVERIFY2(reader.complete(), qPrintable(reader.warning()));
        QVERIFY(frames > 10);
        QVERIFY(!everything.contains(kToken) && !everything.contains(kExecToken));
        checkReplay(r);
    }

    void failures() {
        if (!m_havePki)
            QSKIP("openssl is not installed");
        const QString good = QStringLiteral("    token: %1\n").arg(QLatin1String(kToken));
        // A bad kubeconfig.
        const QString broken =
            file(QStringLiteral("broken.yaml"), "clusters: [\n  - name: x\n  cluster: {\n");
        checkOneLine(record({QStringLiteral("--kubeconfig"), broken}),
                     QStringLiteral("invalid YAML"));
        // An unknown context.
        const QString kc = kubeconfig(QStringLiteral("ctx.yaml"), m_tls.url(), good, m_pki.caCert);
        checkOneLine(record({QStringLiteral("--kubeconfig"), kc, QStringLiteral("--context"),
                             QStringLiteral("nope")}),
                     QStringLiteral("context 'nope' not found"));
        // Refused: a port nothing listens on (a serve that has just stopped).
        quint16 closedPort = 0;
        {
            ServeProcess gone;
            QString error;
            QVERIFY2(gone.start({QStringLiteral("--scenario"), QStringLiteral("healthy")}, &error),
                     qPrintable(error));
            closedPort = gone.port();
        }
        const QString refused =
            kubeconfig(QStringLiteral("refused.yaml"),
                       QStringLiteral("https://127.0.0.1:%1").arg(closedPort), good, m_pki.caCert);
        checkOneLine(record({QStringLiteral("--kubeconfig"), refused}), QStringLiteral("refused"));
        // TLS: a CA that did not sign the server's certificate.
        const QString wrongCa =
            kubeconfig(QStringLiteral("wrongca.yaml"), m_tls.url(), good, m_pki.otherCaCert);
        checkOneLine(record({QStringLiteral("--kubeconfig"), wrongCa}), QStringLiteral("TLS"));
        // 401: a token the server does not know.
        const QString badToken =
            kubeconfig(QStringLiteral("badtoken.yaml"), m_tls.url(),
                       QStringLiteral("    token: %1x\n").arg(QLatin1String(kToken)), m_pki.caCert);
        checkOneLine(record({QStringLiteral("--kubeconfig"), badToken}), QStringLiteral("401"));
        // 403: a known user outside the authorized group.
        const QString outsider =
            kubeconfig(QStringLiteral("outsider.yaml"), m_tls.url(),
                       QStringLiteral("    token: outsider-token\n"), m_pki.caCert);
        checkOneLine(record({QStringLiteral("--kubeconfig"), outsider}), QStringLiteral("403"));
        // An exec plugin that fails.
        const QString failing =
            file(QStringLiteral("failing.sh"),
                 "#!/bin/sh\necho 'login expired: run sso-login' >&2\nexit 3\n", true);
        const QString execFails = kubeconfig(
            QStringLiteral("execfails.yaml"), m_tls.url(),
            QStringLiteral("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: %1\n      interactiveMode: Never\n")
                .arg(failing),
            m_pki.caCert);
        // The plugin's own stderr is the user's (client-go passes it through), then the error.
        Run failed = record({QStringLiteral("--kubeconfig"), execFails});
        QVERIFY2(failed.err.startsWith(QStringLiteral("login expired: run sso-login\n")),
                 qPrintable(failed.err));
        failed.err.remove(0, failed.err.indexOf(u'\n') + 1);
        checkOneLine(failed, QStringLiteral("exec plugin"));
    }

    // A device-code login: the plugin prints where to sign in and waits for the user. The CLI
    // passes that on to its stderr at once, and records once the plugin answered.
    void execPluginSpeaksWhileItRuns() {
        if (!m_havePki)
            QSKIP("openssl is not installed");
        const QString release = m_dir.filePath(QStringLiteral("device-login-done"));
        const QString script = file(
            QStringLiteral("device-login.sh"),
            QStringLiteral("#!/bin/sh\necho 'To sign in, open https://login.example/device and "
                           "enter QRST-4321' >&2\n"
                           "while [ ! -e '%1' ]; do sleep 0.05; done\n"
                           "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":"
                           "\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"%2\"}}'\n")
                .arg(release, QLatin1String(kExecToken))
                .toUtf8(),
            true);
        const QString kc = kubeconfig(
            QStringLiteral("device.yaml"), m_tls.url(),
            QStringLiteral("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: %1\n      interactiveMode: IfAvailable\n")
                .arg(script),
            m_pki.caCert);
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"),
                {QStringLiteral("record"), QStringLiteral("--kubeconfig"), kc,
                 QStringLiteral("--resources"), QStringLiteral("configmaps"),
                 QStringLiteral("--duration"), QStringLiteral("3s"), QStringLiteral("--out"),
                 m_dir.filePath(QStringLiteral("device.wscap"))});
        QByteArray err;
        QTRY_VERIFY_WITH_TIMEOUT((err += p.readAllStandardError()).contains("QRST-4321"), 30000);
        QCOMPARE(p.state(), QProcess::Running); // said while the plugin still waits
        QFile done(release);
        QVERIFY(done.open(QIODevice::WriteOnly));
        done.close();
        QVERIFY(p.waitForFinished(60000));
        err += p.readAllStandardError();
        QVERIFY2(p.exitCode() == 0, err.constData());
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(!out.contains(QLatin1String(kExecToken)) && !err.contains(kExecToken),
                 "an exec token was printed");
    }

    // client-go never runs the exec plugin of a user with a client certificate (HasCertAuth):
    // a plugin that is not even installed does not matter.
    void execSkippedWithClientCertificate() {
        if (!m_havePki)
            QSKIP("openssl is not installed");
        const QString kc = kubeconfig(
            QStringLiteral("cert-and-exec.yaml"), m_tls.url(),
            QStringLiteral("    client-certificate: %1\n    client-key: %2\n"
                           "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: /nonexistent/ws-test-plugin\n"
                           "      interactiveMode: Never\n")
                .arg(m_pki.clientCert, m_pki.clientKey),
            m_pki.caCert);
        const Run r = record({QStringLiteral("--kubeconfig"), kc, QStringLiteral("--resources"),
                              QStringLiteral("configmaps")},
                             QStringLiteral("3s"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.events > 20, qPrintable(r.out + r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("ws-test-plugin")), qPrintable(r.err));
    }

    // A healthy cluster seen through HTTP raises nothing.
    void healthyHasNoAnomalies() {
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy")}, &error),
                 qPrintable(error));
        const Run r = record({QStringLiteral("--server"), serve.url()}, QStringLiteral("6s"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.events > 200, qPrintable(r.out)); // 60 writes/s over two resources
        QVERIFY2(r.anomalies == 0, qPrintable(r.kinds.join(u',')));
        checkReplay(r);
    }

    // client-go 0.35 asks for a watch-list; a 1.18 apiserver does not know sendInitialEvents or
    // resourceVersionMatch, serves a plain watch from "now" with the initial ADDED burst and never
    // sends the initial-events-end bookmark: the informer never syncs.
    void watchListStallsOnOldServer() {
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                              QStringLiteral("--server-version"), QStringLiteral("1.18")},
                             &error),
                 qPrintable(error));
        const Run r = record({QStringLiteral("--server"), serve.url(),
                              QStringLiteral("--client-go"), QStringLiteral("0.35"),
                              QStringLiteral("--resources"), QStringLiteral("configmaps")},
                             QStringLiteral("36s")); // the detector waits 30 s for the bookmark
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.kinds.contains(QStringLiteral("initial-events-stalled")),
                 qPrintable(r.kinds.join(u',')));
        checkReplay(r);
        // The same client against a 1.30 server: 422, falls back to LIST, nothing raised.
        ServeProcess modern;
        QVERIFY2(modern.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                               QStringLiteral("--server-version"), QStringLiteral("1.30")},
                              &error),
                 qPrintable(error));
        const Run m = record({QStringLiteral("--server"), modern.url(),
                              QStringLiteral("--client-go"), QStringLiteral("0.35"),
                              QStringLiteral("--resources"), QStringLiteral("configmaps")},
                             QStringLiteral("5s"));
        QVERIFY2(m.exitCode == 0, qPrintable(m.err));
        QVERIFY2(m.events > 50 && m.anomalies == 0, qPrintable(m.out + m.kinds.join(u',')));
        checkReplay(m);
    }

    // ha-stale-read's two apiservers as two serve processes of one cluster (same scenario and
    // seed: the same etcd history); apiserver-1 is cut off from etcd at 15 s and its cache
    // freezes. The cluster source watches both, and one client moves between them.
    void twoApiserversOfOneCluster() {
        ServeProcess a, b;
        QString error;
        QVERIFY2(a.start({QStringLiteral("--scenario"), QStringLiteral("ha-stale-read"),
                          QStringLiteral("--apiserver"), QStringLiteral("0")},
                         &error),
                 qPrintable(error));
        QVERIFY2(b.start({QStringLiteral("--scenario"), QStringLiteral("ha-stale-read"),
                          QStringLiteral("--apiserver"), QStringLiteral("1")},
                         &error),
                 qPrintable(error));
        const Run r = record({QStringLiteral("--server"), a.url(), QStringLiteral("--server"),
                              b.url(), QStringLiteral("--client-go"), QStringLiteral("0.27")},
                             QStringLiteral("40s"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.events > 100, qPrintable(r.out));
        const QSet<QString> kinds(r.kinds.begin(), r.kinds.end());
        qInfo() << "two apiservers:" << kinds;
        QVERIFY2(kinds.contains(QStringLiteral("revision-regression")) ||
                     kinds.contains(QStringLiteral("too-large-rv")) ||
                     kinds.contains(QStringLiteral("watcher-lag")) ||
                     kinds.contains(QStringLiteral("stuck-watcher")),
                 qPrintable(r.kinds.join(u',')));
        checkReplay(r);
    }

    // Every built-in scenario played by serve, watched by the cluster source at once (their
    // faults run on wall-clock time). An HTTP client sees what reaches the wire: the served
    // streams are always well-formed, and where the scenario breaks the cache under its
    // watchers (compaction-prevkv-nil: the 1.24 cacher relists after PrevKV=nil) the client's
    // resume lands before the new cache's first RV and gets the 410 of that version.
    void scenariosOverHttp() {
        struct Play {
            QString scenario;
            QStringList mustRaise; // any one of
            ServeProcess serve;
            QProcess record;
            QString anomalies;
        };
        const QList<QPair<QString, QStringList>> plays = {
            {QStringLiteral("compaction-prevkv-nil"),
             {QStringLiteral("too-old-rv"), QStringLiteral("watcher-terminated")}},
            {QStringLiteral("selector-watch-too-old"), {}},
            {QStringLiteral("restart-relist-storm"), {}},
            {QStringLiteral("slow-watcher-terminated"), {}},
            {QStringLiteral("cacher-retry-stale-object"), {}},
            {QStringLiteral("separate-cache-rpc"), {}},
            {QStringLiteral("too-large-rv-recovers"), {}},
        };
        std::vector<std::unique_ptr<Play>> running;
        for (const auto& [scenario, mustRaise] : plays) {
            auto p = std::make_unique<Play>();
            p->scenario = scenario;
            p->mustRaise = mustRaise;
            QString error;
            QVERIFY2(p->serve.start({QStringLiteral("--scenario"), scenario}, &error),
                     qPrintable(scenario + u' ' + error));
            p->anomalies = m_dir.filePath(scenario + QStringLiteral(".jsonl"));
            p->record.start(
                qEnvironmentVariable("WS_CLI"),
                {QStringLiteral("record"), QStringLiteral("--server"), p->serve.url(),
                 QStringLiteral("--client-go"), QStringLiteral("0.27"),
                 QStringLiteral("--duration"), QStringLiteral("50s"), QStringLiteral("--anomalies"),
                 p->anomalies, QStringLiteral("--timeline"),
                 m_dir.filePath(scenario + QStringLiteral(".csv")), QStringLiteral("--out"),
                 m_dir.filePath(scenario + QStringLiteral(".wscap"))});
            QVERIFY(p->record.waitForStarted());
            running.push_back(std::move(p));
        }
        for (auto& p : running) {
            QVERIFY2(p->record.waitForFinished(120000), qPrintable(p->scenario));
            const QString out = QString::fromUtf8(p->record.readAllStandardOutput() +
                                                  p->record.readAllStandardError());
            QVERIFY2(p->record.exitStatus() == QProcess::NormalExit && p->record.exitCode() == 0,
                     qPrintable(p->scenario + u' ' + out));
            QStringList kinds;
            QFile f(p->anomalies);
            if (f.open(QIODevice::ReadOnly))
                for (const QByteArray& line : f.readAll().split('\n'))
                    if (!line.trimmed().isEmpty())
                        kinds << QJsonDocument::fromJson(line)
                                     .object()
                                     .value(QLatin1String("kind"))
                                     .toString();
            qInfo().noquote() << p->scenario << "over HTTP:" << out.trimmed() << kinds;
            static const QRegularExpression events(QStringLiteral(": (\\d+) events"));
            QVERIFY2(events.match(out).captured(1).toLongLong() > 0, qPrintable(out));
            QVERIFY2(!kinds.contains(QStringLiteral("stream-error")), qPrintable(p->scenario));
            if (!p->mustRaise.isEmpty()) {
                bool any = false;
                for (const QString& k : p->mustRaise)
                    any = any || kinds.contains(k);
                QVERIFY2(any, qPrintable(p->scenario + QStringLiteral(": ") + kinds.join(u',')));
            }
            ws::test::checkReplayIdentical(m_dir.filePath(p->scenario + QStringLiteral(".wscap")),
                                           p->anomalies,
                                           m_dir.filePath(p->scenario + QStringLiteral(".csv")));
        }
    }

    // The values of Secrets never reach a capture unless --keep-secrets: a Secret created
    // while the informer watches arrives (list or watch) as a digest, and the capture still
    // replays to the live run's own exports.
    void secretsAreRedactedInCaptures_data() {
        QTest::addColumn<bool>("keep");
        QTest::newRow("redacted (default)") << false;
        QTest::newRow("--keep-secrets") << true;
    }
    void secretsAreRedactedInCaptures() {
        QFETCH(bool, keep);
        const QString scenario = file(
            QStringLiteral("secrets.yaml"),
            "name: secrets-churn\ndescription: Secrets written at a steady rate\nduration: 10m\n"
            "seed: 1\nexplanation: Secrets only.\nserver:\n  version: \"1.30\"\nresources:\n"
            "  - name: secrets\n    objects: 20\n    writesPerSecond: 20\n    valueBytes: 200\n");
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), scenario}, &error), qPrintable(error));
        const QString capture = m_dir.filePath(QStringLiteral("secrets-%1.wscap").arg(keep));
        const QString anomalies = m_dir.filePath(QStringLiteral("secrets-%1.jsonl").arg(keep));
        const QString timeline = m_dir.filePath(QStringLiteral("secrets-%1.csv").arg(keep));
        QStringList args{QStringLiteral("record"),
                         QStringLiteral("--server"),
                         serve.url(),
                         QStringLiteral("--resources"),
                         QStringLiteral("secrets"),
                         QStringLiteral("--duration"),
                         QStringLiteral("5s"),
                         QStringLiteral("--out"),
                         capture,
                         QStringLiteral("--anomalies"),
                         anomalies,
                         QStringLiteral("--timeline"),
                         timeline};
        if (keep)
            args << QStringLiteral("--keep-secrets");
        QProcess record;
        record.start(qEnvironmentVariable("WS_CLI"), args);
        QVERIFY(record.waitForStarted());
        QTest::qWait(1500); // the informer lists and watches by now
        QNetworkAccessManager http;
        QNetworkRequest post(QUrl(serve.url() + QStringLiteral("/api/v1/namespaces/ns-0/secrets")));
        post.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        QNetworkReply* reply = http.post(
            post, QByteArray("{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":"
                             "\"db\",\"namespace\":\"ns-0\"},\"data\":{\"password\":"
                             "\"aHVudGVyMg==\"}}"));
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000);
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 201);
        reply->deleteLater();
        QVERIFY(record.waitForFinished(60000));
        QVERIFY2(record.exitCode() == 0, record.readAllStandardError().constData());

        ws::CaptureReader reader;
        QVERIFY2(reader.open(capture, &error), qPrintable(error));
        QCOMPARE(reader.header().secretsRedacted, !keep);
        QByteArray bodies;
        ws::CaptureRecord rec;
        while (reader.next(&rec))
            if (rec.type == ws::CaptureRecord::Type::Frame && rec.frame.kind == 3) // BodyChunk
                bodies += rec.frame.bytes;
        QVERIFY2(reader.complete(), qPrintable(reader.warning()));
        QVERIFY(bodies.contains("\"name\":\"db\""));     // the created Secret was watched
        QCOMPARE(bodies.contains("aHVudGVyMg=="), keep); // its value only when kept
        QCOMPARE(bodies.contains("redacted:"), !keep);
        ws::test::checkReplayIdentical(capture, anomalies, timeline);
    }

    // A quiet resource beside a busy one: configmaps never written by serve (a test writes
    // one), pods 25 a second, etcd's progress notifications every second move the configmaps
    // cache's RV with the pods' revisions.
    QString quietScenario(const QString& serverVersion) {
        return file(QStringLiteral("quiet-%1.yaml").arg(serverVersion),
                    QStringLiteral("name: quiet-beside-busy\n"
                                   "description: configmaps quiet, pods written\n"
                                   "explanation: written by tst_clusterserve\n"
                                   "duration: 10m\n"
                                   "seed: 3\n"
                                   "etcd:\n"
                                   "  version: 3.5.13\n"
                                   "  progressNotifyInterval: 1s\n"
                                   "  compactionInterval: 5m\n"
                                   "server:\n"
                                   "  version: \"%1\"\n"
                                   "resources:\n"
                                   "  - name: configmaps\n"
                                   "    objects: 5\n"
                                   "    writesPerSecond: 0\n"
                                   "  - name: pods\n"
                                   "    objects: 30\n"
                                   "    writesPerSecond: 25\n")
                        .arg(serverVersion)
                        .toUtf8());
    }

    // A quiet resource is never lagging: its watch cache's RV moves by etcd progress
    // notifications (the pods' revisions) and its watcher learns of it from a bookmark about once
    // a minute; neither is a lag. Over 100 s (past a bookmark period and the 75 s allowed for
    // one) the configmaps watcher is behind the head in revisions, yet never lagging and no
    // watcher-lag is raised; its lag in seconds is known (1.31 reports the cache RV).
    void quietResourceIsNeverLagging() {
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), quietScenario(QStringLiteral("1.31"))},
                             &error),
                 qPrintable(error));
        SourceSpec spec;
        spec.kind = SourceSpec::Kind::Server;
        spec.servers = {serve.url()};
        spec.resources = {QStringLiteral("configmaps"), QStringLiteral("pods")};
        auto session = Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error);
        QVERIFY2(session, qPrintable(error));
        const QString configmaps = QStringLiteral("informer/configmaps");
        TimeUs now = 0;
        qint64 events = 0, mostBehind = 0;
        double longestLag = 0;
        bool lagging = false, known = false;
        QStringList raised;
        connect(session.get(), &Session::updated, this, [&](const EngineUpdate& u) {
            now = u.now;
            for (const WatcherSnapshot& w : u.watchers) {
                if (w.id != configmaps)
                    continue;
                events = w.eventsReceived;
                known = w.lagKnown();
                lagging = lagging || w.state == WatcherState::Lagging;
                if (known) {
                    mostBehind = std::max(mostBehind, w.lagRevisions);
                    longestLag = std::max(longestLag, w.lagSeconds);
                }
            }
            for (const Anomaly& a : u.anomalies)
                raised << QStringLiteral("%1 %2: %3").arg(kindName(a.kind), a.watcher, a.message);
        });
        session->start();
        QTRY_VERIFY_WITH_TIMEOUT(known, 30000); // listed, and /metrics scraped
        // One event of the resource, then nothing.
        QNetworkAccessManager http;
        QNetworkRequest post(
            QUrl(serve.url() + QStringLiteral("/api/v1/namespaces/ns-0/configmaps")));
        post.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        QNetworkReply* reply = http.post(
            post, QByteArray("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
                             "{\"name\":\"once\",\"namespace\":\"ns-0\"},\"data\":{\"a\":\"b\"}}"));
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000);
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 201);
        reply->deleteLater();
        QTRY_COMPARE_WITH_TIMEOUT(events, qint64(1), 10000);
        QVERIFY2(QTest::qWaitFor([&] { return now >= seconds(100) || lagging; }, 150000),
                 "the session did not run for 100 s");
        session->stop();
        qInfo("configmaps: up to %lld revisions behind the head, lag up to %.1f s",
              static_cast<long long>(mostBehind), longestLag);
        QVERIFY2(mostBehind > 0, "the cache RV never moved past the quiet watcher");
        QVERIFY(known);
        QVERIFY2(!lagging, qPrintable(raised.join(u'\n')));
        QVERIFY2(longestLag < 10, qPrintable(QString::number(longestLag)));
        for (const QString& a : raised)
            QVERIFY2(!a.startsWith(QLatin1String("watcher-lag")) &&
                         !a.startsWith(QLatin1String("stuck-watcher")),
                     qPrintable(a));
    }

    // A quiet session sleeps: it ticks when frames come and when a timer is due (the timeline's
    // 10 samples a second, the reflectors' and detectors' timers), not on every 5 ms nap as it
    // did (200 ticks a second). The capture holds every tick, so they are counted there, and
    // its replay still finds what the session found.
    void quietSessionTicksOnlyWhenDue() {
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), quietScenario(QStringLiteral("1.31"))},
                             &error),
                 qPrintable(error));
        const Run r = record({QStringLiteral("--server"), serve.url(),
                              QStringLiteral("--resources"), QStringLiteral("configmaps")},
                             QStringLiteral("5s"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        ws::CaptureReader reader;
        QVERIFY2(reader.open(r.capturePath, &error), qPrintable(error));
        ws::CaptureRecord rec;
        qint64 ticks = 0, frames = 0;
        TimeUs last = 0;
        while (reader.next(&rec)) {
            if (rec.type != ws::CaptureRecord::Type::Frame)
                continue;
            last = std::max(last, rec.frame.received);
            (ClusterFrameConsumer::isTick(rec.frame) ? ticks : frames) += 1;
        }
        QVERIFY2(reader.complete(), qPrintable(reader.warning()));
        qInfo("%lld ticks and %lld frames in %.1f s", static_cast<long long>(ticks),
              static_cast<long long>(frames), static_cast<double>(last) / kUsPerSecond);
        QVERIFY(last >= seconds(5));
        // Samples and one tick per batch of frames (at most one per frame).
        QVERIFY2(ticks <= 10 * last / kUsPerSecond + 2 + frames,
                 qPrintable(QString::number(ticks)));
        QVERIFY2(ticks >= 8 * (last / kUsPerSecond - 1), qPrintable(QString::number(ticks)));
        checkReplay(r);
    }

    // An apiserver older than 1.31 has no apiserver_watch_cache_resource_version: no head, so
    // the timeline holds no lag samples (unknown, not 0); 1.31 has them.
    void lagUnknownWithoutACacheRv() {
        for (const QString& version : {QStringLiteral("1.30"), QStringLiteral("1.31")}) {
            ServeProcess serve;
            QString error;
            QVERIFY2(serve.start({QStringLiteral("--scenario"), quietScenario(version)}, &error),
                     qPrintable(error));
            const Run r = record({QStringLiteral("--server"), serve.url()}, QStringLiteral("4s"));
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            QFile f(r.timelinePath);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray timeline = f.readAll();
            const bool hasWatcherRv = timeline.contains(",watcher_rv:informer/pods,");
            const bool hasLag = timeline.contains(",watcher_lag_seconds:informer/pods,");
            const bool hasHead = timeline.contains(",pods,head_rv,");
            QVERIFY2(hasWatcherRv, qPrintable(version));
            QCOMPARE(hasLag, version == QLatin1String("1.31"));
            QCOMPARE(hasHead, version == QLatin1String("1.31"));
            checkReplay(r);
        }
    }

    void cleanupTestCase() { m_tls.stop(); }
};

QTEST_GUILESS_MAIN(TestClusterServe)
#include "tst_clusterserve.moc"

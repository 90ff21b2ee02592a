// The cluster source goes on with what it can reach, as kubectl and client-go do: against a
// scripted kube-apiserver (tests/fixtures/cluster/http_fixture_server.py --apiserver) whose
// API groups answer 500, 404 or nothing, and whose users may list everything, everything but
// Secrets, only namespace team-a, or nothing. Each group and resource left out is one warning
// line, printed once; --namespace scopes every request; a user without rights gets one line.

#include "support/HttpFixtureServer.h"
#include "support/TestPki.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using ws::test::HttpFixtureServer;
using ws::test::TestPki;

class TestClusterPartial : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    TestPki m_pki;
    HttpFixtureServer m_server;
    QString m_log; // what the server was asked, "GET /path?query" a line
    int m_runs = 0;

    struct Run {
        int exitCode = -1;
        bool crashed = false;
        QString out, err;
        QStringList warnings; // "watchscope-cli: warning: " lines, without the prefix
        QString requests;     // the server's log lines of this run
        QString timeline, capture;
    };

    QString file(const QString& name, const QByteArray& content) {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(content);
        return path;
    }

    // A kubeconfig reaching the scripted apiserver with `token`; `ns`: the context's namespace.
    QString kubeconfig(const QString& token, const QString& ns = {}) {
        const QString text =
            QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: scripted\n"
                           "  cluster:\n    server: %1\n    certificate-authority: %2\n"
                           "contexts:\n- name: scripted\n  context:\n    cluster: scripted\n"
                           "    user: tester\n%3current-context: scripted\nusers:\n"
                           "- name: tester\n  user:\n    token: %4\n")
                .arg(m_server.url(QStringLiteral("https")), m_pki.caCert,
                     ns.isEmpty() ? QString() : QStringLiteral("    namespace: %1\n").arg(ns),
                     token);
        return file(QStringLiteral("kubeconfig-%1.yaml").arg(++m_runs), text.toUtf8());
    }

    Run record(const QStringList& args, const QString& duration = QStringLiteral("5s")) {
        QFile log(m_log);
        const qint64 before = log.exists() ? log.size() : 0;
        Run r;
        r.timeline = m_dir.filePath(QStringLiteral("timeline-%1.csv").arg(++m_runs));
        r.capture = m_dir.filePath(QStringLiteral("capture-%1.wscap").arg(m_runs));
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"),
                QStringList{QStringLiteral("record")} + args +
                    QStringList{QStringLiteral("--duration"), duration,
                                QStringLiteral("--timeline"), r.timeline, QStringLiteral("--out"),
                                r.capture});
        if (!p.waitForFinished(120000)) {
            p.kill();
            p.waitForFinished();
        }
        r.crashed = p.exitStatus() != QProcess::NormalExit;
        r.exitCode = p.exitCode();
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        const QLatin1String prefix("watchscope-cli: warning: ");
        for (const QString& line : r.err.split(u'\n', Qt::SkipEmptyParts))
            if (line.startsWith(prefix))
                r.warnings << line.mid(prefix.size());
        if (log.open(QIODevice::ReadOnly)) {
            log.seek(before);
            r.requests = QString::fromUtf8(log.readAll());
        }
        return r;
    }

    // The warnings that contain every one of `parts`.
    static QStringList matching(const Run& r, const QStringList& parts) {
        QStringList out;
        for (const QString& w : r.warnings) {
            bool all = true;
            for (const QString& p : parts)
                all = all && w.contains(p);
            if (all)
                out << w;
        }
        return out;
    }

    // LISTs and WATCHes (every request with a query) of this run.
    static QStringList listsAndWatches(const Run& r) {
        QStringList out;
        for (const QString& line : r.requests.split(u'\n', Qt::SkipEmptyParts))
            if (line.contains(u'?') && !line.contains(QLatin1String("/metrics")))
                out << line;
        return out;
    }

    // The capture, exported, gives the live run's timeline byte for byte: a replay creates the
    // same informers, the namespaced ones that took over included.
    void checkReplay(const Run& r) {
        const QString again = r.capture + QStringLiteral(".csv");
        QProcess p;
        p.start(qEnvironmentVariable("WS_CLI"),
                {QStringLiteral("export"), r.capture, QStringLiteral("--timeline"), again});
        QVERIFY(p.waitForFinished(120000));
        QVERIFY2(p.exitCode() == 0, qPrintable(QString::fromUtf8(p.readAllStandardError())));
        QFile a(r.timeline), b(again);
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        QVERIFY2(a.readAll() == b.readAll(), "the replay's timeline differs from the live run's");
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFile::exists(qEnvironmentVariable("WS_CLI")), "WS_CLI not built");
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed");
        if (!TestPki::available())
            QSKIP("openssl is not installed");
        const QString script = HttpFixtureServer::script();
        QVERIFY2(!script.isEmpty(), "tests/fixtures/cluster/http_fixture_server.py not found: "
                                    "set WS_SOURCE_DIR");
        QString error;
        QVERIFY2(m_pki.create(&error), qPrintable(error));
        m_log = m_dir.filePath(QStringLiteral("requests.log"));
        QVERIFY2(m_server.start(script,
                                {QStringLiteral("--apiserver"),
                                 QStringLiteral("--tls-cert"),
                                 m_pki.serverCert,
                                 QStringLiteral("--tls-key"),
                                 m_pki.serverKey,
                                 QStringLiteral("--token"),
                                 QStringLiteral("t-admin"),
                                 QStringLiteral("--token"),
                                 QStringLiteral("t-nosecrets"),
                                 QStringLiteral("--token"),
                                 QStringLiteral("t-team"),
                                 QStringLiteral("--token"),
                                 QStringLiteral("t-none"),
                                 QStringLiteral("--role"),
                                 QStringLiteral("2:no-secrets"),
                                 QStringLiteral("--role"),
                                 QStringLiteral("3:team-a"),
                                 QStringLiteral("--role"),
                                 QStringLiteral("4:none"),
                                 QStringLiteral("--log"),
                                 m_log},
                                &error),
                 qPrintable(error));
    }

    // Three groups fail three ways; the session goes on with the rest and tells each once. A
    // resource only in a version that is not preferred (gadgets, v1beta1) is found there.
    void groupsThatFailAreLeftOut() {
        const Run r =
            record({QStringLiteral("--kubeconfig"), kubeconfig(QStringLiteral("t-admin"))});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(matching(r, {QStringLiteral("broken.example.com/v1"), QStringLiteral("HTTP 500"),
                              QStringLiteral("backend exploded")})
                     .size(),
                 1);
        QCOMPARE(
            matching(r, {QStringLiteral("gone.example.com/v1"), QStringLiteral("HTTP 404")}).size(),
            1);
        QCOMPARE(matching(r, {QStringLiteral("reset.example.com/v1")}).size(), 1);
        QCOMPARE(r.warnings.size(), 3);
        for (const QString& w : r.warnings) // the endpoint once, at the start
            QVERIFY2(w.startsWith(m_server.url(QStringLiteral("https"))) &&
                         w.count(m_server.url(QStringLiteral("https"))) == 1,
                     qPrintable(w));
        const QStringList requests = listsAndWatches(r);
        auto asked = [&](const QString& path) {
            return !requests.filter(QStringLiteral("GET ") + path + u'?').isEmpty();
        };
        QVERIFY2(asked(QStringLiteral("/api/v1/configmaps")), qPrintable(r.requests));
        QVERIFY2(asked(QStringLiteral("/api/v1/nodes")), qPrintable(r.requests));
        QVERIFY2(asked(QStringLiteral("/apis/multi.example.com/v1/widgets")),
                 qPrintable(r.requests));
        QVERIFY2(asked(QStringLiteral("/apis/multi.example.com/v1beta1/gadgets")),
                 qPrintable(r.requests));
        // widgets from the preferred version only.
        QVERIFY2(!asked(QStringLiteral("/apis/multi.example.com/v1beta1/widgets")),
                 qPrintable(r.requests));
    }

    // A 403 on one resource is that resource's line; the others are listed and watched.
    void forbiddenResourceIsToldOnce() {
        const Run r =
            record({QStringLiteral("--kubeconfig"), kubeconfig(QStringLiteral("t-nosecrets"))});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(r.err));
        const QStringList secrets = matching(r, {QStringLiteral("not watching secrets: 403")});
        QCOMPARE(secrets.size(), 1);
        QVERIFY2(secrets.front().contains(
                     QLatin1String("secrets is forbidden: User \"no-secrets-user\" cannot")),
                 qPrintable(secrets.front()));
        QCOMPARE(matching(r, {QStringLiteral("not watching")}).size(), 1);
        QVERIFY2(!listsAndWatches(r).filter(QStringLiteral("GET /api/v1/configmaps?")).isEmpty(),
                 qPrintable(r.requests));
    }

    // --namespace: every LIST and WATCH in that namespace, cluster-scoped resources left out
    // (said once), and the watcher ids say where.
    void namespaceScopesEveryRequest() {
        const Run r = record({QStringLiteral("--kubeconfig"), kubeconfig(QStringLiteral("t-admin")),
                              QStringLiteral("--namespace"), QStringLiteral("team-a")});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(r.err));
        const QStringList requests = listsAndWatches(r);
        QVERIFY(!requests.isEmpty());
        for (const QString& line : requests)
            QVERIFY2(line.contains(QLatin1String("/namespaces/team-a/")), qPrintable(line));
        QVERIFY2(requests.filter(QStringLiteral("nodes")).isEmpty(), qPrintable(r.requests));
        QCOMPARE(matching(r, {QStringLiteral("--namespace team-a: 1 cluster-scoped resource left "
                                             "out (nodes)")})
                     .size(),
                 1);
        QFile timeline(r.timeline);
        QVERIFY(timeline.open(QIODevice::ReadOnly));
        QVERIFY(timeline.readAll().contains("informer/namespaces/team-a/configmaps"));
    }

    // A user whose rights end at the context's namespace: each resource forbidden cluster-wide
    // is listed and watched there instead (one line says so), the cluster-scoped one is told.
    // Told within seconds although the watch-list of gadgets there only ever gets an in-stream
    // ERROR: a watch the server let through is not a refusal to wait for.
    void namespaceUserFallsBackToTheContextNamespace() {
        const Run r = record({QStringLiteral("--kubeconfig"),
                              kubeconfig(QStringLiteral("t-team"), QStringLiteral("team-a"))});
        QVERIFY2(!r.crashed && r.exitCode == 0, qPrintable(r.err));
        const QStringList fellBack = matching(r, {QStringLiteral("in namespace team-a")});
        QCOMPARE(fellBack.size(), 1);
        for (const QString& resource : {QStringLiteral("configmaps"), QStringLiteral("secrets"),
                                        QStringLiteral("widgets.multi.example.com"),
                                        QStringLiteral("gadgets.multi.example.com")})
            QVERIFY2(fellBack.front().contains(resource), qPrintable(fellBack.front()));
        const QStringList nodes = matching(r, {QStringLiteral("not watching nodes: 403")});
        QCOMPARE(nodes.size(), 1);
        QVERIFY2(nodes.front().contains(QLatin1String("at the cluster scope")),
                 qPrintable(nodes.front()));
        QCOMPARE(matching(r, {QStringLiteral("not watching")}).size(), 1);
        const QStringList requests = listsAndWatches(r);
        QVERIFY2(
            !requests.filter(QStringLiteral("/api/v1/namespaces/team-a/configmaps?")).isEmpty(),
            qPrintable(r.requests));
        QFile timeline(r.timeline);
        QVERIFY(timeline.open(QIODevice::ReadOnly));
        QVERIFY(timeline.readAll().contains("informer/namespaces/team-a/secrets"));
        checkReplay(r);
    }

    // No rights at all: one clear line, not a line per resource first.
    void noRightsIsOneLine() {
        const Run r = record({QStringLiteral("--kubeconfig"),
                              kubeconfig(QStringLiteral("t-none"), QStringLiteral("team-a"))});
        QVERIFY2(!r.crashed, qPrintable(r.err));
        QVERIFY(r.exitCode != 0);
        // The scripted server's failing groups are told as always; of the resources, one line.
        QStringList lines = r.err.trimmed().split(u'\n', Qt::SkipEmptyParts);
        lines.removeIf([](const QString& l) { return l.contains(QLatin1String("group-version")); });
        QVERIFY2(lines.size() == 1, qPrintable(r.err));
        QVERIFY2(lines.front().contains(QLatin1String("403 Forbidden")) &&
                     lines.front().contains(QLatin1String("is forbidden: User \"none-user\"")),
                 qPrintable(lines.front()));
    }

    void namespaceIsAClusterOption() {
        for (const auto& [args, expected] :
             {std::pair{QStringList{QStringLiteral("--scenario"), QStringLiteral("healthy"),
                                    QStringLiteral("--namespace"), QStringLiteral("a")},
                        QStringLiteral("--namespace only applies to --kubeconfig and --server")},
              std::pair{QStringList{QStringLiteral("--server"), m_server.url(),
                                    QStringLiteral("--namespace"), QStringLiteral("a/b")},
                        QStringLiteral("--namespace: 'a/b' is not a namespace name")}}) {
            const Run r = record(args, QStringLiteral("1s"));
            QVERIFY(!r.crashed && r.exitCode != 0);
            const QStringList lines = r.err.trimmed().split(u'\n', Qt::SkipEmptyParts);
            QVERIFY2(lines.size() == 1 && lines.front().contains(expected), qPrintable(r.err));
        }
    }
};

QTEST_GUILESS_MAIN(TestClusterPartial)
#include "tst_clusterpartial.moc"

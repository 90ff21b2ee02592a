// The real kubectl (the one on PATH) against `watchscope-cli serve`: discovery, lists across
// namespaces, watches that see writes made during them, create/delete, an informer waiting for
// a delete, the exact 410 and 504 bodies of chosen versions, and the 422 of a watch-list.

#include "support/Kubectl.h"
#include "support/KubectlTestBed.h"
#include "support/ServeProcess.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using ws::test::ServeProcess;

class TestServeKubectl : public ws::test::KubectlTestBed {
    Q_OBJECT

private:
    ServeProcess m_serve; // healthy, 1.30: shared by the tests that do not pick a version

    QString writeKubeconfig(const QString& name, const QString& url) {
        return ws::test::writeServedKubeconfig(m_dir.filePath(name), url);
    }

    using Run = ws::test::KubectlRun;
    Run kubectl(const QString& kubeconfig, const QStringList& args, int timeoutMs = 30000) {
        return ws::test::runKubectl(m_kubectl, kubeconfig, args, timeoutMs);
    }
    QString config() { return m_dir.filePath(QStringLiteral("healthy.kubeconfig")); }

    // Reads `process`'s output until `re` matches a line or the time is up.
    static QRegularExpressionMatch waitForLine(QProcess& p, const QRegularExpression& re,
                                               int timeoutMs, QString* seen,
                                               bool stderrToo = false) {
        QElapsedTimer t;
        t.start();
        QString buffer;
        while (t.elapsed() < timeoutMs) {
            p.waitForReadyRead(200);
            buffer += QString::fromUtf8(p.readAllStandardOutput());
            if (stderrToo)
                buffer += QString::fromUtf8(p.readAllStandardError());
            for (const QString& line : buffer.split(u'\n')) {
                const auto m = re.match(line);
                if (m.hasMatch()) {
                    *seen = buffer;
                    return m;
                }
            }
            if (p.state() == QProcess::NotRunning && !p.bytesAvailable())
                break;
        }
        *seen = buffer;
        return {};
    }

private slots:
    void initTestCase() {
        SET_UP_KUBECTL_TEST_BED(Tls::No);
        QString error;
        QVERIFY2(m_serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy")}, &error),
                 qPrintable(error));
        QVERIFY(!writeKubeconfig(QStringLiteral("healthy.kubeconfig"), m_serve.url()).isEmpty());
    }

    void getAcrossNamespaces() {
        const Run r = kubectl(config(), {QStringLiteral("get"), QStringLiteral("configmaps"),
                                         QStringLiteral("-A"), QStringLiteral("--no-headers")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QSet<QString> namespaces;
        int rows = 0;
        for (const QString& line : r.out.split(u'\n', Qt::SkipEmptyParts)) {
            ++rows;
            namespaces.insert(line.section(u' ', 0, 0, QString::SectionSkipEmpty));
        }
        // healthy keeps ~300 configmaps over 3 namespaces; kubectl pages them 500 at a time.
        QVERIFY2(rows > 200, qPrintable(QString::number(rows)));
        QVERIFY2(namespaces.size() >= 3, qPrintable(r.out.left(300)));
    }

    void apiResources() {
        const Run r = kubectl(config(), {QStringLiteral("api-resources")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(
            QRegularExpression(QStringLiteral("configmaps\\s+cm\\s+v1\\s+true\\s+ConfigMap"))));
        QVERIFY(
            r.out.contains(QRegularExpression(QStringLiteral("pods\\s+po\\s+v1\\s+true\\s+Pod"))));
    }

    void createGetDelete() {
        Run r = kubectl(config(), {QStringLiteral("create"), QStringLiteral("configmap"),
                                   QStringLiteral("made-by-kubectl"),
                                   QStringLiteral("--from-literal=colour=blue")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QLatin1String("configmap/made-by-kubectl created")));
        r = kubectl(config(), {QStringLiteral("get"), QStringLiteral("configmap"),
                               QStringLiteral("made-by-kubectl"), QStringLiteral("-o"),
                               QStringLiteral("jsonpath={.data.colour} {.metadata.namespace}")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out, QStringLiteral("blue default"));
        r = kubectl(config(), {QStringLiteral("create"), QStringLiteral("configmap"),
                               QStringLiteral("made-by-kubectl")});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QLatin1String("AlreadyExists")) ||
                     r.err.contains(QLatin1String("already exists")),
                 qPrintable(r.err));
        r = kubectl(config(), {QStringLiteral("delete"), QStringLiteral("configmap"),
                               QStringLiteral("made-by-kubectl")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.out.contains(QLatin1String("configmap \"made-by-kubectl\" deleted")));
        r = kubectl(config(), {QStringLiteral("get"), QStringLiteral("configmap"),
                               QStringLiteral("made-by-kubectl")});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QLatin1String("configmaps \"made-by-kubectl\" not found")),
                 qPrintable(r.err));
    }

    // A ConfigMap's data holds strings: the apiserver's decoder refuses a number with
    // encoding/json's error as a 400, and nothing is stored. (--raw: kubectl's own schema check
    // would stop it before it is sent.)
    void configMapDataMustBeStrings() {
        QTemporaryDir dir;
        QFile body(dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(body.open(QIODevice::WriteOnly));
        body.write(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad-data"},)"
                   R"("data":{"replicas":3}})");
        body.close();
        Run r = kubectl(config(), {QStringLiteral("create"), QStringLiteral("--raw"),
                                   QStringLiteral("/api/v1/namespaces/default/configmaps"),
                                   QStringLiteral("-f"), body.fileName()});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QLatin1String(
                     "cannot unmarshal number into Go struct field ConfigMap.data of type string")),
                 qPrintable(r.err));
        r = kubectl(config(), {QStringLiteral("get"), QStringLiteral("configmap"),
                               QStringLiteral("bad-data")});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QLatin1String("configmaps \"bad-data\" not found")),
                 qPrintable(r.err));
    }

    void watchSeesCreateAndDelete() {
        QProcess watch;
        watch.start(m_kubectl,
                    {QStringLiteral("--kubeconfig"), config(), QStringLiteral("get"),
                     QStringLiteral("configmaps"), QStringLiteral("-n"), QStringLiteral("watched"),
                     QStringLiteral("-w"), QStringLiteral("--output-watch-events")});
        QVERIFY(watch.waitForStarted());
        QString seen;
        // The header comes once the initial (empty) list is done and the watch is open.
        QTest::qWait(1500);
        Run r = kubectl(config(), {QStringLiteral("create"), QStringLiteral("configmap"),
                                   QStringLiteral("seen-by-watch"), QStringLiteral("-n"),
                                   QStringLiteral("watched")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(waitForLine(watch, QRegularExpression(QStringLiteral("^ADDED\\s+seen-by-watch")),
                             10000, &seen)
                     .hasMatch(),
                 qPrintable(seen));
        r = kubectl(config(), {QStringLiteral("delete"), QStringLiteral("configmap"),
                               QStringLiteral("seen-by-watch"), QStringLiteral("-n"),
                               QStringLiteral("watched")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(waitForLine(watch, QRegularExpression(QStringLiteral("^DELETED\\s+seen-by-watch")),
                             10000, &seen)
                     .hasMatch(),
                 qPrintable(seen));
        // The namespace filter holds: none of the scenario's own objects (ns-0..ns-2) showed.
        QVERIFY2(!seen.contains(QLatin1String("configmap-")), qPrintable(seen.left(500)));
        watch.kill();
        watch.waitForFinished();
    }

    void waitForDelete() {
        Run r = kubectl(config(), {QStringLiteral("create"), QStringLiteral("configmap"),
                                   QStringLiteral("awaited")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QProcess wait;
        wait.start(m_kubectl, {QStringLiteral("--kubeconfig"), config(), QStringLiteral("wait"),
                               QStringLiteral("--for=delete"), QStringLiteral("configmap/awaited"),
                               QStringLiteral("--timeout=30s")});
        QVERIFY(wait.waitForStarted());
        QTest::qWait(1500); // the informer has listed and is watching
        QCOMPARE(wait.state(), QProcess::Running);
        r = kubectl(config(), {QStringLiteral("delete"), QStringLiteral("configmap"),
                               QStringLiteral("awaited"), QStringLiteral("--wait=false")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(wait.waitForFinished(20000));
        QCOMPARE(wait.exitCode(), 0);
        QVERIFY(QString::fromUtf8(wait.readAllStandardOutput())
                    .contains(QLatin1String("condition met")));
    }

    void rawWatchTooOld_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("reason");
        QTest::newRow("1.16: Gone") << QStringLiteral("1.16") << QStringLiteral("Gone");
        QTest::newRow("1.17: Expired") << QStringLiteral("1.17") << QStringLiteral("Expired");
        QTest::newRow("1.34: Expired") << QStringLiteral("1.34") << QStringLiteral("Expired");
    }
    void rawWatchTooOld() {
        QFETCH(QString, version);
        QFETCH(QString, reason);
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                              QStringLiteral("--server-version"), version},
                             &error),
                 qPrintable(error));
        const QString kc =
            writeKubeconfig(QStringLiteral("v%1.kubeconfig").arg(version), serve.url());
        // healthy writes 60/s: after 3 s the ring's oldest event is far above RV 1... but the
        // cache only starts evicting once the ring is full, so write past its capacity first.
        QTest::qWait(3000);
        const Run r = kubectl(kc, {QStringLiteral("get"), QStringLiteral("--raw"),
                                   QStringLiteral("/api/v1/configmaps?watch=1&resourceVersion=1")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        static const QRegularExpression body(QStringLiteral(
            "^\\{\"type\":\"ERROR\",\"object\":\\{\"kind\":\"Status\",\"apiVersion\":\"v1\","
            "\"metadata\":\\{\\},\"status\":\"Failure\",\"message\":\"too old resource version: 1 "
            "\\((\\d+)\\)\",\"reason\":\"(\\w+)\",\"code\":410\\}\\}$"));
        const auto m = body.match(r.out.trimmed());
        QVERIFY2(m.hasMatch(), qPrintable(r.out));
        QCOMPARE(m.captured(2), reason);
        QVERIFY(m.captured(1).toLongLong() > 1);
    }

    // A watch-list against the shared 1.30 server (WatchList gate off): kubectl shows the
    // server's 422 Invalid, rebuilt from the Status details (kind ListOptions, name "", and each
    // cause's field and message), so the line proves their shape too.
    void rawWatchListRejected() {
        const Run r = kubectl(config(), {QStringLiteral("get"), QStringLiteral("--raw"),
                                         QStringLiteral("/api/v1/configmaps?watch=1&"
                                                        "sendInitialEvents=true&"
                                                        "resourceVersionMatch=NotOlderThan&"
                                                        "allowWatchBookmarks=true")});
        QVERIFY2(r.exitCode != 0, qPrintable(r.out.left(500)));
        QCOMPARE(r.err.trimmed(),
                 QStringLiteral("The ListOptions \"\" is invalid: sendInitialEvents: Forbidden: "
                                "sendInitialEvents is forbidden for watch unless the WatchList "
                                "feature gate is enabled"));
    }

    // --feature-gates on serve: each gate family changes what a client sees. WatchList: a
    // watch-list gets 422 with the gate off and the initial-events-end bookmark with it on, and
    // with it on even a plain watch without resourceVersion ends its initial ADDEDs with that
    // bookmark (SetListOptionsDefaults). WatchFromStorageWithoutResourceVersion (1.27.13):
    // the RV="" watch is served by etcd, which sends an ADDED per object too but no bookmark;
    // from the cache the pre-deadline bookmark comes 2 s before timeoutSeconds.
    void featureGateFamilies_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("gates");
        QTest::addColumn<QString>("etcd"); // --etcd-version; "": the scenario's (3.4.23)
        QTest::addColumn<QString>("query");
        // "422", "refused" (the 500 ERROR event), "end-bookmark", "bookmark", "no-bookmark"
        QTest::addColumn<QString>("expect");
        const QString watchList =
            QStringLiteral("watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&"
                           "allowWatchBookmarks=true&timeoutSeconds=3");
        const QString plain = QStringLiteral("watch=1&allowWatchBookmarks=true&timeoutSeconds=4");
        // A watch-list needs an etcd whose progress answers the cacher trusts from 1.31
        // (3.4.31+ / 3.5.13+; cacher.go Watch): the served ones run over 3.5.13.
        const QString fixedEtcd = QStringLiteral("3.5.13");
        QTest::newRow("1.33 watch-list: 422") << "1.33"
                                              << ""
                                              << "" << watchList << "422";
        QTest::newRow("1.33 WatchList=true watch-list: served")
            << "1.33"
            << "WatchList=true" << fixedEtcd << watchList << "end-bookmark";
        QTest::newRow("1.34 watch-list: served") << "1.34"
                                                 << "" << fixedEtcd << watchList << "end-bookmark";
        QTest::newRow("1.34 watch-list over etcd 3.4.23: refused") << "1.34"
                                                                   << ""
                                                                   << "" << watchList << "refused";
        QTest::newRow("1.34 WatchList=false watch-list: 422") << "1.34"
                                                              << "WatchList=false"
                                                              << "" << watchList << "422";
        QTest::newRow("1.33 plain RV=\"\" watch: no end bookmark") << "1.33"
                                                                   << ""
                                                                   << "" << plain << "bookmark";
        QTest::newRow("1.34 plain RV=\"\" watch: defaulted to a watch-list")
            << "1.34"
            << "" << fixedEtcd << plain << "end-bookmark";
        // The defaulted watch-list is refused like an explicit one (SetListOptionsDefaults runs
        // before the cacher's check).
        QTest::newRow("1.34 plain RV=\"\" watch over etcd 3.4.23: refused")
            << "1.34"
            << ""
            << "" << plain << "refused";
        QTest::newRow("1.27.13 RV=\"\" from the cache") << "1.27.13"
                                                        << ""
                                                        << "" << plain << "bookmark";
        QTest::newRow("1.27.13 WatchFromStorageWithoutResourceVersion: from etcd")
            << "1.27.13"
            << "WatchFromStorageWithoutResourceVersion=true"
            << "" << plain << "no-bookmark";
        QTest::newRow("1.27.12 RV=\"\" from etcd") << "1.27.12"
                                                   << ""
                                                   << "" << plain << "no-bookmark";
    }
    void featureGateFamilies() {
        QFETCH(QString, version);
        QFETCH(QString, gates);
        QFETCH(QString, etcd);
        QFETCH(QString, query);
        QFETCH(QString, expect);
        ServeProcess serve;
        QStringList args{QStringLiteral("--scenario"), QStringLiteral("healthy"),
                         QStringLiteral("--server-version"), version};
        if (!gates.isEmpty())
            args << QStringLiteral("--feature-gates") << gates;
        if (!etcd.isEmpty())
            args << QStringLiteral("--etcd-version") << etcd;
        QString error;
        QVERIFY2(serve.start(args, &error), qPrintable(error));
        const QString kc = writeKubeconfig(QStringLiteral("gates.kubeconfig"), serve.url());
        const Run r = kubectl(kc, {QStringLiteral("get"), QStringLiteral("--raw"),
                                   QStringLiteral("/api/v1/configmaps?") + query});
        if (expect == QLatin1String("422")) {
            QVERIFY2(r.exitCode != 0, qPrintable(r.out.left(300)));
            QVERIFY2(r.err.contains(QLatin1String("sendInitialEvents is forbidden for watch "
                                                  "unless the WatchList feature gate is enabled")),
                     qPrintable(r.err));
            return;
        }
        if (expect == QLatin1String("refused")) {
            // One ERROR event at once, no initial state.
            QVERIFY2(r.out.trimmed().startsWith(QLatin1String("{\"type\":\"ERROR\"")) &&
                         r.out.contains(QLatin1String("required storage feature "
                                                      "RequestWatchProgress is disabled")) &&
                         !r.out.contains(QLatin1String("\"type\":\"ADDED\"")),
                     qPrintable(r.out.left(400)));
            return;
        }
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.trimmed().split(u'\n');
        int added = 0, bookmarks = 0, ends = 0;
        for (const QString& line : lines) {
            added += line.startsWith(QLatin1String("{\"type\":\"ADDED\""));
            if (line.startsWith(QLatin1String("{\"type\":\"BOOKMARK\""))) {
                ++bookmarks;
                ends += line.contains(QLatin1String("\"k8s.io/initial-events-end\":\"true\""));
            }
        }
        QVERIFY2(added >= 300, qPrintable(r.out.left(300))); // an ADDED per configmap first
        QCOMPARE(ends, expect == QLatin1String("end-bookmark") ? 1 : 0);
        if (expect == QLatin1String("no-bookmark"))
            QCOMPARE(bookmarks, 0);
        else
            QVERIFY2(bookmarks >= 1, qPrintable(r.out.right(300)));
    }

    // serve's /metrics: apiserver_terminated_watchers_total counts the dispatcher's cut-off of a
    // slow watcher (slow-watcher-terminated), not the watchers a cacher re-initialization closes
    // (compaction-prevkv-nil: the 1.24 cacher relists after the PrevKv=nil error, a second
    // initialization). Polled until the scenario has played its fault, at 10x speed.
    void terminatedWatchersInMetrics_data() {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("resource");
        QTest::addColumn<bool>("cutOff");
        QTest::newRow("slow-watcher-terminated: counted") << "slow-watcher-terminated"
                                                          << "configmaps" << true;
        QTest::newRow("compaction-prevkv-nil: re-initialized, not counted")
            << "compaction-prevkv-nil"
            << "configmaps" << false;
    }
    void terminatedWatchersInMetrics() {
        QFETCH(QString, scenario);
        QFETCH(QString, resource);
        QFETCH(bool, cutOff);
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), scenario, QStringLiteral("--speed"),
                              QStringLiteral("10")},
                             &error),
                 qPrintable(error));
        const QString kc = writeKubeconfig(QStringLiteral("metrics.kubeconfig"), serve.url());
        auto sample = [&](const QString& text, const char* family) {
            const QRegularExpression re(QStringLiteral("^%1\\{resource=\"%2\"\\} (\\d+)$")
                                            .arg(QLatin1String(family), resource),
                                        QRegularExpression::MultilineOption);
            const auto m = re.match(text);
            return m.hasMatch() ? m.captured(1).toInt() : -1;
        };
        QElapsedTimer t;
        t.start();
        int terminated = -1, initializations = -1;
        while (t.elapsed() < 20000) { // 200 virtual seconds: past each scenario's fault
            const Run r = kubectl(
                kc, {QStringLiteral("get"), QStringLiteral("--raw"), QStringLiteral("/metrics")});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            terminated = sample(r.out, "apiserver_terminated_watchers_total");
            initializations = sample(r.out, "apiserver_watch_cache_initializations_total");
            if (cutOff ? terminated >= 1 : initializations >= 2)
                break;
            QTest::qWait(250);
        }
        if (cutOff) {
            QVERIFY2(terminated >= 1, qPrintable(QString::number(terminated)));
        } else {
            QVERIFY2(initializations >= 2, qPrintable(QString::number(initializations)));
            QCOMPARE(terminated, 0);
        }
    }

    // kubectl retries a 504 that carries Retry-After ten times (client-go's default), so the
    // final answer comes after ~11 x 4 s: the three versions run side by side.
    void rawListTooLarge() {
        struct Case {
            QString version;
            QString details;
            ServeProcess serve;
            QProcess kubectl;
        };
        std::vector<std::unique_ptr<Case>> cases;
        const QList<QPair<QString, QString>> shapes = {
            {QStringLiteral("1.16"), QStringLiteral("\"details\":{\"retryAfterSeconds\":1},")},
            {QStringLiteral("1.17"),
             QStringLiteral("\"details\":{\"causes\":[{\"message\":\"Too large resource "
                            "version\"}],\"retryAfterSeconds\":1},")},
            {QStringLiteral("1.30"),
             QStringLiteral(
                 "\"details\":{\"causes\":[{\"reason\":\"ResourceVersionTooLarge\","
                 "\"message\":\"Too large resource version\"}],\"retryAfterSeconds\":1},")},
        };
        for (const auto& [version, details] : shapes) {
            auto c = std::make_unique<Case>();
            c->version = version;
            c->details = details;
            QString error;
            QVERIFY2(c->serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                                     QStringLiteral("--server-version"), version},
                                    &error),
                     qPrintable(error));
            const QString kc =
                writeKubeconfig(QStringLiteral("l%1.kubeconfig").arg(version), c->serve.url());
            c->kubectl.start(m_kubectl,
                             {QStringLiteral("--kubeconfig"), kc, QStringLiteral("-v=8"),
                              QStringLiteral("get"), QStringLiteral("--raw"),
                              QStringLiteral("/api/v1/configmaps?resourceVersion=99999999")});
            QVERIFY(c->kubectl.waitForStarted());
            cases.push_back(std::move(c));
        }
        static const QRegularExpression attempt(
            QStringLiteral("504 Gateway Timeout in (\\d+) milliseconds"));
        const QString expectedHead = QStringLiteral("Error from server (Timeout): Timeout: Too "
                                                    "large resource version: 99999999, current: ");
        for (auto& c : cases) {
            QVERIFY2(c->kubectl.waitForFinished(90000), qPrintable(c->version));
            const QString err = QString::fromUtf8(c->kubectl.readAllStandardError());
            QVERIFY(c->kubectl.exitCode() != 0);
            // Every attempt waited the cache's 3 s blockTimeout before its 504.
            auto it = attempt.globalMatch(err);
            int attempts = 0;
            while (it.hasNext()) {
                const int ms = it.next().captured(1).toInt();
                QVERIFY2(ms >= 2800 && ms < 6000, qPrintable(QString::number(ms)));
                ++attempts;
            }
            // kubectl 1.32 retries the 504 (Retry-After) ten times; Debian's kubectl 1.20 does not.
            QVERIFY2(attempts >= 1, qPrintable(err.right(1500)));
            QVERIFY2(err.contains(expectedHead), qPrintable(err.right(1500)));
            // The last answer's body, as -v=8 logs it: `Response Body: {...}` or, from klog's
            // structured form, `"Response Body" body=<` with the body on the next line.
            const qsizetype at = err.lastIndexOf(QLatin1String("Response Body"));
            QVERIFY2(at >= 0, qPrintable(err.right(1500)));
            const qsizetype open = err.indexOf(u'{', at);
            const qsizetype close = err.indexOf(u'\n', open);
            const QString body = err.mid(open, close - open).trimmed();
            const QString head = QStringLiteral(
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                "\"Failure\",\"message\":\"Timeout: Too large resource version: 99999999, "
                "current: ");
            QVERIFY2(body.startsWith(head), qPrintable(c->version + u' ' + body));
            QVERIFY2(body.endsWith(QStringLiteral("\",\"reason\":\"Timeout\",") + c->details +
                                   QStringLiteral("\"code\":504}")),
                     qPrintable(c->version + u' ' + body));
        }
    }

    void cleanupTestCase() { m_serve.stop(); }
};

QTEST_GUILESS_MAIN(TestServeKubectl)
#include "tst_servekubectl.moc"

// The real kubectl against `watchscope-cli serve` while a restarted apiserver's watch cache is
// still initializing (a scenario whose cacher list takes minutes): the exact 429 "storage is
// (re)initializing" with its Retry-After header, fixed at 1 s on 1.31 and growing with the
// downtime on 1.34 (cacher.go / util.go at v1.31.0, v1.34.0); the 503 "context deadline
// exceeded" of a blocked 1.30 watch; and /readyz held by the 1.36 storage-readiness hook.

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

namespace {

// One apiserver whose pods cache needs 10 virtual minutes for its list after the restart at 1 s.
const char* const kScenario = "name: slow-cache\n"
                              "description: a restart and a pods cache that takes long to fill\n"
                              "explanation: test\n"
                              "duration: 30m\n"
                              "seed: 3\n"
                              "server:\n"
                              "  version: \"1.34\"\n"
                              "resources:\n"
                              "  - name: pods\n"
                              "    objects: 50\n"
                              "    writesPerSecond: 5\n"
                              "    cacherListDuration: 10m\n"
                              "faults:\n"
                              "  - at: 1s\n"
                              "    kind: restart-apiserver\n"
                              "    duration: 1s\n";

QString statusBody(const QString& message, const QString& reason, int code, int retryAfter) {
    QString details;
    if (retryAfter > 0)
        details = QStringLiteral("\"details\":{\"retryAfterSeconds\":%1},").arg(retryAfter);
    return QStringLiteral("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                          "\"Failure\",\"message\":\"%1\",\"reason\":\"%2\",%3\"code\":%4}")
        .arg(message, reason, details)
        .arg(code);
}

// The last response body kubectl -v=8 logged (`Response Body: {...}` or klog's structured
// `"Response Body" body=<` with the body on the next line).
QString lastBody(const QString& err) {
    const qsizetype at = err.lastIndexOf(QLatin1String("Response Body"));
    if (at < 0)
        return {};
    const qsizetype open = err.indexOf(u'{', at);
    const qsizetype close = err.indexOf(u'\n', open);
    return err.mid(open, close - open).trimmed();
}

} // namespace

class TestServeCacheInit : public ws::test::KubectlTestBed {
    Q_OBJECT

private:
    QString m_scenario;

    QString writeKubeconfig(const QString& name, const QString& url) {
        return ws::test::writeServedKubeconfig(m_dir.filePath(name), url);
    }

    // A served cluster at `version` and `speed`, once its apiserver is back from the restart.
    // `gates`: a --feature-gates value, or empty.
    bool startRestarted(ServeProcess& serve, const QString& version, double speed,
                        QString* kubeconfig, const QString& gates = {}) {
        QString error;
        QStringList args{QStringLiteral("--scenario"),       m_scenario,
                         QStringLiteral("--server-version"), version,
                         QStringLiteral("--speed"),          QString::number(speed)};
        if (!gates.isEmpty())
            args << QStringLiteral("--feature-gates") << gates;
        if (!serve.start(args, &error)) {
            qWarning("%s", qPrintable(error));
            return false;
        }
        *kubeconfig = writeKubeconfig(QStringLiteral("v%1.kubeconfig").arg(version), serve.url());
        // Down from 1 s to 2 s virtual: wait until it answers again.
        QTest::qWait(static_cast<int>(2200 / speed) + 300);
        return true;
    }

    using Run = ws::test::KubectlRun;
    Run kubectl(const QString& kubeconfig, const QStringList& args, int timeoutMs = 90000) {
        return ws::test::runKubectl(m_kubectl, kubeconfig, args, timeoutMs);
    }

    // Every Retry-After header kubectl -v=8 logged, in order.
    static QList<int> retryAfters(const QString& err) {
        static const QRegularExpression header(QStringLiteral("Retry-After: (\\d+)"));
        QList<int> out;
        auto it = header.globalMatch(err);
        while (it.hasNext())
            out << it.next().captured(1).toInt();
        return out;
    }

private slots:
    void initTestCase() {
        SET_UP_KUBECTL_TEST_BED(Tls::No);
        m_scenario = m_dir.filePath(QStringLiteral("slow-cache.yaml"));
        QFile f(m_scenario);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kScenario);
    }

    // kubectl's REST client retries a 429 that carries Retry-After (up to 10 times), waiting what
    // it says: every attempt's header is in the -v=8 log. On 1.34 they grow with the downtime (2
    // virtual seconds per wall second here: 1, ..., 1, 2, 2, 3, 5); on 1.31 they stay 1.
    void watchGets429WithRetryAfter_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("grows");
        QTest::newRow("1.31: Retry-After 1") << QStringLiteral("1.31") << false;
        QTest::newRow("1.34: Retry-After grows") << QStringLiteral("1.34") << true;
    }
    void watchGets429WithRetryAfter() {
        QFETCH(QString, version);
        QFETCH(bool, grows);
        ServeProcess serve;
        QString kc;
        QVERIFY(startRestarted(serve, version, 2, &kc));
        Run r = kubectl(kc, {QStringLiteral("-v=8"), QStringLiteral("get"), QStringLiteral("--raw"),
                             QStringLiteral("/api/v1/pods?watch=1&timeoutSeconds=600")});
        QVERIFY2(r.exitCode != 0, qPrintable(r.out.left(500)));
        QVERIFY2(r.err.contains(QLatin1String("429 Too Many Requests")),
                 qPrintable(r.err.right(2000)));
        QList<int> waits = retryAfters(r.err);
        QVERIFY2(!waits.isEmpty(), qPrintable(r.err.right(2000)));
        // Debian 12's kubectl 1.20 does not retry a `get --raw` stream: it stops at the first
        // 429. Then the next answers' headers come from asking again after each Retry-After,
        // as the retries of a newer kubectl do (10 of them).
        if (waits.size() == 1) {
            while (waits.size() < 11) {
                QTest::qWait(1000 * waits.last());
                r = kubectl(kc,
                            {QStringLiteral("-v=8"), QStringLiteral("get"), QStringLiteral("--raw"),
                             QStringLiteral("/api/v1/pods?watch=1&timeoutSeconds=600")});
                const QList<int> more = retryAfters(r.err);
                QVERIFY2(more.size() == 1, qPrintable(r.err.right(2000)));
                waits.append(more.first());
            }
        }
        QVERIFY2(waits.size() >= 2, qPrintable(r.err.right(2000)));
        QCOMPARE(waits.first(), 1);
        if (grows) {
            QVERIFY2(waits.last() >= 3, qPrintable(r.err.right(2000)));
            for (qsizetype i = 1; i < waits.size(); ++i)
                QVERIFY(waits[i] >= waits[i - 1]);
        } else {
            for (int w : waits)
                QCOMPARE(w, 1);
        }
        // The last answer, byte for byte: its details.retryAfterSeconds is the last header.
        QCOMPARE(lastBody(r.err), statusBody(QStringLiteral("storage is (re)initializing"),
                                             QStringLiteral("TooManyRequests"), 429, waits.last()));
        QVERIFY2(r.err.contains(QLatin1String(
                     "Error from server (TooManyRequests): storage is (re)initializing")),
                 qPrintable(r.err.right(800)));
    }

    // 1.30: the watch waits for the cache until its own timeout, then 503 (no Retry-After, so
    // kubectl does not retry); 1.26 would wait for the cache with no deadline at all. 1.31 with
    // ResilientWatchCacheInitialization turned off does the same as 1.30.
    void watchBlocksThen503_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("gates");
        QTest::newRow("1.30") << QStringLiteral("1.30") << QString();
        QTest::newRow("1.31, ResilientWatchCacheInitialization=false")
            << QStringLiteral("1.31") << QStringLiteral("ResilientWatchCacheInitialization=false");
    }
    void watchBlocksThen503() {
        QFETCH(QString, version);
        QFETCH(QString, gates);
        ServeProcess serve;
        QString kc;
        QVERIFY(startRestarted(serve, version, 1, &kc, gates));
        QElapsedTimer t;
        t.start();
        const Run r =
            kubectl(kc, {QStringLiteral("-v=8"), QStringLiteral("get"), QStringLiteral("--raw"),
                         QStringLiteral("/api/v1/pods?watch=1&timeoutSeconds=3")});
        QVERIFY2(r.exitCode != 0, qPrintable(r.out.left(500)));
        QVERIFY2(t.elapsed() >= 2500, qPrintable(QString::number(t.elapsed())));
        QVERIFY(retryAfters(r.err).isEmpty());
        QCOMPARE(lastBody(r.err), statusBody(QStringLiteral("context deadline exceeded"),
                                             QStringLiteral("ServiceUnavailable"), 503, 0));
        // An RV=0 list still answers, from etcd.
        const Run list = kubectl(kc, {QStringLiteral("get"), QStringLiteral("--raw"),
                                      QStringLiteral("/api/v1/pods?resourceVersion=0")});
        QVERIFY2(list.exitCode == 0, qPrintable(list.err));
        QVERIFY(list.out.contains(QLatin1String("\"kind\":\"PodList\"")));
    }

    // 1.26: ready.wait() has no context: the watch gets no answer at all, not even after its own
    // timeoutSeconds, until the cache is ready; kubectl gives up on its own deadline.
    void watchBlocksWithoutDeadlineOn126() {
        ServeProcess serve;
        QString kc;
        QVERIFY(startRestarted(serve, QStringLiteral("1.26"), 1, &kc));
        const Run r = kubectl(kc, {QStringLiteral("-v=8"), QStringLiteral("--request-timeout=5s"),
                                   QStringLiteral("get"), QStringLiteral("--raw"),
                                   QStringLiteral("/api/v1/pods?watch=1&timeoutSeconds=2")});
        QVERIFY2(r.exitCode != 0, qPrintable(r.out.left(500)));
        // No status line was ever received: the request timed out on the client's side.
        QVERIFY2(!r.err.contains(QLatin1String("Response Status: 503")) &&
                     !r.err.contains(QLatin1String("Response Status: 429")) &&
                     !r.err.contains(QLatin1String("Response Status: 200")),
                 qPrintable(r.err.right(1500)));
        QVERIFY2(r.err.contains(QLatin1String("Timeout")) ||
                     r.err.contains(QLatin1String("deadline exceeded")),
                 qPrintable(r.err.right(1500)));
    }

    // /readyz: failing until the caches are initialized with the 1.36 storage-readiness hook,
    // "ok" on 1.34 (the hook is off by default before 1.36).
    void readyzWaitsForCaches_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("ready");
        QTest::addColumn<QString>("gates");
        QTest::newRow("1.34") << QStringLiteral("1.34") << true << QString();
        QTest::newRow("1.36") << QStringLiteral("1.36") << false << QString();
        QTest::newRow("1.34, WatchCacheInitializationPostStartHook=true")
            << QStringLiteral("1.34") << false
            << QStringLiteral("WatchCacheInitializationPostStartHook=true");
    }
    void readyzWaitsForCaches() {
        QFETCH(QString, version);
        QFETCH(bool, ready);
        QFETCH(QString, gates);
        ServeProcess serve;
        QString kc;
        QVERIFY(startRestarted(serve, version, 1, &kc, gates));
        const Run r = kubectl(
            kc, {QStringLiteral("get"), QStringLiteral("--raw"), QStringLiteral("/readyz")});
        QCOMPARE(r.exitCode == 0, ready);
        if (ready)
            QCOMPARE(r.out.trimmed(), QStringLiteral("ok"));
        else
            QVERIFY2(r.err.contains(QLatin1String("readyz check failed")) ||
                         r.err.contains(QLatin1String("InternalError")),
                     qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestServeCacheInit)
#include "tst_servecacheinit.moc"

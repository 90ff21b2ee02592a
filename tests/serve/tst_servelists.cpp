// The real kubectl against `watchscope-cli serve` on the LIST paths of reference §3/§9: a
// 1.31 RV="" list from the cache when etcd is 3.5.13 (counted in
// apiserver_watch_cache_consistent_read_total), from etcd when it is 3.5.12; on 1.34 a paged
// list continued and an Exact list answered from the cache's snapshots, on 1.33 from etcd.
// Which store answered is read from serve's X-WatchScope-Served-From header (kubectl -v=8).

#include "support/Kubectl.h"
#include "support/KubectlTestBed.h"
#include "support/ServeProcess.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

using ws::test::ServeProcess;

class TestServeLists : public ws::test::KubectlTestBed {
    Q_OBJECT

private:
    QString kubeconfig(const QString& url) {
        return ws::test::writeServedKubeconfig(
            m_dir.filePath(QStringLiteral("kc-%1").arg(QUrl(url).port())), url);
    }

    struct Raw {
        int exitCode = -1;
        QJsonObject body;
        QString servedFrom; // the X-WatchScope-Served-From header kubectl logged at -v=8
        QString out, err;
    };
    Raw raw(const QString& config, const QString& path) {
        const ws::test::KubectlRun run = ws::test::runKubectl(
            m_kubectl, config,
            {QStringLiteral("-v=8"), QStringLiteral("get"), QStringLiteral("--raw"), path});
        Raw r;
        r.exitCode = run.exitCode;
        r.out = run.out;
        r.err = run.err;
        r.body = QJsonDocument::fromJson(r.out.toUtf8()).object();
        static const QRegularExpression header(QStringLiteral("X-Watchscope-Served-From: (\\S+)"),
                                               QRegularExpression::CaseInsensitiveOption);
        const auto m = header.match(r.err);
        if (m.hasMatch())
            r.servedFrom = m.captured(1);
        return r;
    }

    QString metrics(const QString& config) {
        return ws::test::runKubectl(
                   m_kubectl, config,
                   {QStringLiteral("get"), QStringLiteral("--raw"), QStringLiteral("/metrics")})
            .out;
    }

private slots:
    void initTestCase() { SET_UP_KUBECTL_TEST_BED(Tls::No); }

    // KEP-2340 on 1.31: the cache answers RV="" only with an etcd whose progress notifications
    // it trusts; the counter says so.
    void consistentListFromCache_data() {
        QTest::addColumn<QString>("etcd");
        QTest::addColumn<QString>("servedFrom");
        QTest::newRow("etcd 3.5.13: cache") << "3.5.13"
                                            << "cache";
        QTest::newRow("etcd 3.5.12: etcd") << "3.5.12"
                                           << "etcd";
    }
    void consistentListFromCache() {
        QFETCH(QString, etcd);
        QFETCH(QString, servedFrom);
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                              QStringLiteral("--server-version"), QStringLiteral("1.31"),
                              QStringLiteral("--etcd-version"), etcd},
                             &error),
                 qPrintable(error));
        const QString config = kubeconfig(serve.url());
        const Raw r = raw(config, QStringLiteral("/api/v1/configmaps"));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err.right(500)));
        QCOMPARE(r.servedFrom, servedFrom);
        QVERIFY(r.body.value(QLatin1String("items")).toArray().size() > 100);
        const QString text = metrics(config);
        // {resource} is the cacher's resourcePrefix before 1.34.
        const QString line =
            QStringLiteral("apiserver_watch_cache_consistent_read_total{resource=\"/configmaps\","
                           "success=\"true\",fallback=\"false\"} 1");
        QCOMPARE(text.contains(line), servedFrom == QLatin1String("cache"));
    }

    // ListFromCacheSnapshot: beta on 1.34, off on 1.33. A paged list's continue and an Exact
    // list at the first page's RV come from the snapshot on 1.34, from etcd on 1.33; the
    // objects are the same.
    void snapshotLists_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("servedFrom");
        QTest::newRow("1.33: etcd") << "1.33"
                                    << "etcd";
        QTest::newRow("1.34: cache snapshot") << "1.34"
                                              << "cache-snapshot";
    }
    void snapshotLists() {
        QFETCH(QString, version);
        QFETCH(QString, servedFrom);
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                              QStringLiteral("--server-version"), version,
                              QStringLiteral("--etcd-version"), QStringLiteral("3.5.13")},
                             &error),
                 qPrintable(error));
        const QString config = kubeconfig(serve.url());
        const Raw first = raw(config, QStringLiteral("/api/v1/configmaps?limit=50"));
        QVERIFY2(first.exitCode == 0, qPrintable(first.err.right(500)));
        const QJsonObject meta = first.body.value(QLatin1String("metadata")).toObject();
        const QString token = meta.value(QLatin1String("continue")).toString();
        const QString rv = meta.value(QLatin1String("resourceVersion")).toString();
        QVERIFY(!token.isEmpty());
        QCOMPARE(first.body.value(QLatin1String("items")).toArray().size(), 50);

        const Raw next = raw(config, QStringLiteral("/api/v1/configmaps?limit=50&continue=") +
                                         QString::fromLatin1(QUrl::toPercentEncoding(token)));
        QVERIFY2(next.exitCode == 0, qPrintable(next.err.right(500)));
        QCOMPARE(next.servedFrom, servedFrom);
        QCOMPARE(next.body.value(QLatin1String("metadata"))
                     .toObject()
                     .value(QLatin1String("resourceVersion"))
                     .toString(),
                 rv);
        QCOMPARE(next.body.value(QLatin1String("items")).toArray().size(), 50);

        const Raw exact = raw(config, QStringLiteral("/api/v1/configmaps?resourceVersion=%1&"
                                                     "resourceVersionMatch=Exact&limit=50")
                                          .arg(rv));
        QVERIFY2(exact.exitCode == 0, qPrintable(exact.err.right(500)));
        QCOMPARE(exact.servedFrom, servedFrom);
        // The same first page, whoever served it.
        QCOMPARE(exact.body.value(QLatin1String("items")),
                 first.body.value(QLatin1String("items")));
    }
};

QTEST_GUILESS_MAIN(TestServeLists)
#include "tst_servelists.moc"

// The official Kubernetes Python client (Debian's python3-kubernetes, run by /usr/bin/python3)
// against `watchscope-cli serve`: a list across namespaces, create + watch from the list's
// version that sees ADDED and DELETED, the 410 of a watch from a compacted version, the 504 of
// a list from a future one (which urllib3 does not retry), and list + watch over TLS with a
// client certificate or a bearer token. tests/serve/python_client.py does the calls and prints
// one JSON line; the assertions are here.

#include "support/ServeProcess.h"
#include "support/TestPki.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using ws::test::ServeProcess;
using ws::test::TestPki;

class TestServePython : public QObject {
    Q_OBJECT

private:
    QString m_python;
    QString m_script;
    QTemporaryDir m_dir;
    TestPki m_pki;
    QString m_tokenFile;     // the server's static token file
    QString m_goodToken;     // a file holding a token the server knows
    ServeProcess m_plain;    // healthy over HTTP, no authentication
    QElapsedTimer m_plainUp; // since m_plain printed its URL
    ServeProcess m_tls;      // healthy over HTTPS, client certificates and tokens

    bool writeFile(const QString& path, const QByteArray& bytes) {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    }

    // Runs the script; its one JSON line as an object, or an empty object with *error.
    QJsonObject runClient(const QStringList& args, QString* error, int timeoutMs = 90000) {
        QProcess p;
        p.setProgram(m_python);
        p.setArguments(QStringList{m_script} + args);
        p.start();
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
            *error = QStringLiteral("python_client.py timed out: %1")
                         .arg(QString::fromUtf8(p.readAllStandardError()).right(1500));
            return {};
        }
        const QByteArray out = p.readAllStandardOutput().trimmed();
        const QString err = QString::fromUtf8(p.readAllStandardError());
        if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
            *error = QStringLiteral("python_client.py exited %1: %2 %3")
                         .arg(p.exitCode())
                         .arg(QString::fromUtf8(out), err.right(1500));
            return {};
        }
        QJsonParseError pe{};
        const QJsonDocument doc = QJsonDocument::fromJson(out.split('\n').last(), &pe);
        if (!doc.isObject()) {
            *error = QStringLiteral("no JSON line from python_client.py (%1): %2 %3")
                         .arg(pe.errorString(), QString::fromUtf8(out), err.right(1500));
            return {};
        }
        return doc.object();
    }

    static QString dump(const QJsonValue& v) {
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    }

    // The list step: the healthy scenario's ~300 configmaps over 3 namespaces.
    static void checkList(const QJsonObject& r) {
        QVERIFY2(!r.contains(QLatin1String("errors")), qPrintable(dump(r)));
        const QJsonObject list = r.value(QLatin1String("list")).toObject();
        QVERIFY2(list.value(QLatin1String("count")).toInt() > 200, qPrintable(dump(r)));
        QVERIFY2(list.value(QLatin1String("namespaces")).toInt() >= 3, qPrintable(dump(r)));
        QVERIFY2(list.value(QLatin1String("resourceVersion")).toString().toLongLong() > 1,
                 qPrintable(dump(r)));
    }

    // The watch step: from the list's version, exactly ADDED then DELETED of the ConfigMap
    // the script made and removed, nothing from other namespaces.
    static void checkWatch(const QJsonObject& r, const QString& ns) {
        QVERIFY2(!r.contains(QLatin1String("errors")), qPrintable(dump(r)));
        const QJsonObject w = r.value(QLatin1String("watch")).toObject();
        QVERIFY2(w.value(QLatin1String("deleted")).toBool(), qPrintable(dump(w)));
        const QJsonArray events = w.value(QLatin1String("events")).toArray();
        QVERIFY2(events.size() == 2, qPrintable(dump(w)));
        const QJsonObject added = events.at(0).toObject();
        const QJsonObject deleted = events.at(1).toObject();
        QCOMPARE(added.value(QLatin1String("type")).toString(), QStringLiteral("ADDED"));
        QCOMPARE(deleted.value(QLatin1String("type")).toString(), QStringLiteral("DELETED"));
        for (const QJsonObject& e : {added, deleted}) {
            QCOMPARE(e.value(QLatin1String("name")).toString(), QStringLiteral("py-watched"));
            QCOMPARE(e.value(QLatin1String("namespace")).toString(), ns);
            QCOMPARE(e.value(QLatin1String("data")).toObject().value(QLatin1String("from")),
                     QJsonValue(QStringLiteral("python")));
        }
        const qint64 listRv = w.value(QLatin1String("listRv")).toString().toLongLong();
        const qint64 addedRv = added.value(QLatin1String("rv")).toString().toLongLong();
        QCOMPARE(addedRv, w.value(QLatin1String("createdRv")).toString().toLongLong());
        QVERIFY2(addedRv > listRv, qPrintable(dump(w)));
        QVERIFY2(deleted.value(QLatin1String("rv")).toString().toLongLong() > addedRv,
                 qPrintable(dump(w)));
        QCOMPARE(w.value(QLatin1String("listCount")).toInt(), 0);
        // The stream ended on w.stop() after DELETED, not on its 10 s timeout.
        QVERIFY2(w.value(QLatin1String("seconds")).toDouble() < 8, qPrintable(dump(w)));
    }

private slots:
    void initTestCase() {
        // Debian's client is installed for the system interpreter, not for a pyenv on PATH.
        m_python = QFile::exists(QStringLiteral("/usr/bin/python3"))
                       ? QStringLiteral("/usr/bin/python3")
                       : QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (m_python.isEmpty())
            QSKIP("python3 is not installed");
        QProcess probe;
        probe.start(m_python, {QStringLiteral("-c"), QStringLiteral("import kubernetes")});
        if (!probe.waitForFinished(30000) || probe.exitStatus() != QProcess::NormalExit ||
            probe.exitCode() != 0)
            QSKIP(qPrintable(
                m_python +
                QStringLiteral(": cannot import kubernetes (install python3-kubernetes)")));
        if (!TestPki::available())
            QSKIP("openssl is not installed");
        // ctest sets WS_SOURCE_DIR; run by hand, the build tree usually sits in the source tree.
        const QString relative = QStringLiteral("tests/serve/python_client.py");
        const QString appDir = QCoreApplication::applicationDirPath();
        for (const QString& candidate :
             {qEnvironmentVariable("WS_SOURCE_DIR") + QLatin1Char('/') + relative,
              appDir + QStringLiteral("/../../") + relative,
              appDir + QStringLiteral("/../") + relative}) {
            if (QFile::exists(candidate)) {
                m_script = candidate;
                break;
            }
        }
        QVERIFY2(!m_script.isEmpty(), "tests/serve/python_client.py not found: set WS_SOURCE_DIR");
        QVERIFY(m_dir.isValid());
        QString error;
        QVERIFY2(m_plain.start({QStringLiteral("--scenario"), QStringLiteral("healthy")}, &error),
                 qPrintable(error));
        m_plainUp.start();

        QVERIFY2(m_pki.create(&error), qPrintable(error));
        m_tokenFile = m_dir.filePath(QStringLiteral("tokens.csv"));
        m_goodToken = m_dir.filePath(QStringLiteral("good.token"));
        QVERIFY(writeFile(m_tokenFile, "py-token-5f1c2e,pyuser,uid-py,\"devs\"\n"));
        QVERIFY(writeFile(m_goodToken, "py-token-5f1c2e\n"));
        QVERIFY2(m_tls.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                              QStringLiteral("--tls-cert"), m_pki.serverCert,
                              QStringLiteral("--tls-key"), m_pki.serverKey,
                              QStringLiteral("--client-ca"), m_pki.caCert,
                              QStringLiteral("--token-file"), m_tokenFile},
                             &error),
                 qPrintable(error));
        QVERIFY(m_tls.url().startsWith(QLatin1String("https://")));
    }

    void listAndWatch() {
        QString error;
        const QJsonObject r = runClient({QStringLiteral("--server"), m_plain.url(),
                                         QStringLiteral("--steps"), QStringLiteral("list,watch")},
                                        &error);
        QVERIFY2(!r.isEmpty(), qPrintable(error));
        checkList(r);
        checkWatch(r, QStringLiteral("py"));
    }

    // resourceVersion far ahead: the cache waits its 3 s for it, then 504 Timeout. urllib3's
    // default Retry only honours Retry-After on 413/429/503, so the client makes one attempt
    // and raises ApiException(504): a second attempt would take the time past 6 s.
    void futureListIs504() {
        QString error;
        const QJsonObject r = runClient({QStringLiteral("--server"), m_plain.url(),
                                         QStringLiteral("--steps"), QStringLiteral("future")},
                                        &error);
        QVERIFY2(!r.isEmpty(), qPrintable(error));
        QVERIFY2(!r.contains(QLatin1String("errors")), qPrintable(dump(r)));
        const QJsonObject f = r.value(QLatin1String("future")).toObject();
        QCOMPARE(f.value(QLatin1String("exception")).toString(), QStringLiteral("ApiException"));
        QCOMPARE(f.value(QLatin1String("status")).toInt(), 504);
        QCOMPARE(f.value(QLatin1String("reason")).toString(), QStringLiteral("Gateway Timeout"));
        QCOMPARE(f.value(QLatin1String("bodyReason")).toString(), QStringLiteral("Timeout"));
        QCOMPARE(f.value(QLatin1String("bodyCode")).toInt(), 504);
        QVERIFY2(f.value(QLatin1String("bodyMessage"))
                     .toString()
                     .startsWith(QLatin1String("Timeout: Too large resource version: 99999999, "
                                               "current: ")),
                 qPrintable(dump(f)));
        QCOMPARE(f.value(QLatin1String("retryAfter")).toString(), QStringLiteral("1"));
        const double seconds = f.value(QLatin1String("seconds")).toDouble();
        QVERIFY2(seconds >= 2.5 && seconds < 5.5, qPrintable(dump(f)));
    }

    // A watch from resourceVersion 1, long gone from the watch cache. The server answers 200
    // with one ERROR event (410 Expired); Watch.stream() turns it into ApiException(410) and
    // yields nothing: at once with timeout_seconds (retries disabled), after one retry from
    // the same version without.
    void watchFromCompactedVersionIs410() {
        // RV 1 must have left the watch cache: healthy is past it from the start, but allow
        // the cache a few seconds as tst_servekubectl does (the earlier tests usually did).
        if (m_plainUp.elapsed() < 4000)
            QTest::qWait(static_cast<int>(4000 - m_plainUp.elapsed()));
        QString error;
        const QJsonObject r = runClient({QStringLiteral("--server"), m_plain.url(),
                                         QStringLiteral("--steps"), QStringLiteral("gone")},
                                        &error);
        QVERIFY2(!r.isEmpty(), qPrintable(error));
        QVERIFY2(!r.contains(QLatin1String("errors")), qPrintable(dump(r)));
        const QJsonObject gone = r.value(QLatin1String("gone")).toObject();
        for (const QString& key : {QStringLiteral("withTimeout"), QStringLiteral("withRetry")}) {
            const QJsonObject g = gone.value(key).toObject();
            QCOMPARE(g.value(QLatin1String("exception")).toString(),
                     QStringLiteral("ApiException"));
            QCOMPARE(g.value(QLatin1String("status")).toInt(), 410);
            // The client builds the reason from the ERROR event's Status: "reason: message".
            QVERIFY2(g.value(QLatin1String("reason"))
                         .toString()
                         .startsWith(QLatin1String("Expired: too old resource version: 1 (")),
                     qPrintable(dump(g)));
            QVERIFY2(g.value(QLatin1String("events")).toArray().isEmpty(), qPrintable(dump(g)));
        }
    }

    // A watch-list (sendInitialEvents=true, resourceVersionMatch=NotOlderThan) per server
    // version: with the WatchList gate off the exact 422 Invalid body of that version (1.19-1.26
    // complain about resourceVersionMatch, 1.27+ about sendInitialEvents), with it on (1.32,
    // 1.34+, or turned on) every object as ADDED and then the initial-events-end bookmark.
    void watchListPerVersion_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("gates");
        QTest::addColumn<QString>("body"); // empty: served
        const QString head = QStringLiteral(
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"ListOptions.meta.k8s.io \\\"\\\" is invalid: ");
        const QString gateOff =
            head +
            QStringLiteral(
                "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless "
                "the WatchList feature gate is enabled\",\"reason\":\"Invalid\",\"details\":{"
                "\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\",\"causes\":[{\"reason\":"
                "\"FieldValueForbidden\",\"message\":\"Forbidden: sendInitialEvents is "
                "forbidden for watch unless the WatchList feature gate is enabled\",\"field\":"
                "\"sendInitialEvents\"}]},\"code\":422}");
        const QString v126 =
            head +
            QStringLiteral(
                "[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch, "
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless "
                "resourceVersion is provided]\",\"reason\":\"Invalid\",\"details\":{\"group\":"
                "\"meta.k8s.io\",\"kind\":\"ListOptions\",\"causes\":[{\"reason\":"
                "\"FieldValueForbidden\",\"message\":\"Forbidden: resourceVersionMatch is "
                "forbidden for watch\",\"field\":\"resourceVersionMatch\"},{\"reason\":"
                "\"FieldValueForbidden\",\"message\":\"Forbidden: resourceVersionMatch is "
                "forbidden unless resourceVersion is provided\",\"field\":"
                "\"resourceVersionMatch\"}]},\"code\":422}");
        QTest::newRow("1.26") << "1.26"
                              << "" << v126;
        QTest::newRow("1.27") << "1.27"
                              << "" << gateOff;
        QTest::newRow("1.31 off") << "1.31"
                                  << "" << gateOff;
        QTest::newRow("1.31 WatchList=true") << "1.31"
                                             << "WatchList=true"
                                             << "";
        QTest::newRow("1.32 on") << "1.32"
                                 << ""
                                 << "";
        QTest::newRow("1.33 off") << "1.33"
                                  << "" << gateOff;
        QTest::newRow("1.34 on") << "1.34"
                                 << ""
                                 << "";
        QTest::newRow("1.34 WatchList=false") << "1.34"
                                              << "WatchList=false" << gateOff;
    }
    void watchListPerVersion() {
        QFETCH(QString, version);
        QFETCH(QString, gates);
        QFETCH(QString, body);
        ServeProcess serve;
        QString error;
        // From 1.31 a watch-list needs an etcd whose progress answers the cacher trusts
        // (3.4.31+ / 3.5.13+; healthy's own is 3.4.23): tst_watchliststorage covers the refusal.
        QStringList args{QStringLiteral("--scenario"),       QStringLiteral("healthy"),
                         QStringLiteral("--server-version"), version,
                         QStringLiteral("--etcd-version"),   QStringLiteral("3.5.13")};
        if (!gates.isEmpty())
            args << QStringLiteral("--feature-gates") << gates;
        QVERIFY2(serve.start(args, &error), qPrintable(error));
        const QJsonObject r = runClient({QStringLiteral("--server"), serve.url(),
                                         QStringLiteral("--steps"), QStringLiteral("watchlist")},
                                        &error);
        QVERIFY2(!r.isEmpty(), qPrintable(error));
        QVERIFY2(!r.contains(QLatin1String("errors")), qPrintable(dump(r)));
        const QJsonObject w = r.value(QLatin1String("watchlist")).toObject();
        if (body.isEmpty()) {
            QVERIFY2(w.value(QLatin1String("exception")).isNull(), qPrintable(dump(w)));
            QVERIFY2(w.value(QLatin1String("initialEventsEnd")).toBool(), qPrintable(dump(w)));
            // healthy's 300 configmaps (creates and deletes balance around it).
            const int added = w.value(QLatin1String("added")).toInt();
            QVERIFY2(added >= 250 && added <= 350, qPrintable(dump(w)));
            return;
        }
        QCOMPARE(w.value(QLatin1String("exception")).toString(), QStringLiteral("ApiException"));
        QCOMPARE(w.value(QLatin1String("status")).toInt(), 422);
        QCOMPARE(w.value(QLatin1String("reason")).toString(),
                 QStringLiteral("Unprocessable Entity"));
        QCOMPARE(w.value(QLatin1String("bodyReason")).toString(), QStringLiteral("Invalid"));
        QCOMPARE(w.value(QLatin1String("body")).toString().trimmed(), body);
    }

    void tlsListAndWatch_data() {
        QTest::addColumn<QString>("credential");
        QTest::addColumn<QString>("ns");
        QTest::newRow("client certificate (RSA)")
            << QStringLiteral("cert") << QStringLiteral("py-cert");
        QTest::newRow("client certificate (EC)")
            << QStringLiteral("ec-cert") << QStringLiteral("py-ec");
        QTest::newRow("bearer token") << QStringLiteral("token") << QStringLiteral("py-token");
    }
    void tlsListAndWatch() {
        QFETCH(QString, credential);
        QFETCH(QString, ns);
        QStringList args{QStringLiteral("--server"),    m_tls.url(),
                         QStringLiteral("--ca"),        m_pki.caCert,
                         QStringLiteral("--namespace"), ns,
                         QStringLiteral("--steps"),     QStringLiteral("list,watch")};
        if (credential == QLatin1String("cert"))
            args << QStringLiteral("--cert") << m_pki.clientCert << QStringLiteral("--key")
                 << m_pki.clientKey;
        else if (credential == QLatin1String("ec-cert"))
            args << QStringLiteral("--cert") << m_pki.clientEcCert << QStringLiteral("--key")
                 << m_pki.clientEcKey;
        else
            args << QStringLiteral("--token-file") << m_goodToken;
        QString error;
        const QJsonObject r = runClient(args, &error);
        QVERIFY2(!r.isEmpty(), qPrintable(error));
        checkList(r);
        checkWatch(r, ns);
    }

    // Without a credential the TLS server answers 401 with an Unauthorized Status.
    void tlsWithoutCredentialsIs401() {
        QString error;
        const QJsonObject r =
            runClient({QStringLiteral("--server"), m_tls.url(), QStringLiteral("--ca"),
                       m_pki.caCert, QStringLiteral("--steps"), QStringLiteral("list")},
                      &error);
        QVERIFY2(!r.isEmpty(), qPrintable(error));
        const QJsonObject e =
            r.value(QLatin1String("errors")).toObject().value(QLatin1String("list")).toObject();
        QCOMPARE(e.value(QLatin1String("status")).toInt(), 401);
        QCOMPARE(e.value(QLatin1String("bodyReason")).toString(), QStringLiteral("Unauthorized"));
        QVERIFY(!r.contains(QLatin1String("list")));
    }

    void cleanupTestCase() {
        m_plain.stop();
        m_tls.stop();
    }
};

QTEST_GUILESS_MAIN(TestServePython)
#include "tst_servepython.moc"

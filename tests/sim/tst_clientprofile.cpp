#include "kube/ApiStatus.h"
#include "kube/ClientProfile.h"
#include "kube/ServerProfile.h"

#include <QTest>

using namespace ws;

class TestClientProfile : public QObject {
    Q_OBJECT
private slots:
    // reference §6: relist RV is "" after Expired/TooLarge, "0" when never synced, else the last
    // synced RV; client-go before 0.18 always listed with "0".
    void relistResourceVersion_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<qint64>("lastSync");
        QTest::addColumn<bool>("unavailable");
        QTest::addColumn<QString>("expected"); // "", "0" or a number
        QTest::newRow("0.16 never synced") << "0.16" << qint64(0) << false << "0";
        QTest::newRow("0.16 synced") << "0.16" << qint64(500) << false << "0";
        QTest::newRow("0.16 after 410") << "0.16" << qint64(500) << true << "0";
        QTest::newRow("0.18.0 never synced") << "0.18.0" << qint64(0) << false << "0";
        QTest::newRow("0.18.0 synced") << "0.18.0" << qint64(500) << false << "500";
        QTest::newRow("0.18.0 after 410") << "0.18.0" << qint64(500) << true << "";
        QTest::newRow("0.22 synced") << "0.22" << qint64(7) << false << "7";
        QTest::newRow("current after 504") << "current" << qint64(900) << true << "";
    }
    void relistResourceVersion() {
        QFETCH(QString, profile);
        QFETCH(qint64, lastSync);
        QFETCH(bool, unavailable);
        QFETCH(QString, expected);
        const auto p = ClientProfile::fromName(profile, nullptr);
        QVERIFY(p);
        const auto rv = p->relistResourceVersion(lastSync, unavailable);
        const QString got = rv.empty ? QString() : QString::number(rv.rv);
        QCOMPARE(got, expected);
        QCOMPARE(rv.limit, rv.empty ? 500 : 0);
    }

    // seed 002: which client recognises which server's 504 body as "too large RV".
    void recognisesTooLarge_data() {
        QTest::addColumn<QString>("client");
        QTest::addColumn<QString>("server");
        QTest::addColumn<bool>("recognised");
        QTest::newRow("0.18.6 vs 1.18") << "0.18.6"
                                        << "1.18" << false;
        QTest::newRow("0.18.9 vs 1.16") << "0.18.9"
                                        << "1.16" << false;
        QTest::newRow("0.18.9 vs 1.17") << "0.18.9"
                                        << "1.17" << true;
        QTest::newRow("0.18.9 vs 1.18.5 (message-only cause)") << "0.18.9"
                                                               << "1.18.5" << true;
        QTest::newRow("0.18.9 vs 1.18.6 (reason cause)") << "0.18.9"
                                                         << "1.18.6" << true;
        QTest::newRow("0.18.6 vs 1.18.6") << "0.18.6"
                                          << "1.18.6" << false;
        QTest::newRow("0.20 vs 1.16") << "0.20"
                                      << "1.16" << false;
        QTest::newRow("0.22 vs 1.20") << "0.22"
                                      << "1.20" << true;
        QTest::newRow("current vs 1.16") << "current"
                                         << "1.16" << true;
    }
    void recognisesTooLarge() {
        QFETCH(QString, client);
        QFETCH(QString, server);
        QFETCH(bool, recognised);
        const auto c = ClientProfile::fromName(client, nullptr);
        const auto s = ServerProfile::fromVersion(server, nullptr);
        QVERIFY(c && s);
        QCOMPARE(c->isTooLargeResourceVersion(ApiStatus::tooLarge(*s, 100, 50)), recognised);
    }

    void badNames_data() {
        QTest::addColumn<QString>("client");
        QTest::newRow("unknown") << "0.99";
        QTest::newRow("empty") << "";
    }
    void badNames() {
        QFETCH(QString, client);
        QString error;
        QVERIFY(!ClientProfile::fromName(client, &error));
        QVERIFY(error.contains(QStringLiteral("unknown client-go profile")));
        QVERIFY(!ServerProfile::fromVersion(QStringLiteral("2.0"), &error));
        QVERIFY(error.contains(QStringLiteral("bad server version")));
    }

    // What the window's What If offers: each one a version the profiles accept, oldest first,
    // and each patch release listed one where a modelled behaviour changes.
    void knownVersions() {
        const QStringList versions = ServerProfile::knownVersions();
        QCOMPARE(versions.first(), QStringLiteral("1.16"));
        QCOMPARE(versions.last(), QStringLiteral("1.36"));
        std::optional<ServerProfile> previous;
        for (const QString& v : versions) {
            QString error;
            const auto p = ServerProfile::fromVersion(v, &error);
            QVERIFY2(p, qPrintable(error));
            QCOMPARE(versions.count(v), 1);
            if (previous) {
                QVERIFY2(p->minor > previous->minor ||
                             (p->minor == previous->minor && p->patch > previous->patch),
                         qPrintable(v));
                if (p->minor == previous->minor) // a patch release: something else than before
                    QVERIFY2(p->separateCacheWatchRpc != previous->separateCacheWatchRpc ||
                                 p->watchWithoutRvFromEtcd() != previous->watchWithoutRvFromEtcd(),
                             qPrintable(v));
            }
            previous = p;
        }
        for (const QString& name : ClientProfile::knownNames())
            QVERIFY2(ClientProfile::fromName(name, nullptr), qPrintable(name));
    }
};

QTEST_GUILESS_MAIN(TestClientProfile)
#include "tst_clientprofile.moc"

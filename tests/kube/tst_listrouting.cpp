// The LIST delegation rules of kube/ListRouting.h on each side of every change, the continue
// token's wire form, and the storage prefixes the 1.31-1.33 consistent-read metric is labelled
// with.

#include "kube/ContinueToken.h"
#include "kube/FeatureGates.h"
#include "kube/ListRouting.h"
#include "kube/ResourceCatalog.h"

#include <QTest>

using namespace ws;

class TestListRouting : public QObject {
    Q_OBJECT
private slots:
    // storage/feature/feature_support_checker.go (v1.31.0): < 3.4.31, or 3.5.0-3.5.12, no.
    void requestWatchProgress_data() {
        QTest::addColumn<QString>("etcd");
        QTest::addColumn<int>("supported"); // Tri
        QTest::newRow("3.3.27") << "3.3.27" << int(Tri::No);
        QTest::newRow("3.4.30") << "3.4.30" << int(Tri::No);
        QTest::newRow("3.4.31") << "3.4.31" << int(Tri::Yes);
        QTest::newRow("3.5.0") << "3.5.0" << int(Tri::No);
        QTest::newRow("3.5.12") << "3.5.12" << int(Tri::No);
        QTest::newRow("3.5.13") << "3.5.13" << int(Tri::Yes);
        QTest::newRow("3.6.0") << "3.6.0" << int(Tri::Yes);
        QTest::newRow("unknown") << "" << int(Tri::Unknown);
    }
    void requestWatchProgress() {
        QFETCH(QString, etcd);
        QFETCH(int, supported);
        QCOMPARE(int(EtcdFacts(etcd).supportsRequestWatchProgress()), supported);
    }

    void consistentReadSupported_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("gate"); // ConsistentListFromCache override, or empty
        QTest::addColumn<QString>("etcd");
        QTest::addColumn<bool>("supported");
        QTest::newRow("1.27 gate forced on: no gate yet") << "1.27"
                                                          << "true"
                                                          << "3.5.13" << false;
        QTest::newRow("1.30 default off") << "1.30"
                                          << ""
                                          << "3.5.13" << false;
        QTest::newRow("1.30 on, old etcd: unchecked") << "1.30"
                                                      << "true"
                                                      << "3.4.23" << true;
        QTest::newRow("1.31, 3.4.23") << "1.31"
                                      << ""
                                      << "3.4.23" << false;
        QTest::newRow("1.31, 3.5.13") << "1.31"
                                      << ""
                                      << "3.5.13" << true;
        QTest::newRow("1.31, unknown etcd") << "1.31"
                                            << ""
                                            << "" << false;
        QTest::newRow("1.31 off, 3.5.13") << "1.31"
                                          << "false"
                                          << "3.5.13" << false;
        QTest::newRow("1.36, 3.6.1") << "1.36"
                                     << ""
                                     << "3.6.1" << true;
    }
    void consistentReadSupported() {
        QFETCH(QString, version);
        QFETCH(QString, gate);
        QFETCH(QString, etcd);
        QFETCH(bool, supported);
        auto p = ServerProfile::fromVersion(version, nullptr);
        QVERIFY(p);
        if (!gate.isEmpty())
            FeatureGates::apply(
                *p, {{QStringLiteral("ConsistentListFromCache"), gate == QLatin1String("true")}});
        QCOMPARE(cacher::consistentReadSupported(*p, EtcdFacts(etcd)), supported);
    }

    void listsFromSnapshots_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("snapshots");
        QTest::newRow("1.32") << "1.32" << false;
        QTest::newRow("1.33 (alpha, off)") << "1.33" << false;
        QTest::newRow("1.34 (beta, on)") << "1.34" << true;
        QTest::newRow("1.36") << "1.36" << true;
    }
    void listsFromSnapshots() {
        QFETCH(QString, version);
        QFETCH(bool, snapshots);
        const auto p = ServerProfile::fromVersion(version, nullptr);
        QCOMPARE(cacher::listsFromSnapshots(*p), snapshots);
        auto on = *p;
        on.listFromCacheSnapshot = true;
        QCOMPARE(cacher::listsFromSnapshots(on), p->minor >= 33); // the gate exists from 1.33
    }

    // base64url (no padding) of {"v":"meta.k8s.io/v1","rv":N,"start":"<key>\u0000"}.
    void continueToken() {
        const QString token = ContinueToken::after(42, "default/cm-3");
        QCOMPARE(
            QByteArray::fromBase64(token.toLatin1(), QByteArray::Base64UrlEncoding),
            QByteArray("{\"v\":\"meta.k8s.io/v1\",\"rv\":42,\"start\":\"default/cm-3\\u0000\"}"));
        QString why;
        const auto t = ContinueToken::decode(token, &why);
        QVERIFY(t);
        QCOMPARE(t->rv, 42);
        QCOMPARE(t->start, std::string("default/cm-3\0", 13));
    }

    void badContinueToken_data() {
        QTest::addColumn<QString>("token");
        QTest::addColumn<QString>("why");
        const auto b64 = [](const char* json) {
            return QString::fromLatin1(QByteArray(json).toBase64(QByteArray::Base64UrlEncoding |
                                                                 QByteArray::OmitTrailingEquals));
        };
        QTest::newRow("not base64") << "%%%"
                                    << "illegal base64 data";
        QTest::newRow("other version") << b64("{\"v\":\"v1alpha1\",\"rv\":3,\"start\":\"a\"}")
                                       << "server does not recognize this encoded version";
        QTest::newRow("rv 0") << b64("{\"v\":\"meta.k8s.io/v1\",\"rv\":0,\"start\":\"a\"}")
                              << "incorrect encoded start resourceVersion (version meta.k8s.io/v1)";
        QTest::newRow("no start") << b64("{\"v\":\"meta.k8s.io/v1\",\"rv\":3,\"start\":\"\"}")
                                  << "encoded start key empty (version meta.k8s.io/v1)";
    }
    void badContinueToken() {
        QFETCH(QString, token);
        QFETCH(QString, why);
        QString got;
        QVERIFY(!ContinueToken::decode(token, &got));
        QCOMPARE(got, why);
    }

    void storagePrefix_data() {
        QTest::addColumn<QString>("resource");
        QTest::addColumn<QString>("prefix");
        QTest::newRow("pods") << "pods"
                              << "/pods";
        QTest::newRow("services") << "services"
                                  << "/services/specs";
        QTest::newRow("nodes") << "nodes"
                               << "/minions";
        QTest::newRow("leases") << "leases.coordination.k8s.io"
                                << "/leases";
        QTest::newRow("deployments") << "deployments.apps"
                                     << "/deployments";
    }
    void storagePrefix() {
        QFETCH(QString, resource);
        QFETCH(QString, prefix);
        QCOMPARE(ResourceCatalog::lookup(resource).storagePrefix(), prefix);
    }
};

QTEST_GUILESS_MAIN(TestListRouting)
#include "tst_listrouting.moc"

// serve's legacy discovery documents (serve/DiscoveryDocuments.h): the entries the real
// kube-apiserver 1.33 and 1.35 gave for the same resources (tests/real/tst_realserve compares
// them live), and group documents that name their own version.
#include "kube/ResourceCatalog.h"
#include "serve/DiscoveryDocuments.h"
#include "support/ProfileByName.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ws;
using ws::test::serverProfile;

class TestDiscoveryDocuments : public QObject {
    Q_OBJECT
private slots:
    // Read from kube-apiserver 1.35.4's /api/v1 (storageVersionHash is the first 8 bytes of
    // SHA-256 over "<group>/<version>/<kind>").
    void entriesAsTheRealApiserverWritesThem() {
        const DiscoveryDocuments docs({ResourceCatalog::lookup(QStringLiteral("configmaps")),
                                       ResourceCatalog::lookup(QStringLiteral("pods"))},
                                      serverProfile("1.35"), "127.0.0.1:6443");
        bool found = false;
        const QJsonArray resources =
            QJsonDocument::fromJson(QByteArray::fromStdString(docs.resourceList("v1", &found)))
                .object()
                .value(QStringLiteral("resources"))
                .toArray();
        QVERIFY(found);
        QCOMPARE(resources.size(), 2);
        const QJsonObject cm = resources[0].toObject(), pod = resources[1].toObject();
        QCOMPARE(cm.value(QStringLiteral("storageVersionHash")).toString(),
                 QStringLiteral("qFsyl6wFWjQ="));
        QVERIFY(!cm.contains(QStringLiteral("categories")));
        QCOMPARE(pod.value(QStringLiteral("storageVersionHash")).toString(),
                 QStringLiteral("xPOwRZ+Yhw8="));
        QCOMPARE(pod.value(QStringLiteral("categories")).toArray(),
                 QJsonArray{QStringLiteral("all")});
        QCOMPARE(pod.value(QStringLiteral("shortNames")).toArray(),
                 QJsonArray{QStringLiteral("po")});
    }

    // AggregatedDiscoveryEndpoint: v2beta1 1.27-1.32, v2 from 1.30; what kubectl 1.30+ sends
    // gets the first range the version serves, anything else the legacy document.
    void aggregatedVersionPerRelease_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("accept");
        QTest::addColumn<QString>("served");
        const QString kubectl = QStringLiteral(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
            "application/json");
        const QString beta = QStringLiteral(
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
        QTest::newRow("1.26 legacy") << "1.26" << kubectl << "";
        QTest::newRow("1.29 v2beta1") << "1.29" << kubectl << "v2beta1";
        QTest::newRow("1.30 v2") << "1.30" << kubectl << "v2";
        QTest::newRow("1.32 still v2beta1") << "1.32" << beta << "v2beta1";
        QTest::newRow("1.33 no v2beta1") << "1.33" << beta << "";
        QTest::newRow("1.35 v2") << "1.35" << kubectl << "v2";
        QTest::newRow("plain json") << "1.35"
                                    << "application/json"
                                    << "";
    }
    void aggregatedVersionPerRelease() {
        QFETCH(QString, version);
        QFETCH(QString, accept);
        QFETCH(QString, served);
        const DiscoveryDocuments docs({ResourceCatalog::lookup(QStringLiteral("configmaps"))},
                                      serverProfile(qPrintable(version)), "127.0.0.1:6443");
        QCOMPARE(QString::fromStdString(docs.aggregatedVersionFor(accept.toStdString())), served);
    }

    // The core group's item as 1.33 and 1.35 wrote it (creationTimestamp null up to 1.33).
    void aggregatedCoreGroup_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("metadata");
        QTest::newRow("1.33") << "1.33"
                              << R"({"creationTimestamp":null})";
        QTest::newRow("1.35") << "1.35"
                              << "{}";
    }
    void aggregatedCoreGroup() {
        QFETCH(QString, version);
        QFETCH(QString, metadata);
        const DiscoveryDocuments docs({ResourceCatalog::lookup(QStringLiteral("pods"))},
                                      serverProfile(qPrintable(version)), "127.0.0.1:6443");
        const QJsonObject list =
            QJsonDocument::fromJson(QByteArray::fromStdString(docs.aggregated(true, "v2")))
                .object();
        QCOMPARE(list.value(QStringLiteral("apiVersion")).toString(),
                 QStringLiteral("apidiscovery.k8s.io/v2"));
        const QJsonObject core = list.value(QStringLiteral("items")).toArray().at(0).toObject();
        QCOMPARE(QString::fromUtf8(QJsonDocument(core.value(QStringLiteral("metadata")).toObject())
                                       .toJson(QJsonDocument::Compact)),
                 metadata);
        const QJsonObject v1 = core.value(QStringLiteral("versions")).toArray().at(0).toObject();
        QCOMPARE(v1.value(QStringLiteral("freshness")).toString(), QStringLiteral("Current"));
        const QJsonObject pod = v1.value(QStringLiteral("resources")).toArray().at(0).toObject();
        QCOMPARE(pod.value(QStringLiteral("scope")).toString(), QStringLiteral("Namespaced"));
        QCOMPARE(
            QString::fromUtf8(QJsonDocument(pod.value(QStringLiteral("responseKind")).toObject())
                                  .toJson(QJsonDocument::Compact)),
            QStringLiteral(R"({"group":"","kind":"Pod","version":""})"));
        QCOMPARE(pod.value(QStringLiteral("categories")).toArray(),
                 QJsonArray{QStringLiteral("all")});
    }

    void groupDocumentNamesItsVersion() {
        ResourceInfo widgets;
        widgets.plural = QStringLiteral("widgets");
        widgets.singular = QStringLiteral("widget");
        widgets.kind = QStringLiteral("Widget");
        widgets.group = QStringLiteral("example.io");
        widgets.version = QStringLiteral("v1beta1");
        const DiscoveryDocuments docs({widgets}, serverProfile("1.35"), "127.0.0.1:6443");
        bool found = false;
        const QJsonObject group =
            QJsonDocument::fromJson(QByteArray::fromStdString(docs.group("example.io", &found)))
                .object();
        QVERIFY(found);
        const QJsonObject preferred = group.value(QStringLiteral("preferredVersion")).toObject();
        QCOMPARE(preferred.value(QStringLiteral("groupVersion")).toString(),
                 QStringLiteral("example.io/v1beta1"));
        QCOMPARE(preferred.value(QStringLiteral("version")).toString(), QStringLiteral("v1beta1"));
    }
};

QTEST_GUILESS_MAIN(TestDiscoveryDocuments)
#include "tst_discoverydocuments.moc"

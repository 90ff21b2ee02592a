// serve's field selectors: what each resource accepts, and an unknown field refused in that
// resource's words, as the real kube-apiserver words it (tests/real/tst_realserve compares the
// configmaps answer with kube-apiserver 1.33 and 1.35).
#include "serve/FieldSelector.h"

#include <QTest>

using namespace ws;

class TestFieldSelector : public QObject {
    Q_OBJECT

private slots:
    void metadataFieldsOnEveryResource() {
        QString error;
        for (const char* resource : {"configmaps", "pods", "leases"}) {
            const auto s = FieldSelector::parse(
                QStringLiteral("metadata.name=a,metadata.namespace!=kube-system"),
                QLatin1String(resource), &error);
            QVERIFY2(s, qPrintable(error));
            QVERIFY(s->matches(QStringLiteral("default"), QStringLiteral("a")));
            QVERIFY(!s->matches(QStringLiteral("kube-system"), QStringLiteral("a")));
        }
    }

    void nodeNameOnPodsOnly() {
        QString error;
        const auto pods = FieldSelector::parse(QStringLiteral("spec.nodeName=node-3"),
                                               QStringLiteral("pods"), &error);
        QVERIFY2(pods, qPrintable(error));
        QCOMPARE(pods->selectorGroup, 3);
        QVERIFY(!FieldSelector::parse(QStringLiteral("spec.nodeName=node-3"),
                                      QStringLiteral("configmaps"), &error));
        QCOMPARE(error, QStringLiteral("\"spec.nodeName\" is not a known field selector: only "
                                       "\"metadata.name\", \"metadata.namespace\""));
    }

    void unknownFieldInTheResourcesWords() {
        QString error;
        QVERIFY(
            !FieldSelector::parse(QStringLiteral("spec.bogus=1"), QStringLiteral("pods"), &error));
        QCOMPARE(error, QStringLiteral("field label not supported: spec.bogus"));
        QVERIFY(!FieldSelector::parse(QStringLiteral("spec.bogus=1"), QStringLiteral("leases"),
                                      &error));
        QCOMPARE(error, QStringLiteral("\"spec.bogus\" is not a known field selector: only "
                                       "\"metadata.name\", \"metadata.namespace\""));
    }
};

QTEST_APPLESS_MAIN(TestFieldSelector)
#include "tst_fieldselector.moc"

// serve's JSON watch events (serve/ObjectJson.h) as the real kube-apiserver writes them: the
// bookmark of each version byte for byte (tests/real/tst_realserve compares it with the real
// 1.33 and 1.35 too).
#include "kube/ResourceCatalog.h"
#include "serve/ObjectJson.h"
#include "support/ProfileByName.h"

#include <QTest>

using namespace ws;
using ws::test::serverProfile;

class TestObjectJson : public QObject {
    Q_OBJECT
private slots:
    void bookmarkPerVersion_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("initialEventsEnd");
        QTest::addColumn<QString>("line");
        const QString old = QStringLiteral(
            R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":)"
            R"({"resourceVersion":"625","creationTimestamp":null%1}}})");
        const QString omitzero = QStringLiteral(
            R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":)"
            R"({"resourceVersion":"625"%1}}})");
        const QString end =
            QStringLiteral(R"(,"annotations":{"k8s.io/initial-events-end":"true"})");
        QTest::newRow("1.33 writes a null creationTimestamp")
            << "1.33" << false << old.arg(QString());
        QTest::newRow("1.33 initial-events-end") << "1.33" << true << old.arg(end);
        QTest::newRow("1.34 leaves it out (omitzero)")
            << "1.34" << false << omitzero.arg(QString());
        QTest::newRow("1.35 initial-events-end") << "1.35" << true << omitzero.arg(end);
    }
    void bookmarkPerVersion() {
        QFETCH(QString, version);
        QFETCH(bool, initialEventsEnd);
        QFETCH(QString, line);
        std::string out;
        ObjectJson::appendBookmark(
            out, ResourceCatalog::lookup(QStringLiteral("configmaps")), 625, initialEventsEnd,
            serverProfile(qPrintable(version)).writesZeroCreationTimestamp());
        QCOMPARE(QString::fromStdString(out), line + u'\n');
    }
};

QTEST_GUILESS_MAIN(TestObjectJson)
#include "tst_objectjson.moc"

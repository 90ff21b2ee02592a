// The detail pane shows the selected anomaly's explanation under the session's versions, and
// explains it again when the versions become known (a cluster's discovery, etcd's Status).
#include "widgets/AnomalyDetailPane.h"

#include <QTest>

using namespace ws;

class TestAnomalyDetailPane : public QObject {
    Q_OBJECT
private slots:
    void explainsUnderTheSessionsVersions() {
        AnomalyDetailPane pane;
        Anomaly a;
        a.kind = AnomalyKind::PrevKvNil;
        a.source = AnomalySource::Apiserver;
        a.watcher = QStringLiteral("node-agent-8");
        a.resource = QStringLiteral("pods");
        a.key = QStringLiteral("/registry/pods/ns-2/pod-167");
        a.rv = 514;
        a.message = QStringLiteral("500 InternalError: Internal error occurred: etcd event "
                                   "received with PrevKv=nil (key=\"/registry/pods/ns-2/pod-167\", "
                                   "modRevision=514, type=DELETE)");
        pane.showAnomaly(a, 3);
        QCOMPARE(pane.heading(), QStringLiteral("Anomaly #3: prevkv-nil"));
        // Versions unknown: the kind's meaning, and what depends on the versions.
        QVERIFY(pane.text().contains(QLatin1String("Meaning: A non-create etcd event")));
        QVERIFY(pane.text().contains(QLatin1String("Versions: unknown")));
        QVERIFY2(pane.text().contains(QLatin1String("Why: ")), qPrintable(pane.text()));
        QVERIFY(pane.explanation().why.contains(QLatin1String("before 1.25 it relists")));
        QVERIFY(pane.text().contains(QLatin1String("- kube-apiserver: version unknown")));

        VersionContext v;
        v.kubeApiserver = QStringLiteral("1.27.0");
        v.etcd = QStringLiteral("3.4.23");
        v.clientGo = QStringLiteral("current");
        pane.markDropped();
        pane.setVersions(v);
        QCOMPARE(pane.versions(), v);
        QVERIFY2(pane.heading().contains(QLatin1String("no longer in the list")),
                 qPrintable(pane.heading()));
        QVERIFY(pane.text().contains(QLatin1String("Versions: kube-apiserver 1.27.0")));
        QVERIFY(pane.text().contains(QLatin1String(
            "- etcd 3.4.23: watch starvation bug #17529 (fixed in 3.4.31 / 3.5.13)")));
        QVERIFY(pane.text().contains(QLatin1String("Fix: Upgrade etcd 3.4.23 to 3.4.31+")));
        QVERIFY(pane.text().contains(QLatin1String("- kubernetes PR #111387")));
        QVERIFY(!pane.explanation().why.contains(QLatin1String("before 1.25 it relists")));

        // A pre-1.25 server relists: another explanation of the same anomaly.
        v.kubeApiserver = QStringLiteral("1.24");
        pane.setVersions(v);
        QVERIFY(pane.explanation().why.contains(QLatin1String("no stale object is expected")));

        pane.clear();
        QVERIFY(pane.text().isEmpty());
        QVERIFY(pane.explanation().isEmpty());
        pane.setVersions(VersionContext{}); // nothing shown: nothing to explain
        QVERIFY(pane.text().isEmpty());
    }
};

QTEST_MAIN(TestAnomalyDetailPane)
#include "tst_anomalydetailpane.moc"

// The window's Connect dialog against the real kube-apiserver of tests/peers/: the kubeconfig's
// context, discovery on a worker thread (the real server's version and resources offered), and
// Watch moving the window to the cluster, whose informers sync to the objects kubectl lists. With
// WS_SCREENSHOT_DIR set (under Xvfb), the dialog and the window are saved there (connect-real.png,
// window-real.png).

#include "../ui/DocsScreenshot.h"
#include "engine/Session.h"
#include "models/WatcherTableModel.h"
#include "session/RecentConnections.h"
#include "session/SessionSwitcher.h"
#include "sources/SourceFactory.h"
#include "support/RealCluster.h"
#include "widgets/ConnectDialog.h"
#include "widgets/MainWindow.h"

#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

using namespace ws;
using ws::test::RealCluster;
using User = ws::test::RealCluster::User;

class TestRealConnect : public QObject {
    Q_OBJECT

    std::unique_ptr<RealCluster> m_cluster;

    static bool connectAndWait(ConnectDialog& d) {
        QSignalSpy done(&d, &ConnectDialog::probeFinished);
        QTest::mouseClick(d.connectButton(), Qt::LeftButton);
        return done.wait(60000) && done.constFirst().constFirst().toBool();
    }
    static QStringList offered(const ConnectDialog& d) {
        QStringList out;
        for (int i = 0; i < d.resourceList()->count(); ++i)
            out << d.resourceList()->item(i)->data(Qt::UserRole + 1).toString();
        return out;
    }

private slots:
    void initTestCase() {
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(QDir::tempPath() + "/ws-realconnect-config"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        RecentConnections().clear();
        m_cluster = std::make_unique<RealCluster>(ws::test::RealClusterOptions::fromEnvironment());
        START_REAL_CLUSTER(*m_cluster);
        QString error;
    }

    void discoversAndWatches() {
        SourceSpec start;
        start.scenario.scenario = QStringLiteral("healthy");
        QString error;
        Session* session =
            Session::prepared(SourceFactory::create(start, &error), start, {}, &error).release();
        QVERIFY2(session, qPrintable(error));
        MainWindow window(session);
        SessionSwitcher switcher(&window, session, start);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        switcher.start();

        window.connectClusterAction()->trigger();
        ConnectDialog* d = switcher.connectDialog();
        QVERIFY(d && d->isVisible());
        d->kubeconfigEdit()->setText(m_cluster->kubeconfig(User::Admin));
        d->reloadKubeconfig();
        QVERIFY2(connectAndWait(*d), qPrintable(d->statusLabel()->text()));
        const QString version = QStringLiteral("v%1.").arg(m_cluster->options().apiserverVersion);
        QVERIFY2(d->statusLabel()->text().contains(version), qPrintable(d->statusLabel()->text()));
        const QStringList resources = offered(*d);
        for (const QString r : {"configmaps", "pods", "leases.coordination.k8s.io", "namespaces"})
            QVERIFY2(resources.contains(r), qPrintable(resources.join(u',')));
        QVERIFY(test::saveDocsScreenshot(d, QStringLiteral("connect-real.png")));

        QSignalSpy switched(&switcher, &SessionSwitcher::switched);
        QTest::mouseClick(d->watchButton(), Qt::LeftButton);
        QCOMPARE(switched.size(), 1);
        // Every resource offered gets an informer; each ends with kubectl's objects.
        QTRY_VERIFY_WITH_TIMEOUT(window.watcherModel()->rowCount() >= resources.size(), 60000);
        QByteArray out;
        QVERIFY2(m_cluster->kubectl({"get", "namespaces", "-o", "name"}, &out, &error),
                 qPrintable(error));
        const qint64 namespaces = out.trimmed().split('\n').size();
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (int i = 0; i < window.watcherModel()->rowCount(); ++i)
                    if (window.watcherModel()->watcher(i).resource == QLatin1String("namespaces"))
                        return window.watcherModel()->watcher(i).objects == namespaces;
                return false;
            }(),
            60000);
        QVERIFY(test::saveDocsScreenshot(&window, QStringLiteral("window-real.png"), 3000));
        switcher.stop();
    }

    void cleanupTestCase() {
        if (m_cluster)
            m_cluster->stop();
    }
};

QTEST_MAIN(TestRealConnect)
#include "tst_realconnect.moc"

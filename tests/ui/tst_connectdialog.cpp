// The connect dialog and a switch to a cluster, against a real `watchscope-cli serve` over a
// socket: contexts listed current first, discovery on a worker thread (the window keeps
// running), errors said in place in one line, the offered resources to pick, the window moved
// to the cluster and back, recent connections remembered across dialogs.
#include "engine/Session.h"
#include "models/WatcherTableModel.h"
#include "session/ExecPluginOutput.h"
#include "session/RecentConnections.h"
#include "session/SessionSwitcher.h"
#include "sources/SourceFactory.h"
#include "support/ServeProcess.h"
#include "widgets/ConnectDialog.h"
#include "widgets/MainWindow.h"
#include "widgets/ScenarioPicker.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

using namespace ws;

namespace {

constexpr int kProbeTimeoutMs = 30000;

QStringList checkedResources(const ConnectDialog& d) {
    QStringList out;
    for (int i = 0; i < d.resourceList()->count(); ++i)
        if (d.resourceList()->item(i)->checkState() == Qt::Checked)
            out << d.resourceList()->item(i)->data(Qt::UserRole + 1).toString();
    return out;
}

void checkOnly(ConnectDialog& d, const QStringList& names) {
    for (int i = 0; i < d.resourceList()->count(); ++i) {
        QListWidgetItem* item = d.resourceList()->item(i);
        item->setCheckState(
            names.contains(item->data(Qt::UserRole + 1).toString()) ? Qt::Checked : Qt::Unchecked);
    }
}

bool connectAndWait(ConnectDialog& d) {
    QSignalSpy done(&d, &ConnectDialog::probeFinished);
    QTest::mouseClick(d.connectButton(), Qt::LeftButton);
    if (!done.wait(kProbeTimeoutMs))
        return false;
    return done.constFirst().constFirst().toBool();
}

} // namespace

class TestConnectDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void listsContextsCurrentFirst();
    void errorsInPlace();
    void discoversResources();
    void serverUrls();
    void switchesWindowToClusterAndBack();
    void recentConnectionsRefill();
    void showsWhatTheCredentialPluginSays();

private:
    QString writeKubeconfig(const QString& name, const QString& current);

    QTemporaryDir m_dir;
    test::ServeProcess m_serve;
    QString m_kubeconfig;
};

void TestConnectDialog::initTestCase() {
    QVERIFY(m_dir.isValid());
    // Recent connections go to QSettings: keep them out of the user's own.
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.filePath(QStringLiteral("config"))));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QString error;
    QVERIFY2(m_serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                            QStringLiteral("--server-version"), QStringLiteral("1.31")},
                           &error),
             qPrintable(error));
    m_kubeconfig = writeKubeconfig(QStringLiteral("kubeconfig"), QStringLiteral("zz-lab"));
}

void TestConnectDialog::init() {
    RecentConnections().clear();
}

QString TestConnectDialog::writeKubeconfig(const QString& name, const QString& current) {
    // Port 1 on loopback refuses at once; "zz-lab" sorts last, so "current first" is visible.
    const QString path = m_dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QStringLiteral("apiVersion: v1\nkind: Config\n"
                           "clusters:\n"
                           "- name: lab\n  cluster:\n    server: %1\n"
                           "- name: nowhere\n  cluster:\n    server: http://127.0.0.1:1\n"
                           "users:\n- name: dev\n  user:\n    token: s3cr3t-token-never-shown\n"
                           "contexts:\n"
                           "- name: zz-lab\n  context:\n    cluster: lab\n    user: dev\n"
                           "- name: aa-refused\n  context:\n    cluster: nowhere\n    user: dev\n"
                           "current-context: %2\n")
                .arg(m_serve.url(), current)
                .toUtf8());
    return path;
}

void TestConnectDialog::listsContextsCurrentFirst() {
    ConnectDialog d({});
    d.kubeconfigEdit()->setText(m_kubeconfig);
    d.reloadKubeconfig();
    QCOMPARE(d.contextsShown(),
             (QStringList{QStringLiteral("zz-lab"), QStringLiteral("aa-refused")}));
    QVERIFY(d.contextChooser()->itemText(0).contains(QStringLiteral("(current)")));
    QCOMPARE(d.contextChooser()->itemData(0, Qt::ToolTipRole).toString(), m_serve.url());
    QVERIFY(!d.watchButton()->isEnabled()); // nothing discovered yet
    QVERIFY(!d.recentChooser()->isEnabled());
}

void TestConnectDialog::errorsInPlace() {
    ConnectDialog d({});
    // A kubeconfig that is not one: the dialog says so where the user looks, names the file.
    const QString bad = m_dir.filePath(QStringLiteral("bad.yaml"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("clusters: [unclosed\n");
    f.close();
    d.kubeconfigEdit()->setText(bad);
    d.reloadKubeconfig();
    QVERIFY2(d.statusLabel()->text().contains(QStringLiteral("bad.yaml")),
             qPrintable(d.statusLabel()->text()));
    QCOMPARE(d.contextChooser()->count(), 0);
    QTest::mouseClick(d.connectButton(), Qt::LeftButton); // no context: only the reason again
    QVERIFY(!d.probing());
    QVERIFY(d.statusLabel()->text().contains(QStringLiteral("bad.yaml")));
    QVERIFY(!d.watchButton()->isEnabled());

    // A refused connection, from a worker thread: the dialog keeps answering meanwhile.
    d.kubeconfigEdit()->setText(m_kubeconfig);
    d.reloadKubeconfig();
    d.contextChooser()->setCurrentIndex(d.contextChooser()->findData(QStringLiteral("aa-refused")));
    QVERIFY(!connectAndWait(d));
    const QString refused = d.statusLabel()->text();
    QVERIFY2(refused.contains(QStringLiteral("127.0.0.1:1")), qPrintable(refused));
    QVERIFY2(refused.contains(QStringLiteral("refused"), Qt::CaseInsensitive), qPrintable(refused));
    QVERIFY2(!refused.contains(u'\n'), qPrintable(refused));
    QVERIFY(!refused.contains(QStringLiteral("s3cr3t")));
    QVERIFY(!d.watchButton()->isEnabled());
    QCOMPARE(d.resourceList()->count(), 0);

    // Servers mode with nothing typed.
    d.serversMode()->setChecked(true);
    d.serversEdit()->clear();
    QTest::mouseClick(d.connectButton(), Qt::LeftButton);
    QVERIFY(d.statusLabel()->text().contains(QStringLiteral("API server URL")));
    QVERIFY(!d.probing());
}

void TestConnectDialog::discoversResources() {
    ConnectDialog d({});
    d.kubeconfigEdit()->setText(m_kubeconfig);
    d.reloadKubeconfig();
    QCOMPARE(d.contextChooser()->currentData().toString(), QStringLiteral("zz-lab"));
    QVERIFY2(connectAndWait(d), qPrintable(d.statusLabel()->text()));
    QVERIFY2(d.statusLabel()->text().contains(QStringLiteral("v1.31")),
             qPrintable(d.statusLabel()->text()));
    const QStringList offered = checkedResources(d); // every one checked at first
    QVERIFY2(offered.contains(QStringLiteral("configmaps")), qPrintable(offered.join(u',')));
    QVERIFY(offered.contains(QStringLiteral("pods")));
    QVERIFY(d.watchButton()->isEnabled());
    // Every resource checked: no --resources (all of them).
    QVERIFY(d.spec().resources.isEmpty());
    QCOMPARE(d.spec().kind, SourceSpec::Kind::Kubeconfig);
    QCOMPARE(d.spec().context, QStringLiteral("zz-lab"));
    QCOMPARE(d.spec().kubeconfig, m_kubeconfig);

    checkOnly(d, {QStringLiteral("configmaps")});
    QCOMPARE(d.spec().resources, QStringList{QStringLiteral("configmaps")});
    d.setAllResourcesChecked(false);
    QVERIFY(!d.watchButton()->isEnabled());

    // Changing where to connect forgets what the old place offered.
    d.contextChooser()->setCurrentIndex(1);
    QCOMPARE(d.resourceList()->count(), 0);
    QVERIFY(!d.watchButton()->isEnabled());
}

void TestConnectDialog::serverUrls() {
    ConnectDialog d({});
    d.serversMode()->setChecked(true);
    d.serversEdit()->setText(m_serve.url() + QStringLiteral(",  ") + m_serve.url());
    d.clientGoChooser()->setCurrentIndex(d.clientGoChooser()->findData(QStringLiteral("0.22")));
    QVERIFY2(connectAndWait(d), qPrintable(d.statusLabel()->text()));
    const SourceSpec s = d.spec();
    QCOMPARE(s.kind, SourceSpec::Kind::Server);
    QCOMPARE(s.servers.size(), 2);
    QCOMPARE(s.clientGo, QStringLiteral("0.22"));
    QVERIFY(s.namespaceScope.isEmpty());

    // --namespace, as the dialog takes it: checked before anything is sent.
    d.namespaceEdit()->setText(QStringLiteral("team/a"));
    QTest::mouseClick(d.connectButton(), Qt::LeftButton);
    QVERIFY(!d.probing());
    QVERIFY2(d.statusLabel()->text().startsWith(QLatin1String("Namespace: 'team/a' is not a "
                                                              "namespace name")),
             qPrintable(d.statusLabel()->text()));
    d.namespaceEdit()->setText(QStringLiteral(" team-a "));
    QVERIFY2(connectAndWait(d), qPrintable(d.statusLabel()->text()));
    QCOMPARE(d.spec().namespaceScope, QStringLiteral("team-a"));
}

void TestConnectDialog::switchesWindowToClusterAndBack() {
    SourceSpec start;
    start.scenario.scenario = QStringLiteral("healthy");
    QString error;
    Session* session =
        Session::prepared(SourceFactory::create(start, &error), start, {}, &error).release();
    QVERIFY2(session, qPrintable(error));
    MainWindow window(session);
    SessionSwitcher switcher(&window, session, start);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    switcher.start();
    QVERIFY(window.connectClusterAction()->isEnabled());

    window.connectClusterAction()->trigger();
    ConnectDialog* d = switcher.connectDialog();
    QVERIFY(d);
    QVERIFY(d->isVisible());
    d->kubeconfigEdit()->setText(m_kubeconfig);
    d->reloadKubeconfig();
    QVERIFY2(connectAndWait(*d), qPrintable(d->statusLabel()->text()));
    QVERIFY(d->resourceList()->count() >= 2);
    checkOnly(*d, {QStringLiteral("pods")});
    QSignalSpy switched(&switcher, &SessionSwitcher::switched);
    QTest::mouseClick(d->watchButton(), Qt::LeftButton);
    QCOMPARE(switched.size(), 1);
    QVERIFY(window.session()->description().contains(QStringLiteral("zz-lab")));
    QVERIFY(!window.session()->description().contains(QStringLiteral("s3cr3t")));
    QVERIFY(switcher.currentScenario().isEmpty());
    QCOMPARE(window.scenarioPicker()->currentIndex(), -1); // "none: live source"

    // The cluster's informer shows up as a watcher row of the resource picked, and only it.
    QTRY_VERIFY_WITH_TIMEOUT(window.watcherModel()->rowCount() >= 1, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (int i = 0; i < window.watcherModel()->rowCount(); ++i)
                if (window.watcherModel()->watcher(i).eventsReceived > 0)
                    return true;
            return false;
        }(),
        30000);
    for (int i = 0; i < window.watcherModel()->rowCount(); ++i) {
        const QString r = window.watcherModel()->watcher(i).resource;
        QVERIFY2(r == QLatin1String("pods"), qPrintable(r));
    }
    // Remembered, without the token.
    const QList<SourceSpec> recent = RecentConnections().load();
    QVERIFY2(recent.size() == 1, qPrintable(QString::number(recent.size())));
    QCOMPARE(recent.front().context, QStringLiteral("zz-lab"));
    QCOMPARE(recent.front().resources, QStringList{QStringLiteral("pods")});
    QFile ini(QSettings().fileName());
    QVERIFY(ini.open(QIODevice::ReadOnly));
    QVERIFY(!ini.readAll().contains("s3cr3t"));

    // Restart connects again; picking a scenario goes back to the simulator.
    QVERIFY(switcher.restart());
    QVERIFY(window.session()->description().contains(QStringLiteral("zz-lab")));
    const int index = window.scenarioPicker()->indexOfScenario(QStringLiteral("healthy"));
    window.scenarioPicker()->setCurrentIndex(index);
    emit window.scenarioPicker()->activated(index);
    QCOMPARE(switcher.currentScenario(), QStringLiteral("healthy"));
    QVERIFY(window.session()->description().contains(QStringLiteral("scenario healthy")));

    // A source that cannot be prepared leaves the simulator running and says why.
    SourceSpec bad;
    bad.kind = SourceSpec::Kind::Kubeconfig;
    bad.kubeconfig = m_kubeconfig;
    bad.clientGo = QStringLiteral("9.99");
    QSignalSpy failed(&switcher, &SessionSwitcher::switchFailed);
    QVERIFY(!switcher.switchToSource(bad));
    QCOMPARE(failed.size(), 1);
    QVERIFY(window.lastError().contains(QStringLiteral("9.99")));
    QCOMPARE(switcher.currentScenario(), QStringLiteral("healthy"));
    switcher.stop();
}

void TestConnectDialog::recentConnectionsRefill() {
    SourceSpec first;
    first.kind = SourceSpec::Kind::Kubeconfig;
    first.kubeconfig = m_kubeconfig;
    first.context = QStringLiteral("zz-lab");
    first.clientGo = QStringLiteral("0.27");
    first.resources = QStringList{QStringLiteral("pods")};
    SourceSpec second;
    second.kind = SourceSpec::Kind::Server;
    second.servers = QStringList{m_serve.url()};
    RecentConnections recent;
    recent.remember(first);
    recent.remember(second);
    recent.remember(first); // again: moves to the front, not listed twice
    for (int i = 0; i < RecentConnections::kMax + 3; ++i) {
        SourceSpec s = second;
        s.servers = QStringList{QStringLiteral("https://10.0.0.%1:6443").arg(i)};
        recent.remember(s);
    }
    recent.remember(first);
    const QList<SourceSpec> list = recent.load();
    QCOMPARE(list.size(), RecentConnections::kMax);
    QCOMPARE(list.front().context, QStringLiteral("zz-lab"));

    ConnectDialog d(list);
    QVERIFY(d.recentChooser()->isEnabled());
    QCOMPARE(d.recentChooser()->count(), RecentConnections::kMax + 1);
    QVERIFY(d.recentChooser()->itemText(1).contains(QStringLiteral("zz-lab")));
    QSignalSpy done(&d, &ConnectDialog::probeFinished);
    d.applyRecent(0); // fills every field and connects
    QVERIFY(done.wait(kProbeTimeoutMs));
    QVERIFY2(done.constFirst().constFirst().toBool(), qPrintable(d.statusLabel()->text()));
    QCOMPARE(d.spec().context, QStringLiteral("zz-lab"));
    QCOMPARE(d.spec().clientGo, QStringLiteral("0.27"));
    QCOMPARE(d.spec().resources, QStringList{QStringLiteral("pods")});
}

QTEST_MAIN(TestConnectDialog)

void TestConnectDialog::showsWhatTheCredentialPluginSays() {
    // A device-code login: the plugin prints where to sign in on stderr and waits for the user.
    // The dialog shows it while it waits; the plugin then answers and discovery goes on.
    const QString release = m_dir.filePath(QStringLiteral("signed-in"));
    const QString plugin = m_dir.filePath(QStringLiteral("device-login.sh"));
    {
        QFile f(plugin);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral(
                    "#!/bin/sh\n"
                    "echo 'To sign in, open https://login.example/device and enter WXYZ-9876' >&2\n"
                    "while [ ! -e '%1' ]; do sleep 0.05; done\n"
                    "echo '{\"kind\":\"ExecCredential\",\"apiVersion\":"
                    "\"client.authentication.k8s.io/v1\",\"status\":{\"token\":\"t\"}}'\n")
                    .arg(release)
                    .toUtf8());
        f.close();
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    }
    const QString kubeconfig = m_dir.filePath(QStringLiteral("device-kubeconfig"));
    {
        QFile f(kubeconfig);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("apiVersion: v1\nkind: Config\n"
                               "clusters:\n- name: lab\n  cluster:\n    server: %1\n"
                               "users:\n- name: sso\n  user:\n    exec:\n"
                               "      apiVersion: client.authentication.k8s.io/v1\n"
                               "      command: %2\n      interactiveMode: IfAvailable\n"
                               "contexts:\n- name: lab\n  context:\n    cluster: lab\n"
                               "    user: sso\ncurrent-context: lab\n")
                    .arg(m_serve.url(), plugin)
                    .toUtf8());
    }
    ExecPluginOutput output;
    ConnectDialog d({});
    d.kubeconfigEdit()->setText(kubeconfig);
    d.reloadKubeconfig();
    QSignalSpy done(&d, &ConnectDialog::probeFinished);
    QTest::mouseClick(d.connectButton(), Qt::LeftButton);
    QTRY_VERIFY2_WITH_TIMEOUT(d.statusLabel()->text().contains(QStringLiteral("WXYZ-9876")),
                              qPrintable(d.statusLabel()->text()), kProbeTimeoutMs);
    QVERIFY(d.probing());
    QVERIFY(d.statusLabel()->text().contains(QStringLiteral("Connecting to")));
    QFile signedIn(release);
    QVERIFY(signedIn.open(QIODevice::WriteOnly));
    signedIn.close();
    QVERIFY(done.wait(kProbeTimeoutMs));
    QVERIFY2(done.constFirst().constFirst().toBool(), qPrintable(d.statusLabel()->text()));
}

#include "tst_connectdialog.moc"

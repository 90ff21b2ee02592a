// The window on a real cluster (`watchscope-cli serve` over TLS, a marked token that
// authenticates, Secrets with marked values): with TLS verified there is no banner; with
// insecure-skip-tls-verify the window says so above the panes, and on stderr; and nothing the
// window shows — every widget's text and tooltip, every table's and tree's cells, the selected
// Secret event's details, the window title, what it logged — holds the token or a Secret's
// value (issue 14). With WS_SCREENSHOT_DIR set the insecure window is saved there (insecure.png).

#include "DocsScreenshot.h"
#include "GuiSession.h"
#include "models/EventTableModel.h"
#include "support/Kubectl.h"
#include "support/KubectlTestBed.h"
#include "support/SecretScan.h"
#include "support/SecretsScenario.h"
#include "support/ServeProcess.h"
#include "support/TestPki.h"
#include "widgets/EventDetailPane.h"
#include "widgets/EventsPane.h"
#include "widgets/MainWindow.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMutex>
#include <QPlainTextEdit>
#include <QProcess>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextEdit>

using namespace ws;
using ws::test::KubectlRun;
using ws::test::SecretScan;
using ws::test::ServeProcess;
using ws::test::TestPki;

namespace {

QMutex g_logMutex;
QByteArray g_log; // what the program logged (qWarning and the like) since installLog()
QtMessageHandler g_previous = nullptr;

void logHandler(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    {
        QMutexLocker lock(&g_logMutex);
        g_log += message.toUtf8() + '\n';
    }
    if (g_previous)
        g_previous(type, context, message);
}

QByteArray takeLog() {
    QMutexLocker lock(&g_logMutex);
    return std::exchange(g_log, {});
}

// Every cell of a model, each role that shows text, children of tree rows included.
void modelText(const QAbstractItemModel* model, const QModelIndex& parent, QByteArray* out) {
    for (int r = 0; r < model->rowCount(parent); ++r)
        for (int c = 0; c < model->columnCount(parent); ++c) {
            const QModelIndex i = model->index(r, c, parent);
            for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::StatusTipRole)})
                *out += model->data(i, role).toString().toUtf8() + '\t';
            if (c == 0 && model->hasChildren(i))
                modelText(model, i, out);
        }
}

// What the window shows as text: titles, labels, editors, buttons, tabs, tooltips, cells.
QByteArray windowText(const QWidget* window) {
    QByteArray out = window->windowTitle().toUtf8() + '\n';
    for (const QWidget* w : window->findChildren<QWidget*>()) {
        out += w->toolTip().toUtf8() + '\n';
        if (const auto* l = qobject_cast<const QLabel*>(w))
            out += l->text().toUtf8() + '\n';
        else if (const auto* e = qobject_cast<const QLineEdit*>(w))
            out += e->text().toUtf8() + '\n';
        else if (const auto* p = qobject_cast<const QPlainTextEdit*>(w))
            out += p->toPlainText().toUtf8() + '\n';
        else if (const auto* t = qobject_cast<const QTextEdit*>(w))
            out += t->toPlainText().toUtf8() + '\n';
        else if (const auto* b = qobject_cast<const QAbstractButton*>(w))
            out += b->text().toUtf8() + '\n';
        else if (const auto* tabs = qobject_cast<const QTabWidget*>(w))
            for (int i = 0; i < tabs->count(); ++i)
                out += tabs->tabText(i).toUtf8() + '\t' + tabs->tabToolTip(i).toUtf8() + '\n';
        if (const auto* view = qobject_cast<const QAbstractItemView*>(w); view && view->model())
            modelText(view->model(), {}, &out);
    }
    return out;
}

} // namespace

class TestGuiSecurity : public ws::test::KubectlTestBed {
    Q_OBJECT

    ServeProcess m_serve;
    QString m_kubeconfig;
    SecretScan m_scan;
    QByteArray m_token, m_secretLiteral, m_secretLive;

    bool write(const QString& file, const QByteArray& bytes) {
        QFile f(file);
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    }

    void kubectl(const QStringList& args) {
        const KubectlRun r = ws::test::runKubectl(
            m_kubectl, m_kubeconfig,
            QStringList{QStringLiteral("--context"), QStringLiteral("verified")} + args, 60000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    static SourceSpec spec(const QString& kubeconfig, const QString& context) {
        SourceSpec s;
        s.kind = SourceSpec::Kind::Kubeconfig;
        s.kubeconfig = kubeconfig;
        s.context = context;
        s.resources = {QStringLiteral("secrets")};
        return s;
    }

    static QLabel* banner(const MainWindow* window) {
        return window->findChild<QLabel*>(QStringLiteral("securityWarning"));
    }

private slots:
    void initTestCase() {
        SET_UP_KUBECTL_TEST_BED(Tls::Yes); // kubectl writes the Secrets
        QString error;
        m_token = SecretScan::marker("token");
        m_secretLiteral = SecretScan::marker("secret-literal");
        m_secretLive = SecretScan::marker("secret-live");
        m_scan.add(m_token, QStringLiteral("token"));
        m_scan.add(m_secretLiteral, QStringLiteral("secret-literal"));
        m_scan.add(m_secretLive, QStringLiteral("secret-live"));
        m_scan.add(TestPki::pem(m_pki.clientKey).split('\n').at(2),
                   QStringLiteral("client key (PEM)"));

        const QString tokens = m_dir.filePath(QStringLiteral("tokens.csv"));
        QVERIFY(write(tokens, m_token + ",alice,uid-alice\n"));
        QVERIFY2(m_serve.start(
                     {QStringLiteral("--scenario"), ws::test::writeSecretsScenario(m_dir.path()),
                      QStringLiteral("--tls-cert"), m_pki.serverCert, QStringLiteral("--tls-key"),
                      m_pki.serverKey, QStringLiteral("--client-ca"), m_pki.caCert,
                      QStringLiteral("--token-file"), tokens},
                     &error),
                 qPrintable(error));
        m_kubeconfig = m_dir.filePath(QStringLiteral("kubeconfig"));
        QVERIFY(write(
            m_kubeconfig,
            QStringLiteral(
                "apiVersion: v1\nkind: Config\nclusters:\n"
                "- name: verified\n  cluster:\n    server: %1\n    certificate-authority: %2\n"
                "- name: insecure\n  cluster:\n    server: %1\n    insecure-skip-tls-verify: true\n"
                "contexts:\n"
                "- name: verified\n  context:\n    cluster: verified\n    user: alice\n"
                "- name: insecure\n  context:\n    cluster: insecure\n    user: alice\n"
                "current-context: verified\nusers:\n- name: alice\n  user:\n    token: %3\n"
                "    client-certificate: %4\n    client-key: %5\n")
                .arg(m_serve.url(), m_pki.caCert, QString::fromLatin1(m_token), m_pki.clientCert,
                     m_pki.clientKey)
                .toUtf8()));
        kubectl(
            {QStringLiteral("create"), QStringLiteral("secret"), QStringLiteral("generic"),
             QStringLiteral("marked-literal"), QStringLiteral("-n"), QStringLiteral("default"),
             QStringLiteral("--from-literal=password=") + QString::fromLatin1(m_secretLiteral)});
        g_previous = qInstallMessageHandler(logHandler);
    }

    // Verification on (the default): no banner, nothing logged about it.
    void verifiedHasNoBanner() {
        takeLog();
        test::GuiSession gui;
        QString error;
        QVERIFY2(gui.open(spec(m_kubeconfig, QStringLiteral("verified")), &error),
                 qPrintable(error));
        QVERIFY(banner(gui.window.get()));
        QVERIFY(!banner(gui.window.get())->isVisible());
        QVERIFY(gui.window->securityWarningsShown().isEmpty());
        QVERIFY(!takeLog().contains("TLS verification is off"));
    }

    // insecure-skip-tls-verify: a banner above the panes for as long as the session is shown,
    // the same line on stderr; and the session works (the server is reached).
    void insecureShowsBannerAndLogs() {
        takeLog();
        test::GuiSession gui;
        QString error;
        QVERIFY2(gui.open(spec(m_kubeconfig, QStringLiteral("insecure")), &error),
                 qPrintable(error));
        const QString expected =
            QStringLiteral("TLS verification is off for %1: insecure-skip-tls-verify is set in "
                           "the kubeconfig")
                .arg(m_serve.url());
        QLabel* b = banner(gui.window.get());
        QVERIFY(b);
        QVERIFY(b->isVisible());
        QCOMPARE(b->text(), QStringLiteral("Warning: ") + expected);
        QCOMPARE(gui.window->securityWarningsShown(), QStringList{expected});
        QVERIFY2(takeLog().contains(("watchscope: warning: " + expected).toUtf8()),
                 "the warning is not on stderr");
        gui.start();
        // Connected: the reflectors list and watch ("Live"), and the scenario's writes arrive.
        QTRY_VERIFY_WITH_TIMEOUT(gui.window->stateText() == QLatin1String("Live") &&
                                     gui.window->updatesApplied() > 0,
                                 60000);
        QVERIFY2(gui.window->lastError().isEmpty(), qPrintable(gui.window->lastError()));
        QVERIFY(test::saveDocsScreenshot(gui.window.get(), QStringLiteral("insecure.png"), 2000));
        // A scenario afterwards: the banner goes with the session it was about.
        gui.window->setSession(nullptr);
        QVERIFY(!b->isVisible());
    }

    // A Secret created while the window watches: its event is in the table, selected, its
    // details shown; no text anywhere holds the token or a Secret's value.
    void windowShowsNoSecret() {
        takeLog();
        test::GuiSession gui;
        QString error;
        QVERIFY2(gui.open(spec(m_kubeconfig, QStringLiteral("verified")), &error,
                          EventJournalLimits::window()),
                 qPrintable(error));
        gui.start();
        EventsPane* events = gui.window->eventsPane();
        const auto rowOf = [&](const QString& name) {
            const EventTableModel* m = events->model();
            for (int r = 0; r < m->rowCount(); ++r)
                if (m->data(m->index(r, EventTableModel::ObjectColumn)).toString().contains(name))
                    return r;
            return -1;
        };
        // Once the reflector lists and watches, a new Secret arrives as an event.
        QTRY_VERIFY_WITH_TIMEOUT(gui.window->stateText() == QLatin1String("Live"), 60000);
        kubectl({QStringLiteral("create"), QStringLiteral("secret"), QStringLiteral("generic"),
                 QStringLiteral("marked-live"), QStringLiteral("-n"), QStringLiteral("default"),
                 QStringLiteral("--from-literal=k=") + QString::fromLatin1(m_secretLive)});
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(QStringLiteral("marked-live")) >= 0, 60000);
        QByteArray shown;
        for (const QString& name :
             {QStringLiteral("marked-literal"), QStringLiteral("marked-live")}) {
            const int row = rowOf(name);
            if (row < 0)
                continue; // a listed object is no event of the journal
            QVERIFY(events->selectRow(row));
            const EventDetailPane* d = events->detail();
            QTRY_VERIFY(d->heading().contains(name) || d->fieldsText().contains(name));
            shown +=
                d->object().lines.join(u'\n').toUtf8() + '\n' + d->fieldsText().toUtf8() + '\n';
            shown += windowText(gui.window.get());
            // The value is there, as a digest: the details show the data, not nothing.
            QVERIFY2(d->object().lines.join(u'\n').contains(QLatin1String("\"redacted:")),
                     qPrintable(d->object().lines.join(u'\n').left(2000)));
        }
        QVERIFY(shown.contains("marked-live"));
        (void)gui.window->grab(); // painted as a screenshot would be: no crash, no log of it
        shown += "\n--- log ---\n" + takeLog();
        const QStringList hits = m_scan.find(shown, QStringLiteral("the window's text"));
        QVERIFY2(hits.isEmpty(), qPrintable(hits.join(u'\n')));
    }

    void cleanupTestCase() {
        if (g_previous)
            qInstallMessageHandler(g_previous);
        m_serve.stop();
    }
};

QTEST_MAIN(TestGuiSecurity)
#include "tst_guisecurity.moc"

// The window on a cluster it can only partly reach (tests/fixtures/cluster/http_fixture_server.py
// --apiserver: three API groups that fail, a user who may not list Secrets): the banner above
// the panes names each group left out and the forbidden resource, once each, while the session
// goes on with the rest.

#include "GuiSession.h"
#include "support/HttpFixtureServer.h"

#include <QFile>
#include <QLabel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ws;
using ws::test::HttpFixtureServer;

class TestGuiSessionWarnings : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    HttpFixtureServer m_server;

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("python3 is not installed");
        const QString script = HttpFixtureServer::script();
        QVERIFY2(!script.isEmpty(), "tests/fixtures/cluster/http_fixture_server.py not found: "
                                    "set WS_SOURCE_DIR");
        QString error;
        QVERIFY2(m_server.start(script,
                                {QStringLiteral("--apiserver"), QStringLiteral("--token"),
                                 QStringLiteral("t-nosecrets"), QStringLiteral("--role"),
                                 QStringLiteral("1:no-secrets")},
                                &error),
                 qPrintable(error));
    }

    void bannerNamesWhatTheSessionGoesOnWithout() {
        const QString kubeconfig = m_dir.filePath(QStringLiteral("kubeconfig.yaml"));
        QFile f(kubeconfig);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("apiVersion: v1\nkind: Config\nclusters:\n- name: scripted\n"
                               "  cluster:\n    server: %1\ncontexts:\n- name: scripted\n"
                               "  context:\n    cluster: scripted\n    user: tester\n"
                               "current-context: scripted\nusers:\n- name: tester\n  user:\n"
                               "    token: t-nosecrets\n")
                    .arg(m_server.url())
                    .toUtf8());
        f.close();
        SourceSpec spec;
        spec.kind = SourceSpec::Kind::Kubeconfig;
        spec.kubeconfig = kubeconfig;
        test::GuiSession gui;
        QString error;
        QVERIFY2(gui.open(spec, &error), qPrintable(error));
        QVERIFY(gui.window->sessionWarningsShown().isEmpty());
        gui.start();
        auto shown = [&](const QString& part) {
            return gui.window->sessionWarningsShown().filter(part).size();
        };
        QTRY_VERIFY_WITH_TIMEOUT(shown(QStringLiteral("not watching secrets: 403")) == 1, 30000);
        QCOMPARE(shown(QStringLiteral("broken.example.com/v1 left out")), 1);
        QCOMPARE(shown(QStringLiteral("gone.example.com/v1 left out")), 1);
        QCOMPARE(shown(QStringLiteral("reset.example.com/v1 left out")), 1);
        QCOMPARE(gui.window->sessionWarningsShown().size(), 4);
        const auto* banner = gui.window->findChild<QLabel*>(QStringLiteral("securityWarning"));
        QVERIFY(banner && banner->isVisible());
        QVERIFY2(banner->text().contains(QLatin1String("Warning: not watching secrets: 403")),
                 qPrintable(banner->text()));
        // The session goes on: the other resources are listed and watched.
        QTRY_VERIFY_WITH_TIMEOUT(gui.window->stateText() == QLatin1String("Live"), 30000);
        QVERIFY2(gui.window->lastError().isEmpty(), qPrintable(gui.window->lastError()));
    }
};

QTEST_MAIN(TestGuiSessionWarnings)
#include "tst_guisessionwarnings.moc"

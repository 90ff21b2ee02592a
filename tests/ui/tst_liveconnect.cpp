// The GUI thread never waits on the network: a window on an etcd endpoint that accepts TCP and
// never answers opens at once, says it is connecting, stays responsive, and shows the error in
// place when the source gives up.
#include "engine/Session.h"
#include "sources/SourceFactory.h"
#include "widgets/MainWindow.h"

#include <QElapsedTimer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

using namespace ws;

class TestLiveConnect : public QObject {
    Q_OBJECT
private slots:
    void silentEndpointNeverFreezesTheWindow() {
        // Accepts every connection and never writes a byte: gRPC's handshake waits forever.
        QTcpServer silent;
        QVERIFY(silent.listen(QHostAddress::LocalHost));
        QList<QTcpSocket*> held;
        connect(&silent, &QTcpServer::newConnection, this, [&] {
            while (QTcpSocket* s = silent.nextPendingConnection())
                held << s;
        });
        const QString endpoint = QStringLiteral("http://127.0.0.1:%1").arg(silent.serverPort());

        QElapsedTimer sinceStart;
        sinceStart.start();
        SourceSpec spec;
        spec.kind = SourceSpec::Kind::Etcd;
        spec.etcd.endpoints = {endpoint};
        QString error;
        std::unique_ptr<Session> session =
            Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error);
        QVERIFY2(session, qPrintable(error));
        MainWindow window(session.get());
        // What the window was told while the source waited (it may give up before a slow test
        // machine gets to look at the status bar).
        QStringList states;
        connect(session.get(), &Session::updated, this,
                [&](const EngineUpdate& u) { states << u.sourceState; });
        window.show();
        session->start();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const qint64 shownAfterMs = sinceStart.elapsed();
        QVERIFY2(shownAfterMs < 1000, qPrintable(QString::number(shownAfterMs)));
        QTRY_VERIFY_WITH_TIMEOUT(!states.isEmpty(), 5000);
        QVERIFY2(states.first().startsWith(QStringLiteral("Connecting to ") + endpoint),
                 qPrintable(states.first()));

        // The event loop keeps turning while the source waits on the endpoint.
        QElapsedTimer gap;
        gap.start();
        qint64 worstGapMs = 0;
        QTimer tick;
        connect(&tick, &QTimer::timeout, this,
                [&] { worstGapMs = std::max(worstGapMs, gap.restart()); });
        tick.start(10);
        QTRY_VERIFY_WITH_TIMEOUT(!window.lastError().isEmpty(), 30000);
        tick.stop();
        QVERIFY2(worstGapMs < 250, qPrintable(QString::number(worstGapMs)));
        qInfo("gave up with: %s", qPrintable(window.lastError()));
        QVERIFY2(window.lastError().contains(endpoint), qPrintable(window.lastError()));
        QVERIFY2(window.stateText().startsWith(QStringLiteral("Failed: ")),
                 qPrintable(window.stateText()));
        QElapsedTimer stopping;
        stopping.start();
        session->stop();
        QVERIFY(stopping.elapsed() < 1000);
        qDeleteAll(held);
    }
};

QTEST_MAIN(TestLiveConnect)
#include "tst_liveconnect.moc"

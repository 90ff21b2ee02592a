// Record pressed part-way through a live etcd session in the window: the capture holds what
// arrived from then on (no list: its replay starts mid-stream), `watchscope-cli export` reads it
// to the same count of events the window received while recording, with no anomaly the live
// session did not have, and the window's session goes on after Stop.
#include "../etcd/EtcdTestCluster.h"
#include "engine/Session.h"
#include "models/AnomalyListModel.h"
#include "session/SessionRecording.h"
#include "session/SessionSwitcher.h"
#include "sources/SourceFactory.h"
#include "sources/capture/CaptureExtent.h"
#include "sources/etcd/EtcdLoadGenerator.h"
#include "widgets/MainWindow.h"

#include <QAction>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>

using namespace ws;
using namespace ws::test;

namespace {

constexpr int kTimeoutMs = 60000;

} // namespace

class TestGuiRecordEtcd : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (etcdBinary().isEmpty())
            QSKIP("etcd binary not found (/usr/bin/etcd from Debian's etcd-server)");
        QVERIFY(m_dir.isValid());
    }

    void recordMidwayThenExport() {
        EtcdTestCluster cluster(1);
        QString error;
        QVERIFY2(cluster.startAll(&error), qPrintable(error));
        QVERIFY2(cluster.waitReady(90000, &error), qPrintable(error));
        EtcdClient client(cluster.connectOptions());
        int generation = 0;
        auto put = [&](int n) {
            const std::string name = "cm-" + std::to_string(n);
            return client.put(
                "/registry/configmaps/ns/" + name,
                EtcdLoadGenerator::configMapValue(name, "ns", "u-" + name, ++generation, 300),
                &error);
        };
        for (int i = 0; i < 20; ++i)
            QVERIFY2(put(i) > 0, qPrintable(error));

        SourceSpec spec;
        spec.kind = SourceSpec::Kind::Etcd;
        spec.etcd.endpoints = cluster.connectOptions().endpoints;
        Session* session =
            Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error).release();
        QVERIFY2(session, qPrintable(error));
        auto window = std::make_unique<MainWindow>(session);
        auto switcher = std::make_unique<SessionSwitcher>(window.get(), session, spec);
        window->resize(1400, 900);
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        std::atomic<qint64> events{0};
        connect(session, &Session::updated, this,
                [&](const EngineUpdate& u) { events = u.totalEvents; });
        switcher->start();
        // The list (20 objects; not events) and then changes on the watch before Record.
        QTRY_COMPARE_WITH_TIMEOUT(window->stateText(), QStringLiteral("Live"), kTimeoutMs);
        for (int i = 0; i < 5; ++i)
            QVERIFY2(put(i) > 0, qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(events >= 5, kTimeoutMs);
        const qint64 before = events;

        const QString path = m_dir.filePath(QStringLiteral("midway.wscap"));
        SessionRecording* rec = switcher->recording();
        QSignalSpy started(rec, &SessionRecording::started);
        QSignalSpy stopped(rec, &SessionRecording::stopped);
        rec->start(path);
        QVERIFY(started.wait(5000));
        QVERIFY(window->recordAction()->isChecked());
        for (int i = 0; i < 15; ++i)
            QVERIFY2(put(i) > 0, qPrintable(error));
        QVERIFY2(client.remove("/registry/configmaps/ns/cm-19", &error) > 0, qPrintable(error));
        QVERIFY2(client.remove("/registry/configmaps/ns/cm-18", &error) > 0, qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(events >= before + 17, kTimeoutMs);
        QTest::qWait(300);                 // a tick or two more in the capture
        window->recordAction()->trigger(); // unchecks: stop
        QVERIFY(stopped.wait(5000));
        QVERIFY(!window->recordAction()->isChecked());
        const qint64 whileRecording = events - before;
        QCOMPARE(whileRecording, qint64(17));

        // The window goes on watching after Stop.
        QVERIFY2(put(0) > 0, qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(events >= before + 18, kTimeoutMs);
        QCOMPARE(window->anomalyModel()->rowCount(), 0);

        const auto extent = CaptureExtent::measure(path, &error);
        QVERIFY2(extent, qPrintable(error));
        QVERIFY(extent->complete);
        QProcess cli;
        const QString jsonl = m_dir.filePath(QStringLiteral("midway.jsonl"));
        cli.start(qEnvironmentVariable("WS_CLI"),
                  {QStringLiteral("export"), path, QStringLiteral("--anomalies"), jsonl});
        QVERIFY(cli.waitForFinished(120000));
        const QString out = QString::fromUtf8(cli.readAllStandardOutput());
        QVERIFY2(cli.exitCode() == 0, qPrintable(cli.readAllStandardError()));
        // "exported 1.2s of etcd http://…: 17 events, 0 anomalies"
        const auto m =
            QRegularExpression(QStringLiteral(": (\\d+) events, (\\d+) anomalies")).match(out);
        QVERIFY2(m.hasMatch(), qPrintable(out));
        QCOMPARE(m.captured(1).toLongLong(), whileRecording);
        QCOMPARE(m.captured(2).toInt(), 0);
        switcher.reset();
        window.reset();
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestGuiRecordEtcd)
#include "tst_guirecordetcd.moc"

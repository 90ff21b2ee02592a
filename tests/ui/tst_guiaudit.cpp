// `watchscope --audit-log`: the window on an audit log of the seed incident shows each client as
// a watcher (its apiserver, relists, errors) and the anomalies the log raises.

#include "../audit/AuditLines.h"
#include "GuiSession.h"
#include "models/AnomalyListModel.h"
#include "models/WatcherTableModel.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ws;
using namespace ws::test;

class TstGuiAudit : public QObject {
    Q_OBJECT

private slots:
    void clientsAsWatchers() {
        QTemporaryDir dir;
        QByteArray a, b;
        for (int round = 0; round < 6; ++round)
            for (const char* user : {"agent-a", "agent-b"}) {
                AuditLine l;
                l.auditId = QStringLiteral("%1-%2").arg(QLatin1String(user)).arg(round);
                l.uri = QStringLiteral("/api/v1/configmaps?resourceVersion=5000");
                l.user = QLatin1String(user);
                l.agent = QStringLiteral("agent/v0.20.0");
                l.code = 504;
                l.status = QStringLiteral("Failure");
                l.reason = QStringLiteral("Timeout");
                l.message =
                    QStringLiteral("Timeout: Too large resource version: 5000, current: 4000");
                l.received = round * 5.0;
                l.at = l.received + 3;
                (round % 2 ? a : b) += auditLine(l);
            }
        QVERIFY(writeFile(dir.filePath(QStringLiteral("master-1/audit.log")), a));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("master-2/audit.log")), b));
        SourceSpec spec;
        spec.kind = SourceSpec::Kind::AuditLog;
        spec.auditLogs = {dir.filePath(QStringLiteral("master-1/audit.log")),
                          dir.filePath(QStringLiteral("master-2/audit.log"))};
        GuiSession gui;
        QString error;
        QVERIFY2(gui.open(spec, &error), qPrintable(error));
        gui.start();
        const MainWindow& w = *gui.window;
        const QString id = QStringLiteral("agent-a (agent/v0.20.0) configmaps");
        QTRY_VERIFY_WITH_TIMEOUT(w.anomalyModel()->rowCount() == 14, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(w.watcherModel()->rowOf(QStringLiteral("configmaps"), id) >= 0,
                                 30000);
        const int row = w.watcherModel()->rowOf(QStringLiteral("configmaps"), id);
        auto cell = [&](int column) {
            return w.watcherModel()->index(row, column).data().toString();
        };
        QCOMPARE(cell(WatcherTableModel::ApiserverColumn), QStringLiteral("master-1/audit.log"));
        QCOMPARE(cell(WatcherTableModel::ProfileColumn), QStringLiteral("agent-a (agent/v0.20.0)"));
        QCOMPARE(cell(WatcherTableModel::RvColumn), QStringLiteral("5000"));
        QCOMPARE(cell(WatcherTableModel::RelistsColumn), QStringLiteral("5"));
        QCOMPARE(cell(WatcherTableModel::ErrorsColumn), QStringLiteral("6"));
        QCOMPARE(w.watcherModel()->rowCount(), 2);
    }
};

QTEST_MAIN(TstGuiAudit)
#include "tst_guiaudit.moc"

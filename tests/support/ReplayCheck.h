#pragma once

// The capture a live run wrote, exported, gives the live run's own anomalies and timeline byte
// for byte: the replay makes the same requests, at the same session times, from the recorded
// answers. Call from a test function (it uses QVERIFY/QFAIL).

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTest>

#include <utility>

namespace ws::test {

inline void checkReplayIdentical(const QString& capture, const QString& anomalies,
                                 const QString& timeline) {
    const QString again = capture + QStringLiteral(".replayed");
    QProcess p;
    p.start(qEnvironmentVariable("WS_CLI"),
            {QStringLiteral("export"), capture, QStringLiteral("--anomalies"),
             again + QStringLiteral(".jsonl"), QStringLiteral("--timeline"),
             again + QStringLiteral(".csv")});
    QVERIFY(p.waitForFinished(120000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0, qPrintable(err));
    QVERIFY2(err.isEmpty(), qPrintable(err)); // no warning: the capture is whole
    for (const auto& [live, replayed] : {std::pair{anomalies, again + QStringLiteral(".jsonl")},
                                         std::pair{timeline, again + QStringLiteral(".csv")}}) {
        QFile a(live), b(replayed);
        QVERIFY2(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly), qPrintable(live));
        const QByteArray x = a.readAll(), y = b.readAll();
        if (x != y) {
            const QList<QByteArray> xl = x.split('\n'), yl = y.split('\n');
            qsizetype i = 0;
            while (i < xl.size() && i < yl.size() && xl[i] == yl[i])
                ++i;
            QFAIL(qPrintable(
                QStringLiteral("%1 differs from its replay at line %2:\n%3\n%4")
                    .arg(live)
                    .arg(i + 1)
                    .arg(QString::fromUtf8(xl.value(i)), QString::fromUtf8(yl.value(i)))));
        }
    }
    qInfo().noquote() << "replayed" << capture << "identically:" << QFileInfo(capture).size()
                      << "bytes";
}

} // namespace ws::test

// AuditStreamThread: one apiserver's log read and parsed on its own thread, handed over in
// batches. What must hold whatever the batches: every event once and in read order, each
// unreadable line counted where it was (between the same events as without the thread), a
// stop mid-file that neither hangs nor leaks, and --follow never blocking the session.
#include "AuditLines.h"
#include "sources/audit/AuditProblems.h"
#include "sources/audit/AuditStreamThread.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace ws;
using namespace ws::test;

namespace {

AuditLine listLine(int i) {
    AuditLine l;
    l.auditId = QStringLiteral("00000000-0000-0000-0000-%1").arg(i, 12, 10, QLatin1Char('0'));
    l.uri = QStringLiteral("/api/v1/configmaps?resourceVersion=%1").arg(i);
    l.received = i * 0.001;
    l.at = l.received + 0.001;
    return l;
}

bool isBroken(int line) {
    return line % 997 == 5;
}

// `lines` lines: list events, with a broken one wherever isBroken(line) (1-based).
QByteArray logOf(int lines) {
    QByteArray log;
    for (int line = 1; line <= lines; ++line)
        log += isBroken(line) ? QByteArray("{\"kind\":\"Event\",\"apiVersion\n")
                              : auditLine(listLine(line));
    return log;
}

AuditLogGroup group(const QString& path) {
    return AuditLogGroup{QStringLiteral("apiserver-1"), {path}};
}

} // namespace

class TstAuditStreamThread : public QObject {
    Q_OBJECT

private slots:
    // Several batches' worth, broken lines among them: each event once, in order, and a broken
    // line is counted by the time the event after it comes out (not before the one before it).
    void everyEventInOrderWithItsProblems() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("audit.log"));
        constexpr int kLines = 5000; // ~5 batches
        QVERIFY(writeFile(path, logOf(kLines)));
        AuditProblems problems;
        AuditStreamThread stream(0, group(path), false, problems);
        QString error;
        QVERIFY2(stream.open(&error), qPrintable(error));
        AuditEvent event;
        int expectLine = 1;
        int events = 0;
        while (stream.next(&event) == AuditStreamThread::Status::Event) {
            while (isBroken(expectLine))
                ++expectLine;
            QCOMPARE(event.line, expectLine);
            QCOMPARE(QString::fromStdString(event.requestUri),
                     QStringLiteral("/api/v1/configmaps?resourceVersion=%1").arg(expectLine));
            int brokenBefore = 0;
            for (int l = 1; l < expectLine; ++l)
                brokenBefore += isBroken(l);
            QCOMPARE(problems.count(AuditProblems::BrokenLine), brokenBefore);
            ++expectLine;
            ++events;
        }
        int broken = 0;
        for (int l = 1; l <= kLines; ++l)
            broken += isBroken(l);
        QCOMPARE(events, kLines - broken);
        QCOMPARE(problems.count(AuditProblems::BrokenLine), broken);
        QCOMPARE(stream.next(&event), AuditStreamThread::Status::Done);
        QCOMPARE(stream.bytesRead(), QFileInfo(path).size());
        QCOMPARE(stream.totalBytes(), QFileInfo(path).size());
    }

    // A long run of broken lines inside one batch: counted whole, ten messages handed on, and
    // only counts travel past those (a file of garbage costs no memory per line).
    void brokenRunsAreCountedNotKept() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("audit.log"));
        QByteArray log = auditLine(listLine(1));
        for (int i = 0; i < 100000; ++i)
            log += "{broken\n";
        log += auditLine(listLine(100002));
        QVERIFY(writeFile(path, log));
        AuditProblems problems;
        AuditStreamThread stream(0, group(path), false, problems);
        QString error;
        QVERIFY2(stream.open(&error), qPrintable(error));
        AuditEvent event;
        QCOMPARE(stream.next(&event), AuditStreamThread::Status::Event);
        QCOMPARE(problems.count(AuditProblems::BrokenLine), 0);
        QCOMPARE(stream.next(&event), AuditStreamThread::Status::Event);
        QCOMPARE(event.line, 100002);
        QCOMPARE(problems.count(AuditProblems::BrokenLine), 100000);
        const QStringList messages = problems.takeMessages();
        QCOMPARE(messages.size(), AuditProblems::kReportedPerKind);
        QVERIFY2(messages.first().startsWith(QStringLiteral("audit.log:2: ")),
                 qPrintable(messages.first()));
        QVERIFY(problems.summary().contains(QStringLiteral("(first: audit.log:2)")));
        QCOMPARE(stream.next(&event), AuditStreamThread::Status::Done);
    }

    // Stopped after a few events of a long file (the reader waits on a full queue, or is in the
    // middle of a batch): the destructor returns promptly, and ASan/TSan see nothing.
    void stopMidFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("audit.log"));
        QVERIFY(writeFile(path, logOf(40000)));
        for (int taken : {0, 1, 10, 1500, 5000}) {
            AuditProblems problems;
            QElapsedTimer clock;
            {
                AuditStreamThread stream(0, group(path), false, problems);
                QString error;
                QVERIFY2(stream.open(&error), qPrintable(error));
                AuditEvent event;
                for (int i = 0; i < taken; ++i)
                    QCOMPARE(stream.next(&event), AuditStreamThread::Status::Event);
                clock.start();
            }
            QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        }
    }

    // --follow: at the live end next() says Waiting at once; lines written later come out.
    void followNeverBlocks() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("audit.log"));
        QVERIFY(writeFile(path, auditLine(listLine(1)) + auditLine(listLine(2))));
        AuditProblems problems;
        AuditStreamThread stream(0, group(path), true, problems);
        QString error;
        QVERIFY2(stream.open(&error), qPrintable(error));
        AuditEvent event;
        auto nextEvent = [&] {
            QDeadlineTimer deadline(10000);
            for (;;) {
                const auto s = stream.next(&event);
                if (s == AuditStreamThread::Status::Event)
                    return true;
                if (s == AuditStreamThread::Status::Done || deadline.hasExpired())
                    return false;
                QThread::msleep(5);
            }
        };
        QVERIFY(nextEvent());
        QCOMPARE(event.line, 1);
        QVERIFY(nextEvent());
        QCOMPARE(event.line, 2);
        for (int i = 0; i < 20; ++i) {
            QElapsedTimer clock;
            clock.start();
            QCOMPARE(stream.next(&event), AuditStreamThread::Status::Waiting);
            QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        }
        QVERIFY(
            writeFile(path, auditLine(listLine(3)) + "not json\n" + auditLine(listLine(4)), true));
        QVERIFY(nextEvent());
        QCOMPARE(event.line, 3);
        QVERIFY(nextEvent());
        QCOMPARE(event.line, 5);
        QCOMPARE(problems.count(AuditProblems::BrokenLine), 1);
    }
};

QTEST_GUILESS_MAIN(TstAuditStreamThread)
#include "tst_auditstreamthread.moc"

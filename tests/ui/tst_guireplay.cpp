// Captures in the window: `--open`/File → Open Capture… replays a capture recorded by
// `watchscope-cli record`, with play/pause, speed and seek; bad files leave the session as it
// was; recent captures; the Record button writes a capture that `watchscope-cli export` reads;
// the chart and the tables exported as PNG, SVG and CSV. The CLI is the independent judge: the
// window's findings are compared with what `export` writes, never with themselves.
#include "GuiSession.h"
#include "engine/Session.h"
#include "models/AnomalyFilterProxy.h"
#include "models/AnomalyListModel.h"
#include "session/RecentCaptures.h"
#include "session/ReplayController.h"
#include "session/SessionRecording.h"
#include "sources/capture/CaptureExtent.h"
#include "support/TickCapture.h"
#include "viewexport/ViewExport.h"
#include "viewexport/ViewExporter.h"
#include "widgets/MainWindow.h"
#include "widgets/ReplayBar.h"
#include "widgets/RvTimelineChart.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>
#include <map>
#include <memory>

using namespace ws;

namespace {

constexpr int kTimeoutMs = 60000;
const QString kScenario = QStringLiteral("cacher-retry-stale-object");

struct Cli {
    int exitCode = -1;
    QString err;
};

Cli cli(const QStringList& args) {
    QProcess p;
    p.start(qEnvironmentVariable("WS_CLI"), args);
    if (!p.waitForFinished(120000))
        return {-1, QStringLiteral("watchscope-cli did not finish")};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardError())};
}

using KindCounts = std::map<QString, int>;

KindCounts kindsOfJsonl(const QString& path) {
    KindCounts out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {{QStringLiteral("unreadable"), 1}};
    while (!f.atEnd()) {
        const QByteArray line = f.readLine().trimmed();
        if (!line.isEmpty())
            ++out[QJsonDocument::fromJson(line).object().value(QStringLiteral("kind")).toString()];
    }
    return out;
}

KindCounts kindsOf(const AnomalyListModel* model) {
    KindCounts out;
    for (const Anomaly& a : model->anomalies())
        ++out[kindName(a.kind)];
    return out;
}

QString describe(const KindCounts& k) {
    QStringList parts;
    for (const auto& [kind, n] : k)
        parts << QStringLiteral("%1=%2").arg(kind).arg(n);
    return parts.join(QLatin1Char(' '));
}

// Every anomaly as one comparable line, in order.
QStringList lines(const AnomalyListModel* model) {
    QStringList out;
    for (const Anomaly& a : model->anomalies())
        out << QStringLiteral("%1 %2 %3 %4 %5 %6")
                   .arg(a.time)
                   .arg(kindName(a.kind), a.resource, a.key, a.watcher, a.message);
    return out;
}

// RFC 4180, as a reader other than ours would parse it.
QList<QStringList> parseCsv(const QString& text, QString* problem) {
    QList<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false;
    bool fieldStarted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == QLatin1Char('"')) {
                if (i + 1 < text.size() && text.at(i + 1) == QLatin1Char('"')) {
                    field += c;
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
            continue;
        }
        if (c == QLatin1Char('"') && !fieldStarted) {
            quoted = true;
            fieldStarted = true;
        } else if (c == QLatin1Char(',')) {
            row << field;
            field.clear();
            fieldStarted = false;
        } else if (c == QLatin1Char('\r')) {
            if (i + 1 >= text.size() || text.at(i + 1) != QLatin1Char('\n')) {
                *problem = QStringLiteral("bare CR at %1").arg(i);
                return {};
            }
        } else if (c == QLatin1Char('\n')) {
            if (i == 0 || text.at(i - 1) != QLatin1Char('\r')) {
                *problem = QStringLiteral("LF without CR at %1").arg(i);
                return {};
            }
            row << field;
            rows << row;
            row.clear();
            field.clear();
            fieldStarted = false;
        } else if (c == QLatin1Char('"')) {
            *problem = QStringLiteral("quote inside an unquoted field at %1").arg(i);
            return {};
        } else {
            field += c;
            fieldStarted = true;
        }
    }
    if (quoted)
        *problem = QStringLiteral("unterminated quoted field");
    if (!field.isEmpty() || !row.isEmpty())
        *problem = QStringLiteral("last row without CRLF");
    return rows;
}

// The window on a scenario, started: its recording replays under the replay bar.
struct Harness : test::GuiSession {
    bool open(const QString& scenario, double speed, QString* error) {
        if (!openScenario(scenario, speed, error))
            return false;
        start();
        return true;
    }
    ReplayController* replay() const { return switcher->replay(); }
};

} // namespace

class TestGuiReplay : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void replayEqualsCliExport();
    void pauseStopsTheClock();
    void seekBackThenForward();
    void etcdCaptureSeek();
    void badFilesKeepTheSession();
    void recentCaptures();
    void recordWritesWhatExportReads();
    void recordStoppedMidSession();
    void recordRefusedForCluster();
    void csvExportOfAnomalyTable();
    void chartAsPngAndSvg();
    void screenshot();

private:
    QTemporaryDir m_dir;
    QString m_capture;   // recorded by the CLI
    KindCounts m_export; // its anomalies, by `watchscope-cli export`
};

void TestGuiReplay::initTestCase() {
    QVERIFY(m_dir.isValid());
    // Recent captures go to QSettings: keep them out of the user's own.
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.filePath(QStringLiteral("config"))));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QVERIFY2(QFile::exists(qEnvironmentVariable("WS_CLI")), "WS_CLI not built");
    m_capture = m_dir.filePath(QStringLiteral("stale.wscap"));
    Cli r = cli({QStringLiteral("record"), QStringLiteral("--scenario"), kScenario,
                 QStringLiteral("--speed"), QStringLiteral("max"), QStringLiteral("--duration"),
                 QStringLiteral("60s"), QStringLiteral("--out"), m_capture});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString exported = m_dir.filePath(QStringLiteral("export.jsonl"));
    r = cli({QStringLiteral("export"), m_capture, QStringLiteral("--anomalies"), exported});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    m_export = kindsOfJsonl(exported);
    // The scenario's incident is in the capture: a replay has something to find.
    QVERIFY2(m_export.count(QStringLiteral("stale-object")) > 0, qPrintable(describe(m_export)));
}

void TestGuiReplay::init() {
    RecentCaptures().clear();
}

void TestGuiReplay::replayEqualsCliExport() {
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 1, &error), qPrintable(error));
    QVERIFY(!h.window->replayBar()->isVisible()); // a live simulator: no replay controls
    QVERIFY2(h.switcher->openCapture(m_capture), qPrintable(h.window->lastError()));
    QVERIFY(h.replay()->active());
    QVERIFY(h.window->replayBar()->isVisible());
    QCOMPARE(h.switcher->currentSpec().kind, SourceSpec::Kind::Capture);
    // The slider spans the recorded duration (the CLI recorded 60 s).
    QTRY_COMPARE_WITH_TIMEOUT(h.replay()->duration(), seconds(60), kTimeoutMs);
    QCOMPARE(h.window->replayBar()->slider()->maximum(), 60000);
    h.window->replayBar()->speedChooser()->setCurrentIndex(
        h.window->replayBar()->speedChooser()->findText(QStringLiteral("max")));
    emit h.window->replayBar()->speedChooser()->activated(
        h.window->replayBar()->speedChooser()->currentIndex());
    QCOMPARE(h.replay()->speed(), 0.0);
    QTRY_VERIFY_WITH_TIMEOUT(h.replay()->replayFinished(), kTimeoutMs);
    QTest::qWait(100);
    const KindCounts shown = kindsOf(h.window->anomalyModel());
    QVERIFY2(
        shown == m_export,
        qPrintable(
            QStringLiteral("window: %1\nexport: %2").arg(describe(shown), describe(m_export))));
    QCOMPARE(h.replay()->position(), seconds(60));
}

void TestGuiReplay::pauseStopsTheClock() {
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 1, &error), qPrintable(error));
    QVERIFY2(h.switcher->openCapture(m_capture), qPrintable(h.window->lastError()));
    // At 1× the recorded clock moves with the wall clock.
    QTRY_VERIFY_WITH_TIMEOUT(h.replay()->position() > milliseconds(300), kTimeoutMs);
    h.window->replayBar()->playPauseAction()->trigger();
    QVERIFY(h.replay()->paused());
    QCOMPARE(h.window->replayBar()->playPauseAction()->text(), QStringLiteral("Play"));
    QTest::qWait(300); // what was under way when the pause was asked arrives
    const TimeUs at = h.replay()->position();
    const int updates = h.window->updatesApplied();
    QTest::qWait(1000);
    // Updates keep coming (the session runs), the clock does not move.
    QVERIFY2(h.window->updatesApplied() > updates + 5,
             qPrintable(QString::number(h.window->updatesApplied() - updates)));
    QCOMPARE(h.replay()->position(), at);
    QVERIFY(h.window->replayBar()->timeLabel()->text().startsWith(
        QString::number(double(at) / kUsPerSecond, 'f', 1)));
    // Play: it moves again, at 2× now.
    h.replay()->setSpeed(2);
    h.window->replayBar()->playPauseAction()->trigger();
    QVERIFY(!h.replay()->paused());
    QTRY_VERIFY_WITH_TIMEOUT(h.replay()->position() > at + milliseconds(500), 5000);
}

void TestGuiReplay::seekBackThenForward() {
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 1, &error), qPrintable(error));
    QVERIFY2(h.switcher->openCapture(m_capture), qPrintable(h.window->lastError()));
    h.replay()->setPaused(true);
    QTRY_COMPARE_WITH_TIMEOUT(h.replay()->duration(), seconds(60), kTimeoutMs);
    QSignalSpy done(h.replay(), &ReplayController::seekFinished);

    // Forward to 50 s on the running session, as fast as possible, then paused there.
    emit h.window->replayBar()->seekRequested(seconds(50));
    QVERIFY(h.replay()->seeking());
    QVERIFY(done.wait(kTimeoutMs));
    QTest::qWait(300);
    QVERIFY2(h.replay()->position() >= seconds(50) && h.replay()->position() < seconds(51),
             qPrintable(QString::number(h.replay()->position())));
    const Session* first = h.switcher->session();
    const QStringList at50 = lines(h.window->anomalyModel());
    QVERIFY2(!at50.isEmpty(), "the incident is before 50 s");
    const TimeUs stay = h.replay()->position();
    QTest::qWait(500);
    QCOMPARE(h.replay()->position(), stay); // paused after the seek

    // Back to 10 s: a fresh session replays from the start up to there.
    emit h.window->replayBar()->seekRequested(seconds(10));
    QVERIFY(done.wait(kTimeoutMs));
    QTest::qWait(300);
    QVERIFY(h.switcher->session() != first);
    QVERIFY2(h.replay()->position() >= seconds(10) && h.replay()->position() < seconds(11),
             qPrintable(QString::number(h.replay()->position())));
    const QStringList at10 = lines(h.window->anomalyModel());
    QStringList expected10;
    for (const Anomaly& a : h.window->anomalyModel()->anomalies())
        QVERIFY2(a.time <= h.replay()->position() + milliseconds(100),
                 qPrintable(QString::number(a.time)));
    for (const QString& l : at50)
        if (l.section(QLatin1Char(' '), 0, 0).toLongLong() <= h.replay()->position())
            expected10 << l;
    QCOMPARE(at10, expected10);

    // Forward to 50 s again: the same anomalies as the first time, in the same order.
    emit h.window->replayBar()->seekRequested(seconds(50));
    QVERIFY(done.wait(kTimeoutMs));
    QTest::qWait(300);
    QCOMPARE(lines(h.window->anomalyModel()), at50);
    QVERIFY(h.replay()->paused());
}

void TestGuiReplay::etcdCaptureSeek() {
    // An etcd capture replays through CaptureSource, paced by the same controls.
    const QString path = m_dir.filePath(QStringLiteral("ticks.wscap"));
    QString error;
    QVERIFY2(test::writeTickCapture(path, seconds(20), &error), qPrintable(error));
    Harness h;
    QVERIFY2(h.open(QStringLiteral("healthy"), 1, &error), qPrintable(error));
    QVERIFY2(h.switcher->openCapture(path), qPrintable(h.window->lastError()));
    QVERIFY(h.window->replayBar()->isVisible());
    QTRY_COMPARE_WITH_TIMEOUT(h.replay()->duration(), seconds(20), kTimeoutMs);
    h.replay()->setPaused(true);
    QSignalSpy done(h.replay(), &ReplayController::seekFinished);
    h.replay()->seek(seconds(12));
    QVERIFY(done.wait(kTimeoutMs));
    QTest::qWait(200);
    QCOMPARE(h.replay()->position(), seconds(12));
    const Session* first = h.switcher->session();
    QTest::qWait(300);
    QCOMPARE(h.replay()->position(), seconds(12)); // paused there
    h.replay()->seek(seconds(3));
    QVERIFY(done.wait(kTimeoutMs));
    QTest::qWait(200);
    QVERIFY(h.switcher->session() != first);
    QCOMPARE(h.replay()->position(), seconds(3));
    h.replay()->setSpeed(0);
    h.replay()->setPaused(false);
    QTRY_VERIFY_WITH_TIMEOUT(h.replay()->replayFinished(), kTimeoutMs);
    QCOMPARE(h.replay()->position(), seconds(20));
}

void TestGuiReplay::badFilesKeepTheSession() {
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 1, &error), qPrintable(error));
    Session* running = h.switcher->session();
    QTRY_VERIFY_WITH_TIMEOUT(h.window->updatesApplied() > 2, kTimeoutMs);

    const QString notCapture = m_dir.filePath(QStringLiteral("notes.wscap"));
    {
        QFile f(notCapture);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("apiVersion: v1\nkind: Config\n");
    }
    QFile whole(m_capture);
    QVERIFY(whole.open(QIODevice::ReadOnly));
    const QByteArray bytes = whole.readAll();
    const QString cut = m_dir.filePath(QStringLiteral("cut.wscap"));
    {
        QFile f(cut);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes.left(30)); // inside the header
    }
    const QString missing = m_dir.filePath(QStringLiteral("missing.wscap"));
    for (const QString& path : {notCapture, cut, missing}) {
        QSignalSpy failed(h.switcher.get(), &SessionSwitcher::switchFailed);
        QVERIFY(!h.switcher->openCapture(path));
        QCOMPARE(failed.count(), 1);
        const QString message = h.window->lastError();
        QVERIFY2(!message.isEmpty() && !message.contains(QLatin1Char('\n')), qPrintable(message));
        QVERIFY2(message.contains(QFileInfo(path).fileName()), qPrintable(message));
        QCOMPARE(h.switcher->session(), running);
        QVERIFY(running->running());
        QVERIFY(!h.window->replayBar()->isVisible());
        QCOMPARE(h.switcher->currentScenario(), QStringLiteral("healthy"));
    }
    // The session shown goes on.
    const int updates = h.window->updatesApplied();
    QTRY_VERIFY_WITH_TIMEOUT(h.window->updatesApplied() > updates + 3, kTimeoutMs);
}

void TestGuiReplay::recentCaptures() {
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 1, &error), qPrintable(error));
    QStringList copies;
    for (int i = 0; i < RecentCaptures::kMax + 2; ++i) {
        const QString copy = m_dir.filePath(QStringLiteral("copy%1.wscap").arg(i));
        QFile::remove(copy);
        QVERIFY(QFile::copy(m_capture, copy));
        copies << copy;
        QVERIFY2(h.switcher->openCapture(copy), qPrintable(h.window->lastError()));
    }
    QStringList recent = RecentCaptures().load();
    QCOMPARE(recent.size(), RecentCaptures::kMax);
    QCOMPARE(recent.first(), QFileInfo(copies.last()).absoluteFilePath()); // newest first
    QVERIFY(!recent.contains(QFileInfo(copies.first()).absoluteFilePath()));
    // Opening one again moves it to the front.
    QVERIFY(h.switcher->openCapture(copies[5]));
    QCOMPARE(RecentCaptures().load().first(), QFileInfo(copies[5]).absoluteFilePath());

    // A file that went away: greyed in the menu, removed with one line when picked anyway.
    QVERIFY(QFile::remove(copies[6]));
    h.switcher->refreshRecentCaptures();
    const QString gone = QFileInfo(copies[6]).absoluteFilePath();
    bool greyed = false;
    for (QAction* a : h.window->recentCapturesMenu()->actions())
        if (a->data().toString() == gone)
            greyed = !a->isEnabled();
    QVERIFY(greyed);
    QVERIFY(!h.switcher->openCapture(gone));
    QVERIFY2(h.window->lastError().contains(QStringLiteral("no longer exists")),
             qPrintable(h.window->lastError()));
    QVERIFY(!RecentCaptures().load().contains(gone));
    QCOMPARE(RecentCaptures().load().size(), RecentCaptures::kMax - 1);
    // The menu opens the capture it names.
    QAction* firstEntry = h.window->recentCapturesMenu()->actions().constFirst();
    QCOMPARE(firstEntry->data().toString(), QFileInfo(copies[5]).absoluteFilePath());
    QVERIFY(h.switcher->openCapture(copies[7]));
    h.switcher->refreshRecentCaptures();
    h.window->recentCapturesMenu()->actions()[1]->trigger();
    QCOMPARE(h.switcher->currentSpec().capture, QFileInfo(copies[5]).absoluteFilePath());
}

void TestGuiReplay::recordWritesWhatExportReads() {
    // A live scenario at 25×, recorded from the moment it starts until it ends by itself.
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("too-large-rv-loop"), 25, &error), qPrintable(error));
    const QString path = m_dir.filePath(QStringLiteral("recorded.wscap"));
    SessionRecording* rec = h.switcher->recording();
    QSignalSpy started(rec, &SessionRecording::started);
    QSignalSpy stopped(rec, &SessionRecording::stopped);
    rec->start(path);
    QVERIFY(h.window->recordAction()->isChecked());
    QVERIFY(started.wait(5000));
    QVERIFY(rec->recording());
    QTRY_VERIFY_WITH_TIMEOUT(
        QRegularExpression(QStringLiteral("^Recording recorded\\.wscap: [0-9.]+ k?B$"))
            .match(h.window->recordingStatus())
            .hasMatch(),
        5000);
    QVERIFY(stopped.wait(kTimeoutMs)); // the session's end finalises the file
    QVERIFY(!h.window->recordAction()->isChecked());
    QVERIFY(h.window->recordingStatus().isEmpty());
    QCOMPARE(RecentCaptures().load().value(0), QFileInfo(path).absoluteFilePath());
    QTest::qWait(200);
    const KindCounts shown = kindsOf(h.window->anomalyModel());

    const QString out = m_dir.filePath(QStringLiteral("recorded.jsonl"));
    const Cli r = cli({QStringLiteral("export"), path, QStringLiteral("--anomalies"), out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const KindCounts exported = kindsOfJsonl(out);
    QVERIFY2(exported.count(QStringLiteral("too-large-rv")) > 0, qPrintable(describe(exported)));
    QVERIFY2(
        shown == exported,
        qPrintable(
            QStringLiteral("window: %1\nexport: %2").arg(describe(shown), describe(exported))));
}

void TestGuiReplay::recordStoppedMidSession() {
    // Stopped half-way: the capture replays up to where it stopped, as the window saw it then.
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("slow-watcher-terminated"), 10, &error), qPrintable(error));
    const QString path = m_dir.filePath(QStringLiteral("half.wscap"));
    SessionRecording* rec = h.switcher->recording();
    QSignalSpy started(rec, &SessionRecording::started);
    QSignalSpy stopped(rec, &SessionRecording::stopped);
    rec->start(path);
    QVERIFY(started.wait(5000));
    // Its anomalies come over about 40 s: stopped after the fourth, before the last one.
    QTRY_VERIFY_WITH_TIMEOUT(h.window->anomalyModel()->rowCount() >= 4, kTimeoutMs);
    h.window->recordAction()->trigger(); // unchecks: stop
    QVERIFY(stopped.wait(5000));
    QVERIFY(!h.window->recordAction()->isChecked());
    const auto extent = CaptureExtent::measure(path, &error);
    QVERIFY2(extent, qPrintable(error));
    QVERIFY(extent->complete);
    const TimeUs end = extent->duration;
    QVERIFY2(end > seconds(10) && end < seconds(90), qPrintable(QString::number(end)));
    // The live session goes on to its end; what it had found up to `end` is what counts.
    QTRY_VERIFY_WITH_TIMEOUT(h.window->stateText() == QStringLiteral("Finished"), kTimeoutMs);
    QTest::qWait(100);
    KindCounts upToEnd;
    KindCounts all;
    for (const Anomaly& a : h.window->anomalyModel()->anomalies()) {
        ++all[kindName(a.kind)];
        if (a.time <= end)
            ++upToEnd[kindName(a.kind)];
    }
    QVERIFY2(upToEnd != all, "the scenario finds more after the stop");
    const QString out = m_dir.filePath(QStringLiteral("half.jsonl"));
    const Cli r = cli({QStringLiteral("export"), path, QStringLiteral("--anomalies"), out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const KindCounts exported = kindsOfJsonl(out);
    QVERIFY2(upToEnd == exported, qPrintable(QStringLiteral("window up to %1: %2\nexport: %3")
                                                 .arg(end)
                                                 .arg(describe(upToEnd), describe(exported))));
}

void TestGuiReplay::recordRefusedForCluster() {
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 1, &error), qPrintable(error));
    SourceSpec cluster;
    cluster.kind = SourceSpec::Kind::Server;
    cluster.servers = {QStringLiteral("http://127.0.0.1:1")};
    QVERIFY(h.switcher->switchToSource(cluster));
    SessionRecording* rec = h.switcher->recording();
    QSignalSpy failed(rec, &SessionRecording::failed);
    const QString path = m_dir.filePath(QStringLiteral("cluster.wscap"));
    h.window->recordAction()->trigger(); // refused before a file is asked for
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.at(0).at(0).toString().startsWith(
                 QStringLiteral("a cluster session is captured from its start only")),
             qPrintable(failed.at(0).at(0).toString()));
    QVERIFY(h.window->lastError().contains(QStringLiteral("record --out")));
    QVERIFY(!h.window->recordAction()->isChecked());
    QVERIFY(!rec->recording());
    QVERIFY(!QFile::exists(path));
}

void TestGuiReplay::csvExportOfAnomalyTable() {
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 1, &error), qPrintable(error));
    QVERIFY(h.switcher->openCapture(m_capture));
    h.replay()->setSpeed(0);
    QTRY_VERIFY_WITH_TIMEOUT(h.replay()->replayFinished(), kTimeoutMs);
    QTest::qWait(100);
    // What the filter shows: one kind only.
    QComboBox* kinds = h.window->kindChooser();
    kinds->setCurrentIndex(kinds->findText(QStringLiteral("stale-object")));
    const int shown = h.window->anomalyProxy()->rowCount();
    QCOMPARE(shown, m_export.at(QStringLiteral("stale-object")));
    QVERIFY(shown < h.window->anomalyModel()->rowCount());

    const QString path = m_dir.filePath(QStringLiteral("anomalies.csv"));
    QVERIFY2(h.window->exporter()->exportTableCsv(ViewExporter::Table::Anomalies, path),
             qPrintable(h.window->lastError()));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QString problem;
    const QList<QStringList> rows = parseCsv(QString::fromUtf8(f.readAll()), &problem);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(rows.size(), shown + 1);
    const QStringList header = rows.first();
    QVERIFY(header.contains(QStringLiteral("Kind")));
    QVERIFY(header.contains(QStringLiteral("Message")));
    QVERIFY(!header.contains(QStringLiteral("Source"))); // hidden column, as on screen
    const qsizetype kindColumn = header.indexOf(QStringLiteral("Kind"));
    for (qsizetype i = 1; i < rows.size(); ++i) {
        QCOMPARE(rows[i].size(), header.size());
        QCOMPARE(rows[i][kindColumn], QStringLiteral("stale-object"));
    }
    // Quoting: fields with commas and quotes survive a round trip.
    QCOMPARE(ViewExport::csvField(QStringLiteral("a,\"b\"")), QStringLiteral("\"a,\"\"b\"\"\""));
    QCOMPARE(ViewExport::csvField(QStringLiteral("plain")), QStringLiteral("plain"));
}

void TestGuiReplay::chartAsPngAndSvg() {
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 10, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(h.window->updatesApplied() > 10, kTimeoutMs);
    h.window->rvChart()->replotNow();
    const QString png = m_dir.filePath(QStringLiteral("chart.png"));
    QVERIFY2(h.window->exporter()->exportChartPng(png), qPrintable(h.window->lastError()));
    QImage image(png);
    QVERIFY(!image.isNull());
    const qreal dpr = h.window->rvChart()->devicePixelRatioF();
    QCOMPARE(image.size(), h.window->rvChart()->size() * dpr);
    // Not a blank picture: the chart draws in more than one colour.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
        for (int x = 0; x < image.width(); x += 7)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 3, qPrintable(QString::number(colours.size())));

    const QString svg = m_dir.filePath(QStringLiteral("chart.svg"));
    QVERIFY2(h.window->exporter()->exportChartSvg(svg), qPrintable(h.window->lastError()));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&f);
    QString root;
    int elements = 0;
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement) {
            if (root.isEmpty())
                root = xml.name().toString();
            ++elements;
        }
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(root, QStringLiteral("svg"));
    QVERIFY2(elements > 20, qPrintable(QString::number(elements)));

    // An unwritable path: one line, no file.
    QVERIFY(!h.window->exporter()->exportChartPng(QStringLiteral("/nonexistent-dir/x.png")));
    QVERIFY(h.window->lastError().startsWith(QStringLiteral("cannot write x.png")));
}

void TestGuiReplay::screenshot() {
    // The window replaying a capture, controls visible; WS_SCREENSHOT=path saves it.
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 1, &error), qPrintable(error));
    QVERIFY(h.switcher->openCapture(m_capture));
    QTRY_COMPARE_WITH_TIMEOUT(h.replay()->duration(), seconds(60), kTimeoutMs);
    h.replay()->setPaused(true);
    QSignalSpy done(h.replay(), &ReplayController::seekFinished);
    h.replay()->seek(seconds(45));
    QVERIFY(done.wait(kTimeoutMs));
    h.replay()->setSpeed(2);
    h.replay()->setPaused(false);
    QTest::qWait(1500);
    h.window->rvChart()->replotNow();
    QTest::qWait(100);
    const QPixmap shot = h.window->grab();
    QVERIFY(!shot.isNull());
    const QString path = qEnvironmentVariable("WS_SCREENSHOT");
    if (!path.isEmpty())
        QVERIFY(shot.save(path));
}

QTEST_MAIN(TestGuiReplay)
#include "tst_guireplay.moc"

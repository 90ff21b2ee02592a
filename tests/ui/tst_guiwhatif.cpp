// What If in the window: a capture recorded by `watchscope-cli record` is opened, File → What If…
// replays it as recorded and under other versions on a worker thread, and the dialog shows the
// anomaly counts by kind side by side. `watchscope-cli whatif` is the independent judge of the
// counts. A bad version is one line in the dialog, Cancel goes back to idle, and "Replay under
// these versions" moves the window to the capture replayed under them.
#include "GuiSession.h"
#include "engine/Session.h"
#include "models/AnomalyFilterProxy.h"
#include "models/AnomalyListModel.h"
#include "models/WhatIfKindModel.h"
#include "session/RecentCaptures.h"
#include "session/ReplayController.h"
#include "session/SessionSwitcher.h"
#include "session/WhatIfController.h"
#include "sources/SourceFactory.h"
#include "widgets/MainWindow.h"
#include "widgets/ReplayBar.h"
#include "widgets/WhatIfDialog.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <memory>

using namespace ws;

namespace {

constexpr int kTimeoutMs = 180000; // two replays of the capture, on a slow machine
const QString kScenario = QStringLiteral("cacher-retry-stale-object");
const QString kStale = QStringLiteral("stale-object");

struct Cli {
    int exitCode = -1;
    QString out;
    QString err;
};

Cli cli(const QStringList& args) {
    QProcess p;
    p.start(qEnvironmentVariable("WS_CLI"), args);
    if (!p.waitForFinished(kTimeoutMs))
        return {-1, {}, QStringLiteral("watchscope-cli did not finish")};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

// kind -> (as recorded, what if)
using Counts = std::map<QString, std::pair<qint64, qint64>>;

// The table `watchscope-cli whatif` prints: "stale-object   12   0   (gone)".
Counts countsOfCli(const QString& out) {
    Counts counts;
    static const QRegularExpression row(QStringLiteral("^([a-z-]+)\\s+(\\d+)\\s+(\\d+)"));
    for (const QString& line : out.split(QLatin1Char('\n'))) {
        const auto m = row.match(line);
        if (m.hasMatch())
            counts[m.captured(1)] = {m.captured(2).toLongLong(), m.captured(3).toLongLong()};
    }
    return counts;
}

Counts countsOf(const WhatIfKindModel* model) {
    Counts counts;
    for (int r = 0; r < model->rowCount(); ++r)
        counts[model->kind(r).kind] = {model->kind(r).recorded, model->kind(r).whatIf};
    return counts;
}

QString describe(const Counts& counts) {
    QStringList parts;
    for (const auto& [kind, n] : counts)
        parts << QStringLiteral("%1=%2/%3").arg(kind).arg(n.first).arg(n.second);
    return parts.join(QLatin1Char(' '));
}

std::map<QString, int> kindsOf(const AnomalyList& list) {
    std::map<QString, int> out;
    for (const Anomaly& a : list)
        ++out[kindName(a.kind)];
    return out;
}

// The window on healthy, started; its recording opens in What If.
struct Harness : test::GuiSession {
    bool open(QString* error) {
        if (!openScenario(QStringLiteral("healthy"), 1, error))
            return false;
        start();
        return true;
    }
    // The capture replayed, paused, and its What If open.
    WhatIfDialog* openWhatIf(const QString& capture) {
        if (!switcher->openCapture(capture))
            return nullptr;
        switcher->replay()->setPaused(true);
        window->whatIfAction()->trigger();
        return switcher->whatIf()->dialog();
    }
    ReplayController* replay() const { return switcher->replay(); }
};

void setServerVersion(WhatIfDialog* dialog, const QString& version) {
    QLineEdit* edit = dialog->serverVersionChooser()->lineEdit();
    edit->clear();
    QTest::keyClicks(edit, version);
}

} // namespace

class TestGuiWhatIf : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void actionOnlyWhileReplaying();
    void goneOn124();
    void presentOn127();
    void etcdCaptureThroughAScenariosCluster();
    void badVersionIsOneLine();
    void cancelReturnsToIdle();
    void replayUnderTheseVersions();
    void screenshot();

private:
    bool compare(WhatIfDialog* dialog, const QString& version);

    QTemporaryDir m_dir;
    QString m_capture; // recorded by the CLI
    QString m_long;    // two hours of a busy cluster: a comparison that lasts a few seconds
};

void TestGuiWhatIf::initTestCase() {
    QVERIFY(m_dir.isValid());
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_dir.filePath(QStringLiteral("config"))));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QVERIFY2(QFile::exists(qEnvironmentVariable("WS_CLI")), "WS_CLI not built");
    m_capture = m_dir.filePath(QStringLiteral("stale.wscap"));
    Cli r = cli({QStringLiteral("record"), QStringLiteral("--scenario"), kScenario,
                 QStringLiteral("--speed"), QStringLiteral("max"), QStringLiteral("--duration"),
                 QStringLiteral("60s"), QStringLiteral("--out"), m_capture});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    m_long = m_dir.filePath(QStringLiteral("long.wscap"));
    r = cli({QStringLiteral("record"), QStringLiteral("--scenario"), QStringLiteral("healthy"),
             QStringLiteral("--speed"), QStringLiteral("max"), QStringLiteral("--duration"),
             QStringLiteral("2h"), QStringLiteral("--out"), m_long});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
}

void TestGuiWhatIf::init() {
    RecentCaptures().clear();
}

bool TestGuiWhatIf::compare(WhatIfDialog* dialog, const QString& version) {
    setServerVersion(dialog, version);
    QSignalSpy done(dialog, &WhatIfDialog::comparisonFinished);
    if (!dialog->compareButton()->isEnabled())
        return false;
    QTest::mouseClick(dialog->compareButton(), Qt::LeftButton);
    if (!dialog->running() || dialog->compareButton()->isEnabled())
        return false; // under way, and not twice
    return done.wait(kTimeoutMs) && done.constFirst().constFirst().toBool();
}

void TestGuiWhatIf::actionOnlyWhileReplaying() {
    Harness h;
    QString error;
    QVERIFY2(h.open(&error), qPrintable(error));
    QAction* action = h.window->whatIfAction();
    QCOMPARE(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+W")));
    // File menu: right after Recent Captures; and on the replay bar.
    QMenu* file = h.window->menuBar()->actions().constFirst()->menu();
    const QList<QAction*> items = file->actions();
    const qsizetype recent = items.indexOf(h.window->recentCapturesMenu()->menuAction());
    QVERIFY(recent >= 0);
    QCOMPARE(items.value(recent + 1), action);
    QVERIFY(h.window->replayBar()->actions().contains(action));

    QVERIFY(!action->isEnabled()); // a live simulator
    h.window->whatIfAction()->trigger();
    QVERIFY(!h.switcher->whatIf()->dialog());
    QVERIFY2(h.switcher->openCapture(m_capture), qPrintable(h.window->lastError()));
    QVERIFY(action->isEnabled());
    // The shortcut opens it, on the capture replayed, with nothing asked yet.
    QVERIFY(QTest::qWaitForWindowActive(h.window.get()));
    QTest::keyClick(h.window.get(), Qt::Key_W, Qt::ControlModifier | Qt::ShiftModifier);
    WhatIfDialog* dialog = h.switcher->whatIf()->dialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QCOMPARE(dialog->capturePath(), m_capture);
    QVERIFY(!dialog->overrides().any());
    QVERIFY(!dialog->compareButton()->isEnabled()); // nothing to compare with yet
    QVERIFY(!dialog->replayButton()->isEnabled());
    // The versions the profiles model are offered, the recorded one said.
    QVERIFY(dialog->serverVersionChooser()->findText(QStringLiteral("1.16")) > 0);
    QVERIFY(dialog->serverVersionChooser()->findText(QStringLiteral("1.36")) > 0);
    QVERIFY(dialog->serverVersionChooser()->findText(QStringLiteral("1.27.13")) > 0);
    QCOMPARE(dialog->serverVersionChooser()->lineEdit()->placeholderText(),
             QStringLiteral("as recorded (1.27.0)"));
    QVERIFY(dialog->clientGoChooser()->findText(QStringLiteral("0.16")) > 0);
    for (const char* gate : {"WatchList", "SeparateCacheWatchRPC", "ConsistentListFromCache"}) {
        QComboBox* box = dialog->gateChooser(QLatin1String(gate));
        QVERIFY2(box, gate);
        QCOMPARE(box->currentText(), QStringLiteral("keep"));
    }
    dialog->gateChooser(QStringLiteral("SeparateCacheWatchRPC"))->setCurrentIndex(1); // on
    QCOMPARE(dialog->overrides().featureGates,
             QStringList{QStringLiteral("SeparateCacheWatchRPC=true")});
    QVERIFY(dialog->compareButton()->isEnabled());
    // Triggered again: the same dialog.
    action->trigger();
    QCOMPARE(h.switcher->whatIf()->dialog(), dialog);

    // Back to a scenario: nothing to replay under other versions.
    QVERIFY(h.switcher->switchTo(QStringLiteral("healthy")));
    QVERIFY(!action->isEnabled());
}

void TestGuiWhatIf::goneOn124() {
    // On 1.24 the cacher relists on the PrevKv=nil error instead of retrying from its last RV:
    // the deleted pod does not stay in the cache.
    Harness h;
    QString error;
    QVERIFY2(h.open(&error), qPrintable(error));
    WhatIfDialog* dialog = h.openWhatIf(m_capture);
    QVERIFY(dialog);
    QVERIFY(compare(dialog, QStringLiteral("1.24")));
    QVERIFY(!dialog->running());
    QVERIFY(!dialog->cancelButton()->isVisible());
    WhatIfKindModel* kinds = dialog->kindModel();
    const int row = kinds->rowOfKind(kStale);
    QVERIFY2(row >= 0, qPrintable(describe(countsOf(kinds))));
    QVERIFY2(kinds->kind(row).recorded > 0, qPrintable(describe(countsOf(kinds))));
    QCOMPARE(kinds->kind(row).whatIf, 0);
    QCOMPARE(kinds->data(kinds->index(row, WhatIfKindModel::ChangeColumn)).toString(),
             QStringLiteral("gone on kube-apiserver 1.24"));
    QCOMPARE(kinds->headerData(WhatIfKindModel::WhatIfColumn, Qt::Horizontal).toString(),
             QStringLiteral("Under kube-apiserver 1.24"));
    // The status says which kinds depend on the versions.
    QVERIFY2(dialog->statusLabel()->text().contains(QStringLiteral("gone on kube-apiserver 1.24: "),
                                                    Qt::CaseInsensitive) &&
                 dialog->statusLabel()->text().contains(kStale),
             qPrintable(dialog->statusLabel()->text()));
    QVERIFY(dialog->replayButton()->isEnabled());

    // The lists show the selected kind's anomalies of each run.
    dialog->selectKind(kStale);
    QCOMPARE(
        dialog->kindView()->selectionModel()->currentIndex().data(WhatIfKindModel::KindNameRole),
        QVariant(kStale));
    QCOMPARE(dialog->recordedProxy()->rowCount(), int(kinds->kind(row).recorded));
    QCOMPARE(dialog->whatIfProxy()->rowCount(), 0);
    for (int r = 0; r < dialog->recordedProxy()->rowCount(); ++r)
        QCOMPARE(dialog->recordedProxy()->index(r, AnomalyListModel::KindColumn).data().toString(),
                 kStale);
    // A click on another kind's row shows that kind's anomalies.
    QVERIFY2(kinds->rowCount() > 1, qPrintable(describe(countsOf(kinds))));
    QTableView* view = dialog->kindView();
    for (int r = 0; r < view->model()->rowCount(); ++r) {
        const QModelIndex at = view->model()->index(r, WhatIfKindModel::RecordedColumn);
        const QString kind = at.data(WhatIfKindModel::KindNameRole).toString();
        if (kind == kStale)
            continue;
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(at).center());
        QCOMPARE(dialog->selectedKind(), kind);
        const WhatIfKindCount& k = kinds->kind(kinds->rowOfKind(kind));
        QCOMPARE(dialog->recordedProxy()->rowCount(), int(k.recorded));
        QCOMPARE(dialog->whatIfProxy()->rowCount(), int(k.whatIf));
        break;
    }

    // The same counts as the CLI finds.
    const Cli r = cli({QStringLiteral("whatif"), m_capture, QStringLiteral("--server-version"),
                       QStringLiteral("1.24")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const Counts byCli = countsOfCli(r.out);
    QVERIFY2(countsOf(kinds) == byCli,
             qPrintable(QStringLiteral("dialog: %1\ncli:    %2")
                            .arg(describe(countsOf(kinds)), describe(byCli))));
}

void TestGuiWhatIf::presentOn127() {
    // 1.27 is what the capture ran (1.27.0): the deleted pod stays in the cache either way.
    Harness h;
    QString error;
    QVERIFY2(h.open(&error), qPrintable(error));
    WhatIfDialog* dialog = h.openWhatIf(m_capture);
    QVERIFY(dialog);
    QVERIFY(compare(dialog, QStringLiteral("1.27")));
    WhatIfKindModel* kinds = dialog->kindModel();
    const int row = kinds->rowOfKind(kStale);
    QVERIFY2(row >= 0, qPrintable(describe(countsOf(kinds))));
    QVERIFY2(kinds->kind(row).recorded > 0 && kinds->kind(row).whatIf > 0,
             qPrintable(describe(countsOf(kinds))));
    QCOMPARE(kinds->data(kinds->index(row, WhatIfKindModel::ChangeColumn)).toString(), QString());
    dialog->selectKind(kStale);
    QCOMPARE(dialog->recordedProxy()->rowCount(), int(kinds->kind(row).recorded));
    QCOMPARE(dialog->whatIfProxy()->rowCount(), int(kinds->kind(row).whatIf));
}

void TestGuiWhatIf::etcdCaptureThroughAScenariosCluster() {
    // Pods recorded from a real etcd (tests/fixtures/etcd): their writes through the cluster of
    // cacher-retry-stale-object on 1.27.0 keep a deleted pod; the recording itself had nothing.
    const QString fixture = qEnvironmentVariable("WS_SOURCE_DIR") +
                            QStringLiteral("/tests/fixtures/etcd/pods-burst.wscap");
    QVERIFY2(QFile::exists(fixture), "run by ctest, or set WS_SOURCE_DIR");
    Harness h;
    QString error;
    QVERIFY2(h.open(&error), qPrintable(error));
    WhatIfDialog* dialog = h.openWhatIf(fixture);
    QVERIFY(dialog);
    auto* cluster = dialog->findChild<QComboBox*>(QStringLiteral("whatIfCluster"));
    QVERIFY2(cluster, "an etcd capture offers a cluster");
    const int index = cluster->findData(QStringLiteral("cacher-retry-stale-object"));
    QVERIFY(index > 0);
    cluster->setCurrentIndex(index);
    QVERIFY(compare(dialog, QStringLiteral("1.27.0")));
    WhatIfKindModel* kinds = dialog->kindModel();
    const int row = kinds->rowOfKind(kStale);
    QVERIFY2(row >= 0, qPrintable(describe(countsOf(kinds))));
    QCOMPARE(kinds->kind(row).recorded, 0);
    QCOMPARE(kinds->kind(row).whatIf, 628);
    // The etcd version is a what-if too: #17529 fixed, the cacher relists.
    auto* etcd = dialog->findChild<QComboBox*>(QStringLiteral("whatIfEtcdVersion"));
    QVERIFY(etcd);
    etcd->setEditText(QStringLiteral("3.5.13"));
    QVERIFY(compare(dialog, QStringLiteral("1.27.0")));
    QCOMPARE(kinds->rowOfKind(kStale), -1);
    // A scenario capture has its own cluster: no such row.
    WhatIfDialog* other = h.openWhatIf(m_capture);
    QVERIFY(other);
    QVERIFY(!other->findChild<QComboBox*>(QStringLiteral("whatIfCluster")));
}

void TestGuiWhatIf::badVersionIsOneLine() {
    Harness h;
    QString error;
    QVERIFY2(h.open(&error), qPrintable(error));
    WhatIfDialog* dialog = h.openWhatIf(m_capture);
    QVERIFY(dialog);
    Session* shown = h.switcher->session();
    setServerVersion(dialog, QStringLiteral("1.99x"));
    QSignalSpy done(dialog, &WhatIfDialog::comparisonFinished);
    QTest::mouseClick(dialog->compareButton(), Qt::LeftButton);
    QVERIFY(done.wait(kTimeoutMs));
    QCOMPARE(done.constFirst().constFirst().toBool(), false);
    const QString message = dialog->statusLabel()->text();
    QVERIFY2(message.contains(QStringLiteral("bad server version '1.99x'")), qPrintable(message));
    QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
    QVERIFY(dialog->statusLabel()->isVisible());
    QVERIFY(!dialog->running());
    QVERIFY(dialog->compareButton()->isEnabled()); // ready for another try
    QVERIFY(!dialog->replayButton()->isEnabled());
    QCOMPARE(dialog->kindModel()->rowCount(), 0);
    QVERIFY(dialog->isVisible());
    QCOMPARE(h.switcher->session(), shown); // the window's replay is untouched
    // Unknown gates and client-go are refused in the engine's words too.
    dialog->serverVersionChooser()->lineEdit()->clear();
    dialog->clientGoChooser()->setEditText(QStringLiteral("0.99"));
    QTest::mouseClick(dialog->compareButton(), Qt::LeftButton);
    QVERIFY(done.wait(kTimeoutMs));
    QVERIFY2(dialog->statusLabel()->text().contains(QStringLiteral("unknown client-go profile")),
             qPrintable(dialog->statusLabel()->text()));
}

void TestGuiWhatIf::cancelReturnsToIdle() {
    Harness h;
    QString error;
    QVERIFY2(h.open(&error), qPrintable(error));
    WhatIfDialog* dialog = h.openWhatIf(m_long);
    QVERIFY(dialog);
    setServerVersion(dialog, QStringLiteral("1.24"));
    QSignalSpy done(dialog, &WhatIfDialog::comparisonFinished);
    QTest::mouseClick(dialog->compareButton(), Qt::LeftButton);
    QVERIFY(dialog->running());
    QVERIFY(dialog->cancelButton()->isVisible());
    QVERIFY(!dialog->compareButton()->isEnabled());
    // Progress in recorded time: "as recorded 0:42 / what if 0:00", "as recorded 1:02:03 / ...".
    static const QRegularExpression progress(
        QStringLiteral("^as recorded (\\d+:)?\\d+:\\d\\d / what if (\\d+:)?\\d+:\\d\\d$"));
    QTRY_VERIFY_WITH_TIMEOUT(
        progress.match(dialog->progressLabel()->text()).hasMatch() &&
            !dialog->progressLabel()->text().startsWith(QStringLiteral("as recorded 0:00")),
        kTimeoutMs);
    QVERIFY(dialog->running()); // not done yet: there is something to cancel
    QTest::mouseClick(dialog->cancelButton(), Qt::LeftButton);
    QVERIFY(!dialog->running());
    QCOMPARE(done.count(), 1);
    QCOMPARE(done.constFirst().constFirst().toBool(), false);
    QCOMPARE(dialog->statusLabel()->text(), QStringLiteral("Cancelled."));
    QVERIFY(!dialog->cancelButton()->isVisible());
    QVERIFY(!dialog->progressLabel()->isVisible());
    QVERIFY(dialog->compareButton()->isEnabled());
    QVERIFY(!dialog->replayButton()->isEnabled());
    // Nothing of the cancelled run arrives later.
    QTest::qWait(1500);
    QCOMPARE(done.count(), 1);
    QCOMPARE(dialog->kindModel()->rowCount(), 0);
    QCOMPARE(dialog->statusLabel()->text(), QStringLiteral("Cancelled."));
}

void TestGuiWhatIf::replayUnderTheseVersions() {
    // 1.28.8: the cacher has its own etcd stream (SeparateCacheWatchRPC) but RV="" watches
    // still go to etcd: fewer PrevKv=nil errors, and no deleted pod left in the cache.
    Harness h;
    QString error;
    QVERIFY2(h.open(&error), qPrintable(error));
    WhatIfDialog* dialog = h.openWhatIf(m_capture);
    QVERIFY(dialog);
    QVERIFY(compare(dialog, QStringLiteral("1.28.8")));
    // The kind that depends on the versions is the one shown first.
    QCOMPARE(dialog->selectedKind(), kStale);
    QCOMPARE(dialog->whatIfProxy()->rowCount(), 0);
    QVERIFY(dialog->recordedProxy()->rowCount() > 0);
    std::map<QString, int> expected;
    for (int r = 0; r < dialog->kindModel()->rowCount(); ++r)
        if (dialog->kindModel()->kind(r).whatIf > 0)
            expected[dialog->kindModel()->kind(r).kind] = int(dialog->kindModel()->kind(r).whatIf);
    QVERIFY2(!expected.empty() && !expected.count(kStale),
             qPrintable(describe(countsOf(dialog->kindModel()))));
    const Session* before = h.switcher->session();
    QSignalSpy switched(h.switcher.get(), &SessionSwitcher::switched);
    QTest::mouseClick(dialog->replayButton(), Qt::LeftButton);
    QCOMPARE(switched.count(), 1);
    QVERIFY(h.switcher->session() != before);
    const SourceSpec spec = h.switcher->currentSpec();
    QCOMPARE(spec.kind, SourceSpec::Kind::Capture);
    QCOMPARE(spec.capture, m_capture);
    QCOMPARE(spec.whatIf.serverVersion, QStringLiteral("1.28.8"));
    QVERIFY(h.replay()->active());
    QVERIFY(h.window->replayBar()->isVisible());
    QVERIFY2(h.window->windowTitle().contains(QStringLiteral("what if kube-apiserver 1.28.8")),
             qPrintable(h.window->windowTitle()));
    QVERIFY(h.window->whatIfAction()->isEnabled());
    QVERIFY(dialog->isVisible()); // still there, beside the what-if replay
    // The window's replay is the what-if run: played to its end it finds what the dialog did.
    h.replay()->setSpeed(0);
    h.replay()->setPaused(false);
    QTRY_VERIFY_WITH_TIMEOUT(h.replay()->replayFinished(), kTimeoutMs);
    QTest::qWait(100);
    QCOMPARE(kindsOf(h.window->anomalyModel()->anomalies()), expected);
    // Opened again, the dialog is on the same capture, with these versions filled in.
    h.window->whatIfAction()->trigger();
    QCOMPARE(h.switcher->whatIf()->dialog(), dialog);
    dialog->close(); // deletes itself
    QTRY_VERIFY(!h.switcher->whatIf()->dialog());
    h.window->whatIfAction()->trigger();
    dialog = h.switcher->whatIf()->dialog();
    QVERIFY(dialog);
    QCOMPARE(dialog->overrides().serverVersion, QStringLiteral("1.28.8"));
    // Starting it again keeps the versions; opening the capture as recorded drops them.
    QVERIFY(h.switcher->restart());
    QCOMPARE(h.switcher->currentSpec().whatIf.serverVersion, QStringLiteral("1.28.8"));
    QVERIFY(h.window->windowTitle().contains(QStringLiteral("what if kube-apiserver 1.28.8")));
    QVERIFY(h.switcher->openCapture(m_capture));
    QVERIFY(!h.switcher->currentSpec().whatIf.any());
    QVERIFY2(!h.window->windowTitle().contains(QStringLiteral("what if")),
             qPrintable(h.window->windowTitle()));
    // A version the replay cannot run under: the window's session stays, the dialog says why.
    const Session* kept = h.switcher->session();
    SourceSpec bad = spec;
    bad.whatIf.serverVersion = QStringLiteral("1.99x");
    QVERIFY(!h.switcher->whatIf()->replay(bad));
    QCOMPARE(h.switcher->session(), kept);
    QVERIFY2(dialog->statusLabel()->text().contains(QStringLiteral("bad server version '1.99x'")),
             qPrintable(dialog->statusLabel()->text()));
}

void TestGuiWhatIf::screenshot() {
    // The dialog with a result; WS_SCREENSHOT=path saves it (scripts/screenshot.sh is for the
    // program; this is for the dialog: run the test under Xvfb with QT_QPA_PLATFORM=xcb).
    Harness h;
    QString error;
    QVERIFY2(h.open(&error), qPrintable(error));
    WhatIfDialog* dialog = h.openWhatIf(m_capture);
    QVERIFY(dialog);
    QVERIFY(compare(dialog, QStringLiteral("1.28.8")));
    dialog->selectKind(kStale);
    QTest::qWait(200);
    const QPixmap shot = dialog->grab();
    QVERIFY(!shot.isNull());
    const QString path = qEnvironmentVariable("WS_SCREENSHOT");
    if (!path.isEmpty())
        QVERIFY(shot.save(path));
}

QTEST_MAIN(TestGuiWhatIf)
#include "tst_guiwhatif.moc"

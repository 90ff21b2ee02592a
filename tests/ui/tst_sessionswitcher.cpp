// The scenario picker and SessionSwitcher over real simulator sessions: a switch brings the new
// scenario's rows and nothing of the old one; a switch that cannot happen keeps the old session
// running and says why.
#include "charts/ChartData.h"
#include "engine/Session.h"
#include "models/AnomalyFilterProxy.h"
#include "models/AnomalyListModel.h"
#include "models/CacheTableModel.h"
#include "models/WatcherTableModel.h"
#include "scenario/ScenarioLoader.h"
#include "session/SessionSwitcher.h"
#include "sources/SourceFactory.h"
#include "widgets/MainWindow.h"
#include "widgets/ScenarioPicker.h"

#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>
#include <memory>
#include <set>

using namespace ws;

namespace {

constexpr int kRunTimeoutMs = 60000; // a whole scenario at --speed max takes well under a second

// A window on `scenario` with its switcher, every model under QAbstractItemModelTester for the
// whole test (resets included).
struct Harness {
    std::unique_ptr<MainWindow> window;
    std::unique_ptr<SessionSwitcher> switcher;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers;

    bool open(const QString& scenario, double speed, QString* error) {
        SourceSpec spec;
        spec.scenario.scenario = scenario;
        spec.scenario.speed = speed;
        Session* session =
            Session::prepared(SourceFactory::create(spec, error), spec, {}, error).release();
        if (!session)
            return false;
        window = std::make_unique<MainWindow>(session);
        for (QAbstractItemModel* m : std::initializer_list<QAbstractItemModel*>{
                 window->watcherModel(), window->cacheModel(), window->anomalyModel(),
                 window->anomalyProxy()})
            testers.push_back(std::make_unique<QAbstractItemModelTester>(
                m, QAbstractItemModelTester::FailureReportingMode::QtTest));
        switcher = std::make_unique<SessionSwitcher>(window.get(), session, spec);
        window->resize(1400, 900);
        window->show();
        if (!QTest::qWaitForWindowExposed(window.get())) {
            *error = QStringLiteral("window not exposed");
            return false;
        }
        switcher->start();
        return true;
    }
    ~Harness() {
        switcher.reset(); // stops the session before the window goes
        testers.clear();
        window.reset();
    }
};

std::set<QString> kinds(const AnomalyListModel* model) {
    std::set<QString> out;
    for (int i = 0; i < model->rowCount(); ++i)
        out.insert(kindName(model->anomaly(i).kind));
    return out;
}

std::set<QString> rowResources(const MainWindow& w) {
    std::set<QString> out;
    for (int i = 0; i < w.watcherModel()->rowCount(); ++i)
        out.insert(w.watcherModel()->watcher(i).resource);
    for (int i = 0; i < w.cacheModel()->rowCount(); ++i)
        out.insert(w.cacheModel()->index(i, CacheTableModel::ResourceColumn).data().toString());
    for (int i = 0; i < w.anomalyModel()->rowCount(); ++i) {
        if (!w.anomalyModel()->anomaly(i).resource.isEmpty())
            out.insert(w.anomalyModel()->anomaly(i).resource);
    }
    return out;
}

QStringList comboItems(const QComboBox* box) {
    QStringList out;
    for (int i = 0; i < box->count(); ++i)
        out << box->itemText(i);
    return out;
}

// As a person picking an entry from the open list does it.
void pick(ScenarioPicker* picker, const QString& nameOrPath) {
    const int index = picker->indexOfScenario(nameOrPath);
    QVERIFY2(index >= 0, qPrintable(nameOrPath));
    picker->setCurrentIndex(index);
    emit picker->activated(index);
}

} // namespace

class TestSessionSwitcher : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void pickerListsBuiltins();
    void switchesScenario_data();
    void switchesScenario();
    void failedSwitchKeepsSession_data();
    void failedSwitchKeepsSession();
    void opensScenarioFile();
    void restartReadsFileAgain();
    void restartKeepsSeed();
    void noSwitcherNoPicker();
    void wheelAndArrowsDoNotSwitch();
};

void TestSessionSwitcher::initTestCase() {
    QLocale::setDefault(QLocale::c());
}

void TestSessionSwitcher::pickerListsBuiltins() {
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("too-large-rv-loop"), 0, &error), qPrintable(error));
    ScenarioPicker* picker = h.window->scenarioPicker();
    QVERIFY(picker->isVisible());
    QVERIFY(picker->isEnabled());
    QVERIFY(h.window->openScenarioAction()->isEnabled());
    // The same list, in the same order, as `watchscope-cli scenarios`.
    const std::vector<ScenarioSummary> builtins = ScenarioLoader::builtinSummaries(&error);
    QVERIFY(builtins.size() >= 11);
    for (std::size_t i = 0; i < builtins.size(); ++i) {
        QCOMPARE(picker->itemText(int(i)), builtins[i].name);
        QCOMPARE(picker->itemData(int(i), Qt::ToolTipRole).toString(), builtins[i].description);
    }
    QCOMPARE(picker->itemText(picker->openFileIndex()), QStringLiteral("Open scenario file…"));
    // --scenario is the initial selection.
    QCOMPARE(picker->currentText(), QStringLiteral("too-large-rv-loop"));
    QCOMPARE(picker->currentScenario(), QStringLiteral("too-large-rv-loop"));
    QVERIFY(picker->toolTip().contains(QStringLiteral("504 Too large resource version")));
    // Picking "Open scenario file…" asks for a file and leaves the selection where it was.
    QSignalSpy openSpy(picker, &ScenarioPicker::openFileRequested);
    QSignalSpy chosenSpy(picker, &ScenarioPicker::scenarioChosen);
    picker->setCurrentIndex(picker->openFileIndex());
    emit picker->activated(picker->openFileIndex());
    QCOMPARE(openSpy.count(), 1);
    QCOMPARE(chosenSpy.count(), 0);
    QCOMPARE(picker->currentText(), QStringLiteral("too-large-rv-loop"));
    // The file dialog does not block; the file picked in it is what the switch is asked for.
    auto* dialog = h.window->findChild<QFileDialog*>(QStringLiteral("scenarioFileDialog"));
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QPointer<QFileDialog> dialogGuard(dialog);
    ScenarioLoader::builtinNames(); // registers the built-in files' resources
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("mine.yaml"));
    QVERIFY(QFile::copy(QStringLiteral(":/scenarios/healthy.yaml"), path));
    dialog->selectFile(path);
    static_cast<QDialog*>(dialog)->accept(); // public there; QFileDialog's own runs
    QCOMPARE(chosenSpy.count(), 1);
    QCOMPARE(chosenSpy.at(0).at(0).toString(), path);
    QCOMPARE(picker->currentText(), QStringLiteral("mine.yaml"));
    QCOMPARE(h.switcher->currentScenario(), path);
    QTRY_VERIFY(dialogGuard.isNull());
}

void TestSessionSwitcher::switchesScenario_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QStringList>("expectedKinds"); // empty: none at all
    QTest::addColumn<QString>("goneResource");      // the old scenario's, not the new one's

    QTest::newRow("healthy to too-large-rv-loop")
        << "healthy"
        << "too-large-rv-loop"
        << QStringList{QStringLiteral("too-large-rv"), QStringLiteral("retry-loop")} << "pods";
    QTest::newRow("too-large-rv-loop to healthy") << "too-large-rv-loop"
                                                  << "healthy" << QStringList{} << "runtimeclasses";
    QTest::newRow("healthy to selector-watch-too-old")
        << "healthy"
        << "selector-watch-too-old" << QStringList{QStringLiteral("too-old-rv")} << "configmaps";
}

void TestSessionSwitcher::switchesScenario() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QStringList, expectedKinds);
    QFETCH(QString, goneResource);

    Harness h;
    QString error;
    QVERIFY2(h.open(from, 0, &error), qPrintable(error));
    MainWindow& w = *h.window;
    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kRunTimeoutMs);
    QVERIFY(w.watcherModel()->rowCount() > 0);
    QVERIFY(rowResources(w).count(goneResource));
    QVERIFY(comboItems(w.resourceChooser()).contains(goneResource));
    const int oldAnomalies = w.anomalyModel()->rowCount();
    if (from != QLatin1String("healthy"))
        QVERIFY(oldAnomalies > 0);
    w.selectAnomaly(oldAnomalies - 1); // something in the detail pane to be cleared

    QPointer<Session> old = h.switcher->session();
    QSignalSpy switched(h.switcher.get(), &SessionSwitcher::switched);
    pick(w.scenarioPicker(), to);
    QCOMPARE(switched.count(), 1);
    QCOMPARE(switched.at(0).at(0).toString(), to);
    QVERIFY(h.switcher->session() != old);
    QCOMPARE(w.session(), h.switcher->session());
    QCOMPARE(w.scenarioPicker()->currentScenario(), to);
    QVERIFY(w.windowTitle().contains(to));
    // The old session is gone once the event loop ran; nothing of it is left on screen.
    QTRY_VERIFY(old.isNull());

    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kRunTimeoutMs);
    QVERIFY(w.lastError().isEmpty());
    QVERIFY(w.updatesApplied() > 0);
    QVERIFY(w.watcherModel()->rowCount() > 0);
    const std::set<QString> resources = rowResources(w);
    QVERIFY2(!resources.count(goneResource), qPrintable(goneResource));
    const QStringList newResources = w.session()->resources();
    for (const QString& r : resources)
        QVERIFY2(newResources.contains(r), qPrintable(r));
    QVERIFY(!comboItems(w.resourceChooser()).contains(goneResource));
    QVERIFY(!w.chartData().resources().contains(goneResource));
    const std::set<QString> got = kinds(w.anomalyModel());
    if (expectedKinds.isEmpty()) {
        QCOMPARE(w.anomalyModel()->rowCount(), 0);
    } else {
        for (const QString& k : expectedKinds)
            QVERIFY2(got.count(k), qPrintable(k));
    }
    QVERIFY(!w.anomalyView()->selectionModel()->hasSelection());
    auto* note = w.findChild<QPlainTextEdit*>(QStringLiteral("scenarioExplanation"));
    QVERIFY(note);
    QCOMPARE(w.findChildren<QPlainTextEdit*>(QStringLiteral("scenarioExplanation")).size(), 1);
    const QString firstLine = h.switcher->session()->explanation().section(QLatin1Char('\n'), 0, 0);
    QVERIFY2(note->toPlainText().startsWith(firstLine.trimmed()), qPrintable(firstLine));
}

void TestSessionSwitcher::failedSwitchKeepsSession_data() {
    QTest::addColumn<QString>("yaml"); // written to a file first; empty: a path that is not there
    QTest::addColumn<QString>("errorPart");

    QTest::newRow("missing file") << QString() << "cannot read scenario file";
    QTest::newRow("bad yaml") << "name: broken\nresources: [\n"
                              << "broken.yaml:";
    QTest::newRow("missing fields") << "name: broken\n"
                                    << "broken.yaml:1: scenario: missing required field";
}

void TestSessionSwitcher::failedSwitchKeepsSession() {
    QFETCH(QString, yaml);
    QFETCH(QString, errorPart);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("broken.yaml"));
    if (!yaml.isEmpty()) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(yaml.toUtf8());
    }

    // Real time, so that the session visibly goes on after the failed switch.
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 1, &error), qPrintable(error));
    MainWindow& w = *h.window;
    QTRY_VERIFY(w.watcherModel()->rowCount() > 0);
    Session* before = h.switcher->session();
    const int rows = w.watcherModel()->rowCount();

    QSignalSpy failed(h.switcher.get(), &SessionSwitcher::switchFailed);
    w.scenarioPicker()->choose(path); // what "Open scenario file…" does with the chosen path
    QCOMPARE(failed.count(), 1);
    const QString message = failed.at(0).at(0).toString();
    QVERIFY2(message.contains(errorPart), qPrintable(message));
    QVERIFY2(message.contains(path), qPrintable(message));

    QCOMPARE(h.switcher->session(), before);
    QCOMPARE(w.session(), before);
    QCOMPARE(w.scenarioPicker()->currentScenario(), QStringLiteral("healthy"));
    QCOMPARE(w.scenarioPicker()->currentText(), QStringLiteral("healthy"));
    QCOMPARE(w.scenarioPicker()->indexOfScenario(path), -1); // no entry for a file that failed
    QCOMPARE(w.lastError(), message);
    QVERIFY(w.statusBar()->currentMessage().contains(message));
    auto* box = w.findChild<QMessageBox*>();
    QVERIFY(box);
    QVERIFY(box->text().contains(message));
    QCOMPARE(w.watcherModel()->rowCount(), rows);
    // And it keeps running.
    const int applied = w.updatesApplied();
    QTRY_VERIFY(w.updatesApplied() > applied + 3);
    QCOMPARE(w.stateText(), QStringLiteral("Live"));
}

void TestSessionSwitcher::opensScenarioFile() {
    // A copy of a built-in scenario, as the README suggests, run from its file.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ScenarioLoader::builtinNames(); // registers the built-in files' resources
    QFile builtin(QStringLiteral(":/scenarios/too-large-rv-loop.yaml"));
    QVERIFY(builtin.open(QIODevice::ReadOnly));
    const QString path = dir.filePath(QStringLiteral("my-loop.yaml"));
    QFile copy(path);
    QVERIFY(copy.open(QIODevice::WriteOnly));
    copy.write(builtin.readAll());
    copy.close();

    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 0, &error), qPrintable(error));
    MainWindow& w = *h.window;
    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kRunTimeoutMs);
    w.scenarioPicker()->choose(path);
    QCOMPARE(h.switcher->currentScenario(), path);
    QCOMPARE(w.scenarioPicker()->currentText(), QStringLiteral("my-loop.yaml"));
    QCOMPARE(w.scenarioPicker()->currentScenario(), path);
    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kRunTimeoutMs);
    QVERIFY(kinds(w.anomalyModel()).count(QStringLiteral("too-large-rv")));

    // Back to a built-in: the file stays listed, above the "Open scenario file…" entry.
    pick(w.scenarioPicker(), QStringLiteral("healthy"));
    QCOMPARE(h.switcher->currentScenario(), QStringLiteral("healthy"));
    const int fileIndex = w.scenarioPicker()->indexOfScenario(path);
    QVERIFY(fileIndex > 0);
    QVERIFY(fileIndex < w.scenarioPicker()->openFileIndex() - 1);
    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kRunTimeoutMs);
    QCOMPARE(w.anomalyModel()->rowCount(), 0);
}

void TestSessionSwitcher::restartReadsFileAgain() {
    // Edit a scenario file, restart: the new run is of the edited file, from the start.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ScenarioLoader::builtinNames(); // registers the built-in files' resources
    const auto copyBuiltin = [&](const QString& name, const QString& path) {
        QFile builtin(QStringLiteral(":/scenarios/%1.yaml").arg(name));
        QFile copy(path);
        return builtin.open(QIODevice::ReadOnly) && copy.open(QIODevice::WriteOnly) &&
               copy.write(builtin.readAll()) > 0;
    };
    const QString path = dir.filePath(QStringLiteral("mine.yaml"));
    QVERIFY(copyBuiltin(QStringLiteral("too-large-rv-recovers"), path));

    Harness h;
    QString error;
    QVERIFY2(h.open(path, 0, &error), qPrintable(error));
    MainWindow& w = *h.window;
    QVERIFY(w.restartScenarioAction()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kRunTimeoutMs);
    QVERIFY(!kinds(w.anomalyModel()).count(QStringLiteral("retry-loop")));

    QVERIFY(copyBuiltin(QStringLiteral("too-large-rv-loop"), path));
    QPointer<Session> old = h.switcher->session();
    QSignalSpy switched(h.switcher.get(), &SessionSwitcher::switched);
    w.restartScenarioAction()->trigger();
    QCOMPARE(switched.count(), 1);
    QCOMPARE(h.switcher->currentScenario(), path);
    QTRY_VERIFY(old.isNull());
    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kRunTimeoutMs);
    QVERIFY(kinds(w.anomalyModel()).count(QStringLiteral("retry-loop")));

    // A file broken in the meantime: the run shown stays, and the window says why.
    QFile broken(path);
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("name: mine\nbogus: 1\n");
    broken.close();
    QPointer<Session> kept = h.switcher->session();
    QSignalSpy failed(h.switcher.get(), &SessionSwitcher::switchFailed);
    w.restartScenarioAction()->trigger();
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("mine.yaml")),
             qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(h.switcher->session(), kept.data());
}

void TestSessionSwitcher::restartKeepsSeed() {
    // Started with --seed 5: a restart runs seed 5 again; a picked scenario runs with its own.
    SourceSpec spec;
    spec.scenario.scenario = QStringLiteral("healthy");
    spec.scenario.speed = 0;
    spec.scenario.seed = 5;
    QString error;
    Session* session =
        Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error).release();
    QVERIFY2(session, qPrintable(error));
    MainWindow w(session);
    SessionSwitcher switcher(&w, session, spec);
    QVERIFY(switcher.session()->description().contains(QStringLiteral("seed 5")));
    QVERIFY(switcher.restart());
    QVERIFY2(switcher.session()->description().contains(QStringLiteral("seed 5")),
             qPrintable(switcher.session()->description()));
    QVERIFY(switcher.switchTo(QStringLiteral("too-large-rv-loop")));
    QVERIFY2(switcher.session()->description().contains(QStringLiteral("seed 2")),
             qPrintable(switcher.session()->description()));
    QVERIFY(switcher.restart());
    QVERIFY(switcher.session()->description().contains(QStringLiteral("seed 2")));
}

void TestSessionSwitcher::noSwitcherNoPicker() {
    // Nothing can switch a window nobody gave a switcher: no picker, no connect, no restart.
    MainWindow plain(nullptr);
    plain.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plain));
    QVERIFY(!plain.scenarioPicker()->isVisible());
    QVERIFY(!plain.openScenarioAction()->isEnabled());
    QVERIFY(!plain.connectClusterAction()->isEnabled());
    QVERIFY(!plain.restartScenarioAction()->isEnabled());
}

void TestSessionSwitcher::wheelAndArrowsDoNotSwitch() {
    // Rolling the wheel over the tool bar, or an arrow key on the focused picker, must not
    // restart the session once per step.
    Harness h;
    QString error;
    QVERIFY2(h.open(QStringLiteral("healthy"), 0, &error), qPrintable(error));
    ScenarioPicker* picker = h.window->scenarioPicker();
    QSignalSpy chosen(picker, &ScenarioPicker::scenarioChosen);
    const QPointF at(picker->width() / 2.0, picker->height() / 2.0);
    QWheelEvent wheel(at, picker->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(picker, &wheel);
    QCOMPARE(picker->currentScenario(), QStringLiteral("healthy"));
    QCOMPARE(picker->currentText(), QStringLiteral("healthy"));
    picker->setFocus();
    QTest::keyClick(picker, Qt::Key_Down);
    QCOMPARE(chosen.count(), 0);
    QCOMPARE(picker->currentText(), QStringLiteral("healthy"));
    QTRY_VERIFY(picker->view()->isVisible()); // the list opened instead
    picker->hidePopup();
    QCOMPARE(h.switcher->currentScenario(), QStringLiteral("healthy"));
}

QTEST_MAIN(TestSessionSwitcher)
#include "tst_sessionswitcher.moc"

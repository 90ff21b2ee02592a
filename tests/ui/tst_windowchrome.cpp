// What surrounds the panes: the layout remembered across runs, light and dark following the
// palette, the keyboard shortcuts, the status bar's memory figure and what it says the session
// dropped for a slow consumer.
#include "DocsScreenshot.h"
#include "SyntheticCluster.h"
#include "models/AnomalyListModel.h"
#include "session/WindowLayoutMemory.h"
#include "widgets/LiveChartView.h"
#include "widgets/MainWindow.h"
#include "widgets/RvTimelineChart.h"
#include "widgets/SessionStatusBar.h"
#include "widgets/ShortcutsDialog.h"

#include <QAction>
#include <QApplication>
#include <QChart>
#include <QLegend>
#include <QLocale>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <QXYSeries>

using namespace ws;

class TestWindowChrome : public QObject {
    Q_OBJECT
private slots:
    void layoutRemembered();
    void firstStartKeepsBuiltLayout();
    void darkPaletteRecoloursCharts();
    void shortcutsListed();
    void tabShortcuts();
    void statusBarShowsMemory();
    void statusBarShowsWhatWasDropped();
    void statusBarSaysWhatTheSessionDidNotKeep();
};

namespace {
QSplitter* splitter(const MainWindow& w, const char* name) {
    return w.findChild<QSplitter*>(QString::fromLatin1(name));
}
} // namespace

void TestWindowChrome::layoutRemembered() {
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("layout.ini")), QSettings::IniFormat);
    QList<int> central;
    QList<int> lists;
    {
        MainWindow window(nullptr);
        window.resize(1300, 860);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        for (const char* name : {"centralSplitter", "listsSplitter", "chartsSplitter"})
            QVERIFY2(splitter(window, name), name);
        splitter(window, "centralSplitter")->setSizes({200, 600});
        splitter(window, "listsSplitter")->setSizes({500, 700});
        central = splitter(window, "centralSplitter")->sizes();
        lists = splitter(window, "listsSplitter")->sizes();
        WindowLayoutMemory(&settings).save(window);
    }
    MainWindow again(nullptr);
    QVERIFY(WindowLayoutMemory(&settings).restore(again));
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QCOMPARE(again.size(), QSize(1300, 860));
    QCOMPARE(splitter(again, "centralSplitter")->sizes(), central);
    QCOMPARE(splitter(again, "listsSplitter")->sizes(), lists);
    // The tab is not remembered: the window opens on Incidents.
    QCOMPARE(again.paneTabs()->currentIndex(), 0);
}

void TestWindowChrome::firstStartKeepsBuiltLayout() {
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("empty.ini")), QSettings::IniFormat);
    MainWindow window(nullptr);
    const QList<int> before = splitter(window, "centralSplitter")->sizes();
    QVERIFY(!WindowLayoutMemory(&settings).restore(window));
    QCOMPARE(splitter(window, "centralSplitter")->sizes(), before);
}

void TestWindowChrome::darkPaletteRecoloursCharts() {
    MainWindow window(nullptr);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RvTimelineChart* chart = window.rvChart();
    const QPalette light = QApplication::palette();
    QVERIFY(!LiveChartView::isDark(light));
    QVERIFY(chart->chart()->backgroundBrush().color().lightness() > 128);

    // What a platform theme does when the system switches to dark.
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
    dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x18));
    dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
    dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
    QApplication::setPalette(dark);
    QTRY_VERIFY(LiveChartView::isDark(chart->palette()));
    QTRY_VERIFY(chart->chart()->backgroundBrush().color().lightness() < 64);
    QVERIFY(chart->axisX()->labelsColor().lightness() > 192);
    QVERIFY(chart->chart()->legend()->labelColor().lightness() > 192);
    // The etcd head line is drawn in the text colour: light on dark.
    QXYSeries* head = chart->boundSeries(QStringLiteral("head_rv"));
    QVERIFY(head);
    QVERIFY(head->pen().color().lightness() > 192);

    QApplication::setPalette(light);
    QTRY_VERIFY(chart->chart()->backgroundBrush().color().lightness() > 128);
    QVERIFY(head->pen().color().lightness() < 64);
}

void TestWindowChrome::shortcutsListed() {
    MainWindow window(nullptr);
    ShortcutsDialog dialog(&window);
    QTableWidget* table = dialog.table();
    QStringList rows;
    for (int r = 0; r < table->rowCount(); ++r)
        rows << table->item(r, 0)->text() + QLatin1String(" = ") + table->item(r, 1)->text();
    const QString all = rows.join(QLatin1Char('\n'));
    // Every action with keys is listed with them, read from the action itself.
    int withKeys = 0;
    for (const QAction* a : window.findChildren<QAction*>()) {
        if (a->shortcut().isEmpty())
            continue;
        ++withKeys;
        const QString keys = a->shortcut().toString(QKeySequence::NativeText);
        QVERIFY2(all.contains(keys), qPrintable(keys + QLatin1String(" missing from\n") + all));
    }
    QVERIFY2(withKeys >= 10, qPrintable(QString::number(withKeys)));
    QVERIFY2(all.contains(QLatin1String("Pause view = Ctrl+Space")), qPrintable(all));
    QVERIFY2(all.contains(QLatin1String("Follow")), qPrintable(all));
    QVERIFY2(all.contains(QLatin1String("Faster = Ctrl+]")), qPrintable(all));
    // The charts' keys live in an event filter, not in actions: listed too.
    QVERIFY2(all.contains(QLatin1String("Chart: follow live = End")), qPrintable(all));
    QVERIFY2(all.contains(QLatin1String("+, -, mouse wheel")), qPrintable(all));
}

void TestWindowChrome::tabShortcuts() {
    MainWindow window(nullptr);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTabWidget* tabs = window.paneTabs();
    QVERIFY(tabs->count() >= 3);
    QTest::keyClick(&window, Qt::Key_3, Qt::AltModifier);
    QTRY_COMPARE(tabs->currentIndex(), 2);
    QTest::keyClick(&window, Qt::Key_1, Qt::AltModifier);
    QTRY_COMPARE(tabs->currentIndex(), 0);
    QTest::keyClick(&window, Qt::Key_9, Qt::AltModifier); // no ninth tab: nothing happens
    QCOMPARE(tabs->currentIndex(), 0);
}

void TestWindowChrome::statusBarShowsMemory() {
    MainWindow window(nullptr);
    auto* bar = qobject_cast<SessionStatusBar*>(window.statusBar());
    QVERIFY(bar);
    // "memory 95 MB": a test process holds tens of MB at least.
    const QString text = bar->memoryText();
    QVERIFY2(text.startsWith(QLatin1String("memory ")) && text.endsWith(QLatin1String(" MB")),
             qPrintable(text));
    QString digits = text.mid(7);
    digits.chop(3);
    digits.remove(QLatin1Char(','));
    QVERIFY2(digits.toLongLong() >= 10, qPrintable(text));
}

void TestWindowChrome::statusBarShowsWhatWasDropped() {
    MainWindow window(nullptr);
    test::SyntheticCluster cluster;
    window.applyUpdate(cluster.next());
    QCOMPARE(window.flowStatus(), QString()); // nothing dropped: nothing shown

    // The session merged updates this window was too slow for and dropped the oldest of
    // them; a capture's disk fell behind.
    EngineUpdate u = cluster.next();
    u.anomalies.clear();
    Anomaly a;
    a.kind = AnomalyKind::WatcherLag;
    a.resource = QStringLiteral("pods");
    a.message = QStringLiteral("after the gap");
    u.anomalies.append(a);
    u.missingAnomalies = 40;
    u.flow.anomaliesDropped = 40;
    u.flow.pointsDropped = 300;
    u.flow.captureFramesDropped = 12;
    u.flow.captureBytesDropped = 4096;
    window.applyUpdate(u);
    const QString text = window.flowStatus();
    QVERIFY2(text.startsWith(QStringLiteral("dropped ")), qPrintable(text));
    QVERIFY(test::saveDocsScreenshot(&window, QStringLiteral("dropped.png")));
    QVERIFY2(text.contains(QStringLiteral("12 capture frames")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("40 anomalies")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("300 samples")), qPrintable(text));
    // The anomaly list counts the 40 as dropped before the one it shows.
    QCOMPARE(window.anomalyModel()->droppedCount(), qint64(40));

    // A full disk: the recording stopped, the bar says there was a file error.
    EngineUpdate v = cluster.next();
    v.flow = u.flow;
    v.flow.fileError = QStringLiteral("cannot write /dev/full: No space left on device");
    window.applyUpdate(v);
    QVERIFY2(window.flowStatus().endsWith(QStringLiteral("file error")),
             qPrintable(window.flowStatus()));
}

// Anomalies the session's own memory let go (AnomalyStore) reached the list: said, not counted
// as dropped by the list.
void TestWindowChrome::statusBarSaysWhatTheSessionDidNotKeep() {
    MainWindow window(nullptr);
    test::SyntheticCluster cluster;
    EngineUpdate u = cluster.next();
    u.flow.anomaliesNotKept = 7000;
    window.applyUpdate(u);
    const QString text = window.flowStatus();
    QVERIFY2(text == QStringLiteral("%1 older anomalies not kept in the session's memory")
                         .arg(QLocale::system().toString(qint64(7000))),
             qPrintable(text));
    QCOMPARE(window.anomalyModel()->droppedCount(), qint64(0));
    // With drops of its own, both are said.
    EngineUpdate v = cluster.next();
    v.flow = u.flow;
    v.flow.pointsDropped = 300;
    window.applyUpdate(v);
    QVERIFY2(window.flowStatus().startsWith(QStringLiteral("dropped 300 samples; ")) &&
                 window.flowStatus().endsWith(QStringLiteral("not kept in the session's memory")),
             qPrintable(window.flowStatus()));
}

QTEST_MAIN(TestWindowChrome)
#include "tst_windowchrome.moc"

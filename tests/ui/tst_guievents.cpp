// The Events tab in the window on a real scenario (cacher-retry-stale-object): every etcd
// commit of the run is a row; a name regex typed in the filter bar narrows the table to the
// events of that object; a MODIFIED event's diff against the previous version of its object
// shows the changed line marked - and +; anomaly-only leaves the events the engine's
// stale-object anomalies name, and selecting one shows that anomaly in the window's details.
// The table's model stays valid (QAbstractItemModelTester) throughout.
#include "GuiSession.h"
#include "engine/EventMatcher.h"
#include "engine/Session.h"
#include "models/AnomalyListModel.h"
#include "models/CellFormat.h"
#include "models/EventTableModel.h"
#include "widgets/AnomalyDetailPane.h"
#include "widgets/EventDetailPane.h"
#include "widgets/EventsPane.h"
#include "widgets/MainWindow.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTest>
#include <memory>

using namespace ws;

namespace {

constexpr int kTimeoutMs = 120000;
const QString kScenario = QStringLiteral("cacher-retry-stale-object");

// Every row of the table matches `f` (anomaly-only: every row is marked).
bool everyRowMatches(const EventTableModel* model, const EventFilter& f, QString* why) {
    const EventMatcher m(f);
    for (int r = 0; r < model->rowCount(); ++r) {
        const JournalEntry e = model->entryAt(r);
        const bool ok = f.anomalyOnly ? model->isMarked(e.key, e.rv) : m.matches(e);
        if (!e.valid() || !ok) {
            *why = QStringLiteral("row %1: #%2 %3 %4 RV %5")
                       .arg(r)
                       .arg(e.index + 1)
                       .arg(watchEventTypeName(e.type), e.objectName())
                       .arg(e.rv);
            return false;
        }
    }
    return true;
}

void clickRow(QTableView* view, int row) {
    const QModelIndex index = view->model()->index(row, EventTableModel::ObjectColumn);
    view->scrollTo(index);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(index).center());
}

} // namespace

class TestGuiEvents : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void filterNarrowsTheTableAndDiffShowsTheChange();
    void hiddenTableCatchesUpWhenShown();
};

void TestGuiEvents::filterNarrowsTheTableAndDiffShowsTheChange() {
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(kScenario, 20, &error, EventJournalLimits::window()),
             qPrintable(error));
    MainWindow& w = *h.window;
    EventsPane* pane = w.eventsPane();
    EventTableModel* model = pane->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QTableView* view = pane->view();

    // Open the Events tab as a reader does: a click on its tab.
    QTabWidget* tabs = w.paneTabs();
    const int tab = tabs->indexOf(pane);
    QVERIFY(tab >= 0);
    QVERIFY(tabs->tabText(tab).startsWith(QStringLiteral("Events")));
    QTest::mouseClick(tabs->tabBar(), Qt::LeftButton, {}, tabs->tabBar()->tabRect(tab).center());
    QCOMPARE(tabs->currentWidget(), pane);

    h.switcher->start();
    // Rows come in while it runs, not only at the end.
    QTRY_VERIFY_WITH_TIMEOUT(model->rowCount() > 100, kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kTimeoutMs);
    const int all = model->rowCount();
    QCOMPARE(qint64(all), model->stats().total);
    QCOMPARE(model->stats().droppedEntries(), qint64(0));
    // The events count in the title is redrawn twice a second.
    QTRY_COMPARE(tabs->tabText(tab), QStringLiteral("Events (%1)").arg(formatCount(all)));

    // A MODIFIED event whose previous version is held: its name, typed as a regex.
    int modifiedRow = -1;
    JournalEntry modified;
    for (int r = all / 2; r < all && modifiedRow < 0; ++r) {
        const JournalEntry e = model->entryAt(r);
        if (e.type == WatchEventType::Modified && e.previous >= 0 &&
            e.content == JournalContent::Kept) {
            modifiedRow = r;
            modified = e;
        }
    }
    QVERIFY2(modifiedRow >= 0, "no MODIFIED event with a previous version");
    QLineEdit* name = pane->nameEdit();
    QTest::mouseClick(name, Qt::LeftButton);
    const QString regex =
        QLatin1Char('^') + QRegularExpression::escape(modified.name) + QLatin1Char('$');
    QTest::keyClicks(name, regex);
    QTest::keyClick(name, Qt::Key_Return);
    const EventFilter f = model->filter();
    QCOMPARE(f.nameRegex, regex);
    QTRY_VERIFY_WITH_TIMEOUT(!model->scanning(), kTimeoutMs);
    QVERIFY2(model->rowCount() > 1 && model->rowCount() < all,
             qPrintable(QStringLiteral("%1 of %2").arg(model->rowCount()).arg(all)));
    QString why;
    QVERIFY2(everyRowMatches(model, f, &why), qPrintable(why));
    for (int r = 0; r < model->rowCount(); ++r)
        QCOMPARE(model->index(r, EventTableModel::ObjectColumn).data().toString(),
                 modified.objectName());
    QVERIFY(model->rowOf(modified.index) >= 0);
    QTRY_COMPARE(
        tabs->tabText(tab),
        QStringLiteral("Events (%1 of %2)").arg(formatCount(model->rowCount()), formatCount(all)));

    // Its diff against the previous version: the changed line, - then +.
    clickRow(view, model->rowOf(modified.index));
    EventDetailPane* detail = pane->detail();
    QTRY_VERIFY(detail->heading().startsWith(
        QStringLiteral("Event #%1: MODIFIED").arg(modified.index + 1)));
    QVERIFY2(detail->fieldsText().contains(QStringLiteral("RV: %1").arg(modified.rv)),
             qPrintable(detail->fieldsText()));
    const QVector<DiffLine>& diff = detail->diff();
    QVERIFY2(!diff.isEmpty(), qPrintable(detail->diffStatus()));
    // The simulator's objects change their metadata.generation from one version to the next.
    const auto changed = [&](DiffLine::Op op) {
        return std::any_of(diff.begin(), diff.end(), [&](const DiffLine& l) {
            return l.op == op && l.text.trimmed().startsWith(QStringLiteral("\"generation\":"));
        });
    };
    QVERIFY2(changed(DiffLine::Removed) && changed(DiffLine::Added),
             qPrintable(detail->diffStatus()));
    QVERIFY(detail->diffStatus().contains(QStringLiteral("changed since the previous version")));

    // A bad regex: one line, and the table stays as it was.
    const int narrowed = model->rowCount();
    name->selectAll();
    QTest::keyClicks(name, QStringLiteral("web-("));
    QTest::keyClick(name, Qt::Key_Return);
    const QLabel* bad = pane->findChild<QLabel*>(QStringLiteral("eventFilterError"));
    QVERIFY(bad && bad->isVisible());
    QVERIFY(!bad->text().contains(u'\n'));
    QCOMPARE(model->rowCount(), narrowed);
    QCOMPARE(model->filter(), f);

    // Anomaly-only: the events the engine's anomalies name, each one marked.
    name->clear();
    pane->findChild<QCheckBox*>(QStringLiteral("eventAnomalyOnly"))->click();
    QTest::keyClick(name, Qt::Key_Return);
    QVERIFY(!bad->isVisible());
    QVERIFY(model->filter().anomalyOnly);
    QTRY_VERIFY_WITH_TIMEOUT(!model->scanning(), kTimeoutMs);
    QVERIFY2(model->rowCount() > 0 && model->rowCount() < all,
             qPrintable(QString::number(model->rowCount())));
    QVERIFY2(everyRowMatches(model, model->filter(), &why), qPrintable(why));
    // Selecting one shows the anomaly that names it, in the event's fields and the window's
    // anomaly details.
    clickRow(view, 0);
    const JournalEntry named = model->entryAt(0);
    const QVector<EventAnomaly> anomalies = model->anomaliesOf(named.key, named.rv);
    QVERIFY(!anomalies.isEmpty());
    QTRY_VERIFY(detail->heading().startsWith(QStringLiteral("Event #%1:").arg(named.index + 1)));
    QVERIFY2(detail->fieldsText().contains(QStringLiteral("Anomaly: #%1 %2")
                                               .arg(anomalies.front().serial + 1)
                                               .arg(kindName(anomalies.front().anomaly.kind))),
             qPrintable(detail->fieldsText()));
    QVERIFY2(w.detailPane()->heading().startsWith(
                 QStringLiteral("Anomaly #%1:").arg(anomalies.front().serial + 1)),
             qPrintable(w.detailPane()->heading()));
    QVERIFY(w.detailPane()->text().contains(named.key));
    // The number is the anomaly list's.
    const int listRow = w.anomalyModel()->rowOfSerial(anomalies.front().serial);
    QVERIFY(listRow >= 0);
    QCOMPARE(w.anomalyModel()->anomaly(listRow).key, named.key);
    QCOMPARE(w.anomalyModel()->anomaly(listRow).rv, named.rv);

    // Cleared: every event again.
    pane->clearFilter();
    QCOMPARE(model->rowCount(), all);
}

QTEST_MAIN(TestGuiEvents)
// The Events tab behind another takes the journal's rows twice a second, not per update: its
// title still counts every event, and the table has them all the moment it is shown.
void TestGuiEvents::hiddenTableCatchesUpWhenShown() {
    test::GuiSession h;
    QString error;
    QVERIFY2(h.openScenario(kScenario, 0, &error, EventJournalLimits::window()), qPrintable(error));
    MainWindow& w = *h.window;
    EventsPane* pane = w.eventsPane();
    EventTableModel* model = pane->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QTabWidget* tabs = w.paneTabs();
    QVERIFY(tabs->currentWidget() != pane);
    QVERIFY(!pane->isVisible());

    h.start();
    QTRY_COMPARE_WITH_TIMEOUT(w.stateText(), QStringLiteral("Finished"), kTimeoutMs);
    // The journal's own count (the hidden table's may still be half a second behind).
    const qint64 total = h.switcher->session()->journal()->stats().total;
    QVERIFY(total > 100);
    const int tab = tabs->indexOf(pane);
    QTRY_COMPARE(tabs->tabText(tab), QStringLiteral("Events (%1)").arg(formatCount(total)));

    tabs->setCurrentWidget(pane);
    QVERIFY(pane->isVisible());
    QCOMPARE(qint64(model->rowCount()), total);
}

#include "tst_guievents.moc"

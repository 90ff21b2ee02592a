// The events table's model over an EventJournal, under QAbstractItemModelTester (Fatal): rows
// folded in on refresh (appends at the end, drops at the top), cells paged in from the journal,
// the display filter's scan on its own thread adding rows as it finds them and following the
// journal as it grows, anomaly-only following anomalies raised after their events, a bad
// filter showing nothing. Also the line diff and object text the details show, and the pane
// saying a bad regex in one line.
#include "engine/EventJournal.h"
#include "engine/EventMatcher.h"
#include "models/EventTableModel.h"
#include "models/LineDiff.h"
#include "models/ObjectText.h"
#include "widgets/EventsPane.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QTest>

using namespace ws;

namespace {

constexpr int kTimeoutMs = 30000;
constexpr int kKeys = 40;

QString keyText(int k) {
    return QStringLiteral("/registry/%1/ns-%2/%3-%4")
        .arg(k % 2 ? QStringLiteral("pods") : QStringLiteral("configmaps"))
        .arg(k % 3)
        .arg(k % 2 ? QStringLiteral("web") : QStringLiteral("cfg"))
        .arg(k);
}

void describe(EventJournal& j) {
    for (int k = 0; k < kKeys; ++k)
        j.describeKey(KeyId(k), keyText(k).toStdString(),
                      k % 2 ? QStringLiteral("pods") : QStringLiteral("configmaps"),
                      QStringLiteral("ns-%1").arg(k % 3),
                      QStringLiteral("%1-%2")
                          .arg(k % 2 ? QStringLiteral("web") : QStringLiteral("cfg"))
                          .arg(k));
}

// Event i: key i % kKeys, RV 1000 + i, ADDED the first time a key is seen, a tenth DELETED.
void append(EventJournal& j, qint64 from, qint64 to) {
    for (qint64 i = from; i < to; ++i) {
        EventJournal::Event e;
        e.time = i * 1000;
        e.key = KeyId(i % kKeys);
        e.rv = 1000 + i;
        e.type = i < kKeys     ? WatchEventType::Added
                 : i % 10 == 3 ? WatchEventType::Deleted
                               : WatchEventType::Modified;
        const std::string object = "{\"metadata\":{\"name\":\"" + std::to_string(i % kKeys) +
                                   "\",\"generation\":" + std::to_string(i / kKeys) + "}}";
        e.hasObject = e.type != WatchEventType::Deleted;
        if (e.hasObject)
            e.object = object;
        e.size = std::uint32_t(object.size());
        j.append(e);
    }
}

// Resident memory of this process (Linux), in bytes; 0 when unknown.
qint64 residentBytes() {
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.size() > 1 ? fields[1].toLongLong() * 4096 : 0;
}

// The number of events of [first, total) the matcher lets through.
qint64 expected(const EventJournal& j, const EventFilter& f,
                const std::vector<std::pair<QString, ResourceVersion>>& anomalies = {}) {
    EventMatcher m(f);
    for (const auto& [key, rv] : anomalies)
        m.addAnomaly(key, rv);
    const JournalStats s = j.stats();
    qint64 n = 0;
    for (const JournalEntry& e : j.entries(s.first, int(s.held())))
        n += m.matches(e);
    return n;
}

// Every row the model shows matches the filter, in ascending journal order.
bool rowsMatch(const EventTableModel& model, const EventFilter& f, QString* why) {
    const EventMatcher m(f);
    qint64 last = -1;
    for (int r = 0; r < model.rowCount(); ++r) {
        const JournalEntry e = model.entryAt(r);
        if (!e.valid() || e.index <= last || (!f.anomalyOnly && !m.matches(e))) {
            *why = QStringLiteral("row %1: #%2 %3 %4").arg(r).arg(e.index).arg(e.name).arg(e.rv);
            return false;
        }
        last = e.index;
    }
    return true;
}

} // namespace

class TestEventTableModel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }

    void foldsAppendsAndDropsAndPagesCells() {
        auto journal = std::make_shared<EventJournal>(EventJournalLimits{1000, 1 << 20});
        describe(*journal);
        EventTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setJournal(journal);
        QCOMPARE(model.rowCount(), 0);
        append(*journal, 0, 600);
        QCOMPARE(model.rowCount(), 0); // nothing until the tick
        model.refresh();
        QCOMPARE(model.rowCount(), 600);
        // Cells from pages far apart.
        for (const int row : {0, 1, 127, 128, 400, 599}) {
            QCOMPARE(model.indexAt(row), qint64(row));
            QCOMPARE(model.index(row, EventTableModel::NumberColumn).data().toLongLong(),
                     qint64(row + 1));
            QCOMPARE(model.index(row, EventTableModel::RvColumn).data().toString(),
                     QString::number(1000 + row));
            const JournalEntry e = model.entryAt(row);
            QCOMPARE(model.index(row, EventTableModel::ObjectColumn).data().toString(),
                     e.ns + u'/' + e.name);
            QCOMPARE(e.key, keyText(row % kKeys));
        }
        // Past the cap: the oldest go from the top, counted exactly.
        append(*journal, 600, 1700);
        model.refresh();
        QCOMPARE(model.rowCount(), 1000);
        QCOMPARE(model.stats().droppedEntries(), qint64(700));
        QCOMPARE(model.indexAt(0), qint64(700));
        QCOMPARE(model.index(0, EventTableModel::RvColumn).data().toString(),
                 QString::number(1700));
        QCOMPARE(model.rowOf(699), -1);
        QCOMPARE(model.rowOf(1699), 999);
        // Everything shown went, and more, between two ticks.
        append(*journal, 1700, 4000);
        model.refresh();
        QCOMPARE(model.rowCount(), 1000);
        QCOMPARE(model.indexAt(0), qint64(3000));
        QCOMPARE(model.index(999, EventTableModel::RvColumn).data().toString(),
                 QString::number(4999));
        // Another journal: a clean slate.
        auto other = std::make_shared<EventJournal>(EventJournalLimits{1000, 1 << 20});
        model.setJournal(other);
        QCOMPARE(model.rowCount(), 0);
        model.setJournal(nullptr);
        model.refresh();
        QCOMPARE(model.rowCount(), 0);
    }

    void filtersOffTheGuiThreadAndFollowsTheJournal() {
        auto journal = std::make_shared<EventJournal>(EventJournalLimits{3000, 1 << 20});
        describe(*journal);
        append(*journal, 0, 2000);
        EventTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setJournal(journal);
        model.refresh();
        QCOMPARE(model.rowCount(), 2000);

        EventFilter f;
        f.resource = QStringLiteral("pods");
        f.nameRegex = QStringLiteral("^web-[0-9]*[13]$");
        f.types = EventFilter::typeBit(WatchEventType::Modified);
        model.setFilter(f);
        const qint64 want = expected(*journal, f);
        QVERIFY(want > 0 && want < 2000);
        QTRY_COMPARE_WITH_TIMEOUT(qint64(model.rowCount()), want, kTimeoutMs);
        QTRY_VERIFY(!model.scanning());
        QString why;
        QVERIFY2(rowsMatch(model, f, &why), qPrintable(why));

        // New events are filtered as they come; dropped ones leave from the top.
        append(*journal, 2000, 4500);
        model.refresh();
        const qint64 after = expected(*journal, f);
        QTRY_COMPARE_WITH_TIMEOUT(qint64(model.rowCount()), after, kTimeoutMs);
        QVERIFY2(rowsMatch(model, f, &why), qPrintable(why));
        QVERIFY(model.indexAt(0) >= 1500);

        // An RV range, then another filter while the first may still be scanning.
        EventFilter range;
        range.minRv = 3000;
        range.maxRv = 3099;
        model.setFilter(range);
        EventFilter deleted;
        deleted.types = EventFilter::typeBit(WatchEventType::Deleted);
        deleted.minRv = 3000;
        model.setFilter(deleted);
        QTRY_COMPARE_WITH_TIMEOUT(qint64(model.rowCount()), expected(*journal, deleted),
                                  kTimeoutMs);
        QVERIFY2(rowsMatch(model, deleted, &why), qPrintable(why));
        model.setFilter(range);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 100, kTimeoutMs);

        // A bad regex matches nothing; clearing the filter shows every event again.
        EventFilter bad;
        bad.nameRegex = QStringLiteral("web-(");
        QVERIFY(!bad.error().isEmpty());
        model.setFilter(bad);
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(!model.scanning());
        model.setFilter(EventFilter());
        QCOMPARE(model.rowCount(), 3000);
    }

    void anomalyOnlyFindsEventsBeforeAndAfterTheirAnomalies() {
        auto journal = std::make_shared<EventJournal>(EventJournalLimits{10000, 1 << 20});
        describe(*journal);
        append(*journal, 0, 500);
        EventTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setJournal(journal);
        model.refresh();
        EventFilter f;
        f.anomalyOnly = true;
        model.setFilter(f);
        QTRY_VERIFY(!model.scanning());
        QCOMPARE(model.rowCount(), 0);

        // Anomalies naming events already scanned (late: found by following the key back).
        AnomalyList anomalies;
        std::vector<std::pair<QString, ResourceVersion>> named;
        for (const qint64 i : {qint64(10), qint64(250), qint64(77)}) {
            Anomaly a;
            a.kind = AnomalyKind::StaleObject;
            a.key = keyText(int(i % kKeys));
            a.rv = 1000 + i;
            a.watcher = QStringLiteral("informer/pods");
            anomalies << a;
            named.emplace_back(a.key, a.rv);
        }
        // And one naming an event still to come.
        Anomaly ahead;
        ahead.key = keyText(600 % kKeys);
        ahead.rv = 1600;
        anomalies << ahead;
        named.emplace_back(ahead.key, ahead.rv);
        model.addAnomalies(anomalies, 41);
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 3, kTimeoutMs);
        QCOMPARE(model.indexAt(0), qint64(10));
        QCOMPARE(model.indexAt(1), qint64(77));
        QCOMPARE(model.indexAt(2), qint64(250));
        QVERIFY(model.isMarked(keyText(10), 1010));
        QVERIFY(model.index(1, 0).data(Qt::BackgroundRole).isValid());
        const QVector<EventAnomaly> linked = model.anomaliesOf(keyText(77 % kKeys), 1077);
        QCOMPARE(linked.size(), 1);
        QCOMPARE(linked.front().serial, qint64(43)); // the third of the batch
        QCOMPARE(linked.front().anomaly.kind, AnomalyKind::StaleObject);

        append(*journal, 500, 700);
        model.refresh();
        QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 4, kTimeoutMs);
        QCOMPARE(model.indexAt(3), qint64(600));
        QCOMPARE(qint64(model.rowCount()), expected(*journal, f, named));
        // Unfiltered, the named events are shaded.
        model.setFilter(EventFilter());
        QVERIFY(model.index(600, 0).data(Qt::BackgroundRole).isValid());
        QVERIFY(!model.index(601, 0).data(Qt::BackgroundRole).isValid());
    }

    // Not run under the tester (it walks every cell on a reset): a journal at the window's
    // size, filtered while a view would be reading it. Prints the numbers.
    void filtersALargeJournal() {
        const qint64 n = qEnvironmentVariableIntValue("WS_EVENTS_N") > 0
                             ? qEnvironmentVariableIntValue("WS_EVENTS_N")
                             : 500000;
        auto journal = std::make_shared<EventJournal>(EventJournalLimits{n, 64 << 20});
        describe(*journal);
        QElapsedTimer t;
        t.start();
        const qint64 rssBefore = residentBytes();
        append(*journal, 0, n);
        const qint64 appendMs = t.elapsed();
        const JournalStats held = journal->stats();
        const double perEvent = double(residentBytes() - rssBefore) / double(n);
        const double objectPerEvent = double(held.bytesHeld) / double(n);
        EventTableModel model;
        model.setJournal(journal);
        model.refresh();
        QCOMPARE(qint64(model.rowCount()), n);
        EventFilter f;
        f.nameRegex = QStringLiteral("^web-1[0-9]$");
        f.types = EventFilter::typeBit(WatchEventType::Modified);
        int batches = 0;
        connect(&model, &QAbstractItemModel::rowsInserted, this, [&] { ++batches; });
        t.restart();
        model.setFilter(f);
        QCOMPARE(model.rowCount(), 0); // the GUI thread did not scan
        // The GUI thread is free meanwhile: it keeps reading cells.
        QVERIFY(model.scanning());
        QTRY_VERIFY_WITH_TIMEOUT(!model.scanning(), 120000);
        const qint64 filterMs = t.elapsed();
        const qint64 want = expected(*journal, f);
        QCOMPARE(qint64(model.rowCount()), want);
        QString why;
        QVERIFY2(rowsMatch(model, f, &why), qPrintable(why));
        qInfo("journal: %lld events appended in %lld ms, %.1f bytes resident each (%.1f of them "
              "object bytes); filter '%s' over them: %lld ms, %lld rows, in %d insert(s)",
              n, appendMs, perEvent, objectPerEvent, qPrintable(f.describe()), filterMs, want,
              batches);
    }

    void diffsLinesAndShowsObjects() {
        const QStringList before =
            ObjectText::of(QByteArray("{\"metadata\":{\"name\":\"a\",\"labels\":{\"app\":\"web\"},"
                                      "\"resourceVersion\":\"10\"},"
                                      "\"spec\":{\"n\":1}}"))
                .lines;
        const QStringList after =
            ObjectText::of(QByteArray("{\"metadata\":{\"name\":\"a\",\"labels\":{\"app\":\"api\"},"
                                      "\"resourceVersion\":\"11\"},"
                                      "\"spec\":{\"n\":1}}"))
                .lines;
        QVERIFY(before.contains(QStringLiteral("      \"app\": \"web\"")));
        const QVector<DiffLine> diff = LineDiff::compute(before, after);
        QCOMPARE(LineDiff::changes(diff), 4);
        const auto has = [&](DiffLine::Op op, const QString& text) {
            return std::any_of(diff.begin(), diff.end(), [&](const DiffLine& l) {
                return l.op == op && l.text.trimmed() == text;
            });
        };
        QVERIFY(has(DiffLine::Removed, QStringLiteral("\"app\": \"web\"")));
        QVERIFY(has(DiffLine::Added, QStringLiteral("\"app\": \"api\"")));
        QVERIFY(has(DiffLine::Removed, QStringLiteral("\"resourceVersion\": \"10\"")));
        QVERIFY(has(DiffLine::Added, QStringLiteral("\"resourceVersion\": \"11\"")));
        QVERIFY(has(DiffLine::Same, QStringLiteral("\"n\": 1")));
        QCOMPARE(LineDiff::changes(LineDiff::compute(after, after)), 0);
        QCOMPARE(ObjectText::of(QByteArray()).encoding, ObjectText::Encoding::Empty);
    }

    void paneSaysABadRegexInOneLine() {
        auto journal = std::make_shared<EventJournal>(EventJournalLimits{1000, 1 << 20});
        describe(*journal);
        append(*journal, 0, 300);
        EventsPane pane;
        pane.setJournal(journal);
        pane.refresh();
        QCOMPARE(pane.model()->rowCount(), 300);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QTest::keyClicks(pane.nameEdit(), QStringLiteral("web-("));
        QTest::keyClick(pane.nameEdit(), Qt::Key_Return);
        const QLabel* error = pane.findChild<QLabel*>(QStringLiteral("eventFilterError"));
        QVERIFY(error);
        QTRY_VERIFY(error->isVisible());
        QVERIFY(error->text().startsWith(QStringLiteral("Filter not applied:")));
        QVERIFY(!error->text().contains(u'\n'));
        QCOMPARE(pane.model()->rowCount(), 300); // the table stays as it was
        QVERIFY(pane.model()->filter().isEmpty());
        // Fixed: applied, the error goes.
        QTest::keyClick(pane.nameEdit(), Qt::Key_Backspace);
        QTest::keyClick(pane.nameEdit(), Qt::Key_Return);
        QVERIFY(!error->isVisible());
        QTRY_VERIFY(pane.model()->rowCount() > 0);
        QTRY_VERIFY(pane.model()->rowCount() < 300);
        QTRY_VERIFY(!pane.model()->scanning());
        QString why;
        QVERIFY2(rowsMatch(*pane.model(), pane.model()->filter(), &why), qPrintable(why));
    }
};

QTEST_MAIN(TestEventTableModel)
#include "tst_eventtablemodel.moc"

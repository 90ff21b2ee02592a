// list-pressure (ListPressureDetector through the DetectorHub): a warning once per episode when an
// apiserver's memory passes 80 % of its limit (or its lists hold 4 GiB without a limit), re-armed
// below half of that, and an error for every OOM kill, each apiserver on its own.
#include "detect/DetectorHub.h"
#include "model/KeyTable.h"

#include <QTest>

using namespace ws;

namespace {

constexpr std::int64_t kGiB = std::int64_t(1) << 30;

ApiserverMemory memory(const QString& apiserver, std::int64_t bytes, std::int64_t limit,
                       std::int64_t lists = 0, bool oom = false) {
    ApiserverMemory m;
    m.apiserver = apiserver;
    m.resource = QStringLiteral("pods");
    m.memoryBytes = bytes;
    m.limitBytes = limit;
    m.listBytesInflight = lists;
    m.listsInflight = lists > 0 ? 10 : 0;
    m.oomKilled = oom;
    return m;
}

} // namespace

class TestListPressureDetector : public QObject {
    Q_OBJECT
private slots:
    void warningOncePerEpisodeThenOom() {
        KeyTable keys;
        DetectorHub hub(keys);
        AnomalyList raised;
        hub.setSink([&](const Anomaly& a) { raised << a; });
        const QString a0 = QStringLiteral("apiserver-0");
        hub.apiserverMemory(0, memory(a0, 6 * kGiB, 8 * kGiB)); // 75 %: nothing
        QCOMPARE(raised.size(), 0);
        hub.apiserverMemory(1, memory(a0, 7 * kGiB, 8 * kGiB, 5 * kGiB)); // 87.5 %
        QCOMPARE(raised.size(), 1);
        QCOMPARE(raised[0].kind, AnomalyKind::ListPressure);
        QCOMPARE(raised[0].severity, Severity::Warning);
        QCOMPARE(raised[0].watcher, a0);
        QCOMPARE(raised[0].resource, QStringLiteral("pods"));
        QCOMPARE(raised[0].message, QStringLiteral("apiserver-0 memory 7.00 GiB of its limit 8.00 "
                                                   "GiB; 10 lists in flight hold 5.00 GiB"));
        hub.apiserverMemory(2, memory(a0, 7 * kGiB, 8 * kGiB)); // the same episode
        hub.apiserverMemory(3, memory(a0, 4 * kGiB, 8 * kGiB)); // 50 %: still above half
        hub.apiserverMemory(4, memory(a0, 7 * kGiB, 8 * kGiB));
        QCOMPARE(raised.size(), 1);
        hub.apiserverMemory(5, memory(a0, 3 * kGiB, 8 * kGiB)); // below 40 %: re-armed
        hub.apiserverMemory(6, memory(a0, 7 * kGiB, 8 * kGiB));
        QCOMPARE(raised.size(), 2);
        // Every OOM kill is an error, episode or not; another apiserver is its own.
        hub.apiserverMemory(7, memory(a0, 9 * kGiB, 8 * kGiB, 7 * kGiB, true));
        hub.apiserverMemory(
            8, memory(QStringLiteral("apiserver-1"), 9 * kGiB, 8 * kGiB, 7 * kGiB, true));
        QCOMPARE(raised.size(), 4);
        QCOMPARE(raised[2].severity, Severity::Error);
        QCOMPARE(raised[2].message, QStringLiteral("apiserver-0 OOM-killed: memory 9.00 GiB above "
                                                   "its limit 8.00 GiB; 10 lists in flight hold "
                                                   "7.00 GiB"));
        QCOMPARE(raised[3].watcher, QStringLiteral("apiserver-1"));
    }

    // Without a limit the lists' own bytes are measured against 4 GiB.
    void withoutALimitTheListsCount() {
        KeyTable keys;
        DetectorHub hub(keys);
        AnomalyList raised;
        hub.setSink([&](const Anomaly& a) { raised << a; });
        hub.apiserverMemory(0, memory(QStringLiteral("apiserver-0"), 20 * kGiB, 0, 3 * kGiB));
        QCOMPARE(raised.size(), 0);
        hub.apiserverMemory(1, memory(QStringLiteral("apiserver-0"), 20 * kGiB, 0, 5 * kGiB));
        QCOMPARE(raised.size(), 1);
        QCOMPARE(raised[0].message, QStringLiteral("apiserver-0: 10 lists in flight hold 5.00 GiB "
                                                   "(memory 20.00 GiB)"));
    }
};

QTEST_GUILESS_MAIN(TestListPressureDetector)
#include "tst_listpressuredetector.moc"

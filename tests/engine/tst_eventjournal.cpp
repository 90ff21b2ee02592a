// The engine's event journal: the newest maxEntries events' metadata and the newest byteBudget
// bytes of objects, the dropped counts, the previous-version links, finding an anomaly's
// events, hidden resources, and appends racing reads from other threads.
#include "engine/EventJournal.h"

#include <QTest>
#include <atomic>
#include <thread>

using namespace ws;

namespace {

// A journal whose keys 0..keys-1 are "/registry/configmaps/ns-<k % 3>/cm-<k>".
void describe(EventJournal& j, int keys) {
    for (int k = 0; k < keys; ++k) {
        const std::string key =
            "/registry/configmaps/ns-" + std::to_string(k % 3) + "/cm-" + std::to_string(k);
        j.describeKey(KeyId(k), key, QStringLiteral("configmaps"),
                      QStringLiteral("ns-%1").arg(k % 3), QStringLiteral("cm-%1").arg(k));
    }
}

// The object of event i: its number, then filler up to `size` bytes.
std::string objectOf(std::int64_t i, std::size_t size) {
    std::string s = "{\"i\":" + std::to_string(i) + ",\"pad\":\"";
    while (s.size() + 2 < size)
        s += char('a' + (i + std::int64_t(s.size())) % 26);
    s += "\"}";
    return s;
}

EventJournal::Event makeEvent(std::int64_t i, KeyId key, const std::string* object) {
    EventJournal::Event e;
    e.time = i * 10;
    e.type = object ? WatchEventType::Modified : WatchEventType::Deleted;
    e.key = key;
    e.rv = 1000 + i;
    e.size = object ? std::uint32_t(object->size()) : 7;
    e.hasObject = object != nullptr;
    if (object)
        e.object = *object;
    return e;
}

} // namespace

class TestEventJournal : public QObject {
    Q_OBJECT
private slots:
    void keepsTheNewestEntries_data() {
        QTest::addColumn<qint64>("cap");
        QTest::addColumn<qint64>("appended");
        QTest::newRow("one") << qint64(1) << qint64(5);
        QTest::newRow("under the cap") << qint64(100) << qint64(60);
        QTest::newRow("exactly the cap") << qint64(100) << qint64(100);
        QTest::newRow("one more") << qint64(100) << qint64(101);
        QTest::newRow("wrapped many times") << qint64(100) << qint64(1037);
        QTest::newRow("chunks of 16") << qint64(17) << qint64(500);
        QTest::newRow("large chunks") << qint64(70000) << qint64(200001);
    }
    void keepsTheNewestEntries() {
        QFETCH(qint64, cap);
        QFETCH(qint64, appended);
        EventJournal j({cap, 1 << 20});
        describe(j, 7);
        for (qint64 i = 0; i < appended; ++i)
            j.append(makeEvent(i, KeyId(i % 7), nullptr));
        const JournalStats s = j.stats();
        const qint64 first = std::max<qint64>(0, appended - cap);
        QCOMPARE(s.total, appended);
        QCOMPARE(s.first, first);
        QCOMPARE(s.droppedEntries(), first);
        QCOMPARE(s.held(), std::min(cap, appended));
        QVERIFY(!j.entry(first - 1).valid());
        QVERIFY(!j.entry(appended).valid());
        // Every held entry is the one appended at its index, linked to its key's previous.
        std::vector<JournalRecord> records;
        QCOMPARE(j.copyRecords(0, appended, &records), first);
        QCOMPARE(qint64(records.size()), appended - first);
        for (qint64 i = first; i < appended; ++i) {
            const JournalRecord& r = records[std::size_t(i - first)];
            QCOMPARE(r.rv, 1000 + i);
            QCOMPARE(r.time, i * 10);
            QCOMPARE(r.key, KeyId(i % 7));
            QCOMPARE(r.previous, i >= 7 ? i - 7 : -1);
        }
        const QVector<JournalEntry> page = j.entries(first - 5, 10);
        QVERIFY(!page.isEmpty());
        QCOMPARE(page.front().index, first);
        QCOMPARE(page.front().rv, 1000 + first);
        QCOMPARE(page.front().name, QStringLiteral("cm-%1").arg(first % 7));
        QCOMPARE(page.front().ns, QStringLiteral("ns-%1").arg(first % 7 % 3));
        QCOMPARE(page.front().content, JournalContent::None);
    }

    void keepsObjectsWithinTheByteBudget() {
        // Blocks of 4 KiB for this budget; 300-byte objects straddle their boundaries.
        const qint64 budget = 30000;
        EventJournal j({1000, budget});
        describe(j, 5);
        const std::size_t size = 300;
        std::vector<std::string> objects;
        for (qint64 i = 0; i < 500; ++i) {
            objects.push_back(objectOf(i, size));
            j.append(makeEvent(i, KeyId(i % 5), &objects.back()));
        }
        const JournalStats s = j.stats();
        QCOMPARE(s.total, qint64(500));
        QCOMPARE(s.first, qint64(0)); // the metadata of every one is kept
        // The newest 30,000 bytes: the last 100 objects.
        QCOMPARE(s.bytesHeld, budget);
        QCOMPARE(s.contentFloor, qint64(400));
        QCOMPARE(s.contentsDropped, qint64(400));
        for (qint64 i : {qint64(0), qint64(399)}) {
            const JournalEntry e = j.entry(i);
            QVERIFY(e.valid());
            QCOMPARE(e.content, JournalContent::Dropped);
            QCOMPARE(e.objectSize, quint32(size));
            QVERIFY(e.object.isEmpty());
        }
        for (qint64 i = 400; i < 500; ++i) {
            const JournalEntry e = j.entry(i);
            QCOMPARE(e.content, JournalContent::Kept);
            QCOMPARE(e.object, QByteArray::fromStdString(objects[std::size_t(i)]));
        }
        // A page without objects says what is held all the same.
        const QVector<JournalEntry> page = j.entries(398, 4);
        QCOMPARE(page.size(), 4);
        QCOMPARE(page[1].content, JournalContent::Dropped);
        QCOMPARE(page[2].content, JournalContent::Kept);
        QVERIFY(page[2].object.isEmpty());
    }

    void keepsObjectsOfEverySize() {
        EventJournal j({100000, 50000});
        describe(j, 3);
        std::vector<std::string> objects;
        std::vector<qint64> offsets;
        qint64 total = 0;
        for (qint64 i = 0; i < 3000; ++i) {
            objects.push_back(objectOf(i, std::size_t(20 + (i * 7919) % 6000)));
            offsets.push_back(total);
            total += qint64(objects.back().size());
            j.append(makeEvent(i, KeyId(i % 3), &objects.back()));
        }
        const qint64 floor = total - 50000;
        for (qint64 i = 0; i < 3000; ++i) {
            const JournalEntry e = j.entry(i);
            if (offsets[std::size_t(i)] >= floor) {
                QCOMPARE(e.content, JournalContent::Kept);
                QCOMPARE(e.object, QByteArray::fromStdString(objects[std::size_t(i)]));
            } else {
                QCOMPARE(e.content, JournalContent::Dropped);
            }
        }
        QVERIFY(j.stats().bytesHeld <= 50000);
    }

    void dropsAnObjectLargerThanTheBudgetAtOnce() {
        EventJournal j({100, 1000});
        describe(j, 1);
        const std::string small = objectOf(0, 100), huge = objectOf(1, 5000);
        j.append(makeEvent(0, 0, &small));
        j.append(makeEvent(1, 0, &huge));
        j.append(makeEvent(2, 0, nullptr)); // a DELETE: no object
        QCOMPARE(j.entry(0).content, JournalContent::Kept);
        QCOMPARE(j.entry(1).content, JournalContent::Dropped);
        QCOMPARE(j.entry(1).objectSize, quint32(5000));
        QCOMPARE(j.entry(2).content, JournalContent::None);
        QCOMPARE(j.stats().contentsDropped, qint64(0)); // behind a kept one: not counted yet
        const std::string more = objectOf(3, 950);
        j.append(makeEvent(3, 0, &more)); // pushes the first out of the budget
        QCOMPARE(j.entry(0).content, JournalContent::Dropped);
        QCOMPARE(j.stats().contentsDropped, qint64(2));
        QCOMPARE(j.stats().contentFloor, qint64(3));
    }

    void linksEachEventToThePreviousOfItsKey() {
        EventJournal j({6, 1 << 20});
        describe(j, 3);
        const KeyId order[] = {0, 1, 0, 2, 0, 1, 2, 2, 0};
        qint64 i = 0;
        for (const KeyId k : order)
            j.append(makeEvent(i++, k, nullptr));
        // Held: 3..8. Key 0 at 0, 2, 4, 8; key 1 at 1, 5; key 2 at 3, 6, 7.
        QCOMPARE(j.entry(8).previous, qint64(4));
        QCOMPARE(j.entry(4).previous, qint64(2)); // dropped: the detail says so
        QVERIFY(!j.entry(2).valid());
        QCOMPARE(j.entry(7).previous, qint64(6));
        QCOMPARE(j.entry(6).previous, qint64(3));
        QCOMPARE(j.entry(3).previous, qint64(-1)); // key 2's first
        QCOMPARE(j.entry(5).previous, qint64(1));
    }

    void findsTheEventsAnAnomalyNames() {
        EventJournal j({100, 1 << 20});
        describe(j, 2);
        EventJournal::Event e = makeEvent(0, 0, nullptr);
        for (const ResourceVersion rv : {10, 11, 12, 11}) {
            e.rv = rv;
            j.append(e);
        }
        e.key = 1;
        e.rv = 11;
        j.append(e);
        const QString key0 = QStringLiteral("/registry/configmaps/ns-0/cm-0");
        QCOMPARE(j.find(key0, 11, 100), (std::vector<std::int64_t>{1, 3}));
        QCOMPARE(j.find(key0, 11, 3), (std::vector<std::int64_t>{1}));
        QCOMPARE(j.find(key0, 13, 100), (std::vector<std::int64_t>{}));
        QCOMPARE(j.find(QStringLiteral("/registry/configmaps/ns-1/cm-1"), 11, 100),
                 (std::vector<std::int64_t>{4}));
        QCOMPARE(j.find(QStringLiteral("/registry/nope"), 11, 100), (std::vector<std::int64_t>{}));
    }

    void leavesOutHiddenResourcesAndRecordsNothingWhenOff() {
        EventJournal j({100, 1 << 20});
        j.setResourceFilter([](const QString& r) { return r == QLatin1String("pods"); });
        j.describeKey(0, "/registry/pods/a/p", QStringLiteral("pods"), QStringLiteral("a"),
                      QStringLiteral("p"));
        j.describeKey(1, "/registry/secrets/a/s", QStringLiteral("secrets"), QStringLiteral("a"),
                      QStringLiteral("s"));
        j.append(makeEvent(0, 0, nullptr));
        j.append(makeEvent(1, 1, nullptr));
        QCOMPARE(j.stats().total, qint64(1));
        QCOMPARE(j.entry(0).resource, QStringLiteral("pods"));

        EventJournal off({0, 0});
        QVERIFY(!off.enabled());
        describe(off, 1);
        off.append(makeEvent(0, 0, nullptr));
        QCOMPARE(off.stats().total, qint64(0));
        QVERIFY(off.entries(0, 10).isEmpty());
    }

    // One writer appending (the session thread), readers reading pages, single entries with
    // their objects and record chunks (the GUI and the filter's thread) all the while. Every
    // entry read must be the one appended at its index, whole. Run under ThreadSanitizer too.
    void appendsWhileOthersRead() {
        EventJournal j({20000, 256 * 1024});
        describe(j, 50);
        const qint64 events = 200000;
        std::atomic<bool> done{false};
        std::atomic<qint64> bad{0}, reads{0};
        std::thread writer([&] {
            for (qint64 i = 0; i < events; ++i) {
                const std::string o = objectOf(i, std::size_t(50 + i % 400));
                j.append(makeEvent(i, KeyId(i % 50), &o));
            }
            done = true;
        });
        const auto reader = [&](int seed) {
            std::vector<JournalRecord> records;
            qint64 n = seed;
            // At least a few reads each, however fast the writer is.
            while (!done || n < seed + 20) {
                const JournalStats s = j.stats();
                if (s.total == 0)
                    continue;
                const qint64 at = s.first + (n * 7919) % std::max<qint64>(1, s.held());
                ++n;
                for (const JournalEntry& e : j.entries(at, 100))
                    if (e.rv != 1000 + e.index || e.time != e.index * 10)
                        ++bad;
                const JournalEntry one = j.entry(at);
                if (one.valid() && one.content == JournalContent::Kept &&
                    one.object != QByteArray::fromStdString(
                                      objectOf(one.index, std::size_t(50 + one.index % 400))))
                    ++bad;
                const qint64 from = j.copyRecords(at, at + 5000, &records);
                for (std::size_t i = 0; i < records.size(); ++i)
                    if (records[i].rv != 1000 + from + qint64(i))
                        ++bad;
                ++reads;
                // A reader that never lets go would starve the writer: the GUI reads a page
                // a frame, the filter's thread a chunk at a time.
                std::this_thread::yield();
            }
        };
        std::thread r1(reader, 1), r2(reader, 2);
        writer.join();
        r1.join();
        r2.join();
        QCOMPARE(bad.load(), qint64(0));
        QVERIFY(reads.load() > 0);
        QCOMPARE(j.stats().total, events);
        QCOMPARE(j.stats().held(), qint64(20000));
    }
};

QTEST_GUILESS_MAIN(TestEventJournal)
#include "tst_eventjournal.moc"

// The journal and the key table together when a session forgets deleted names: the journal
// holds a key's id while it holds rows of it (so those rows keep their name), the id is reused
// only once they are gone, and a matcher's verdicts kept by id follow the reuse.
#include "engine/EventJournal.h"
#include "engine/EventMatcher.h"
#include "model/KeyTable.h"

#include <QTest>
#include <atomic>
#include <thread>

using namespace ws;

namespace {

const QString kResource = QStringLiteral("configmaps");

std::string keyOf(const QString& name) {
    return "/registry/configmaps/ns/" + name.toStdString();
}

// What a source does when it meets a key: hold it, name it in the journal.
KeyId meet(KeyTable& keys, EventJournal& j, const QString& name) {
    const std::string key = keyOf(name);
    const KeyId id = keys.acquire(key);
    if (!j.hasKey(id))
        j.describeKey(id, key, kResource, QStringLiteral("ns"), name);
    return id;
}

void append(EventJournal& j, KeyId key, ResourceVersion rv, WatchEventType type,
            const QString& name) {
    const std::string object = "{\"name\":\"" + name.toStdString() + "\"}";
    EventJournal::Event e;
    e.time = rv;
    e.type = type;
    e.key = key;
    e.rv = rv;
    e.size = std::uint32_t(object.size());
    e.hasObject = type != WatchEventType::Deleted;
    if (e.hasObject)
        e.object = object;
    j.append(e);
}

// Every held entry's name is the one its event was recorded under (the object carries it;
// a DELETE's name is checked through its previous event when that is held).
bool namesHold(const EventJournal& j, QString* why) {
    const JournalStats s = j.stats();
    for (const JournalEntry& listed : j.entries(s.first, int(s.held()))) {
        const JournalEntry e = j.entry(listed.index);
        if (e.content == JournalContent::Kept &&
            e.object != "{\"name\":\"" + e.name.toUtf8() + "\"}") {
            *why = QStringLiteral("#%1 is shown as %2 but holds %3")
                       .arg(e.index)
                       .arg(e.name, QString::fromUtf8(e.object));
            return false;
        }
        if (e.key != QString::fromStdString(keyOf(e.name))) {
            *why = QStringLiteral("#%1: key %2, name %3").arg(e.index).arg(e.key, e.name);
            return false;
        }
        if (e.previous >= s.first && j.entry(e.previous).key != e.key) {
            *why = QStringLiteral("#%1 (%2) links to #%3 (%4)")
                       .arg(e.index)
                       .arg(e.key)
                       .arg(e.previous)
                       .arg(j.entry(e.previous).key);
            return false;
        }
    }
    return true;
}

} // namespace

class TestJournalRecycling : public QObject {
    Q_OBJECT
private slots:
    void rowsKeepTheirNameUntilTheyGoThenTheIdIsReused() {
        KeyTable keys;
        EventJournal j({8, 1 << 20});
        j.setKeyTable(&keys);
        const KeyId old = meet(keys, j, QStringLiteral("old"));
        append(j, old, 1, WatchEventType::Added, QStringLiteral("old"));
        append(j, old, 2, WatchEventType::Deleted, QStringLiteral("old"));
        keys.release(old);                                      // the source saw it deleted
        QCOMPARE(keys.find(keyOf(QStringLiteral("old"))), old); // the journal still holds it

        // Seven events of another key: the cap of 8 drops the first row of `old`, then the
        // second; only then is the key forgotten.
        const KeyId other = meet(keys, j, QStringLiteral("other"));
        for (int i = 0; i < 6; ++i)
            append(j, other, 3 + i, WatchEventType::Modified, QStringLiteral("other"));
        QCOMPARE(j.entries(0, 8).at(1).name, QStringLiteral("old"));
        append(j, other, 9, WatchEventType::Modified, QStringLiteral("other"));
        QCOMPARE(j.entries(1, 1).at(0).name, QStringLiteral("old"));
        QCOMPARE(keys.find(keyOf(QStringLiteral("old"))), old);
        append(j, other, 10, WatchEventType::Modified, QStringLiteral("other"));
        QCOMPARE(keys.find(keyOf(QStringLiteral("old"))), kNoKey);
        QCOMPARE(j.stats().keys, qint64(1));
        QVERIFY(j.find(QString::fromStdString(keyOf(QStringLiteral("old"))), 1, 100).empty());

        // A new name gets the storage of the forgotten one and reads as itself.
        const KeyId fresh = meet(keys, j, QStringLiteral("new"));
        QCOMPARE(fresh, old);
        append(j, fresh, 11, WatchEventType::Added, QStringLiteral("new"));
        const JournalEntry e = j.entry(10);
        QCOMPARE(e.name, QStringLiteral("new"));
        QCOMPARE(e.previous, qint64(-1)); // not linked to the old key's rows
        QCOMPARE(j.find(QString::fromStdString(keyOf(QStringLiteral("new"))), 11, 100),
                 std::vector<std::int64_t>{10});
        QString why;
        QVERIFY2(namesHold(j, &why), qPrintable(why));

        std::vector<KeyId> forgotten;
        bool all = true;
        QCOMPARE(j.forgottenKeys(0, &forgotten, &all), std::uint64_t(1));
        QVERIFY(!all);
        QCOMPARE(forgotten, std::vector<KeyId>{old});
    }

    void aNameRecreatedAfterItsDeleteIsRecordedAgain() {
        KeyTable keys;
        EventJournal j({4, 1 << 20});
        j.setKeyTable(&keys);
        const KeyId a = meet(keys, j, QStringLiteral("web-0"));
        append(j, a, 1, WatchEventType::Added, QStringLiteral("web-0"));
        append(j, a, 2, WatchEventType::Deleted, QStringLiteral("web-0"));
        keys.release(a);
        const KeyId filler = meet(keys, j, QStringLiteral("filler"));
        for (int i = 0; i < 4; ++i)
            append(j, filler, 3 + i, WatchEventType::Modified, QStringLiteral("filler"));
        QCOMPARE(keys.find(keyOf(QStringLiteral("web-0"))), kNoKey);
        // The StatefulSet brings web-0 back.
        const KeyId again = meet(keys, j, QStringLiteral("web-0"));
        append(j, again, 7, WatchEventType::Added, QStringLiteral("web-0"));
        append(j, again, 8, WatchEventType::Modified, QStringLiteral("web-0"));
        const JournalEntry last = j.entry(7);
        QCOMPARE(last.name, QStringLiteral("web-0"));
        QCOMPARE(last.previous, qint64(6));
        QCOMPARE(j.entry(6).name, QStringLiteral("web-0"));
        QString why;
        QVERIFY2(namesHold(j, &why), qPrintable(why));
    }

    void aMatcherForgetsVerdictsOfReusedIds() {
        KeyTable keys;
        EventJournal j({4, 1 << 20});
        j.setKeyTable(&keys);
        EventFilter filter;
        filter.nameRegex = QStringLiteral("^old$");
        EventMatcher matcher(filter);
        std::vector<JournalRecord> records;

        const KeyId old = meet(keys, j, QStringLiteral("old"));
        append(j, old, 1, WatchEventType::Added, QStringLiteral("old"));
        keys.release(old);
        matcher.syncForgotten(j);
        j.copyRecords(0, 1, &records);
        QVERIFY(matcher.matches(records.at(0), j)); // its verdict is now kept under `old`

        const KeyId filler = meet(keys, j, QStringLiteral("filler"));
        for (int i = 0; i < 4; ++i)
            append(j, filler, 2 + i, WatchEventType::Modified, QStringLiteral("filler"));
        const KeyId fresh = meet(keys, j, QStringLiteral("new"));
        QCOMPARE(fresh, old);
        append(j, fresh, 6, WatchEventType::Added, QStringLiteral("new"));

        matcher.syncForgotten(j);
        const std::int64_t first = j.copyRecords(5, 6, &records);
        QCOMPARE(first, std::int64_t(5));
        QCOMPARE(records.at(0).key, fresh);
        QVERIFY(!matcher.matches(records.at(0), j));
    }

    void churnOfNewNamesKeepsEveryTableBounded() {
        // 20,000 objects created and deleted under new names, 50 alive at a time, through a
        // journal of 200 entries: the table's ids stay under what is alive or shown.
        KeyTable keys;
        EventJournal j({200, 1 << 20});
        j.setKeyTable(&keys);
        std::vector<KeyId> alive;
        ResourceVersion rv = 0;
        for (int i = 0; i < 20'000; ++i) {
            const QString name = QStringLiteral("cm-%1").arg(i);
            const KeyId id = meet(keys, j, name);
            append(j, id, ++rv, WatchEventType::Added, name);
            alive.push_back(id);
            if (alive.size() > 50) {
                const KeyId gone = alive.front();
                alive.erase(alive.begin());
                const QString goneName = QString::fromStdString(keys.key(gone)).section(u'/', -1);
                append(j, gone, ++rv, WatchEventType::Deleted, goneName);
                keys.release(gone);
            }
        }
        // Alive: 50; named by the 200 held rows: at most 200 more.
        QVERIFY2(keys.size() <= 251, qPrintable(QString::number(keys.size())));
        QVERIFY2(keys.live() <= 251, qPrintable(QString::number(keys.live())));
        QVERIFY2(j.stats().keys <= 251, qPrintable(QString::number(j.stats().keys)));
        QVERIFY(keys.forgotten() > 19'000);
        QString why;
        QVERIFY2(namesHold(j, &why), qPrintable(why));
        // Everything held is findable under its own name.
        const JournalStats s = j.stats();
        for (const JournalEntry& e : j.entries(s.first, int(s.held())))
            QVERIFY(!j.find(e.key, e.rv, s.total).empty());
    }

    void readersNeverSeeAReusedIdUnderTheOldName() {
        // The session thread churns names while the window's threads read pages and objects:
        // every row read shows the name of the object it holds.
        KeyTable keys;
        EventJournal j({2000, 1 << 20});
        j.setKeyTable(&keys);
        std::atomic<bool> done{false};
        std::atomic<qint64> bad{0}, checked{0};
        std::thread writer([&] {
            std::vector<std::pair<KeyId, QString>> alive;
            ResourceVersion rv = 0;
            for (int i = 0; i < 60'000; ++i) {
                const QString name = QStringLiteral("cm-%1").arg(i);
                const KeyId id = meet(keys, j, name);
                append(j, id, ++rv, WatchEventType::Added, name);
                alive.emplace_back(id, name);
                if (alive.size() > 20) {
                    const auto [gone, goneName] = alive.front();
                    alive.erase(alive.begin());
                    append(j, gone, ++rv, WatchEventType::Modified, goneName);
                    append(j, gone, ++rv, WatchEventType::Deleted, goneName);
                    keys.release(gone);
                }
            }
            done = true;
        });
        const auto reader = [&](int seed) {
            qint64 n = seed;
            while (!done || n < seed + 20) {
                const JournalStats s = j.stats();
                const qint64 at = s.first + (n++ * 7919) % std::max<qint64>(1, s.held());
                for (const JournalEntry& listed : j.entries(at, 50)) {
                    const JournalEntry e = j.entry(listed.index);
                    if (!e.valid() || e.content != JournalContent::Kept)
                        continue;
                    ++checked;
                    if (e.name != listed.name ||
                        e.object != "{\"name\":\"" + e.name.toUtf8() + "\"}")
                        ++bad;
                }
                std::this_thread::yield();
            }
        };
        std::thread r1(reader, 1), r2(reader, 2);
        writer.join();
        r1.join();
        r2.join();
        QCOMPARE(bad.load(), qint64(0));
        QVERIFY(checked.load() > 0);
        QVERIFY2(keys.size() <= 2021, qPrintable(QString::number(keys.size())));
    }
};

QTEST_APPLESS_MAIN(TestJournalRecycling)
#include "tst_journalrecycling.moc"

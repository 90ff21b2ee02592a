// KeyTable's held ids (acquire/release, reused once forgotten) and KeyPresence, an informer's
// view holding the ids of the keys it has: what lets a session forget deleted names.
#include "model/KeyPresence.h"
#include "model/KeyTable.h"

#include <QTest>
#include <set>

using namespace ws;

class TestKeyTable : public QObject {
    Q_OBJECT
private slots:
    void releasedKeyIsForgottenAndItsIdReused() {
        KeyTable keys;
        std::vector<KeyId> forgotten;
        keys.onForget([&](KeyId id) {
            // Told before the id is gone: the name still reads right.
            QCOMPARE(keys.key(id), std::string("/registry/pods/ns/a"));
            forgotten.push_back(id);
        });
        const KeyId a = keys.acquire("/registry/pods/ns/a");
        const KeyId b = keys.acquire("/registry/pods/ns/b");
        QVERIFY(a != b);
        keys.release(a);
        QCOMPARE(forgotten, std::vector<KeyId>{a});
        QCOMPARE(keys.find("/registry/pods/ns/a"), kNoKey);
        QCOMPARE(keys.live(), std::size_t(1));
        const KeyId c = keys.acquire("/registry/pods/ns/c");
        QCOMPARE(c, a); // the storage of the forgotten key
        QCOMPARE(keys.key(c), std::string("/registry/pods/ns/c"));
        QCOMPARE(keys.size(), std::size_t(2));
        QCOMPARE(keys.find("/registry/pods/ns/c"), c);
        QCOMPARE(keys.key(b), std::string("/registry/pods/ns/b"));
        QCOMPARE(keys.forgotten(), qint64(1));
    }

    void everyHoldMustGo() {
        KeyTable keys;
        int forgotten = 0;
        keys.onForget([&](KeyId) { ++forgotten; });
        const KeyId a = keys.acquire("a");
        QCOMPARE(keys.acquire("a"), a);
        keys.hold(a);
        keys.release(a);
        keys.release(a);
        QCOMPARE(forgotten, 0);
        QCOMPARE(keys.find("a"), a);
        keys.release(a);
        QCOMPARE(forgotten, 1);
        keys.release(a); // a free id: nothing happens
        keys.hold(a);    // nor here: nobody may hold a free id
        QCOMPARE(forgotten, 1);
        QCOMPARE(keys.live(), std::size_t(0));
        const KeyId again = keys.acquire("a"); // a name re-created after its delete
        QCOMPARE(keys.key(again), std::string("a"));
        keys.release(again);
        QCOMPARE(forgotten, 2);
    }

    void internedKeysAreNeverForgotten() {
        KeyTable keys;
        int forgotten = 0;
        keys.onForget([&](KeyId) { ++forgotten; });
        const KeyId a = keys.acquire("a");
        QCOMPARE(keys.intern("a"), a); // pinned from now on
        keys.release(a);
        const KeyId b = keys.intern("b");
        keys.hold(b);
        keys.release(b);
        keys.release(b);
        QCOMPARE(forgotten, 0);
        QCOMPARE(keys.find("a"), a);
        QCOMPARE(keys.find("b"), b);
    }

    void freeIdsRestOldestFirst() {
        KeyTable keys;
        const KeyId a = keys.acquire("a"), b = keys.acquire("b");
        keys.release(b);
        keys.release(a);
        QCOMPARE(keys.acquire("c"), b);
        QCOMPARE(keys.acquire("d"), a);
        QCOMPARE(keys.acquire("e"), KeyId(2));
    }

    void churnOfNewNamesKeepsTheTableBounded() {
        KeyTable keys;
        KeyPresence view(keys);
        std::vector<KeyId> seen;
        // 100 objects live at any time; 100,000 names created and deleted over the run.
        for (int i = 0; i < 100'000; ++i) {
            view.present("/registry/configmaps/ns/cm-" + std::to_string(i));
            if (i >= 100)
                view.absent("/registry/configmaps/ns/cm-" + std::to_string(i - 100), i);
            view.flush(i);
        }
        QCOMPARE(view.size(), std::size_t(100));
        QVERIFY2(keys.size() <= 102, qPrintable(QString::number(keys.size())));
        QCOMPARE(keys.live(), std::size_t(101)); // the one deleted at the last revision waits
        QVERIFY(keys.find("/registry/configmaps/ns/cm-99999") != kNoKey);
        QCOMPARE(keys.find("/registry/configmaps/ns/cm-5"), kNoKey);
    }

    void presenceReleasesAfterTheEventsPass() {
        KeyTable keys;
        KeyPresence view(keys);
        const KeyId a = view.present("a");
        QCOMPARE(view.present("a"), a); // a MODIFIED: no second hold
        QCOMPARE(view.absent("a", 10), a);
        QVERIFY(!view.isPresent(a));
        view.flush(10); // a duplicate DELETE at 10 may still come: the id waits
        QCOMPARE(keys.find("a"), a);
        QCOMPARE(view.absent("a", 10), a); // the duplicate names the same id
        view.flush(11);
        QCOMPARE(keys.find("a"), kNoKey);
        QCOMPARE(keys.live(), std::size_t(0));
        // Deleted and re-created before the release: the same id, present, held once.
        const KeyId b = view.present("b");
        view.absent("b", 12);
        QCOMPARE(view.present("b"), b);
        view.flush();
        QCOMPARE(keys.find("b"), b);
        QVERIFY(view.isPresent(b));
        QCOMPARE(view.size(), std::size_t(1));
        // A DELETE of a key this view never had.
        const KeyId c = view.absent("c", 13);
        QCOMPARE(keys.key(c), std::string("c"));
        view.flush();
        QCOMPARE(keys.find("c"), kNoKey);
    }

    void aListForgetsWhatItNoLongerHolds() {
        KeyTable keys;
        KeyPresence view(keys);
        for (const char* k : {"a", "b", "c"})
            view.present(k);
        view.beginList();
        view.present("b");
        view.present("d");
        view.endList();
        view.flush();
        QCOMPARE(view.size(), std::size_t(2));
        QCOMPARE(keys.find("a"), kNoKey);
        QCOMPARE(keys.find("c"), kNoKey);
        QVERIFY(keys.find("b") != kNoKey);
        QVERIFY(keys.find("d") != kNoKey);
    }

    void twoViewsHoldAKeyUntilBothLetGo() {
        KeyTable keys;
        KeyPresence one(keys), two(keys);
        const KeyId a = one.present("a");
        QCOMPARE(two.present("a"), a);
        one.absent("a", 5);
        one.flush();
        QCOMPARE(keys.find("a"), a); // the other informer has not seen the DELETE yet
        QCOMPARE(two.absent("a", 5), a);
        two.flush();
        QCOMPARE(keys.find("a"), kNoKey);
    }
};

QTEST_APPLESS_MAIN(TestKeyTable)
#include "tst_keytable.moc"

// RevisionAccount and RevisionRangeSet: the books a live source keeps of every revision it was
// responsible for (issue 14). Checked against a brute-force set of revisions on random input,
// and on the cases the etcd source meets: a clean stream, a relist after a compaction, progress
// notifications, a tail still in flight, a loss nobody reported.
#include "detect/RevisionAccount.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QTest>
#include <set>

using namespace ws;

namespace {

std::vector<RevisionRange> rangesOf(const std::set<ResourceVersion>& revs) {
    std::vector<RevisionRange> out;
    for (ResourceVersion r : revs) {
        if (!out.empty() && out.back().last + 1 == r)
            out.back().last = r;
        else
            out.push_back({r, r});
    }
    return out;
}

QString show(const std::vector<RevisionRange>& ranges) {
    QStringList parts;
    for (const RevisionRange& r : ranges)
        parts << QStringLiteral("[%1,%2]").arg(r.first).arg(r.last);
    return parts.join(QLatin1Char(' '));
}

} // namespace

class TestRevisionAccount : public QObject {
    Q_OBJECT
private slots:
    void rangeText() {
        QCOMPARE((RevisionRange{7, 7}).text(), QStringLiteral("revision 7"));
        QCOMPARE((RevisionRange{7, 9}).text(), QStringLiteral("revisions 7..9 (3)"));
        QCOMPARE((RevisionRange{7, 9}).count(), 3);
        QVERIFY((RevisionRange{9, 7}).empty());
    }

    void rangeSetMerges() {
        RevisionRangeSet s;
        s.add({10, 12});
        s.add(13); // touching: one range
        s.add({20, 25});
        s.add({5, 6});
        QCOMPARE(show(s.ranges()), QStringLiteral("[5,6] [10,13] [20,25]"));
        s.add({7, 9}); // bridges the first two
        QCOMPARE(show(s.ranges()), QStringLiteral("[5,13] [20,25]"));
        s.add({1, 30}); // swallows everything
        QCOMPARE(show(s.ranges()), QStringLiteral("[1,30]"));
        QCOMPARE(s.count(), 30);
        QVERIFY(s.contains(1) && s.contains(30) && !s.contains(31) && !s.contains(0));
        s.add({40, 39}); // empty: ignored
        QCOMPARE(s.ranges().size(), std::size_t(1));
    }

    void rangeSetMissing() {
        RevisionRangeSet s;
        s.add({10, 12});
        s.add({15, 15});
        QCOMPARE(show(s.missingIn({8, 20})), QStringLiteral("[8,9] [13,14] [16,20]"));
        QCOMPARE(show(s.missingIn({10, 12})), QString());
        QCOMPARE(show(s.missingIn({11, 14})), QStringLiteral("[13,14]"));
        QCOMPARE(show(RevisionRangeSet().missingIn({3, 4})), QStringLiteral("[3,4]"));
    }

    // Random adds in any order, as ranges, against a std::set of every revision.
    void rangeSetMatchesBruteForce() {
        QRandomGenerator rng(14);
        for (int round = 0; round < 200; ++round) {
            RevisionRangeSet s;
            std::set<ResourceVersion> truth;
            for (int i = 0; i < 40; ++i) {
                const ResourceVersion a = rng.bounded(1, 200);
                const ResourceVersion b = a + rng.bounded(0, 6);
                s.add({a, b});
                for (ResourceVersion r = a; r <= b; ++r)
                    truth.insert(r);
                QCOMPARE(show(s.ranges()), show(rangesOf(truth)));
            }
            QCOMPARE(s.count(), std::int64_t(truth.size()));
            std::set<ResourceVersion> missing;
            for (ResourceVersion r = 50; r <= 150; ++r)
                if (!truth.count(r))
                    missing.insert(r);
            QCOMPARE(show(s.missingIn({50, 150})), show(rangesOf(missing)));
        }
    }

    void cleanStreamBalances() {
        RevisionAccount a;
        QVERIFY(!a.balanced());
        QCOMPARE(a.summary(), QStringLiteral("no revisions to account for yet"));
        a.begin(101);          // listed at 100
        QVERIFY(a.balanced()); // nothing written since
        a.noteHead(110);
        for (ResourceVersion r = 101; r <= 105; ++r)
            a.seen(r);
        QVERIFY(!a.balanced());
        QCOMPARE(show(a.unaccounted()), QStringLiteral("[106,110]"));
        QCOMPARE(
            a.summary(),
            QStringLiteral(
                "revisions 101..110 (10): 5 seen, 5 not received yet (revisions 106..110 (5))"));
        a.seen({106, 110}); // a progress notification at 110
        QVERIFY(a.balanced());
        QCOMPARE(a.summary(), QStringLiteral("revisions 101..110 (10): 10 seen, balanced"));
        QCOMPARE(a.seenRanges().ranges().size(), std::size_t(1));
        a.seen(50); // before the start: not this account's
        QCOMPARE(a.seenCount(), 10);
        QCOMPARE(a.start(), 101);
        a.begin(20); // only the first begin counts
        QCOMPARE(a.start(), 101);
    }

    // The etcd source after a compaction: seen to 120, relisted at 150, watching again.
    void relistGap() {
        RevisionAccount a;
        a.begin(101);
        a.seen({101, 120});
        a.noteHead(160);
        const auto fresh = a.lose({121, 150});
        QCOMPARE(show(fresh), QStringLiteral("[121,150]"));
        QCOMPARE(fresh.front().text(), QStringLiteral("revisions 121..150 (30)"));
        QVERIFY(a.lose({121, 150}).empty()); // reported once
        QCOMPARE(show(a.lose({140, 152})), QStringLiteral("[151,152]"));
        for (ResourceVersion r = 153; r <= 160; ++r)
            a.seen(r);
        QVERIFY(a.balanced());
        QCOMPARE(a.lostCount(), 32);
        QCOMPARE(a.seenCount(), 28);
        QCOMPARE(a.gaps().size(), std::size_t(2));
        QCOMPARE(a.summary(),
                 QStringLiteral("revisions 101..160 (60): 28 seen, 32 lost in 2 gaps (revisions "
                                "121..150 (30), revisions 151..152 (2)), balanced"));
        const QJsonObject j = a.toJson();
        QCOMPARE(j.value(QStringLiteral("start")).toInteger(), 101);
        QCOMPARE(j.value(QStringLiteral("head")).toInteger(), 160);
        QCOMPARE(j.value(QStringLiteral("lost")).toInteger(), 32);
        QCOMPARE(j.value(QStringLiteral("gaps")).toArray().size(), 2);
        QCOMPARE(
            j.value(QStringLiteral("gaps")).toArray().first().toObject().value("last").toInteger(),
            150);
        QVERIFY(j.value(QStringLiteral("balanced")).toBool());
    }

    void lossOfSeenRevisionsIsNotNew() {
        RevisionAccount a;
        a.begin(1);
        a.seen({1, 10});
        QVERIFY(a.lose({3, 8}).empty()); // all seen: nothing was lost
        QCOMPARE(show(a.lose({8, 12})), QStringLiteral("[11,12]"));
        QCOMPARE(a.lostCount(), 2);
    }

    // A revision skipped without a report is a hole, not "in flight".
    void unreportedHole() {
        RevisionAccount a;
        a.begin(1);
        a.seen({1, 4});
        a.seen({7, 9});
        a.noteHead(12);
        QVERIFY(!a.balanced());
        QCOMPARE(show(a.unaccounted()), QStringLiteral("[5,6] [10,12]"));
        QCOMPARE(a.unaccountedCount(), 5);
        QCOMPARE(a.summary(), QStringLiteral("revisions 1..12 (12): 7 seen, 2 unaccounted, 3 not "
                                             "received yet (revisions 10..12 (3))"));
        QCOMPARE(a.toJson().value(QStringLiteral("unaccounted")).toArray().size(), 2);
    }

    void manyGapsNamedBriefly() {
        RevisionAccount a;
        a.begin(1);
        for (ResourceVersion r = 1; r <= 50; r += 10) {
            a.seen({r, r + 4});
            a.lose({r + 5, r + 9});
        }
        QVERIFY(a.balanced());
        QVERIFY2(a.summary().endsWith(QStringLiteral(
                     "25 lost in 5 gaps (revisions 6..10 (5), revisions 16..20 (5), revisions "
                     "26..30 (5), 2 more), balanced")),
                 qPrintable(a.summary()));
    }

    // A million revisions in a row with one gap: two seen ranges, one gap, whatever the count.
    void memoryFollowsGaps() {
        RevisionAccount a;
        a.begin(1);
        for (ResourceVersion r = 1; r <= 1000000; ++r)
            if (r < 400000 || r > 400010)
                a.seen(r);
        a.lose({400000, 400010});
        QVERIFY(a.balanced());
        QCOMPARE(a.seenRanges().ranges().size(), std::size_t(2));
        QCOMPARE(a.gaps().size(), std::size_t(1));
        QCOMPARE(a.seenCount() + a.lostCount(), 1000000);
    }

    // Random seen / lose / head against brute force: unaccounted = [start, head] - seen - lost.
    void accountMatchesBruteForce() {
        QRandomGenerator rng(1414);
        for (int round = 0; round < 200; ++round) {
            RevisionAccount a;
            const ResourceVersion start = rng.bounded(1, 20);
            a.begin(start);
            std::set<ResourceVersion> seen, lost;
            ResourceVersion head = start - 1;
            for (int i = 0; i < 30; ++i) {
                const ResourceVersion x = rng.bounded(1, 120);
                const ResourceVersion y = x + rng.bounded(0, 5);
                switch (rng.bounded(3)) {
                case 0:
                    a.seen({x, y});
                    for (ResourceVersion r = std::max(x, start); r <= y; ++r)
                        seen.insert(r);
                    if (y >= start)
                        head = std::max(head, y);
                    break;
                case 1: {
                    std::set<ResourceVersion> expected;
                    for (ResourceVersion r = std::max(x, start); r <= y; ++r)
                        if (!seen.count(r) && !lost.count(r))
                            expected.insert(r);
                    QCOMPARE(show(a.lose({x, y})), show(rangesOf(expected)));
                    lost.insert(expected.begin(), expected.end());
                    if (y >= start && !expected.empty())
                        head = std::max(head, y);
                    break;
                }
                default:
                    a.noteHead(y);
                    head = std::max(head, y);
                }
            }
            std::set<ResourceVersion> missing;
            for (ResourceVersion r = start; r <= head; ++r)
                if (!seen.count(r) && !lost.count(r))
                    missing.insert(r);
            QCOMPARE(a.head(), head);
            QCOMPARE(show(a.unaccounted()), show(rangesOf(missing)));
            QCOMPARE(a.balanced(), missing.empty());
            QCOMPARE(a.seenCount(), std::int64_t(seen.size()));
            QCOMPARE(a.lostCount(), std::int64_t(lost.size()));
        }
    }
};

QTEST_GUILESS_MAIN(TestRevisionAccount)
#include "tst_revisionaccount.moc"

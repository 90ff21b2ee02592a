#include "timeline/TimelineStore.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

using namespace ws;

namespace {

// Deterministic noise (no <random> distribution differences across standard libraries).
double noise(std::uint64_t i) {
    std::uint64_t x = i * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return static_cast<double>(x % 1000) / 10.0;
}

bool timeOrdered(const std::vector<TimelinePoint>& points) {
    return std::is_sorted(
        points.begin(), points.end(),
        [](const TimelinePoint& a, const TimelinePoint& b) { return a.time < b.time; });
}

} // namespace

class TestTimelineStore : public QObject {
    Q_OBJECT

private slots:
    void seriesIdentity() {
        TimelineStore store;
        QCOMPARE(store.findSeries(QStringLiteral("pods"), QStringLiteral("head_rv")), -1);
        const SeriesId a = store.series(QStringLiteral("pods"), QStringLiteral("head_rv"));
        const SeriesId b = store.series(QStringLiteral("pods"), QStringLiteral("cache_rv"));
        const SeriesId c = store.series(QStringLiteral("configmaps"), QStringLiteral("head_rv"));
        QVERIFY(a != b && b != c && a != c);
        QCOMPARE(store.series(QStringLiteral("pods"), QStringLiteral("head_rv")), a);
        QCOMPARE(store.findSeries(QStringLiteral("configmaps"), QStringLiteral("head_rv")), c);
        QCOMPARE(store.seriesCount(), 3);
        QCOMPARE(store.resource(c), QStringLiteral("configmaps"));
        QCOMPARE(store.name(b), QStringLiteral("cache_rv"));
        QVERIFY(store.points(a).empty());
        QVERIFY(store.resource(42).isEmpty());
        store.append(42, 0, 1); // an unknown id is ignored, not a crash
        QCOMPARE(store.retainedPoints(), std::size_t(0));
    }

    void recentDataAtFullResolution() {
        TimelineStore store; // 120 s at full resolution
        const SeriesId id = store.series(QStringLiteral("pods"), QStringLiteral("buffer_used"));
        for (int i = 0; i < 1000; ++i) // 100 s at 10 samples/s
            store.append(id, milliseconds(100) * i, i % 7);
        const auto points = store.points(id);
        QCOMPARE(points.size(), std::size_t(1000));
        for (int i = 0; i < 1000; ++i) {
            QCOMPARE(points[std::size_t(i)].time, milliseconds(100) * i);
            QCOMPARE(points[std::size_t(i)].value, double(i % 7));
        }
        QCOMPARE(store.retainedPoints(), std::size_t(1000));
    }

    void oldDataFoldsIntoMinMaxBuckets() {
        TimelineLimits limits;
        limits.fullResolutionSpan = seconds(10);
        limits.bucketSpan = seconds(1);
        TimelineStore store(limits);
        const SeriesId id = store.series(QStringLiteral("pods"), QStringLiteral("head_rv"));
        // 60 s at 10 samples/s; second 5 holds a spike of 1000 at 5.3 s and a dip of -5 at 5.7 s.
        for (int i = 0; i < 600; ++i) {
            double v = 10;
            if (i == 53)
                v = 1000;
            if (i == 57)
                v = -5;
            store.append(id, milliseconds(100) * i, v);
        }
        const auto points = store.points(id);
        QVERIFY(timeOrdered(points));
        // Seconds 0..49 fold into one bucket each; the last 10 s stay at full resolution.
        const auto firstRecent = std::find_if(points.begin(), points.end(),
                                              [](auto& p) { return p.time >= seconds(49.9); });
        QCOMPARE(std::distance(firstRecent, points.end()), 101);
        QVERIFY(points.size() < 200);
        QCOMPARE(store.retainedPoints(), points.size());
        const auto spike =
            std::find_if(points.begin(), points.end(), [](auto& p) { return p.value == 1000; });
        QVERIFY(spike != points.end());
        QCOMPARE(spike->time, milliseconds(5300));
        const auto dip =
            std::find_if(points.begin(), points.end(), [](auto& p) { return p.value == -5; });
        QVERIFY(dip != points.end());
        QCOMPARE(dip->time, milliseconds(5700));
        QVERIFY(spike < dip); // min and max of a bucket keep their time order
    }

    void boundedMemoryOverLongRun_data() {
        QTest::addColumn<int>("maxBuckets");
        QTest::newRow("default 24 h of buckets") << TimelineLimits{}.maxBuckets;
        QTest::newRow("10 min of buckets") << 600;
    }

    void boundedMemoryOverLongRun() {
        QFETCH(int, maxBuckets);
        TimelineLimits limits; // 120 s full resolution, 1 s buckets
        limits.maxBuckets = maxBuckets;
        TimelineStore store(limits);
        constexpr int kSeries = 4;
        constexpr std::int64_t kSamples = 10 * 3600 * 10; // 10 hours at 10 samples/s
        SeriesId ids[kSeries];
        for (int s = 0; s < kSeries; ++s)
            ids[s] = store.series(QStringLiteral("pods"), QStringLiteral("watcher_lag:w%1").arg(s));

        const TimeUs spikeAt = seconds(3600) + milliseconds(300); // hour 1
        const TimeUs dipAt = seconds(10 * 3600 - 300);            // 5 min before the end
        std::size_t listened = 0;
        store.addListener([&listened](SeriesId, TimeUs, double) { ++listened; });
        for (std::int64_t i = 0; i < kSamples; ++i) {
            const TimeUs t = milliseconds(100) * i;
            for (int s = 0; s < kSeries; ++s) {
                double v = 100 + noise(std::uint64_t(i * kSeries + s));
                if (t == spikeAt)
                    v = 1e9;
                if (t == dipAt)
                    v = -1e9;
                store.append(ids[s], t, v);
            }
        }
        QCOMPARE(listened, std::size_t(kSamples * kSeries)); // listeners see every sample

        const TimeUs end = milliseconds(100) * (kSamples - 1);
        const std::size_t fullPerSeries = 120 * 10 + 1;
        const std::size_t bucketsPerSeries =
            std::min<std::size_t>(std::size_t(maxBuckets), 10 * 3600 - 120 + 1);
        const std::size_t bound = kSeries * (fullPerSeries + 2 * bucketsPerSeries);
        QVERIFY2(store.retainedPoints() <= bound,
                 qPrintable(QStringLiteral("%1 > %2").arg(store.retainedPoints()).arg(bound)));
        QVERIFY(store.retainedPoints() < std::size_t(kSamples * kSeries) / 4);

        std::size_t total = 0;
        for (int s = 0; s < kSeries; ++s) {
            const auto points = store.points(ids[s]);
            total += points.size();
            QVERIFY(timeOrdered(points));
            QCOMPARE(points.back().time, end);
            // The oldest retained data is as old as the bucket cap allows.
            const TimeUs oldestExpected =
                std::max<TimeUs>(0, end - seconds(120) - seconds(maxBuckets));
            QVERIFY(points.front().time <= oldestExpected + seconds(1));
            const bool hasSpike = std::any_of(points.begin(), points.end(), [&](auto& p) {
                return p.time == spikeAt && p.value == 1e9;
            });
            const bool hasDip = std::any_of(points.begin(), points.end(), [&](auto& p) {
                return p.time == dipAt && p.value == -1e9;
            });
            QCOMPARE(hasDip, true); // 5 min ago is folded but within every configured history
            QCOMPARE(hasSpike, spikeAt >= points.front().time);
        }
        QCOMPARE(total, store.retainedPoints());
    }

    // totalBuckets bounds the history of all series together: the buckets folded first go
    // first (counted), whichever series they belong to; per-series maxBuckets still holds.
    void totalBucketsAcrossSeries() {
        TimelineLimits limits;
        limits.fullResolutionSpan = seconds(10);
        limits.maxBuckets = 50;
        limits.totalBuckets = 100;
        TimelineStore store(limits);
        // Many series, each sampled once a second in turn (an audit log's requested_rv per
        // client), over 1,000 s: 2,000 buckets would be folded without the bound.
        constexpr int kSeries = 20;
        std::vector<SeriesId> ids;
        for (int s = 0; s < kSeries; ++s)
            ids.push_back(store.series(QStringLiteral("pods"), QStringLiteral("rv:c%1").arg(s)));
        std::size_t listened = 0;
        store.addListener([&listened](SeriesId, TimeUs, double) { ++listened; });
        constexpr int kSeconds = 1000;
        for (int t = 0; t < kSeconds; ++t)
            for (int s = 0; s < kSeries; ++s)
                store.append(ids[std::size_t(s)], seconds(t) + s, double(t * 100 + s));
        QCOMPARE(listened, std::size_t(kSeconds * kSeries)); // listeners see every sample
        std::size_t buckets = 0, recent = 0;
        for (SeriesId id : ids) {
            const auto points = store.points(id);
            QVERIFY(timeOrdered(points));
            QCOMPARE(points.back().value, double((kSeconds - 1) * 100 + id));
            for (const TimelinePoint& p : points)
                (p.time >= seconds(kSeconds - 1 - 10) ? recent : buckets) += 1;
            // Each series keeps its newest folded seconds, none older than the bound allows.
            QVERIFY(points.front().time >= seconds(kSeconds - 11 - 100 / kSeries - 1));
        }
        QCOMPARE(buckets, std::size_t(100)); // one point per bucket: one sample each
        QCOMPARE(store.retainedPoints(), buckets + recent);
        // Every bucket folded beyond the 100 kept was dropped and counted.
        const std::size_t folded = std::size_t(kSeries) * (kSeconds - 11);
        QCOMPARE(store.droppedBuckets(), folded - 100);

        // No bound (the default): nothing dropped but what maxBuckets drops, and not counted.
        limits.totalBuckets = 0;
        TimelineStore unbounded(limits);
        const SeriesId one = unbounded.series(QStringLiteral("pods"), QStringLiteral("x"));
        for (int t = 0; t < kSeconds; ++t)
            unbounded.append(one, seconds(t), t);
        QCOMPARE(unbounded.droppedBuckets(), std::size_t(0));
        QCOMPARE(unbounded.points(one).front().time, seconds(kSeconds - 1 - 10 - 50));
    }

    void decimationKeepsExtremes_data() {
        QTest::addColumn<int>("columns");
        QTest::addColumn<TimeUs>("from");
        QTest::addColumn<TimeUs>("to");
        const TimeUs end = seconds(600);
        QTest::newRow("whole range, 1 column") << 1 << TimeUs(0) << end;
        QTest::newRow("whole range, 100 columns") << 100 << TimeUs(0) << end;
        QTest::newRow("whole range, 1280 columns") << 1280 << TimeUs(0) << end;
        QTest::newRow("folded part only") << 200 << seconds(30) << seconds(300);
        QTest::newRow("recent part only") << 200 << seconds(500) << seconds(590);
        QTest::newRow("straddling the fold") << 333 << seconds(400) << seconds(520);
        QTest::newRow("more columns than points") << 100000 << seconds(590) << seconds(600);
        QTest::newRow("whole int64 range")
            << 800 << std::numeric_limits<TimeUs>::min() << std::numeric_limits<TimeUs>::max();
    }

    void decimationKeepsExtremes() {
        QFETCH(int, columns);
        QFETCH(TimeUs, from);
        QFETCH(TimeUs, to);
        TimelineLimits limits;
        limits.fullResolutionSpan = seconds(100);
        limits.bucketSpan = milliseconds(500);
        TimelineStore store(limits);
        const SeriesId id = store.series(QStringLiteral("pods"), QStringLiteral("head_rv"));
        for (int i = 0; i <= 6000; ++i) // 600 s at 10 samples/s
            store.append(id, milliseconds(100) * i, noise(std::uint64_t(i)) - 50);

        const auto all = store.points(id);
        std::vector<TimelinePoint> inRange;
        std::copy_if(all.begin(), all.end(), std::back_inserter(inRange),
                     [&](auto& p) { return p.time >= from && p.time <= to; });
        QVERIFY(!inRange.empty());

        const auto decimated = store.decimated(id, from, to, columns);
        QVERIFY(decimated.size() <= std::size_t(2) * std::size_t(columns));
        QVERIFY(timeOrdered(decimated));
        QVERIFY(std::all_of(decimated.begin(), decimated.end(),
                            [&](auto& p) { return p.time >= from && p.time <= to; }));
        if (inRange.size() <= std::size_t(columns)) {
            QCOMPARE(decimated.size(), inRange.size()); // nothing to drop
        }
        // Every returned point is a retained one, and the global extremes survive.
        for (const auto& p : decimated)
            QVERIFY(std::any_of(inRange.begin(), inRange.end(),
                                [&](auto& q) { return q.time == p.time && q.value == p.value; }));
        const auto [lo, hi] = std::minmax_element(
            inRange.begin(), inRange.end(),
            [](const TimelinePoint& a, const TimelinePoint& b) { return a.value < b.value; });
        const auto hasValue = [&](double v) {
            return std::any_of(decimated.begin(), decimated.end(),
                               [v](auto& p) { return p.value == v; });
        };
        QVERIFY(hasValue(lo->value));
        QVERIFY(hasValue(hi->value));
        // Each column's min and max survive (brute force over the same column split).
        if (from >= 0 && to < seconds(1000)) {
            const TimeUs width = (to - from + 1 + columns - 1) / columns;
            std::map<TimeUs, std::pair<double, double>> perColumn;
            for (const auto& p : inRange) {
                auto [it, inserted] =
                    perColumn.try_emplace((p.time - from) / width, p.value, p.value);
                it->second.first = std::min(it->second.first, p.value);
                it->second.second = std::max(it->second.second, p.value);
            }
            std::map<TimeUs, std::pair<double, double>> got;
            for (const auto& p : decimated) {
                auto [it, inserted] = got.try_emplace((p.time - from) / width, p.value, p.value);
                it->second.first = std::min(it->second.first, p.value);
                it->second.second = std::max(it->second.second, p.value);
            }
            QVERIFY(got == perColumn);
        }
    }

    void decimationOfEmptyOrInvertedRange() {
        TimelineStore store;
        const SeriesId id = store.series(QStringLiteral("pods"), QStringLiteral("head_rv"));
        QVERIFY(store.decimated(id, 0, seconds(10), 100).empty());
        store.append(id, seconds(5), 1);
        QVERIFY(store.decimated(id, seconds(10), 0, 100).empty());
        QVERIFY(store.decimated(id, seconds(6), seconds(10), 100).empty());
        QCOMPARE(store.decimated(id, 0, seconds(10), 0).size(), std::size_t(1));
        QVERIFY(store.decimated(99, 0, seconds(10), 100).empty());
    }

    void lateSampleIsPinnedToNewestTime() {
        TimelineStore store;
        const SeriesId id = store.series(QStringLiteral("pods"), QStringLiteral("cache_rv"));
        std::vector<TimeUs> seen;
        store.addListener([&seen](SeriesId, TimeUs t, double) { seen.push_back(t); });
        store.append(id, seconds(2), 1);
        store.append(id, seconds(1), 2);
        QCOMPARE(seen, (std::vector<TimeUs>{seconds(2), seconds(2)}));
        QVERIFY(timeOrdered(store.points(id)));
    }
};

QTEST_GUILESS_MAIN(TestTimelineStore)
#include "tst_timelinestore.moc"

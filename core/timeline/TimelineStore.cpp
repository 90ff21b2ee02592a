#include "TimelineStore.h"

#include "RingBuffer.h"

#include <QHash>
#include <algorithm>
#include <cmath>
#include <utility>

namespace ws {

namespace {

// Old data of one bucketSpan: its lowest and highest sample, each with its own time so that the
// folded points still sit where they happened.
struct Bucket {
    TimelinePoint min;
    TimelinePoint max;
};

bool samePoint(const TimelinePoint& a, const TimelinePoint& b) {
    return a.time == b.time && (a.value == b.value || (std::isnan(a.value) && std::isnan(b.value)));
}

// How many points a bucket contributes to points(): one when it saw a single distinct sample.
std::size_t pointCount(const Bucket& b) {
    return samePoint(b.min, b.max) ? 1 : 2;
}

// Calls `f` with the bucket's points in time order.
template <typename F> void forEachPoint(const Bucket& b, F&& f) {
    if (samePoint(b.min, b.max)) {
        f(b.min);
    } else if (b.max.time < b.min.time) {
        f(b.max);
        f(b.min);
    } else {
        f(b.min);
        f(b.max);
    }
}

TimeUs lastTimeOf(const Bucket& b) {
    return std::max(b.min.time, b.max.time);
}

TimeUs floorDiv(TimeUs a, TimeUs b) {
    const TimeUs q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

struct Series {
    QString resource;
    QString name;
    RingBuffer<Bucket> buckets;       // folded old data, oldest first
    RingBuffer<TimelinePoint> recent; // the newest fullResolutionSpan, sample by sample
    TimeUs lastTime = 0;
    std::size_t bucketPoints = 0; // sum of pointCount() over buckets
    // totalBuckets: this series' entries at the front of the store's bucket order whose bucket
    // went already (past maxBuckets).
    std::size_t goneBuckets = 0;
};

} // namespace

struct TimelineStore::Impl {
    TimelineLimits limits;
    std::vector<Series> series;
    QHash<std::pair<QString, QString>, SeriesId> ids;
    std::vector<Listener> listeners;
    std::function<bool(const QString&)> keep;
    std::size_t retained = 0;
    // totalBuckets: the series of every bucket made, in the order they were made.
    RingBuffer<SeriesId> bucketOrder;
    std::size_t buckets = 0; // kept, over all series
    std::size_t dropped = 0;

    bool valid(SeriesId id) const {
        return id >= 0 && static_cast<std::size_t>(id) < series.size();
    }

    void dropFront(Series& s) {
        const std::size_t n = pointCount(s.buckets.front());
        s.bucketPoints -= n;
        retained -= n;
        s.buckets.pop_front();
        --buckets;
    }

    // Drops the oldest buckets of the store down to totalBuckets.
    void enforceTotal() {
        while (buckets > limits.totalBuckets && !bucketOrder.empty()) {
            Series& s = series[static_cast<std::size_t>(bucketOrder.front())];
            bucketOrder.pop_front();
            if (s.goneBuckets > 0) {
                --s.goneBuckets;
                continue;
            }
            dropFront(s);
            ++dropped;
        }
        // Entries of buckets gone past maxBuckets wait at the front only while the total is
        // below the bound: rebuilt without them once they are half the order.
        if (bucketOrder.size() > 2 * buckets + 1024) {
            RingBuffer<SeriesId> kept;
            std::vector<std::size_t> skip(series.size());
            for (std::size_t i = 0; i < series.size(); ++i)
                skip[i] = std::exchange(series[i].goneBuckets, 0);
            for (std::size_t i = 0; i < bucketOrder.size(); ++i) {
                const auto id = static_cast<std::size_t>(bucketOrder[i]);
                if (skip[id] > 0)
                    --skip[id];
                else
                    kept.push_back(bucketOrder[i]);
            }
            bucketOrder = std::move(kept);
        }
    }

    void fold(SeriesId id, Series& s, const TimelinePoint& p) {
        const TimeUs index = floorDiv(p.time, limits.bucketSpan);
        if (!s.buckets.empty() && floorDiv(s.buckets.back().min.time, limits.bucketSpan) == index) {
            Bucket& b = s.buckets.back();
            const std::size_t before = pointCount(b);
            // Strict comparisons keep the earliest of equal extremes.
            if (p.value < b.min.value)
                b.min = p;
            if (p.value > b.max.value)
                b.max = p;
            s.bucketPoints += pointCount(b) - before;
            retained += pointCount(b) - before;
            return;
        }
        s.buckets.push_back(Bucket{p, p});
        ++s.bucketPoints;
        ++retained;
        ++buckets;
        if (limits.totalBuckets > 0)
            bucketOrder.push_back(id);
        while (s.buckets.size() > static_cast<std::size_t>(limits.maxBuckets)) {
            dropFront(s);
            if (limits.totalBuckets > 0)
                ++s.goneBuckets;
        }
        if (limits.totalBuckets > 0)
            enforceTotal();
    }
};

TimelineStore::TimelineStore(TimelineLimits limits) : d(std::make_unique<Impl>()) {
    // Sanitise so the folding arithmetic never divides by zero or keeps a negative count.
    limits.fullResolutionSpan = std::max<TimeUs>(0, limits.fullResolutionSpan);
    limits.bucketSpan = std::max<TimeUs>(1, limits.bucketSpan);
    limits.maxBuckets = std::max(0, limits.maxBuckets);
    d->limits = limits;
}

TimelineStore::~TimelineStore() = default;

void TimelineStore::setResourceFilter(std::function<bool(const QString&)> keep) {
    d->keep = std::move(keep);
}

SeriesId TimelineStore::series(const QString& resource, const QString& name) {
    if (d->keep && !d->keep(resource))
        return kHiddenSeries;
    const auto key = std::make_pair(resource, name);
    if (auto it = d->ids.constFind(key); it != d->ids.constEnd())
        return it.value();
    const auto id = static_cast<SeriesId>(d->series.size());
    Series s;
    s.resource = resource;
    s.name = name;
    d->series.push_back(std::move(s));
    d->ids.insert(key, id);
    return id;
}

SeriesId TimelineStore::findSeries(const QString& resource, const QString& name) const {
    return d->ids.value(std::make_pair(resource, name), -1);
}

const QString& TimelineStore::resource(SeriesId id) const {
    static const QString none;
    return d->valid(id) ? d->series[static_cast<std::size_t>(id)].resource : none;
}

const QString& TimelineStore::name(SeriesId id) const {
    static const QString none;
    return d->valid(id) ? d->series[static_cast<std::size_t>(id)].name : none;
}

int TimelineStore::seriesCount() const {
    return static_cast<int>(d->series.size());
}

const TimelineLimits& TimelineStore::limits() const {
    return d->limits;
}

void TimelineStore::append(SeriesId id, TimeUs time, double value) {
    if (!d->valid(id))
        return;
    Series& s = d->series[static_cast<std::size_t>(id)];
    // Keep every series sorted (binary search relies on it): a late sample is pinned to the
    // newest time rather than inserted in the past.
    if (!s.recent.empty() || !s.buckets.empty())
        time = std::max(time, s.lastTime);
    s.lastTime = time;
    s.recent.push_back(TimelinePoint{time, value});
    ++d->retained;

    const TimeUs horizon = time - d->limits.fullResolutionSpan;
    while (s.recent.front().time < horizon) {
        d->fold(id, s, s.recent.front());
        s.recent.pop_front();
        --d->retained;
    }

    for (const auto& listener : d->listeners)
        listener(id, time, value);
}

void TimelineStore::addListener(Listener listener) {
    d->listeners.push_back(std::move(listener));
}

std::vector<TimelinePoint> TimelineStore::points(SeriesId id) const {
    std::vector<TimelinePoint> out;
    if (!d->valid(id))
        return out;
    const Series& s = d->series[static_cast<std::size_t>(id)];
    out.reserve(s.bucketPoints + s.recent.size());
    const auto push = [&out](const TimelinePoint& p) { out.push_back(p); };
    for (std::size_t i = 0; i < s.buckets.size(); ++i)
        forEachPoint(s.buckets[i], push);
    for (std::size_t i = 0; i < s.recent.size(); ++i)
        out.push_back(s.recent[i]);
    return out;
}

std::vector<TimelinePoint> TimelineStore::decimated(SeriesId id, TimeUs from, TimeUs to,
                                                    int maxColumns) const {
    std::vector<TimelinePoint> out;
    if (!d->valid(id) || from > to)
        return out;
    const Series& s = d->series[static_cast<std::size_t>(id)];
    maxColumns = std::max(1, maxColumns);

    // Columns follow the requested range (the chart's pixel grid), so panning does not make the
    // points jitter. 128-bit arithmetic: callers may pass the whole int64 range.
    using Wide = __int128;
    const Wide span = Wide(to) - Wide(from) + 1;
    const Wide width = std::max<Wide>(1, (span + maxColumns - 1) / maxColumns);

    out.reserve(static_cast<std::size_t>(2 * maxColumns));
    Wide column = -1;
    TimelinePoint lo{}, hi{};
    const auto flush = [&] {
        if (column < 0)
            return;
        if (samePoint(lo, hi)) {
            out.push_back(lo);
        } else if (hi.time < lo.time) {
            out.push_back(hi);
            out.push_back(lo);
        } else {
            out.push_back(lo);
            out.push_back(hi);
        }
    };
    const auto visit = [&](const TimelinePoint& p) {
        if (p.time < from || p.time > to)
            return;
        const Wide c = (Wide(p.time) - Wide(from)) / width;
        if (c != column) {
            flush();
            column = c;
            lo = hi = p;
            return;
        }
        if (p.value < lo.value)
            lo = p;
        if (p.value > hi.value)
            hi = p;
    };

    // Binary-search the first bucket and the first recent sample in range; visit only [from, to].
    const std::size_t firstBucket =
        s.buckets.lowerBound(from, [](const Bucket& b, TimeUs t) { return lastTimeOf(b) < t; });
    for (std::size_t i = firstBucket; i < s.buckets.size(); ++i) {
        const Bucket& b = s.buckets[i];
        if (std::min(b.min.time, b.max.time) > to)
            break;
        forEachPoint(b, visit);
    }
    const std::size_t firstRecent =
        s.recent.lowerBound(from, [](const TimelinePoint& p, TimeUs t) { return p.time < t; });
    for (std::size_t i = firstRecent; i < s.recent.size() && s.recent[i].time <= to; ++i)
        visit(s.recent[i]);
    flush();
    return out;
}

std::size_t TimelineStore::retainedPoints() const {
    return d->retained;
}

std::size_t TimelineStore::droppedBuckets() const {
    return d->dropped;
}

} // namespace ws

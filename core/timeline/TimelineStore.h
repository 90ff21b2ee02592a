#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <functional>
#include <memory>
#include <vector>

namespace ws {

using SeriesId = int;
// What series() answers for a resource the store does not keep; appending to it does nothing.
constexpr SeriesId kHiddenSeries = -1;

struct TimelinePoint {
    TimeUs time = 0;
    double value = 0;
};

// Limits that keep memory bounded on long runs: the newest `fullResolutionSpan` of every series
// is kept sample by sample; older data is folded into min/max buckets of `bucketSpan` (two points
// per bucket), and at most `maxBuckets` buckets are kept per series (the oldest are dropped).
// `totalBuckets`, when not 0, bounds the buckets of all series together: past it the oldest
// bucket of the store (the first folded) is dropped and counted (droppedBuckets()), so the
// history of thousands of series (an audit log's requested_rv per client) does not grow with
// the length of what is read.
struct TimelineLimits {
    TimeUs fullResolutionSpan = seconds(120);
    TimeUs bucketSpan = seconds(1);
    int maxBuckets = 24 * 3600;
    std::size_t totalBuckets = 0;
};

// SPEC §3 series per resource: head_rv, cache_rv, buffer_used, buffer_capacity,
// buffer_oldest_rv, watcher_rv:<id>, watcher_lag:<id>, watcher_lag_seconds:<id>.
// Not thread-safe: owned by the session's worker thread. Listeners see every sample as it is
// appended (exporters stream them to files, so nothing is lost to downsampling).
class TimelineStore {
public:
    using Listener = std::function<void(SeriesId, TimeUs, double)>;

    explicit TimelineStore(TimelineLimits limits = {});
    ~TimelineStore();
    TimelineStore(const TimelineStore&) = delete;
    TimelineStore& operator=(const TimelineStore&) = delete;

    // Resources the store keeps (the user's --resources); unset: every one. Set before series().
    void setResourceFilter(std::function<bool(const QString&)> keep);
    // Finds or creates; kHiddenSeries for a resource the filter drops.
    SeriesId series(const QString& resource, const QString& name);
    SeriesId findSeries(const QString& resource, const QString& name) const; // -1 if absent
    const QString& resource(SeriesId id) const;
    const QString& name(SeriesId id) const;
    int seriesCount() const;
    const TimelineLimits& limits() const;

    // Amortised O(1). Times are expected non-decreasing per series; an earlier time is pinned to
    // the series' newest time (listeners see the pinned time too).
    void append(SeriesId id, TimeUs time, double value);
    void addListener(Listener listener);

    // Every retained point in time order (old data as min/max pairs per bucket).
    std::vector<TimelinePoint> points(SeriesId id) const;
    // Points in [from, to], decimated to about 2*maxColumns points: min and max per column.
    // Columns split [from, to] evenly; a column with one sample yields one point.
    std::vector<TimelinePoint> decimated(SeriesId id, TimeUs from, TimeUs to, int maxColumns) const;
    std::size_t retainedPoints() const; // total over all series
    // Buckets dropped for TimelineLimits::totalBuckets (not those past a series' maxBuckets).
    std::size_t droppedBuckets() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace ws

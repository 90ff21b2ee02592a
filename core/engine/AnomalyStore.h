#pragma once

#include "model/Anomaly.h"

#include <array>
#include <deque>
#include <mutex>

namespace ws {

struct AnomalyStoreLimits {
    // Anomalies held in memory in all (~450 bytes each: 2.3 MB). A 1 GB audit log raises
    // ~38,000 (35,000 of them one kind, watcher-terminated); the busiest built-in scenario
    // (daemonset-relist-oom) ~2,000. Every anomaly still reaches the --anomalies file and the
    // window (both are streamed as they come), and the incidents count them all.
    qsizetype kept = 5000;
};

// The session's anomalies, held once: the pipeline adds each as it is raised, and whoever reads
// them afterwards (Session::anomalies(), the what-if comparison, tests, benchmarks) takes a copy
// from here. Bounded, so that a long run holds the same memory as a short one: past the limit the
// oldest anomaly of the most numerous kind leaves memory (a flood of one kind never evicts the
// rare ones), and every eviction is counted. Counts per kind cover every anomaly, kept or not.
// Thread-safe: the session thread adds, any thread reads.
class AnomalyStore {
public:
    explicit AnomalyStore(AnomalyStoreLimits limits = {});

    void add(const Anomaly& anomaly);

    // The anomalies kept, in the order they were raised.
    AnomalyList kept() const;
    qint64 added() const;   // every anomaly added so far
    qint64 evicted() const; // added but no longer in memory (the oldest of the largest kinds)
    qint64 count(AnomalyKind kind) const; // added of that kind, evicted ones included
    AnomalyStoreLimits limits() const { return m_limits; }

private:
    struct Entry {
        qint64 serial; // order of arrival, to interleave the kinds again
        Anomaly anomaly;
    };

    const AnomalyStoreLimits m_limits;
    mutable std::mutex m_mutex; // guards everything below
    std::array<std::deque<Entry>, kAnomalyKindCount> m_byKind;
    std::array<qint64, kAnomalyKindCount> m_counts{};
    qint64 m_added = 0;
    qint64 m_evicted = 0;
};

} // namespace ws

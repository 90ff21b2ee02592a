#pragma once

#include "kube/CacheConsistency.h"
#include "util/SeededRandom.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ws {

class Cacher;
struct SimContext;

// One cacher's DetectCacheInconsistency checker (1.34+): on its jittered schedule it digests the
// watch cache and etcd at the cache's RV (kube/CacheConsistency.h) and, on a mismatch, raises
// cache-inconsistent, the simulated apiserver's "Cache consistency check failed". It never
// relists the cache (the real checker does not either); its verdict only turns the cache's
// snapshots off until a check passes again (MarkConsistent, v1.34.0).
class CacheConsistencyChecker {
public:
    // seed: its own jitter stream, so that turning the gate on leaves the scenario's random
    // writes as they were.
    CacheConsistencyChecker(SimContext& ctx, const Cacher& cacher, std::uint64_t seed);

    void start(); // the first check one jittered period from now
    void stop();
    void tick();

    std::int64_t checks(cacheconsistency::Status status) const {
        return m_counts[static_cast<std::size_t>(status)];
    }
    TimeUs nextCheck() const { return m_next; }
    // The last check's verdict (a check that could not run keeps the previous one).
    bool markedConsistent() const { return m_consistent; }

private:
    cacheconsistency::Result run() const;
    bool etcdItemsAt(ResourceVersion rv, std::vector<cacheconsistency::Item>* out,
                     QString* error) const;
    void raise(const cacheconsistency::Result& result);

    SimContext& m_ctx;
    const Cacher& m_cacher;
    SeededRandom m_rng;
    TimeUs m_next = -1; // -1: not running
    std::array<std::int64_t, 3> m_counts{};
    bool m_consistent = true;
};

} // namespace ws

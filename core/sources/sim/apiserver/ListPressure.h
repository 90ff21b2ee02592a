#pragma once

#include "kube/ApiStatus.h"
#include "kube/KeyValue.h"
#include "kube/ListMemoryRules.h"
#include "kube/ServerProfile.h"

#include <functional>
#include <vector>

namespace ws {

struct SimContext;

// How one simulated apiserver's memory behaves under lists (server.memory of a scenario).
struct ListMemoryConfig {
    bool enabled = false;
    std::int64_t baselineBytes = 0;
    std::int64_t limitBytes = 0;   // 0: never OOM-killed
    double listBytesPerSecond = 0; // 0: a list is answered at once
    TimeUs restartAfter = seconds(30);
};

// The lists one apiserver is serving and the memory they hold (kube/ListMemoryRules.h): a list
// is answered after its bytes have moved at listBytesPerSecond, holding its bytes meanwhile. A
// list that outlives --request-timeout gets the timeout filter's 504 at the deadline while its
// handler goes on holding the memory until it is done (server/filters/timeout.go). Counts the
// requests per resource for the requests_list / requests_watch series.
class ListPressure {
public:
    using Deliver = std::function<void(bool ok, ApiStatus status)>;

    ListPressure(SimContext& ctx, const ServerProfile& profile, ListMemoryConfig config)
        : m_ctx(ctx), m_profile(profile), m_config(std::move(config)) {}

    const ListMemoryConfig& config() const { return m_config; }

    // A list answered by `path` with `items` (of `resource`): deliver(true) once served, or
    // deliver(false, 504) at the request timeout. `scannedBytes`: what an etcd read covered (a
    // page of a paged list: its range); -1: the whole resource. A watch-list's initial state is
    // served the same way (Path::WatchList), with a deliver that does nothing.
    // `streaming`: the response is encoded item by item (its wire's streaming-encoding gate).
    // `largestReadBytes`: its largest single etcd read (a paged list reads in chunks; -1: all
    // of the scan at once).
    void serve(int resource, listmemory::Path path, const std::vector<KeyValuePtr>& items,
               std::int64_t scannedBytes, std::int64_t largestReadBytes, bool streaming,
               Deliver deliver);
    void countWatch(int resource) { ++counts(resource).watches; }
    void countList(int resource) { ++counts(resource).lists; }

    // Delivers what is due; true when the apiserver is above its memory limit.
    bool tick();
    // The apiserver went down: every unanswered list gets `status`, all memory is freed.
    void abortAll(const ApiStatus& status);

    std::int64_t memoryBytes() const { return m_config.baselineBytes + m_heldBytes; }
    std::int64_t heldBytes() const { return m_heldBytes; }
    int inflight() const { return static_cast<int>(m_lists.size()); }

    struct ResourceCounts {
        std::int64_t lists = 0, watches = 0; // requests since the start
        int inflight = 0;
        std::int64_t bytesInflight = 0;
    };
    ResourceCounts countsOf(int resource) const {
        return resource < static_cast<int>(m_counts.size()) ? m_counts[resource] : ResourceCounts{};
    }
    // The resource whose in-flight lists hold the most (-1: none).
    int heaviestResource() const;
    // The bytes of the resource's live objects (what an etcd list of it scans), summed again
    // at most once per simulated second.
    std::int64_t storedBytes(int resource) { return scannedBytes(resource); }

private:
    struct InFlight {
        int resource;
        std::int64_t held;
        TimeUs timeoutAt, doneAt;
        Deliver deliver; // empty once answered (timed out)
    };
    ResourceCounts& counts(int resource);
    std::int64_t scannedBytes(int resource);
    void release(const InFlight& l);

    SimContext& m_ctx;
    const ServerProfile& m_profile;
    ListMemoryConfig m_config;
    std::vector<InFlight> m_lists;
    std::vector<ResourceCounts> m_counts;
    std::int64_t m_heldBytes = 0;
    // The bytes of every live object per resource (an etcd list scans all), summed again at
    // most once per simulated second: thousands of lists arriving together share one sum.
    struct Scan {
        TimeUs at = -1;
        std::int64_t bytes = 0;
    };
    std::vector<Scan> m_scans;
};

} // namespace ws

#pragma once

#include <algorithm>
#include <cstdint>

namespace ws::apf {

// API Priority and Fairness as kube-apiserver applies it to a LIST, with the defaults of the
// releases that have it on (beta from 1.20, GA 1.29): k8s.io/apiserver@v0.30.0
// pkg/util/flowcontrol/request/list_work_estimator.go and config.go (seats),
// pkg/apis/flowcontrol/bootstrap/default.go (levels), pkg/server/config.go (the queue wait is a
// quarter of --request-timeout) and pkg/util/flowcontrol/dropped_requests_tracker.go
// (Retry-After). Before 1.20 the max-in-flight filter alone: 400 read-only requests, the rest
// 429 at once.

constexpr int kMaxRequestsInflight = 400;         // --max-requests-inflight
constexpr int kMaxMutatingRequestsInflight = 200; // --max-mutating-requests-inflight
constexpr int kObjectsPerSeat = 100;
constexpr int kMaximumSeats = 10;
// Service accounts' requests (a DaemonSet's agents, operators) go to workload-low: 100 of the
// 245 nominal shares of the suggested and mandatory levels, lending up to 90 %.
constexpr int kWorkloadLowShares = 100;
constexpr int kTotalShares = 245;
constexpr int kHandSize = 6;          // queues one flow may use
constexpr int kQueueLengthLimit = 50; // requests per queue
constexpr std::int64_t kMaxRetryAfterSeconds = 32;

// The seats workload-low has at its nominal concurrency limit (ceil(600 x 100 / 245) = 245);
// it may borrow idle seats of other levels on top, adjusted every 10 s.
inline int workloadLowSeats() {
    const int server = kMaxRequestsInflight + kMaxMutatingRequestsInflight;
    return (server * kWorkloadLowShares + kTotalShares - 1) / kTotalShares;
}

// Seats of one LIST (listWorkEstimator): the objects it will process per 100, between 1 and 10.
// From the cache it processes the resource's stored objects; from etcd with a selector the
// stored objects plus its limit; else twice its limit (a limit above the stored count counts as
// the stored count).
inline int listSeats(std::int64_t stored, std::int64_t limit, bool fromStorage, bool selector) {
    const std::int64_t cut = limit > 0 && limit < stored ? limit : stored;
    const std::int64_t objects = !fromStorage ? stored : selector ? stored + cut : 2 * cut;
    const std::int64_t seats = (objects + kObjectsPerSeat - 1) / kObjectsPerSeat;
    return static_cast<int>(std::clamp<std::int64_t>(seats, 1, kMaximumSeats));
}

// From 1.34 (SizeBasedListCostEstimate, beta and on) the seats follow the bytes a list loads:
// one seat per 100 kB, a cache list counted at most 1 MB (it streams), an etcd list with a
// selector at least half of the stored objects.
inline int listSeatsBySize(std::int64_t stored, std::int64_t averageBytes, std::int64_t limit,
                           bool fromStorage, bool selector) {
    const std::int64_t limited = limit > 0 && limit < stored ? limit : stored;
    const std::int64_t objects =
        fromStorage && selector ? std::max<std::int64_t>(limited, stored / 2) : limited;
    std::int64_t bytes = objects * averageBytes;
    if (!fromStorage)
        bytes = std::min<std::int64_t>(bytes, 1000000);
    const std::int64_t seats = (bytes + 100000 - 1) / 100000;
    return static_cast<int>(std::clamp<std::int64_t>(seats, 1, kMaximumSeats));
}

// The estimator's own routing guess (shouldListFromStorage, 1.20-1.30): RV="", a continue, a
// limit with an RV other than "0", or Exact. From 1.31 it asks the delegator, which sends RV=""
// lists to the cache where consistent reads are supported; the seats differ only for resources
// under 1,000 objects (at or above that every list costs the maximum).
inline bool listFromStorage(bool rvEmpty, bool rvZero, bool hasContinue, bool hasLimit,
                            bool exact) {
    return rvEmpty || hasContinue || (hasLimit && !rvZero) || exact;
}

} // namespace ws::apf

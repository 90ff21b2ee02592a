#pragma once

#include "kube/ApiStatus.h"
#include "model/ResourceVersion.h"

#include <QString>

#include <deque>
#include <functional>
#include <map>

namespace ws {

// One API Priority and Fairness level of a simulated kube-apiserver (kube/ApfRules.h): the
// seats of the requests it runs, the requests waiting for seats (each flow at most its hand of
// queues' worth, in arrival order: with one flow per client group fair queuing reduces to
// that), the queue-wait limit, and the Retry-After of its 429s, which grows while requests keep
// being dropped (dropped_requests_tracker.go). Before 1.20 it stands for the max-in-flight
// filter: one seat per request and no queue.
class PriorityLevel {
public:
    struct Config {
        int seats = 0;         // 0: no limit
        int queuedPerFlow = 0; // handSize x queueLengthLimit; 0: reject at once
        TimeUs waitLimit = 0;  // --request-timeout / 4
    };
    using Start = std::function<void()>;
    using Reject = std::function<void(const ApiStatus&)>;

    PriorityLevel() = default;
    explicit PriorityLevel(Config config) : m_config(config) {}
    const Config& config() const { return m_config; }

    // start() runs now when `seats` are free and nobody waits ahead; else the request waits
    // (or is rejected with 429 at once when its flow's queues are full). A started request
    // holds its seats until release(seats).
    void admit(TimeUs now, const QString& flow, int seats, Start start, Reject reject);
    void release(int seats);
    void tick(TimeUs now); // waiters past the wait limit get their 429
    // The apiserver went down: every waiter gets `status`, no seats are held.
    void abortAll(const ApiStatus& status);

    int seatsInUse() const { return m_inUse; }
    int waiting() const { return static_cast<int>(m_queue.size()); }
    std::int64_t rejected() const { return m_rejected; }

private:
    struct Waiter {
        TimeUs since = 0;
        QString flow;
        int seats = 0;
        Start start;
        Reject reject;
    };
    bool fits(int seats) const;
    void dispatch();
    void drop(TimeUs now, const Reject& reject);
    int retryAfter(TimeUs now);

    Config m_config;
    int m_inUse = 0;
    std::deque<Waiter> m_queue;
    std::map<QString, int> m_queuedByFlow;
    bool m_dispatching = false;
    std::int64_t m_rejected = 0;
    // Dropped requests per second, for the Retry-After (1 s, doubled while at least three
    // times as many requests as its value were dropped within it, up to 32 s).
    std::map<std::int64_t, int> m_dropsBySecond;
    std::int64_t m_retryAfter = 1;
    std::int64_t m_retryAfterRaisedAt = 0;
    std::int64_t m_currentSecond = -1;
};

} // namespace ws

#include "PriorityLevel.h"

#include "kube/ApfRules.h"

namespace ws {

bool PriorityLevel::fits(int seats) const {
    // The queue set dispatches a request when its seats fit, or when nothing runs at all (a
    // request wider than the level still gets through alone).
    return m_config.seats <= 0 || m_inUse == 0 || m_inUse + seats <= m_config.seats;
}

void PriorityLevel::admit(TimeUs now, const QString& flow, int seats, Start start, Reject reject) {
    if (m_queue.empty() && fits(seats)) {
        m_inUse += seats;
        start();
        return;
    }
    int& queued = m_queuedByFlow[flow];
    if (queued >= m_config.queuedPerFlow) {
        drop(now, reject);
        return;
    }
    ++queued;
    m_queue.push_back({now, flow, seats, std::move(start), std::move(reject)});
}

void PriorityLevel::release(int seats) {
    m_inUse = std::max(0, m_inUse - seats);
    dispatch();
}

void PriorityLevel::dispatch() {
    // A started request may finish at once and release its seats: one loop dispatches all.
    if (m_dispatching)
        return;
    m_dispatching = true;
    while (!m_queue.empty() && fits(m_queue.front().seats)) {
        Waiter w = std::move(m_queue.front());
        m_queue.pop_front();
        --m_queuedByFlow[w.flow];
        m_inUse += w.seats;
        w.start();
    }
    m_dispatching = false;
}

void PriorityLevel::tick(TimeUs now) {
    if (m_config.waitLimit <= 0)
        return;
    while (!m_queue.empty() && now - m_queue.front().since >= m_config.waitLimit) {
        Waiter w = std::move(m_queue.front());
        m_queue.pop_front();
        --m_queuedByFlow[w.flow];
        drop(now, w.reject);
    }
    dispatch();
}

void PriorityLevel::abortAll(const ApiStatus& status) {
    auto queue = std::move(m_queue);
    m_queue.clear();
    m_queuedByFlow.clear();
    m_inUse = 0;
    for (Waiter& w : queue)
        w.reject(status);
}

void PriorityLevel::drop(TimeUs now, const Reject& reject) {
    ++m_rejected;
    const int after = retryAfter(now);
    reject(ApiStatus::tooManyRequests(after));
}

int PriorityLevel::retryAfter(TimeUs now) {
    const std::int64_t second = now / seconds(1);
    if (second != m_currentSecond) {
        // A new second: look at the drops of the last Retry-After seconds before it.
        m_currentSecond = second;
        std::int64_t recent = 0;
        for (auto it = m_dropsBySecond.lower_bound(second - m_retryAfter);
             it != m_dropsBySecond.end() && it->first < second; ++it)
            recent += it->second;
        if (second - m_retryAfterRaisedAt >= m_retryAfter && recent >= 3 * m_retryAfter) {
            m_retryAfter = std::min(2 * m_retryAfter, apf::kMaxRetryAfterSeconds);
            m_retryAfterRaisedAt = second;
        } else if (recent < m_retryAfter && m_retryAfter > 1) {
            --m_retryAfter;
        }
        m_dropsBySecond.erase(m_dropsBySecond.begin(),
                              m_dropsBySecond.lower_bound(second - apf::kMaxRetryAfterSeconds));
    }
    ++m_dropsBySecond[second];
    return static_cast<int>(m_retryAfter);
}

} // namespace ws

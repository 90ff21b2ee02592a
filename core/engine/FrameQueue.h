#pragma once

#include "model/Frame.h"
#include "util/Doorbell.h"

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace ws {

// Hands frames from a source's transport threads to the session thread, in arrival order.
// Bounded by bytes: when the session thread falls behind by more than maxBytes, push() makes
// the transport thread wait until drain() takes the frames. Nothing is dropped: a frame is part
// of a byte stream (an HTTP body, a gRPC watch) whose decoder cannot skip one, and the waiting
// reaches the server through TCP's flow control, where a slow watcher is what the engine then
// observes and shows (lag, a watch the server closes, a relist). Two pushes never wait: those
// from the thread that drains (a source refusing a request on the session thread), and all of
// them once release() was called (a source stopping its transports must not deadlock on a full
// queue nobody drains any more). Every push rings the doorbell set by setDoorbell(), so that the
// session thread sleeps until frames come instead of looking for them every few milliseconds.
class FrameQueue {
public:
    // 64 MiB: several seconds of a 5,000 events/s stream of ~2 KiB objects, and a few of the
    // largest LIST pages a kube-apiserver sends, so that a hiccup of the session thread never
    // holds the transport, while a session thread that stopped costs a fixed amount of memory.
    static constexpr qint64 kDefaultMaxBytes = qint64(64) << 20;
    // What a frame costs besides its bytes (the Frame and the vector's slot).
    static constexpr qint64 kFrameOverhead = qint64(sizeof(Frame));

    struct Stats {
        qint64 queuedBytes = 0; // now
        qint64 peakBytes = 0;   // the most ever queued
        qint64 pushedFrames = 0;
        qint64 drainedFrames = 0;
        qint64 stalls = 0;    // pushes that had to wait
        qint64 stalledUs = 0; // how long they waited in all
    };

    explicit FrameQueue(qint64 maxBytes = kDefaultMaxBytes) : m_max(maxBytes) {}

    void push(Frame frame) {
        const qint64 cost = kFrameOverhead + frame.bytes.size();
        Doorbell* doorbell = nullptr;
        {
            std::unique_lock lock(m_mutex);
            pushLocked(std::move(frame), cost, lock);
            doorbell = m_doorbell;
        }
        if (doorbell)
            doorbell->ring();
    }
    // The bell push() rings from now on (nullptr: none). It must outlive the pushes.
    void setDoorbell(Doorbell* doorbell) {
        std::lock_guard lock(m_mutex);
        m_doorbell = doorbell;
    }
    // Appends the queued frames to `out` (cleared first) and returns how many. The thread that
    // drains is the consumer: its own pushes never wait.
    std::size_t drain(std::vector<Frame>& out) {
        out.clear();
        {
            std::lock_guard lock(m_mutex);
            m_consumer = std::this_thread::get_id();
            out.swap(m_frames);
            m_stats.queuedBytes = 0;
            m_stats.drainedFrames += static_cast<qint64>(out.size());
        }
        m_room.notify_all();
        return out.size();
    }
    std::size_t pending() const {
        std::lock_guard lock(m_mutex);
        return m_frames.size();
    }
    // From now on no push waits (the source stops its transports).
    void release() {
        {
            std::lock_guard lock(m_mutex);
            m_released = true;
        }
        m_room.notify_all();
    }
    Stats stats() const {
        std::lock_guard lock(m_mutex);
        return m_stats;
    }
    qint64 maxBytes() const { return m_max; }

private:
    void pushLocked(Frame frame, qint64 cost, std::unique_lock<std::mutex>& lock) {
        const auto fits = [&] {
            return m_released || m_frames.empty() || m_stats.queuedBytes + cost <= m_max;
        };
        if (!fits() && std::this_thread::get_id() != m_consumer &&
            m_consumer != std::thread::id()) {
            const auto start = std::chrono::steady_clock::now();
            ++m_stats.stalls;
            m_room.wait(lock, fits);
            m_stats.stalledUs += std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::steady_clock::now() - start)
                                     .count();
        }
        m_frames.push_back(std::move(frame));
        m_stats.queuedBytes += cost;
        m_stats.peakBytes = std::max(m_stats.peakBytes, m_stats.queuedBytes);
        ++m_stats.pushedFrames;
    }

    const qint64 m_max;
    mutable std::mutex m_mutex;
    std::condition_variable m_room;
    std::vector<Frame> m_frames;
    Stats m_stats;
    std::thread::id m_consumer;
    Doorbell* m_doorbell = nullptr;
    bool m_released = false;
};

} // namespace ws

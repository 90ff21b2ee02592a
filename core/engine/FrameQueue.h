#pragma once

#include "model/Frame.h"

#include <mutex>
#include <vector>

namespace ws {

// Hands frames from a source's transport threads to the session thread. push() never blocks
// on the consumer; drain() takes everything queued so far, in arrival order.
class FrameQueue {
public:
    void push(Frame frame) {
        std::lock_guard lock(m_mutex);
        m_frames.push_back(std::move(frame));
    }
    // Appends the queued frames to `out` (cleared first) and returns how many.
    std::size_t drain(std::vector<Frame>& out) {
        out.clear();
        std::lock_guard lock(m_mutex);
        out.swap(m_frames);
        return out.size();
    }
    std::size_t pending() const {
        std::lock_guard lock(m_mutex);
        return m_frames.size();
    }

private:
    mutable std::mutex m_mutex;
    std::vector<Frame> m_frames;
};

} // namespace ws

#pragma once

#include "AuditEvent.h"

#include <QElapsedTimer>
#include <deque>
#include <memory>
#include <queue>
#include <vector>

namespace ws {

class AuditProblems;
class AuditStreamThread;

// Merges the apiservers' streams into one in stageTimestamp order: a k-way merge that holds
// events in a reorder window (a file is nearly in order: lines are written as stages end), so
// an event leaves only once every stream still being read has gone `window` past it, or when
// `maxHeld` events wait. An event older than one already handed out is handed out all the same
// and told to AuditProblems (file:line). While following, a stream at the end of its live file
// holds nothing back: what waits in the window leaves after `window` of wall time.
class AuditMerger {
public:
    AuditMerger(std::vector<std::unique_ptr<AuditStreamThread>>& streams, AuditProblems& problems,
                TimeUs window = seconds(5), std::size_t maxHeld = 100000);

    enum class Status { Event, Waiting, Done };
    Status next(AuditEvent* out);
    std::size_t held() const { return m_inOrder.size() + m_heap.size(); }

private:
    // The heap orders small entries; the events wait in slots (moving a whole event at every
    // heap step cost a tenth of the source's time).
    struct Held {
        TimeUs time;
        std::uint64_t seq; // ties keep read order
        qint64 arrivedMs;  // wall clock, for the follow case
        std::uint32_t slot;
    };
    struct Later {
        bool operator()(const Held& a, const Held& b) const {
            return a.time != b.time ? a.time > b.time : a.seq > b.seq;
        }
    };
    enum class Phase { Reading, Waiting, Done };
    struct Input {
        Phase phase = Phase::Reading;
        TimeUs last = std::numeric_limits<TimeUs>::min(); // newest time read from it
    };

    bool safe(const Held& top) const;
    // The events held, in (time, read order): those read in order wait in a FIFO, only the
    // ones that came early go through the heap (a log is nearly in order: a heap step per
    // event was a twentieth of the source's time).
    bool empty() const { return m_inOrder.empty() && m_heap.empty(); }
    const Held& top() const;
    void push(const Held& h);
    void pop();

    std::vector<std::unique_ptr<AuditStreamThread>>& m_streams;
    AuditProblems& m_problems;
    TimeUs m_window;
    std::size_t m_maxHeld;
    std::vector<Input> m_inputs;
    std::deque<Held> m_inOrder;
    std::priority_queue<Held, std::vector<Held>, Later> m_heap;
    std::vector<AuditEvent> m_slots;
    std::vector<std::uint32_t> m_freeSlots;
    std::uint64_t m_seq = 0;
    TimeUs m_lastOut = std::numeric_limits<TimeUs>::min();
    int m_lastOutStream = -1;
    QElapsedTimer m_wall;
};

} // namespace ws

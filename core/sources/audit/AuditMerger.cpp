#include "AuditMerger.h"

#include "AuditProblems.h"
#include "AuditStreamThread.h"

namespace ws {

AuditMerger::AuditMerger(std::vector<std::unique_ptr<AuditStreamThread>>& streams,
                         AuditProblems& problems, TimeUs window, std::size_t maxHeld)
    : m_streams(streams), m_problems(problems), m_window(window), m_maxHeld(maxHeld),
      m_inputs(streams.size()) {
    m_wall.start();
}

const AuditMerger::Held& AuditMerger::top() const {
    if (m_heap.empty())
        return m_inOrder.front();
    if (m_inOrder.empty() || Later{}(m_inOrder.front(), m_heap.top()))
        return m_heap.top();
    return m_inOrder.front();
}

void AuditMerger::push(const Held& h) {
    // seq grows, so an event not earlier than the FIFO's last keeps it sorted.
    if (m_inOrder.empty() || h.time >= m_inOrder.back().time)
        m_inOrder.push_back(h);
    else
        m_heap.push(h);
}

void AuditMerger::pop() {
    if (!m_heap.empty() && (m_inOrder.empty() || Later{}(m_inOrder.front(), m_heap.top())))
        m_heap.pop();
    else
        m_inOrder.pop_front();
}

bool AuditMerger::safe(const Held& top) const {
    if (held() >= m_maxHeld)
        return true;
    for (const Input& in : m_inputs) {
        if (in.phase == Phase::Reading && in.last < top.time + m_window)
            return false;
    }
    return true;
}

AuditMerger::Status AuditMerger::next(AuditEvent* out) {
    for (;;) {
        if (!empty() && safe(top()))
            break;
        // Read from the stream that holds the others back: the one furthest behind.
        int pick = -1;
        for (std::size_t i = 0; i < m_inputs.size(); ++i)
            if (m_inputs[i].phase == Phase::Reading &&
                (pick < 0 || m_inputs[i].last < m_inputs[static_cast<std::size_t>(pick)].last))
                pick = static_cast<int>(i);
        if (pick < 0) {
            // Nothing left to read now: every stream is done, or waiting at its live end.
            bool waiting = false;
            for (std::size_t i = 0; i < m_inputs.size(); ++i)
                if (m_inputs[i].phase == Phase::Waiting) {
                    waiting = true;
                    m_inputs[i].phase = Phase::Reading; // try again on the next call
                }
            if (!waiting && empty())
                return Status::Done;
            if (!waiting)
                break;
            if (empty())
                return Status::Waiting;
            int live = 0; // streams not done: with one, nothing can come from another
            for (const Input& in : m_inputs)
                live += in.phase != Phase::Done;
            if (live > 1 && m_wall.elapsed() - top().arrivedMs < m_window / kUsPerMs) {
                // Hold the window back for a stream that has not caught up yet.
                TimeUs newest = std::numeric_limits<TimeUs>::min();
                for (const Input& in : m_inputs)
                    newest = std::max(newest, in.last);
                if (top().time > newest - m_window)
                    return Status::Waiting;
            }
            break;
        }
        AuditStreamThread& stream = *m_streams[static_cast<std::size_t>(pick)];
        Input& in = m_inputs[static_cast<std::size_t>(pick)];
        if (m_freeSlots.empty()) {
            m_freeSlots.push_back(static_cast<std::uint32_t>(m_slots.size()));
            m_slots.emplace_back();
        }
        const std::uint32_t slot = m_freeSlots.back();
        AuditEvent& event = m_slots[slot];
        switch (stream.next(&event)) {
        case AuditStream::Status::Event:
            m_freeSlots.pop_back();
            in.last = std::max(in.last, event.stageTime);
            push(Held{event.stageTime, m_seq++, m_wall.elapsed(), slot});
            break;
        case AuditStream::Status::Waiting:
            in.phase = Phase::Waiting;
            break;
        case AuditStream::Status::Done:
            in.phase = Phase::Done;
            break;
        }
    }
    const Held h = top();
    pop();
    AuditEvent& event = m_slots[h.slot];
    m_freeSlots.push_back(h.slot);
    if (h.time < m_lastOut) {
        const AuditStreamThread& s = *m_streams[static_cast<std::size_t>(event.stream)];
        m_problems.add(
            AuditProblems::OutOfOrder,
            QStringLiteral("%1:%2").arg(s.fileName(event.file)).arg(event.line),
            QStringLiteral("an event %1 s older than one of %2 already read (beyond "
                           "the %3 s reorder window): used all the same")
                .arg(double(m_lastOut - h.time) / kUsPerSecond, 0, 'f', 3)
                .arg(m_streams[static_cast<std::size_t>(m_lastOutStream)]->group().apiserver)
                .arg(double(m_window) / kUsPerSecond));
    } else {
        m_lastOut = h.time;
        m_lastOutStream = event.stream;
    }
    // Swapped, not moved: the slot keeps the caller's old strings' capacity for the next line.
    std::swap(*out, event);
    return Status::Event;
}

} // namespace ws

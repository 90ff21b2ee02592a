#pragma once

#include "model/ResourceVersion.h"

#include <atomic>

namespace ws {

// Wakes one waiting thread (the session loop) from any other: a transport thread that queued
// work, the thread that stops the session, a signal handler. ring() is async-signal-safe (an
// atomic exchange, and one write() when the bell was not already ringing), so a Ctrl-C handler
// can ring it; the waiter sleeps in ppoll() on a pipe for as long as it has nothing to do,
// instead of looking again every few milliseconds. Without a pipe (no file descriptor left) it
// still works, in naps of at most 5 ms.
class Doorbell {
public:
    Doorbell();
    ~Doorbell();
    Doorbell(const Doorbell&) = delete;
    Doorbell& operator=(const Doorbell&) = delete;

    void ring() noexcept;
    // Until the bell rings or `timeout` µs passed (<= 0: does not sleep). True when it had
    // rung; the ring is then taken: the next wait sleeps until another one.
    bool wait(TimeUs timeout);
    // Takes a ring that came while nobody waited, without sleeping; true if there was one.
    bool take();

private:
    int m_read = -1;
    int m_write = -1;
    std::atomic<bool> m_rung{false};
};

} // namespace ws

#include "Doorbell.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <thread>
#include <unistd.h>

namespace ws {

Doorbell::Doorbell() {
    int fds[2];
    if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0) {
        m_read = fds[0];
        m_write = fds[1];
    }
}

Doorbell::~Doorbell() {
    if (m_read >= 0)
        ::close(m_read);
    if (m_write >= 0)
        ::close(m_write);
}

void Doorbell::ring() noexcept {
    // One byte per ring that found the bell quiet: rings while it still rings cost no syscall.
    if (!m_rung.exchange(true, std::memory_order_acq_rel) && m_write >= 0) {
        const char byte = 1;
        [[maybe_unused]] const ssize_t n = ::write(m_write, &byte, 1); // full pipe: rung anyway
    }
}

bool Doorbell::take() {
    // Quiet first, then empty the pipe: a ring in between leaves its byte for the next wait
    // (one early wake-up), never a ring lost.
    if (!m_rung.exchange(false, std::memory_order_acq_rel))
        return false;
    if (m_read >= 0) {
        char bytes[64];
        while (::read(m_read, bytes, sizeof bytes) > 0) {
        }
    }
    return true;
}

bool Doorbell::wait(TimeUs timeout) {
    if (take())
        return true;
    if (timeout <= 0)
        return false;
    if (m_read < 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(std::min(timeout, milliseconds(5))));
        return take();
    }
    pollfd p{m_read, POLLIN, 0};
    const timespec ts{static_cast<time_t>(timeout / kUsPerSecond),
                      static_cast<long>(timeout % kUsPerSecond) * 1000};
    ::ppoll(&p, 1, &ts, nullptr);
    return take();
}

} // namespace ws

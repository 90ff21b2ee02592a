#include "ReplayControl.h"

#include <algorithm>
#include <limits>

namespace ws {

namespace {
constexpr TimeUs kMaxWait = milliseconds(5);
constexpr TimeUs kEverything = std::numeric_limits<TimeUs>::max();
} // namespace

ReplayControl::ReplayControl(double speed, bool paused) {
    m_state.speed = std::max(0.0, speed);
    m_state.paused = paused;
}

void ReplayControl::setSpeed(double speed) {
    std::lock_guard lock(m_mutex);
    m_state.speed = std::max(0.0, speed);
    ++m_state.generation;
}

void ReplayControl::setPaused(bool paused) {
    std::lock_guard lock(m_mutex);
    m_state.paused = paused;
    ++m_state.generation;
}

void ReplayControl::runUntil(TimeUs time) {
    std::lock_guard lock(m_mutex);
    m_state.runUntil = std::max<TimeUs>(0, time);
    m_runUntilGeneration = ++m_state.generation;
    m_reached = false;
}

bool ReplayControl::runUntilReached() const {
    std::lock_guard lock(m_mutex);
    return m_reached;
}

void ReplayControl::markReached(std::uint64_t generation) {
    std::lock_guard lock(m_mutex);
    // The end of an earlier target does not reach a later one. Reached, the target is done
    // with: a later change of speed or pause does not seek to it again.
    if (generation >= m_runUntilGeneration && m_state.runUntil >= 0) {
        m_reached = true;
        m_state.runUntil = -1;
    }
}

void ReplayControl::cancelRunUntil() {
    std::lock_guard lock(m_mutex);
    m_state.runUntil = -1;
    ++m_state.generation;
}

ReplayControl::State ReplayControl::state() const {
    std::lock_guard lock(m_mutex);
    return m_state;
}

ReplayPacer::ReplayPacer(double speed) {
    m_state.speed = std::max(0.0, speed);
}

void ReplayPacer::setControl(std::shared_ptr<ReplayControl> control) {
    m_control = std::move(control);
    m_started = false;
}

void ReplayPacer::anchor(TimeUs now) {
    m_anchorTime = now;
    m_wall.start();
}

void ReplayPacer::endRunUntil(TimeUs at) {
    // The target is reached: from here on the pace is the normal one, from there.
    m_state.runUntil = -1;
    anchor(at);
    if (m_control)
        m_control->markReached(m_state.generation);
}

TimeUs ReplayPacer::due(TimeUs now) {
    if (m_control) {
        const ReplayControl::State s = m_control->state();
        if (!m_started || s.generation != m_state.generation) {
            m_state = s;
            anchor(now);
        }
    }
    if (!m_started) {
        m_started = true;
        anchor(now);
    }
    if (m_state.runUntil >= 0) {
        if (now < m_state.runUntil)
            return m_lastDue = m_state.runUntil;
        endRunUntil(now);
    }
    if (m_state.paused)
        return m_lastDue = now;
    if (m_state.speed <= 0)
        return m_lastDue = kEverything;
    const auto wallUs = static_cast<double>(m_wall.nsecsElapsed() / 1000);
    return m_lastDue = m_anchorTime + static_cast<TimeUs>(wallUs * m_state.speed);
}

TimeUs ReplayPacer::waitFor(TimeUs next) {
    if (m_state.runUntil >= 0 && next > m_state.runUntil) {
        // Nothing more up to the target (a capture's next frame is beyond it): reached.
        endRunUntil(m_state.runUntil);
        return 1;
    }
    if (m_state.paused)
        return kMaxWait;
    if (m_state.speed <= 0 || next <= m_lastDue)
        return 1;
    return std::clamp<TimeUs>(
        static_cast<TimeUs>(static_cast<double>(next - m_lastDue) / m_state.speed), 1, kMaxWait);
}

} // namespace ws

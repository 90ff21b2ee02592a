#pragma once

#include "util/SeededRandom.h"
#include "model/ResourceVersion.h"

namespace ws {

// client-go's wait.BackoffUntil as reflectors use it: 800 ms doubling to 30 s, jitter 1.0, reset
// after 2 minutes without a failure.
class Backoff {
public:
    TimeUs next(TimeUs now, SeededRandom& rng) {
        if (m_lastFailure != 0 && now - m_lastFailure > m_resetAfter)
            m_current = 0;
        m_lastFailure = now;
        m_current = m_current == 0 ? m_initial : std::min(m_current * 2, m_cap);
        return m_current + static_cast<TimeUs>(rng.uniform() * static_cast<double>(m_current));
    }
    void reset() { m_current = 0; }

private:
    TimeUs m_initial = milliseconds(800);
    TimeUs m_cap = seconds(30);
    TimeUs m_resetAfter = seconds(120);
    TimeUs m_current = 0;
    TimeUs m_lastFailure = 0;
};

} // namespace ws

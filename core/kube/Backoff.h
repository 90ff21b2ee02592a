#pragma once

#include "model/ResourceVersion.h"
#include "util/SeededRandom.h"

namespace ws {

// client-go's reflector backoff (0.18+): 800 ms doubling to 30 s, jitter 1.0, back to 800 ms
// once 2 minutes passed since the previous wait was asked for (wait.ExponentialBackoffManager,
// 0.18-0.35), or with resetPeriodically() every 2 minutes whatever happened in between
// (wait.Backoff.DelayWithReset, 0.36+). fixed(): wait.Until's fixed period, no jitter (the
// 0.16/0.17 reflector, and the 1 s sleep before a re-watch of 0.16-0.19).
class Backoff {
public:
    Backoff() = default;
    static Backoff fixed(TimeUs period) {
        Backoff b;
        b.m_initial = period;
        b.m_cap = period;
        b.m_jitter = 0;
        return b;
    }

    // From now on the backoff starts over every 2 minutes counted from `since` (the reflector's
    // creation), not 2 minutes after the last wait: a failure storm longer than that keeps
    // coming back to 800 ms.
    void resetPeriodically(TimeUs since) {
        m_periodic = true;
        m_periodStart = since;
    }

    TimeUs next(TimeUs now, SeededRandom& rng) {
        if (m_periodic) {
            if (now - m_periodStart > m_resetAfter) {
                m_current = 0;
                m_periodStart = now;
            }
        } else if (m_lastFailure != 0 && now - m_lastFailure > m_resetAfter) {
            m_current = 0;
        }
        m_lastFailure = now;
        m_current = m_current == 0 ? m_initial : std::min(m_current * 2, m_cap);
        if (m_jitter <= 0)
            return m_current;
        return m_current +
               static_cast<TimeUs>(rng.uniform() * m_jitter * static_cast<double>(m_current));
    }
    void reset() { m_current = 0; }

private:
    TimeUs m_initial = milliseconds(800);
    TimeUs m_cap = seconds(30);
    TimeUs m_resetAfter = seconds(120);
    double m_jitter = 1.0;
    TimeUs m_current = 0;
    TimeUs m_lastFailure = 0;
    bool m_periodic = false;
    TimeUs m_periodStart = 0;
};

} // namespace ws

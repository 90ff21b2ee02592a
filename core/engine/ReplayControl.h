#pragma once

#include "model/ResourceVersion.h"

#include <QElapsedTimer>
#include <cstdint>
#include <memory>
#include <mutex>

namespace ws {

// How a replay is paced, steered from another thread (the window's play/pause, speed and seek)
// while a source plays on the session thread. Thread-safe; every change bumps a generation so
// that a ReplayPacer re-anchors its clock where the source is, instead of jumping.
//
// runUntil(t) plays as fast as the machine can until the source's time reaches t, then goes on
// as paused()/speed() say: a seek forward, or the first leg of a seek back on a fresh session
// (the engine derives everything from the frames, so replaying from the start is exact).
class ReplayControl {
public:
    struct State {
        double speed = 1.0;   // recorded seconds per wall second; 0: as fast as possible
        bool paused = false;  // nothing more is played (the source's clock stands still)
        TimeUs runUntil = -1; // < 0: none; else as fast as possible until the source reaches it
        std::uint64_t generation = 0;
    };

    explicit ReplayControl(double speed = 1.0, bool paused = false);

    void setSpeed(double speed);
    void setPaused(bool paused);
    void runUntil(TimeUs time);
    void cancelRunUntil();
    State state() const;
    // Whether the last runUntil() target has been reached (the source is there, or has nothing
    // more before it); set by the source's pacer.
    bool runUntilReached() const;
    void markReached(std::uint64_t generation);

private:
    mutable std::mutex m_mutex;
    State m_state;
    std::uint64_t m_runUntilGeneration = 0; // of the last runUntil()
    bool m_reached = false;
};

// A source's side of the pacing, on the session thread: turns wall time into how far the source
// may play. Without a ReplayControl it plays at a fixed speed (0: as fast as possible) from the
// first call on, as the replay sources always did.
class ReplayPacer {
public:
    explicit ReplayPacer(double speed = 0);

    void setControl(std::shared_ptr<ReplayControl> control);
    const std::shared_ptr<ReplayControl>& control() const { return m_control; }

    // The latest source time that is due now, the source being at `now` (its clock): `now`
    // itself while paused, "everything" while running as fast as possible.
    TimeUs due(TimeUs now);
    // Wall µs until `next` (a source time beyond the last due()) is due; at most 5 ms, so that
    // changes of speed, pause or stop are seen quickly.
    TimeUs waitFor(TimeUs next);

private:
    void anchor(TimeUs now);
    void endRunUntil(TimeUs at);

    std::shared_ptr<ReplayControl> m_control;
    ReplayControl::State m_state;
    bool m_started = false;
    QElapsedTimer m_wall; // since the anchor
    TimeUs m_anchorTime = 0;
    TimeUs m_lastDue = 0;
};

} // namespace ws

#pragma once

#include <csignal>

namespace ws {

class Session;

// Ctrl-C (SIGINT) and SIGTERM while `record`/`export` run: the first one ends the session
// cleanly — files flushed and closed, the capture readable, the summary and revision accounts
// printed — as tcpdump does; a second one kills as usual. Restores the previous handlers when
// it goes out of scope.
class StopSignals {
public:
    explicit StopSignals(Session& session);
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    // The signal that stopped the session, 0 when none did.
    static int received();

private:
    struct sigaction m_oldInt {};
    struct sigaction m_oldTerm {};
};

} // namespace ws

#include "StopSignals.h"

#include "engine/Session.h"

#include <atomic>

namespace ws {

namespace {
std::atomic<Session*> g_session{nullptr};
volatile std::sig_atomic_t g_received = 0;

extern "C" void onStopSignal(int signal) {
    g_received = signal;
    if (Session* s = g_session.load())
        s->requestStop();
    // The next one is not ours: a session that does not stop can still be killed.
    std::signal(signal, SIG_DFL);
}
} // namespace

StopSignals::StopSignals(Session& session) {
    static_assert(std::atomic<Session*>::is_always_lock_free);
    g_received = 0;
    g_session = &session;
    struct sigaction action {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    // A SIGINT ignored by whoever started us (a background job of a script) stays ignored.
    sigaction(SIGINT, nullptr, &m_oldInt);
    if (m_oldInt.sa_handler != SIG_IGN)
        sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, &m_oldTerm);
}

StopSignals::~StopSignals() {
    sigaction(SIGINT, &m_oldInt, nullptr);
    sigaction(SIGTERM, &m_oldTerm, nullptr);
    g_session = nullptr;
}

int StopSignals::received() {
    return g_received;
}

} // namespace ws

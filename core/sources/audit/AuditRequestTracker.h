#pragma once

#include "AuditEvent.h"
#include "AuditRequest.h"

#include <functional>
#include <map>
#include <string>
#include <unordered_map>

namespace ws {

// Puts the stages of each auditID together into one AuditRequest (a policy may omit any
// stage: a list is often logged only at ResponseComplete, a watch at ResponseStarted and
// ResponseComplete) and tells the listener when it starts, when a watch's stream opens and
// when it ends. Bounded: at most `maxOpen` requests wait for their last stage (the oldest are
// given up and counted).
class AuditRequestTracker {
public:
    struct Listener {
        std::function<void(const AuditRequest&)> started;     // at `received`
        std::function<void(const AuditRequest&)> watchOpened; // at `started` (or `received`)
        std::function<void(const AuditRequest&)> completed;   // at `completed`
    };

    AuditRequestTracker(QStringList apiservers, Listener listener, std::size_t maxOpen = 200000)
        : m_apiservers(std::move(apiservers)), m_listener(std::move(listener)), m_maxOpen(maxOpen) {
    }

    // False (with *error) when its requestURI is not a resource URL.
    bool add(const AuditEvent& event, QString* error);

    std::size_t open() const { return m_open.size(); }
    std::int64_t givenUp() const { return m_givenUp; }
    std::int64_t requests() const { return m_requests; }

private:
    struct Open {
        AuditRequest request;
        bool watchOpened = false;
        std::uint64_t order = 0; // of arrival, to give up the oldest
    };
    bool begin(const AuditEvent& event, Open* open, QString* error);

    QStringList m_apiservers; // by stream index
    Listener m_listener;
    std::size_t m_maxOpen;
    std::unordered_map<std::string, Open> m_open; // by auditID
    std::map<std::uint64_t, std::string> m_byAge; // order -> auditID
    std::uint64_t m_order = 0;
    std::int64_t m_givenUp = 0;
    std::int64_t m_requests = 0;
};

} // namespace ws

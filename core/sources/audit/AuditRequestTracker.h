#pragma once

#include "AuditCallers.h"
#include "AuditEvent.h"
#include "AuditId.h"
#include "AuditIdTable.h"
#include "AuditRequest.h"
#include "AuditUri.h"

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ws {

// Puts the stages of each auditID together into one AuditRequest (a policy may omit any
// stage: a list is often logged only at ResponseComplete, a watch at ResponseStarted and
// ResponseComplete) and tells the listener when it starts, when a watch's stream opens and
// when it ends. Bounded: at most `maxOpen` requests wait for their last stage (the oldest are
// given up and counted). An open request costs ~130 bytes: its auditID as 128 bits (a UUID), its
// caller interned, its query as numbers.
class AuditRequestTracker {
public:
    struct Listener {
        std::function<void(const AuditRequest&)> started;     // at `received`
        std::function<void(const AuditRequest&)> watchOpened; // at `started` (or `received`)
        std::function<void(const AuditRequest&)> completed;   // at `completed`
    };

    AuditRequestTracker(QStringList apiservers, Listener listener, std::size_t maxOpen = 200000)
        : m_callers(std::move(apiservers)), m_listener(std::move(listener)), m_maxOpen(maxOpen) {}

    // False (with *error) when its requestURI is not a resource URL.
    bool add(const AuditEvent& event, QString* error);

    std::size_t open() const { return m_byId.size() + m_byName.size(); }
    std::int64_t givenUp() const { return m_givenUp; }
    std::int64_t requests() const { return m_requests; }
    std::size_t callers() const { return m_callers.size(); }

private:
    static constexpr std::uint32_t kNone = ~0u;
    // What an open request keeps until its last stage (the AuditRequest told is made from it).
    struct Open {
        AuditId id;                        // when the auditID is a UUID
        const std::string* name = nullptr; // else: its key in m_byName
        const AuditCaller* caller = nullptr;
        ResourceVersion requestedRv = 0;
        std::int64_t timeoutSeconds = 0;
        TimeUs received = 0;
        TimeUs started = 0;
        std::uint32_t older = kNone; // the list of open requests by age
        std::uint32_t newer = kNone;
        bool watch = false;
        bool rvEmpty = true;
        bool continued = false;
        bool allowWatchBookmarks = false;
        std::optional<bool> sendInitialEvents;
        bool watchOpened = false;
    };
    bool begin(const AuditEvent& event, Open* open, QString* error);
    const AuditRequest& told(const Open& open); // m_told, filled from `open`
    std::uint32_t insert(const AuditEvent& event, const std::optional<AuditId>& id,
                         const Open& open);
    void erase(std::uint32_t slot);

    AuditCallers m_callers;
    Listener m_listener;
    std::size_t m_maxOpen;
    AuditUri m_uri;      // reused
    AuditRequest m_told; // reused
    std::vector<Open> m_slots;
    std::vector<std::uint32_t> m_free;
    AuditIdTable m_byId;
    std::unordered_map<std::string, std::uint32_t> m_byName; // auditIDs that are not UUIDs
    std::uint32_t m_oldest = kNone;
    std::uint32_t m_newest = kNone;
    std::int64_t m_givenUp = 0;
    std::int64_t m_requests = 0;
};

} // namespace ws

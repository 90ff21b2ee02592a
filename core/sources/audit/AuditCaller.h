#pragma once

#include <QString>
#include <cstdint>

namespace ws {

// Who asked for what, and through which apiserver: what every request of one client (SPEC §3:
// user + user agent) for one resource and selector shares. AuditCallers interns them, so a
// request carries a pointer, not its strings.
struct AuditCaller {
    std::uint32_t index = 0; // dense, from 0, in order of first appearance
    QString client;          // "user (user agent)"
    QString resource;        // plural, group-qualified ("pods", "deployments.apps")
    QString selector;        // "labels,fields", either alone, or ""
    QString apiserver;       // the file's apiserver, or the event's annotation
};

} // namespace ws

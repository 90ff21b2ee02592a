#pragma once

#include "AuditCaller.h"
#include "model/ResourceVersion.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace ws {

// One list or watch as an audit log shows it, its stages put together by auditID: what the
// listeners of AuditRequestTracker are told. Who asked is interned (AuditCaller); the query is
// what its requestURI said (AuditUri), reduced to what the detectors take.
struct AuditRequest {
    const AuditCaller* caller = nullptr;
    bool watch = false;              // verb watch (else list)
    ResourceVersion requestedRv = 0; // resourceVersion as a number: 0 for "", "0", not a number
    bool rvEmpty = true;             // resourceVersion "" or absent
    bool continued = false;          // a continue page of a list
    std::int64_t limit = 0;          // told to started() only (0 after)
    std::int64_t timeoutSeconds = 0;
    bool allowWatchBookmarks = false;
    std::optional<bool> sendInitialEvents;
    TimeUs received = 0;  // requestReceivedTimestamp (µs since the epoch)
    TimeUs started = 0;   // a watch's ResponseStarted (its stream opened); 0 if not logged
    TimeUs completed = 0; // ResponseComplete or Panic
    int code = 0;         // responseStatus.code; 500 for a Panic without one
    // The last stage's responseStatus reason ("Panic" for a Panic without one) and message:
    // views into that event, valid while the listener is told it completed.
    std::string_view reason;
    std::string_view message;

    const QString& client() const { return caller->client; }
    const QString& resource() const { return caller->resource; }
    const QString& selector() const { return caller->selector; }
    const QString& apiserver() const { return caller->apiserver; }
    bool failed() const { return code >= 300; }
    TimeUs duration() const { return completed - received; }
};

} // namespace ws

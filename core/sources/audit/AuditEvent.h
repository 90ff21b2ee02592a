#pragma once

#include "model/ResourceVersion.h"

#include <cstdint>
#include <string>

namespace ws {

// The stages of one request in an audit.k8s.io Event (staging/src/k8s.io/apiserver/pkg/apis/
// audit/v1/types.go): every stage of one auditID is one request.
enum class AuditStage : std::uint8_t { RequestReceived, ResponseStarted, ResponseComplete, Panic };

// What a list/watch reconstruction needs of one audit line. Owned strings: events wait in the
// merge window after the line they came from is gone.
struct AuditEvent {
    AuditStage stage = AuditStage::ResponseComplete;
    bool watch = false; // verb "watch" (else "list")
    std::string auditId;
    std::string requestUri;
    std::string username;
    std::string userAgent;
    std::string resource;  // objectRef.resource
    std::string apiGroup;  // objectRef.apiGroup ("" core)
    std::string apiserver; // the kAuditApiserverAnnotation annotation, "" when absent
    int code = 0;          // responseStatus.code, 0 when absent
    std::string reason;
    std::string message;
    TimeUs received = 0;  // requestReceivedTimestamp, µs since the Unix epoch
    TimeUs stageTime = 0; // stageTimestamp, µs since the Unix epoch
    // Where it was read: the stream (one apiserver), the file of that stream and the line.
    int stream = 0;
    int file = 0;
    std::int64_t line = 0;

    // Empties it for the next line, keeping the strings' memory (no allocation per line).
    void clear() {
        for (std::string* s : {&auditId, &requestUri, &username, &userAgent, &resource, &apiGroup,
                               &apiserver, &reason, &message})
            s->clear();
        stage = AuditStage::ResponseComplete;
        watch = false;
        code = 0;
        received = stageTime = 0;
        stream = file = 0;
        line = 0;
    }
};

// The annotation that names the apiserver which wrote an event, when a log says so (a log
// collector that merges several apiservers' files into one). Absent: the file says which.
inline constexpr const char* kAuditApiserverAnnotation = "watchscope.io/apiserver";

} // namespace ws

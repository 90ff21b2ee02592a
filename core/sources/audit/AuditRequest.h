#pragma once

#include "kube/ApiRequest.h"
#include "model/ResourceVersion.h"

#include <QString>

namespace ws {

// One list or watch as an audit log shows it, its stages put together by auditID.
struct AuditRequest {
    QString auditId;
    QString client;       // "user (user agent)": SPEC §3's client is user + user agent
    QString resource;     // plural, group-qualified ("pods", "deployments.apps")
    QString apiserver;    // the file's apiserver, or the annotation's
    ApiRequest query;     // what requestURI asked for (verb List or Watch)
    TimeUs received = 0;  // requestReceivedTimestamp (µs since the epoch)
    TimeUs started = 0;   // a watch's ResponseStarted (its stream opened); 0 if not logged
    TimeUs completed = 0; // ResponseComplete or Panic
    int code = 0;         // responseStatus.code; 500 for a Panic without one
    QString reason;
    QString message;

    bool watch() const { return query.verb == ApiRequest::Verb::Watch; }
    bool failed() const { return code >= 300; }
    TimeUs duration() const { return completed - received; }
    QString selector() const;
    // resourceVersion as a number: 0 for "" and "0" (which ask for no particular state).
    ResourceVersion requestedRv() const;
};

} // namespace ws

#pragma once

#include "kube/ApiStatus.h"
#include "model/ResourceVersion.h"
#include "model/WatchEventType.h"

#include <string>
#include <string_view>

namespace ws {

// One Kubernetes watch event as decoded from its JSON: the event type and what the detectors
// need of the object. Strings are std::string so a reused WatchEventJson keeps its capacity
// and decoding does not allocate per event.
struct WatchEventJson {
    WatchEventType type = WatchEventType::Added;
    std::string kind; // object.kind ("Pod", "Status"); empty when the object has none
    std::string name; // object.metadata.name / namespace / uid; empty when absent
    std::string ns;
    std::string uid;
    ResourceVersion resourceVersion = 0; // object.metadata.resourceVersion; 0 when absent
    // BOOKMARK with annotation k8s.io/initial-events-end: "true" (the end of a watch-list's
    // initial events).
    bool initialEventsEnd = false;
    ApiStatus status; // type Error: the metav1.Status the object carries
    // The raw JSON of "object", pointing into the decoder's buffer: valid until the decoder's
    // next decode() (or its destruction).
    std::string_view object;

    void clear() {
        type = WatchEventType::Added;
        kind.clear();
        name.clear();
        ns.clear();
        uid.clear();
        resourceVersion = 0;
        initialEventsEnd = false;
        status = ApiStatus();
        object = {};
    }
};

} // namespace ws

#pragma once

#include "ApiServer.h"

namespace ws {

// A proxy or an aggregated API server between a client and the kube-apiserver that accepts a
// watch-list (sendInitialEvents=true, resourceVersionMatch=NotOlderThan) without a 422, whatever
// the WatchList gate behind it, and answers it with an ordinary watch: the current state as
// ADDED events (resourceVersion ""), then live events and ordinary bookmarks, but never the
// BOOKMARK annotated k8s.io/initial-events-end. A watch-list client waits for that bookmark
// forever (antrea's aggregated API server; k9s "Synchronizing"; static-kas and k8shark before
// they added the bookmark). reference/kubernetes-watch.md §2.
struct InitialEventsProxy {
    // The watch it opens on the kube-apiserver for a client's watch request.
    static ApiServer::WatchOptions forward(ApiServer::WatchOptions options) {
        options.sendInitialEvents = false;
        // Its own ordinary watch: the kube-apiserver handler's watch-list defaulting does not
        // apply to it (it never sends the initial-events-end bookmark, whatever the gate).
        options.explicitInitialEvents = true;
        return options;
    }
};

} // namespace ws

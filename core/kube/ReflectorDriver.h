#pragma once

#include "ListPageRequest.h"
#include "model/Observation.h"

namespace ws {

// What a Reflector asks of the code around it, which owns the connection and the store: the
// simulated client (requests to simulated apiservers) and the cluster source's (HTTP). The
// Reflector calls each as the last thing it does, so a driver may answer at once from inside it.
class ReflectorDriver {
public:
    virtual ~ReflectorDriver() = default;

    // A pager.List begins (the reflector's LIST of this ListAndWatch, or its RV="" retry); its
    // first page follows.
    virtual void listStarted(const ListRequest& list) = 0;
    virtual void sendListPage(const ListPageRequest& page) = 0;
    // The list ended at `rv`: what it held is the store now. The watch from it follows.
    virtual void listed(ResourceVersion rv) = 0;
    // A new WATCH (a watch-list when `watch.sendInitialEvents`).
    virtual void sendWatch(const WatchRequest& watch) = 0;
    // The REST layer sends the request in flight again, as it was (after a Retry-After).
    virtual void resend() = 0;
    // The request in flight is given up: ListAndWatch returned, or the reflector backs off.
    virtual void abandon() = 0;
};

} // namespace ws

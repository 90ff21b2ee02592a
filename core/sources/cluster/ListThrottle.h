#pragma once

#include "http/HttpRequest.h"

#include <cstddef>
#include <deque>
#include <set>
#include <vector>

namespace ws {

// The informers' LISTs of one session, a few at a time: every resource of a cluster starts with
// a LIST, and sent all at once they would load the apiserver as no client-go informer factory
// does (below). A LIST waits here instead, in the order asked, and is sent when one in flight
// ends. (ApiDiscovery keeps the same kind of queue for discovery's GETs.)
class ListThrottle {
public:
    // client-go's rest client lets an informer factory's start-up requests through its token
    // bucket at QPS 5 (burst 10; kubectl raises it to 50/300): a handful a second, not hundreds
    // at once. Five in flight keep that pace for LISTs of about a second, and leave a sixth
    // short request to the /metrics scrape.
    static constexpr int kMaxInFlight = kShortRequestsInFlight - 1;

    struct Waiting {
        int server = 0;
        HttpRequest request;
    };

    // True when `request` may go now (it counts as in flight until forgotten); false when it
    // waits here.
    bool admit(int server, const HttpRequest& request);
    // `id` ended or was cancelled: its place is free. True when it was still waiting (it never
    // went out).
    bool forget(int id);
    // The waiting LISTs that may go now, in the order they were asked for, counted in flight.
    std::vector<Waiting> due();

    std::size_t inFlight() const { return m_inFlight.size(); }
    std::size_t waiting() const { return m_waiting.size(); }

private:
    std::set<int> m_inFlight;
    std::deque<Waiting> m_waiting;
};

} // namespace ws

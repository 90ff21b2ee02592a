#pragma once

#include "model/ResourceVersion.h"

#include <cstddef>
#include <vector>

namespace ws {

// How long one watcher of a real cluster has been behind a head it could have reached.
//
// A head is an RV the cluster is known to have reached, with the time from which the watcher
// could have been there too. An event of its resource at that RV (seen by another informer, or
// implied by a rise of the cache's events-received counter) reaches a watcher at once. A watch
// cache's RV alone does not: kube-apiserver moves it on every etcd progress notification of a
// quiet resource, and a watcher learns it only from its next periodic bookmark, which the cacher
// sends about once a minute. A watcher that reached a head's RV (an event, a bookmark, the
// initial-events-end bookmark, a list) is not behind it, whenever that was.
//
// lagSeconds() is the time since the earliest head the watcher has not reached became
// reachable; 0 when it reached all of them or none is reachable yet.
class WatcherLagClock {
public:
    // At most this many heads are kept; past it the two oldest merge (the lag is then counted
    // from the older one's time, never less than the truth).
    static constexpr std::size_t kMaxHeads = 512;

    // The cluster reached `rv`; the watcher could have been there from `reachableAt` on.
    void head(ResourceVersion rv, TimeUs reachableAt);
    // The watcher is at `rv` now.
    void reached(ResourceVersion rv);
    double lagSeconds(TimeUs now) const;
    std::size_t heads() const { return m_heads.size(); }

private:
    struct Head {
        ResourceVersion rv = 0;
        TimeUs reachableAt = 0;
    };
    // Ascending in both rv and reachableAt: a head with a higher RV that became reachable
    // earlier makes every lower one reachable from then as well (the watcher passes them on its
    // way), so a lower head with a later time says nothing more.
    std::vector<Head> m_heads;
    ResourceVersion m_at = 0;
};

} // namespace ws

#pragma once

#include "DetectorContext.h"

#include <span>
#include <vector>

namespace ws {

// The per-stream guarantees of an etcd watch (reference/etcd-watch.md §3), which a Kubernetes
// watch stream shares: Ordered (revision-regression), Unique (duplicate-event), Atomic
// (split-revision, etcd only) and Bookmarkable (bookmark-violation). State lives from
// watchOpened to the next watchOpened. Synthetic initial events carry objects' own RVs and are
// exempt. One event raises at most one of these kinds (the first that applies, in that order).
class WatchGuaranteeChecker {
public:
    explicit WatchGuaranteeChecker(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher();
    void onWatchOpened(WatcherId w);
    void onResponse(WatcherId w, TimeUs now, std::span<const ObservedEvent> events);
    void onProgress(WatcherId w, TimeUs now, ResourceVersion rv);

private:
    struct Stream {
        ResourceVersion maxRv = 0;          // highest live event revision so far
        ResourceVersion progressRv = 0;     // highest bookmark / progress revision so far
        ResourceVersion lastResponseRv = 0; // last live revision of the previous response
        // Keys delivered at maxRv: enough for Unique because Ordered catches anything lower.
        std::vector<KeyId> keysAtMax;
    };

    Q_DECL_COLD_FUNCTION void raiseRegression(WatcherId w, TimeUs now, const ObservedEvent& e,
                                              const Stream& s);
    Q_DECL_COLD_FUNCTION void raiseDuplicate(WatcherId w, TimeUs now, const ObservedEvent& e);
    Q_DECL_COLD_FUNCTION void raiseSplit(WatcherId w, TimeUs now, const ObservedEvent& e);
    Q_DECL_COLD_FUNCTION void raiseEventAtBookmark(WatcherId w, TimeUs now, const ObservedEvent& e,
                                                   const Stream& s);

    DetectorContext& m_ctx;
    std::vector<Stream> m_streams;
};

} // namespace ws

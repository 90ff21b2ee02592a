#pragma once

#include "ServerWatch.h"
#include "sources/sim/etcd/EtcdWatchHub.h"

#include <memory>

namespace ws {

struct SimContext;
struct ServerProfile;

// A client watch the apiserver serves straight from etcd (RV="" in 1.27.0, PR #115096; every
// watch of a resource without a watch cache): events are translated one by one; a non-create
// event without prev_kv becomes the InternalError ERROR event of etcd3/watcher.go, a compacted
// cancel the 410 of the etcd path.
class EtcdBackedWatch : public EtcdWatchReceiver {
public:
    // Where the watch starts: from `rv` (N: from revision N+1), or with `initialState` (RV ""
    // and "0", etcd3/watcher.go sync()) from now after one ADDED per current object.
    // `initialEventsEnd`: a watch-list with bookmarks (WatchList on, 1.29+): the initial state
    // ends with the k8s.io/initial-events-end bookmark at the revision it was read at
    // (etcd3/watcher.go@v0.29.0 startWatching, isInitialEventsEndBookmarkRequired).
    struct Start {
        ResourceVersion rv = 0;
        bool initialState = false;
        bool initialEventsEnd = false;
    };
    EtcdBackedWatch(SimContext& ctx, const ServerProfile& profile, std::shared_ptr<ServerWatch> w,
                    int stream, Start start);
    ~EtcdBackedWatch() override;

    void onEtcdWatchResponse(const EtcdWatchResponse& response) override;
    void breakConnection();
    bool done() const { return m_watch->closed; }
    void tick();

private:
    void cancel();
    SimContext& m_ctx;
    const ServerProfile& m_profile;
    std::shared_ptr<ServerWatch> m_watch;
    int m_etcdWatch = -1;
};

} // namespace ws

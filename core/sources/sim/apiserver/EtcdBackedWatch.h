#pragma once

#include "ServerWatch.h"
#include "sources/sim/etcd/EtcdWatchHub.h"

#include <memory>

namespace ws {

struct SimContext;
struct ServerProfile;

// A client watch the apiserver serves straight from etcd (RV="" in 1.27.0, PR #115096; every
// watch of a resource without a watch cache): events
// are translated one by one; a non-create event without prev_kv becomes the InternalError ERROR
// event of etcd3/watcher.go, a compacted cancel the 410 of the etcd path.
class EtcdBackedWatch : public EtcdWatchReceiver {
public:
    // Where the watch starts. The default is the RV="" watch of 1.27.0, which starts at the
    // current revision; a resource without a watch cache (events) is watched from `rv` (N: from
    // revision N+1), or with `initialState` from now after one ADDED per current object.
    struct Start {
        ResourceVersion rv = 0;
        bool initialState = false;
        bool fromNow = false;
    };
    EtcdBackedWatch(SimContext& ctx, const ServerProfile& profile, std::shared_ptr<ServerWatch> w,
                    int stream, Start start = Start{0, false, true});
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

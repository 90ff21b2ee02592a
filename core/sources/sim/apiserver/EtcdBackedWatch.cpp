#include "EtcdBackedWatch.h"

#include "kube/ApiStatus.h"
#include "sources/sim/SimContext.h"
#include "sources/sim/etcd/SimEtcd.h"

namespace ws {

EtcdBackedWatch::EtcdBackedWatch(SimContext& ctx, const ServerProfile& profile,
                                 std::shared_ptr<ServerWatch> w, int stream)
    : m_ctx(ctx), m_profile(profile), m_watch(std::move(w)) {
    EtcdWatchOptions options;
    options.resource = m_watch->resource;
    options.startRevision = 0; // RV="": from now on
    options.prevKv = true;
    m_etcdWatch = m_ctx.etcd.watches().watch(stream, options, this);
    m_watch->lastRv = m_ctx.etcd.currentRevision();
}

EtcdBackedWatch::~EtcdBackedWatch() {
    cancel();
}

void EtcdBackedWatch::cancel() {
    if (m_etcdWatch >= 0)
        m_ctx.etcd.watches().cancel(m_etcdWatch);
    m_etcdWatch = -1;
}

void EtcdBackedWatch::breakConnection() {
    cancel();
    m_watch->buffer.clear();
    m_watch->close(WatchCloseReason::Broken);
}

void EtcdBackedWatch::tick() {
    if (!m_watch->closed && m_ctx.now >= m_watch->deadline) {
        cancel();
        m_watch->close(WatchCloseReason::ClientTimeout);
    }
}

void EtcdBackedWatch::onEtcdWatchResponse(const EtcdWatchResponse& response) {
    if (m_watch->closed)
        return;
    if (response.canceled) {
        m_etcdWatch = -1;
        m_watch->fail(ApiStatus::tooOldFromEtcd(m_profile));
        return;
    }
    for (const SentEvent& s : response.events) {
        const MvccEvent& ev = *s.event;
        if (!ev.isCreate() && !s.prevKv) {
            cancel();
            m_watch->fail(ApiStatus::prevKvNil(m_ctx.keyspace.keys().qkey(ev.key), ev.rev,
                                               ev.type == MvccEventType::Delete));
            return;
        }
        if (!m_watch->matches(m_ctx.keyspace.selectorGroupOf(ev.key)))
            continue;
        WatchDelivery d;
        d.type = ev.type == MvccEventType::Delete ? WatchEventType::Deleted
                 : ev.isCreate()                  ? WatchEventType::Added
                                                  : WatchEventType::Modified;
        d.key = ev.key;
        d.rv = ev.rev;
        d.object = ev.type == MvccEventType::Delete ? *s.prevKv : ev.kv;
        d.commitTime = ev.commitTime;
        m_watch->buffer.push_back(std::move(d));
        m_watch->lastRv = ev.rev;
    }
}

} // namespace ws

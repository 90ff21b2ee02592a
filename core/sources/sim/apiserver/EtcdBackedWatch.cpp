#include "EtcdBackedWatch.h"

#include "kube/ApiStatus.h"
#include "sources/sim/SimContext.h"
#include "sources/sim/etcd/SimEtcd.h"

namespace ws {

EtcdBackedWatch::EtcdBackedWatch(SimContext& ctx, const ServerProfile& profile,
                                 std::shared_ptr<ServerWatch> w, int stream, Start start)
    : m_ctx(ctx), m_profile(profile), m_watch(std::move(w)) {
    EtcdWatchOptions options;
    options.resource = m_watch->resource;
    options.prevKv = true;
    const ResourceVersion current = m_ctx.etcd.currentRevision();
    if (start.initialState) {
        options.startRevision = 0; // from now on
        m_watch->lastRv = current;
    } else {
        options.startRevision = start.rv + 1; // a compacted start is cancelled: 410 Expired
        m_watch->lastRv = start.rv;
    }
    if (start.initialState) {
        // etcd3/watcher.go sync(): the current objects as ADDED, then the changes after them.
        for (KeyId k : m_ctx.etcd.liveKeys(m_watch->resource)) {
            if (!m_watch->matches(m_ctx.keyspace.selectorGroupOf(k)))
                continue;
            WatchDelivery d;
            d.type = WatchEventType::Added;
            d.initial = true;
            d.key = k;
            d.object = m_ctx.etcd.get(k);
            d.rv = d.object->modRev;
            m_watch->buffer.push_back(std::move(d));
        }
        if (start.initialEventsEnd) {
            WatchDelivery d;
            d.type = WatchEventType::Bookmark;
            d.initialEventsEnd = true;
            d.rv = current;
            m_watch->buffer.push_back(std::move(d));
        }
    }
    m_watch->startRv = m_watch->lastRv;
    m_etcdWatch = m_ctx.etcd.watches().watch(stream, options, this);
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

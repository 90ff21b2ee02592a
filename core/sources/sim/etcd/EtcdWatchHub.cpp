#include "EtcdWatchHub.h"

#include "SimEtcd.h"

#include <algorithm>
#include <limits>

namespace ws {

namespace {
MvccEvent queued(const MvccEvent& e) {
    return MvccEvent{e.rev, e.key, e.type, e.created, e.commitTime, e.kv, nullptr, e.prevModRev};
}

void eraseValue(std::vector<int>& v, int value) {
    auto it = std::find(v.begin(), v.end(), value);
    if (it != v.end()) {
        *it = v.back();
        v.pop_back();
    }
}
} // namespace

EtcdWatchHub::EtcdWatchHub(const SimEtcd& etcd) : m_etcd(etcd) {}

int EtcdWatchHub::openStream(double eventsPerSecond) {
    Stream s;
    s.eventsPerSecond = eventsPerSecond;
    s.allowance = eventsPerSecond > 0 ? 0 : std::size_t(1) << 40;
    m_streams.push_back(std::move(s));
    return static_cast<int>(m_streams.size()) - 1;
}

void EtcdWatchHub::setStreamStalled(int stream, bool stalled) {
    m_streams[stream].stalled = stalled;
}

void EtcdWatchHub::closeStream(int stream) {
    Stream& s = m_streams[stream];
    for (int id : std::vector<int>(s.watchers))
        cancel(id);
    s.channel.clear();
    s.open = false;
}

int EtcdWatchHub::watch(int stream, const EtcdWatchOptions& options, EtcdWatchReceiver* receiver) {
    Watcher w;
    w.id = static_cast<int>(m_watchers.size());
    w.stream = stream;
    w.options = options;
    w.receiver = receiver;
    const ResourceVersion current = m_etcd.currentRevision();
    // watchable_store.watch(): synced when starting at 0 or in the future, else unsynced (no
    // compaction check here: a compacted start is cancelled later by syncWatchers).
    const bool synced = options.startRevision == 0 || options.startRevision > current;
    w.minRev = options.startRevision == 0 ? current + 1 : options.startRevision;
    w.state = WatcherState::Done;
    m_watchers.push_back(std::move(w));
    setState(m_watchers.back(), synced ? WatcherState::Synced : WatcherState::Unsynced);
    m_streams[stream].watchers.push_back(m_watchers.back().id);
    return m_watchers.back().id;
}

void EtcdWatchHub::setState(Watcher& w, WatcherState state) {
    if (w.state == state)
        return;
    const size_t r = static_cast<size_t>(std::max(0, w.options.resource));
    if (r >= m_syncedByResource.size())
        m_syncedByResource.resize(r + 1);
    switch (w.state) {
    case WatcherState::Synced:
        eraseValue(m_syncedByResource[r], w.id);
        break;
    case WatcherState::Unsynced:
        eraseValue(m_unsynced, w.id);
        break;
    case WatcherState::Victim:
        eraseValue(m_victims, w.id);
        break;
    case WatcherState::Done:
        break;
    }
    w.state = state;
    switch (state) {
    case WatcherState::Synced:
        m_syncedByResource[r].push_back(w.id);
        break;
    case WatcherState::Unsynced:
        m_unsynced.push_back(w.id);
        break;
    case WatcherState::Victim:
        m_victims.push_back(w.id);
        break;
    case WatcherState::Done:
        w.victimBatch.clear();
        break;
    }
}

void EtcdWatchHub::cancel(int watchId) {
    if (watchId < 0 || watchId >= static_cast<int>(m_watchers.size()))
        return;
    Watcher& w = m_watchers[watchId];
    // A watcher can already be Done with its compacted response still queued: the receiver must
    // be forgotten all the same, or that response would reach a receiver that no longer exists.
    if (w.state != WatcherState::Done)
        setState(w, WatcherState::Done);
    w.receiver = nullptr;
    eraseValue(m_streams[w.stream].watchers, watchId);
}

bool EtcdWatchHub::trySend(Watcher& w, Response&& response) {
    Stream& s = m_streams[w.stream];
    if (s.channel.size() >= static_cast<std::size_t>(m_config.channelSlots) + s.allowance)
        return false;
    s.channel.push_back(std::move(response));
    return true;
}

void EtcdWatchHub::notify(const MvccEvent& event) {
    const size_t r = static_cast<size_t>(m_etcd.keyspace().resourceOf(event.key));
    if (r >= m_syncedByResource.size())
        return;
    auto& synced = m_syncedByResource[r];
    for (size_t i = 0; i < synced.size();) {
        Watcher& w = m_watchers[synced[i]];
        Response resp{w.id, event.rev, 0, true, queued(event), {}};
        if (trySend(w, std::move(resp))) {
            w.minRev = event.rev + 1;
            ++i;
            continue;
        }
        // The shared channel is full: the watcher becomes a victim holding this batch.
        w.minRev = event.rev + 1;
        w.victimBatch.assign(1, queued(event));
        w.victimMoreRev = 0;
        setState(w, WatcherState::Victim); // swaps the last synced id into slot i
    }
}

void EtcdWatchHub::moveVictims() {
    const ResourceVersion current = m_etcd.currentRevision();
    for (int id : std::vector<int>(m_victims)) {
        Watcher& w = m_watchers[id];
        Response resp{w.id, w.minRev - 1, 0, false, {}, w.victimBatch};
        if (!trySend(w, std::move(resp)))
            continue;
        w.victimBatch.clear();
        if (w.victimMoreRev != 0)
            w.minRev = w.victimMoreRev;
        setState(w, w.minRev <= current ? WatcherState::Unsynced : WatcherState::Synced);
    }
}

std::vector<MvccEvent> EtcdWatchHub::historyFor(const Watcher& w, ResourceVersion from,
                                                ResourceVersion& moreRev) const {
    std::vector<MvccEvent> events;
    moreRev = 0;
    int revisions = 0;
    const ResourceVersion current = m_etcd.currentRevision();
    for (ResourceVersion rev = std::max(from, m_etcd.firstRevisionInHistory()); rev <= current;
         ++rev) {
        const MvccEvent* ev = m_etcd.eventAt(rev);
        if (!ev || m_etcd.keyspace().resourceOf(ev->key) != w.options.resource)
            continue;
        if (revisions == m_config.maxRevisionsPerBatch) {
            moreRev = rev;
            break;
        }
        events.push_back(queued(*ev));
        ++revisions;
    }
    return events;
}

void EtcdWatchHub::syncWatchers() {
    if (m_unsynced.empty())
        return;
    const ResourceVersion current = m_etcd.currentRevision();
    const ResourceVersion compactRev = m_etcd.compactRevision();
    // chooseAll: cancel compacted watchers with a compacted response when the channel has room;
    // the others (channel full) stay and are left out of the group's minimum revision.
    ResourceVersion groupMin = std::numeric_limits<ResourceVersion>::max();
    std::vector<int> chosen(m_unsynced);
    for (int id : chosen) {
        Watcher& w = m_watchers[id];
        if (w.minRev < compactRev) {
            if (trySend(w, Response{w.id, current, compactRev, false, {}, {}}))
                setState(w, WatcherState::Done);
            continue;
        }
        groupMin = std::min(groupMin, w.minRev);
    }
    for (int id : chosen) {
        Watcher& w = m_watchers[id];
        if (w.state != WatcherState::Unsynced)
            continue;
        ResourceVersion from = w.minRev;
        if (w.minRev < compactRev) {
            if (!m_config.compactedWatcherSkipBug)
                continue; // fixed etcd (PR #17555): retry the compacted response next time
            // 3.4.23: the watcher is treated like the others, from the group minimum; what lies
            // between its own start and that minimum is silently lost.
            from = groupMin == std::numeric_limits<ResourceVersion>::max() ? current + 1 : groupMin;
            m_skippedRevisions += from - w.minRev;
        }
        ResourceVersion moreRev = 0;
        std::vector<MvccEvent> events = historyFor(w, from, moreRev);
        w.minRev = current + 1;
        if (events.empty()) {
            setState(w, WatcherState::Synced);
            continue;
        }
        if (moreRev != 0)
            w.minRev = moreRev;
        Response resp{w.id, current, 0, false, {}, events};
        if (trySend(w, std::move(resp))) {
            if (moreRev == 0)
                setState(w, WatcherState::Synced);
        } else {
            w.victimBatch = std::move(events);
            w.victimMoreRev = moreRev;
            setState(w, WatcherState::Victim);
        }
    }
}

void EtcdWatchHub::sendProgress() {
    const ResourceVersion current = m_etcd.currentRevision();
    for (auto& synced : m_syncedByResource) {
        for (int id : synced) {
            Watcher& w = m_watchers[id];
            if (w.options.progressNotify)
                trySend(w, Response{w.id, current, 0, false, {}, {}});
        }
    }
}

void EtcdWatchHub::requestProgress(int stream) {
    ++m_progressRequests;
    if (stream < 0 || stream >= static_cast<int>(m_streams.size()))
        return;
    const Stream& s = m_streams[static_cast<std::size_t>(stream)];
    if (!s.open)
        return;
    for (int id : s.watchers)
        if (m_watchers[static_cast<std::size_t>(id)].state != WatcherState::Synced)
            return;
    const ResourceVersion current = m_etcd.currentRevision();
    for (int id : s.watchers)
        trySend(m_watchers[static_cast<std::size_t>(id)], Response{id, current, 0, false, {}, {}});
}

void EtcdWatchHub::drain(Stream& s, int streamId, double dtSeconds) {
    (void)streamId;
    if (s.stalled || !s.open)
        return;
    const bool unlimited = s.eventsPerSecond <= 0;
    if (!unlimited)
        s.credit = std::min(s.credit + s.eventsPerSecond * dtSeconds,
                            std::max(1.0, s.eventsPerSecond * dtSeconds * 2));
    while (!s.channel.empty()) {
        const double cost =
            std::max<double>(1.0, static_cast<double>(s.channel.front().events.size()));
        if (!unlimited && s.credit < cost && s.credit < 1.0)
            break;
        if (!unlimited)
            s.credit -= cost;
        Response resp = std::move(s.channel.front());
        s.channel.pop_front();
        if (resp.watchId < 0 || resp.watchId >= static_cast<int>(m_watchers.size()))
            continue;
        Watcher& w = m_watchers[resp.watchId];
        if (!w.receiver)
            continue; // canceled while the response waited
        // sendLoop: prev_kv is read at ModRevision-1 now; a compacted read leaves it nil.
        const ResourceVersion compactRev = m_etcd.compactRevision();
        m_sendBuffer.clear();
        for (const MvccEvent& ev : resp) {
            const KeyValuePtr* prev = nullptr;
            if (w.options.prevKv && !ev.isCreate() && ev.rev - 1 >= compactRev) {
                const MvccEvent* h = m_etcd.eventAt(ev.rev);
                if (h && h->prev)
                    prev = &h->prev;
            }
            m_sendBuffer.push_back(SentEvent{&ev, prev});
        }
        EtcdWatchResponse out;
        out.watchId = resp.watchId;
        out.headerRevision = resp.header;
        out.compactRevision = resp.compactRevision;
        out.canceled = resp.compactRevision != 0;
        out.events = m_sendBuffer;
        EtcdWatchReceiver* receiver = w.receiver;
        if (out.canceled)
            cancel(resp.watchId);
        receiver->onEtcdWatchResponse(out);
    }
    if (!unlimited)
        s.allowance = static_cast<std::size_t>(std::max(0.0, s.eventsPerSecond * dtSeconds));
}

void EtcdWatchHub::tick(TimeUs now) {
    const double dtSeconds = static_cast<double>(now - m_now) / kUsPerSecond;
    m_now = now;
    if (now - m_lastVictimRetry >= m_config.victimRetry) {
        m_lastVictimRetry = now;
        moveVictims();
    }
    if (now - m_lastSync >= m_config.syncInterval) {
        m_lastSync = now;
        syncWatchers();
    }
    if (now - m_lastProgress >= m_config.progressInterval) {
        m_lastProgress = now;
        sendProgress();
    }
    for (size_t i = 0; i < m_streams.size(); ++i)
        drain(m_streams[i], static_cast<int>(i), dtSeconds);
}

int EtcdWatchHub::queuedResponses(int stream) const {
    return static_cast<int>(m_streams[stream].channel.size());
}
int EtcdWatchHub::victimCount() const {
    return static_cast<int>(m_victims.size());
}
int EtcdWatchHub::unsyncedCount() const {
    return static_cast<int>(m_unsynced.size());
}

} // namespace ws

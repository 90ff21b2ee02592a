#include "SimEtcd.h"

#include "EtcdWatchHub.h"
#include "engine/EventJournal.h"

#include <algorithm>
#include <unordered_map>

namespace ws {

SimEtcd::SimEtcd(const SimKeyspace& keyspace)
    : m_keyspace(keyspace), m_hub(std::make_unique<EtcdWatchHub>(*this)) {}

SimEtcd::~SimEtcd() = default;

SimEtcd::KeyState& SimEtcd::state(KeyId key) {
    if (key >= m_keys.size())
        m_keys.resize(static_cast<size_t>(key) + 1);
    return m_keys[key];
}

const KeyValuePtr& SimEtcd::get(KeyId key) const {
    return key < m_keys.size() ? m_keys[key].current : kNoObject;
}

ResourceVersion SimEtcd::commitPut(TimeUs now, KeyId key, KeyState& st, KeyValuePtr kv) {
    const ResourceVersion rev = ++m_rev;
    const bool create = !st.current;
    const ResourceVersion prevModRev = create ? 0 : st.modRev;
    KeyValuePtr prev = std::move(st.current); // moved, not copied: its box stays untouched
    st.current = std::move(kv);
    st.createRev = create ? rev : st.createRev;
    st.modRev = rev;
    st.version = create ? 1 : st.version + 1;
    st.changedAt = now;
    if (create) {
        const int resource = m_keyspace.resourceOf(key);
        if (static_cast<size_t>(resource) >= m_live.size())
            m_live.resize(static_cast<size_t>(resource) + 1);
        auto& live = m_live[static_cast<size_t>(resource)];
        st.livePos = static_cast<std::uint32_t>(live.size());
        live.push_back(key);
    }
    append(MvccEvent{rev, key, MvccEventType::Put, create, now, st.current, std::move(prev),
                     prevModRev});
    return rev;
}

ResourceVersion SimEtcd::remove(TimeUs now, KeyId key) {
    if (key >= m_keys.size() || !m_keys[key].current)
        return 0;
    KeyState& st = m_keys[key];
    const ResourceVersion rev = ++m_rev;
    KeyValuePtr prev = std::move(st.current);
    st.current = nullptr;
    st.deletedRev = rev;
    st.changedAt = now;
    auto& live = m_live[m_keyspace.resourceOf(key)];
    const KeyId moved = live.back();
    live[st.livePos] = moved;
    m_keys[moved].livePos = st.livePos;
    live.pop_back();
    append(MvccEvent{rev, key, MvccEventType::Delete, false, now, nullptr, std::move(prev),
                     st.modRev});
    return rev;
}

void SimEtcd::append(MvccEvent&& event) {
    if (m_history.empty())
        m_historyBase = event.rev;
    const auto resource = static_cast<size_t>(m_keyspace.resourceOf(event.key));
    if (resource >= m_resourceRevisions.size()) {
        m_resourceRevisions.resize(resource + 1);
        m_resourceWrites.resize(resource + 1);
    }
    m_resourceRevisions[resource].push_back(RevisionTime{event.rev, event.commitTime});
    ++m_resourceWrites[resource];
    m_history.push_back(std::move(event));
    if (m_journal)
        journal(m_history.back());
    m_hub->notify(m_history.back());
}

void SimEtcd::setJournal(EventJournal* journal) {
    m_journal = journal && journal->enabled() ? journal : nullptr;
    if (m_journal)
        m_journalWatcher = m_journal->addWatcher(QStringLiteral("etcd"));
}

void SimEtcd::journal(const MvccEvent& event) {
    const std::string& key = m_keyspace.keys().key(event.key);
    if (!m_journal->hasKey(event.key))
        m_journal->describeKey(event.key, key,
                               m_keyspace.resourceName(m_keyspace.resourceOf(event.key)),
                               m_keyspace.namespaceOf(event.key), m_keyspace.nameOf(event.key));
    EventJournal::Event e;
    e.time = event.commitTime;
    e.key = event.key;
    e.rv = event.rev;
    if (event.type == MvccEventType::Delete) {
        e.type = WatchEventType::Deleted;
        e.size = static_cast<std::uint32_t>(key.size());
    } else {
        e.type = event.created ? WatchEventType::Added : WatchEventType::Modified;
        e.hasObject = true;
        e.object = event.kv->value();
        e.size = static_cast<std::uint32_t>(key.size() + e.object.size());
    }
    e.watcher = m_journalWatcher;
    m_journal->append(e);
}

bool SimEtcd::compact(ResourceVersion rev) {
    if (rev <= m_compactRev || rev > m_rev)
        return false;
    m_compactRev = rev;
    // Revisions below the compact revision can no longer be read; the history a watcher would
    // catch up from starts at it.
    constexpr std::size_t kPrefetchDistance = 8; // the versions dropped here are cold
    while (!m_history.empty() && m_history.front().rev < rev) {
        if (m_history.size() > kPrefetchDistance) {
            m_history[kPrefetchDistance].kv.prefetch();
            m_history[kPrefetchDistance].prev.prefetch();
        }
        m_history.pop_front();
        ++m_historyBase;
    }
    if (m_history.empty())
        m_historyBase = m_rev + 1;
    for (auto& revs : m_resourceRevisions)
        while (!revs.empty() && revs.front().rev < rev)
            revs.pop_front();
    return true;
}

bool SimEtcd::startAt(ResourceVersion rev) {
    if (!m_history.empty() || m_rev != 1 || rev < 1)
        return false;
    m_rev = rev;
    m_compactRev = rev;
    m_historyBase = rev + 1;
    return true;
}

const std::vector<KeyId>& SimEtcd::liveKeys(int resource) const {
    static const std::vector<KeyId> none;
    return static_cast<size_t>(resource) < m_live.size() ? m_live[static_cast<size_t>(resource)]
                                                         : none;
}

bool SimEtcd::rangeAt(int resource, ResourceVersion rev, std::vector<KeyValuePtr>* out) const {
    // mvcc kvstore rangeKeys: ErrCompacted below the compact revision, ErrFutureRev above head.
    if (rev < m_compactRev || rev > m_rev)
        return false;
    // Start from the live objects and undo only what was written after `rev`: a list at the
    // head (most of them) copies the live set, an older one looks up just the keys written
    // since. (Copying every object into a map first made 2,000 agents' lists the simulator's
    // main cost.) The output's order is free: ListPage sorts by key.
    const std::vector<KeyId>& live = liveKeys(resource);
    out->clear();
    if (rev == m_rev) {
        out->reserve(live.size());
        for (KeyId k : live)
            out->push_back(get(k));
        return true;
    }
    std::unordered_map<KeyId, KeyValuePtr> undone; // key -> its value at rev (null: absent)
    for (ResourceVersion r = m_rev; r > rev; --r) {
        const MvccEvent* ev = eventAt(r);
        if (!ev || m_keyspace.resourceOf(ev->key) != resource)
            continue;
        undone[ev->key] = ev->prev; // newest first: the oldest write's prev stays
    }
    out->reserve(live.size() + undone.size());
    for (KeyId k : live)
        if (undone.find(k) == undone.end())
            out->push_back(get(k));
    for (auto& [key, kv] : undone)
        if (kv)
            out->push_back(std::move(kv));
    return true;
}

const MvccEvent* SimEtcd::eventAt(ResourceVersion rev) const {
    if (rev < m_historyBase ||
        rev >= m_historyBase + static_cast<ResourceVersion>(m_history.size()))
        return nullptr;
    return &m_history[static_cast<size_t>(rev - m_historyBase)];
}

ResourceVersion SimEtcd::nextRevision(int resource, ResourceVersion after) const {
    if (static_cast<size_t>(resource) >= m_resourceRevisions.size())
        return 0;
    const auto& revs = m_resourceRevisions[static_cast<size_t>(resource)];
    auto it =
        std::upper_bound(revs.begin(), revs.end(), after,
                         [](ResourceVersion r, const RevisionTime& rt) { return r < rt.rev; });
    return it == revs.end() ? 0 : it->rev;
}

ResourceVersion SimEtcd::nextRevision(const QString& resource, ResourceVersion after) const {
    const int index = m_keyspace.resourceIndex(resource);
    if (index < 0 || after + 1 < m_historyBase)
        return 0; // compacted: the history cannot say
    return nextRevision(index, after);
}

TimeUs SimEtcd::firstChangeTimeAfter(int resource, ResourceVersion after) const {
    if (static_cast<size_t>(resource) >= m_resourceRevisions.size())
        return -1;
    const auto& revs = m_resourceRevisions[static_cast<size_t>(resource)];
    auto it =
        std::upper_bound(revs.begin(), revs.end(), after,
                         [](ResourceVersion r, const RevisionTime& rt) { return r < rt.rev; });
    return it == revs.end() ? -1 : it->time;
}

KeyTruth SimEtcd::truth(KeyId key) const {
    KeyTruth t;
    if (key >= m_keys.size())
        return t;
    const KeyState& st = m_keys[key];
    t.exists = static_cast<bool>(st.current);
    t.modRv = t.exists ? st.modRev : 0;
    t.deletedRv = t.exists ? 0 : st.deletedRev;
    t.changedAt = st.changedAt;
    return t;
}

} // namespace ws

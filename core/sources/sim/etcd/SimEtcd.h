#pragma once

#include "SimKeyspace.h"
#include "detect/ConsistencyOracle.h"
#include "kube/KeyValue.h"
#include "util/RingQueue.h"

#include <vector>

namespace ws {

class EtcdWatchHub;
class EventJournal;

// An in-memory MVCC store with etcd's revision semantics: one revision per write, create/mod
// revision and version per key, a history of every revision until it is compacted, and reads
// of a revision below the compact revision failing (reference/etcd-watch.md §2).
class SimEtcd : public ConsistencyOracle, public HistoryOracle {
public:
    explicit SimEtcd(const SimKeyspace& keyspace);
    ~SimEtcd() override;

    ResourceVersion put(TimeUs now, KeyId key, std::string_view value) {
        return put(now, key, value.size(), KeyValue::copyOf(value));
    }
    // The value written in place by fill(char*) into `size` bytes: no copy of a built value.
    template <typename Fill>
    ResourceVersion put(TimeUs now, KeyId key, std::size_t size, Fill&& fill) {
        KeyState& st = state(key);
        const bool create = !st.current;
        const ResourceVersion rev = m_rev + 1;
        KeyValuePtr kv = KeyValuePtr::makeWithTail(size, std::forward<Fill>(fill),
                                                   KeyValue{key, static_cast<std::uint32_t>(size),
                                                            create ? rev : st.createRev, rev,
                                                            create ? 1 : st.version + 1});
        return commitPut(now, key, st, std::move(kv));
    }
    ResourceVersion remove(TimeUs now, KeyId key); // 0 when the key does not exist
    bool compact(ResourceVersion rev);             // false if rev is not in (compactRev, current]
    // Before the first write: the store continues a recorded etcd whose revision is `rev` and
    // whose history before it is unknown (as good as compacted). False once written to.
    bool startAt(ResourceVersion rev);

    ResourceVersion currentRevision() const { return m_rev; }
    ResourceVersion compactRevision() const { return m_compactRev; }
    const KeyValuePtr& get(KeyId key) const;
    bool exists(KeyId key) const { return static_cast<bool>(get(key)); }
    // The live key's version and create revision (0 when it does not exist), read without
    // touching the stored value.
    std::int64_t version(KeyId key) const { return exists(key) ? m_keys[key].version : 0; }
    ResourceVersion createRevision(KeyId key) const {
        return exists(key) ? m_keys[key].createRev : 0;
    }

    // The live keys of a resource at the head revision, unordered.
    const std::vector<KeyId>& liveKeys(int resource) const;
    std::size_t objectCount(int resource) const { return liveKeys(resource).size(); }
    // Revisions written to the resource's keys so far (puts and deletes), whoever wrote them.
    std::int64_t writes(int resource) const {
        return resource >= 0 && static_cast<std::size_t>(resource) < m_resourceWrites.size()
                   ? m_resourceWrites[static_cast<std::size_t>(resource)]
                   : 0;
    }

    // A range read of the resource's keys at revision rev (WithRev), as etcd answers it from
    // its MVCC history: the head state with the revisions after rev undone. Unordered. False
    // when rev is compacted (rev < compactRevision) or in the future.
    bool rangeAt(int resource, ResourceVersion rev, std::vector<KeyValuePtr>* out) const;

    // History access for watch catch-up; null when compacted or in the future.
    const MvccEvent* eventAt(ResourceVersion rev) const;
    ResourceVersion firstRevisionInHistory() const { return m_historyBase; }
    // Commit time of the first revision > after that touched `resource`; -1 if none.
    TimeUs firstChangeTimeAfter(int resource, ResourceVersion after) const;

    // Records every commit (the source of truth's events, as a watch of the whole keyspace
    // would receive them) in `journal`; null: none.
    void setJournal(EventJournal* journal);

    EtcdWatchHub& watches() { return *m_hub; }
    const SimKeyspace& keyspace() const { return m_keyspace; }

    // ConsistencyOracle / HistoryOracle
    KeyTruth truth(KeyId key) const override;
    ResourceVersion nextRevision(const QString& resource, ResourceVersion after) const override;
    ResourceVersion nextRevision(int resource, ResourceVersion after) const;

    std::size_t historySize() const { return m_history.size(); }

private:
    // current's create/mod revision and version are repeated here: the writer and the watch
    // path need them for every write, and current's box is cold by the next write of the key.
    struct KeyState {
        KeyValuePtr current;
        ResourceVersion createRev = 0;
        ResourceVersion modRev = 0;
        std::int64_t version = 0;
        ResourceVersion deletedRev = 0;
        TimeUs changedAt = 0;
        std::uint32_t livePos = 0;
    };
    KeyState& state(KeyId key);
    ResourceVersion commitPut(TimeUs now, KeyId key, KeyState& st, KeyValuePtr kv);
    void append(MvccEvent&& event);
    void journal(const MvccEvent& event);

    const SimKeyspace& m_keyspace;
    ResourceVersion m_rev = 1; // etcd starts at revision 1
    ResourceVersion m_compactRev = 0;
    std::vector<KeyState> m_keys;
    std::vector<std::vector<KeyId>> m_live;
    RingQueue<MvccEvent> m_history; // m_history[i].rev == m_historyBase + i
    struct RevisionTime {
        ResourceVersion rev;
        TimeUs time;
    };
    std::vector<RingQueue<RevisionTime>> m_resourceRevisions; // per resource, for lag lookups
    std::vector<std::int64_t> m_resourceWrites;               // per resource
    ResourceVersion m_historyBase = 2;
    std::unique_ptr<EtcdWatchHub> m_hub;
    EventJournal* m_journal = nullptr;
    std::uint16_t m_journalWatcher = 0;
};

} // namespace ws

#pragma once

#include "KeyValue.h"
#include "SimKeyspace.h"
#include "detect/ConsistencyOracle.h"

#include <deque>
#include <vector>

namespace ws {

class EtcdWatchHub;

// An in-memory MVCC store with etcd's revision semantics: one revision per write, create/mod
// revision and version per key, a history of every revision until it is compacted, and reads
// of a revision below the compact revision failing (reference/etcd-watch.md §2).
class SimEtcd : public ConsistencyOracle, public HistoryOracle {
public:
    explicit SimEtcd(const SimKeyspace& keyspace);
    ~SimEtcd() override;

    ResourceVersion put(TimeUs now, KeyId key, std::string value);
    ResourceVersion remove(TimeUs now, KeyId key); // 0 when the key does not exist
    bool compact(ResourceVersion rev);             // false if rev is not in (compactRev, current]

    ResourceVersion currentRevision() const { return m_rev; }
    ResourceVersion compactRevision() const { return m_compactRev; }
    const KeyValuePtr& get(KeyId key) const;
    bool exists(KeyId key) const { return static_cast<bool>(get(key)); }

    // The live keys of a resource at the head revision, unordered.
    const std::vector<KeyId>& liveKeys(int resource) const;
    std::size_t objectCount(int resource) const { return liveKeys(resource).size(); }

    // History access for watch catch-up; null when compacted or in the future.
    const MvccEvent* eventAt(ResourceVersion rev) const;
    ResourceVersion firstRevisionInHistory() const { return m_historyBase; }
    // Commit time of the first revision > after that touched `resource`; -1 if none.
    TimeUs firstChangeTimeAfter(int resource, ResourceVersion after) const;

    EtcdWatchHub& watches() { return *m_hub; }
    const SimKeyspace& keyspace() const { return m_keyspace; }

    // ConsistencyOracle / HistoryOracle
    KeyTruth truth(KeyId key) const override;
    ResourceVersion nextRevision(const QString& resource, ResourceVersion after) const override;
    ResourceVersion nextRevision(int resource, ResourceVersion after) const;

    std::size_t historySize() const { return m_history.size(); }

private:
    struct KeyState {
        KeyValuePtr current;
        ResourceVersion deletedRev = 0;
        TimeUs changedAt = 0;
        std::uint32_t livePos = 0;
    };
    KeyState& state(KeyId key);
    void append(MvccEvent&& event);

    const SimKeyspace& m_keyspace;
    ResourceVersion m_rev = 1; // etcd starts at revision 1
    ResourceVersion m_compactRev = 0;
    std::vector<KeyState> m_keys;
    std::vector<std::vector<KeyId>> m_live;
    std::deque<MvccEvent> m_history; // m_history[i].rev == m_historyBase + i
    struct RevisionTime {
        ResourceVersion rev;
        TimeUs time;
    };
    std::vector<std::deque<RevisionTime>> m_resourceRevisions; // per resource, for lag lookups
    ResourceVersion m_historyBase = 2;
    std::unique_ptr<EtcdWatchHub> m_hub;
};

} // namespace ws

#pragma once

#include "model/KeyTable.h"
#include "scenario/RecordedEtcdStream.h"

#include <QStringList>
#include <memory>
#include <string>
#include <unordered_map>

namespace ws {

class SimEtcd;
class SimKeyspace;

// The workload of a what-if on an etcd capture: writes the recorded objects and changes into the
// simulated etcd at the times they arrived, keeping etcd's revisions where the recording had them
// (revisions of keys outside the recorded prefix are filled with writes to a key nobody
// watches, so progress notifications and compaction see the same numbers). A multi-key
// transaction, one revision in etcd, takes one revision per key here and moves later writes up.
class ScriptedWriter {
public:
    // The resources the stream touches, in the order first seen (what the what-if's apiservers
    // cache and its informers watch).
    static QStringList resources(const RecordedEtcdStream& stream);

    // `keyspace` already holds the resources named by resources().
    ScriptedWriter(SimKeyspace& keyspace, SimEtcd& etcd,
                   std::shared_ptr<const RecordedEtcdStream> stream);
    ~ScriptedWriter();

    void populate();       // the objects of the first list, at time 0, ending at its revision
    void tick(TimeUs now); // every write and compaction due by `now`
    std::int64_t writes() const { return m_writes; }

private:
    KeyId keyFor(const std::string& key, std::string_view value);
    void fillTo(TimeUs now, ResourceVersion revision);

    SimKeyspace& m_keyspace;
    SimEtcd& m_etcd;
    std::shared_ptr<const RecordedEtcdStream> m_stream;
    std::unordered_map<std::string, KeyId> m_keys;
    int m_unwatched = -1; // the resource of the filler key
    KeyId m_filler = kNoKey;
    std::size_t m_nextWrite = 0;
    std::size_t m_nextCompaction = 0;
    std::int64_t m_writes = 0;
};

} // namespace ws

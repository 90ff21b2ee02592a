#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <cstdio>
#include <string>

namespace ws {

class SimEtcd;
class SimKeyspace;

// `serve --state-dir DIR`: the served cluster's etcd kept in DIR/store.jsonl, so that a serve
// process killed and started again with the same DIR goes on from the same store (revision,
// objects, history, compaction) while its apiserver starts with empty watch caches, as a
// restarted kube-apiserver does in front of a surviving etcd.
//
// One JSON line per revision, in revision order, and one per compaction:
//   {"rev":N,"op":"put","resource":"configmaps","namespace":"ns-0","name":"cm-1","group":3,
//    "external":false,"value":"<the stored object, as a string>"}
//   {"rev":N,"op":"delete","resource":..,"namespace":..,"name":..}
//   {"rev":N,"op":"compact"}
// The lines of a step are written (write(2), no fsync) before any watch is handed that step's
// events and before a client's write is answered: whatever a client saw survives the process
// being killed (not the machine losing power). The file is also the run's ground truth: every
// revision the store wrote, for tests that account for what a watcher saw.
class StoreJournal {
public:
    StoreJournal() = default;
    ~StoreJournal();
    StoreJournal(const StoreJournal&) = delete;
    StoreJournal& operator=(const StoreJournal&) = delete;

    static QString fileName() { return QStringLiteral("store.jsonl"); }

    // Creates DIR if missing and opens its journal for appending. False with one line when it
    // cannot.
    bool open(const QString& dir, QString* error);
    // Replays the journal into an empty store whose resources are in `keyspace`. A last line
    // cut short (the process killed mid-write) is dropped and `*warning` says so. False with
    // one line naming the file and line when the journal does not fit this store.
    bool restore(SimKeyspace& keyspace, SimEtcd& etcd, QString* error, QString* warning);
    // Appends every revision and compaction of `etcd` not yet written. False with one line
    // when the file cannot be written (the store then no longer survives a restart).
    bool sync(const SimEtcd& etcd, const SimKeyspace& keyspace, QString* error);

    QString path() const { return m_path; }
    std::int64_t restoredRevisions() const { return m_restored; }

private:
    QString m_path;
    std::FILE* m_file = nullptr;
    ResourceVersion m_written = 1; // the store's revision the journal holds (etcd starts at 1)
    ResourceVersion m_compacted = 0;
    std::int64_t m_restored = 0;
    std::string m_buffer;
};

} // namespace ws

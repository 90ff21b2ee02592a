#pragma once

#include "KeyTable.h"
#include "ResourceVersion.h"
#include "WatchEventType.h"

#include <QString>
#include <cstdint>

namespace ws {

// What a source (simulator, etcd gRPC, kube-apiserver HTTP) tells the detectors. Sources only
// describe what they saw on the wire; the detectors decide what is anomalous.

class HistoryOracle;

// The protocol a watcher speaks: an etcd gRPC watch, or a Kubernetes HTTP watch/list.
enum class WatchLayer : std::uint8_t { Etcd, Apiserver };

using WatcherId = int; // dense, assigned by DetectorHub::registerWatcher

// A logical watcher: one client (or one cacher) across its reconnects and relists.
struct WatcherInfo {
    QString id;       // shown to users: "cacher/configmaps@apiserver-0", "informer-07"
    QString resource; // plural resource name
    WatchLayer layer = WatchLayer::Apiserver;
    // An etcd watch on a whole keyspace prefix sees every revision, so "Reliable" means
    // rev == last + 1 there without a history oracle (reference/etcd-watch.md §3).
    bool seesEveryRevision = false;
    // The history of the source of truth this watcher reads (its cluster's etcd), when known:
    // several sources may feed one hub, each with its own. Null: the hub's default oracle.
    const HistoryOracle* history = nullptr;
    // The watcher's events carry content (ObservedEvent::hasContent) and every key's history is
    // checked (IsCreate, PrevKV content): a live etcd watch with prev_kv.
    bool checksKeyHistory = false;
};

// One event of a watch (etcd event, or Kubernetes ADDED/MODIFIED/DELETED).
struct ObservedEvent {
    WatchEventType type = WatchEventType::Modified;
    KeyId key = kNoKey;
    ResourceVersion rv = 0;       // mod_revision / object resourceVersion
    ResourceVersion createRv = 0; // etcd create_revision (0 if unknown)
    bool hasPrevKv = false;       // etcd only: prev_kv was present
    ResourceVersion prevRv = 0;   // etcd only: prev_kv.mod_revision when present
    bool initial = false;         // synthetic ADDED of an RV=0 / sendInitialEvents watch start
    // A source that sees values (etcd) fills these so the detectors can check IsCreate and
    // PrevKV content against the value last seen for the key (KeyHistoryChecker).
    bool hasContent = false;
    std::uint32_t valueSize = 0;     // of kv.value (PUT)
    std::uint64_t valueHash = 0;     // contentHash() of kv.value
    std::uint32_t prevValueSize = 0; // of prev_kv.value, when hasPrevKv
    std::uint64_t prevValueHash = 0;
};

// A fast 64-bit content hash for "is this the value we saw": four multiply-xorshift lanes over
// 32-byte blocks. Not cryptographic; equal bytes always hash equal.
std::uint64_t contentHash(const char* bytes, std::size_t size);

// An HTTP Status (or an etcd cancel expressed the same way).
// One apiserver's memory as its lists hold it (a simulated or served apiserver, or scraped):
// what the list-pressure detector reads.
struct ApiserverMemory {
    QString apiserver;
    QString resource;             // whose lists hold the most (the anomaly's resource)
    std::int64_t memoryBytes = 0; // apiserver_memory_bytes
    std::int64_t limitBytes = 0;  // 0: unknown / none
    std::int64_t listBytesInflight = 0;
    int listsInflight = 0;
    bool oomKilled = false; // it was just killed for going above its limit
};

struct ObservedStatus {
    int code = 0;    // 410, 504, 500, ... (an etcd compacted cancel is reported as 410); 0: no
                     // HTTP status, the connection failed (refused, reset, timeout)
    QString reason;  // "Expired", "Gone", "Timeout", "InternalError", "Compacted"
    QString message; // the server's message, verbatim
    ResourceVersion requestedRv = 0;
    ResourceVersion compactRevision = 0; // etcd compacted cancel
    int retryAfterSeconds = 0;           // details.retryAfterSeconds / Retry-After (429, 504)
    QString server; // the apiserver the request went to, where the source knows it
};

enum class WatchCloseReason : std::uint8_t {
    ClientTimeout,   // the client's own timeoutSeconds expired: normal
    ServerClosed,    // the server ended the stream with no ERROR event before the timeout
    AfterError,      // an ERROR event was delivered, then the stream ended: normal
    ClientCancelled, // the client went away (restart, shutdown): normal
    Broken,          // transport failure
    // The watch cache re-initialized (its ListAndWatch restarted: terminateAllWatchers): the
    // stream ends without an ERROR event, but this is no slow-watcher cut-off.
    CacheReinitialized,
};

struct WatchRequest {
    ResourceVersion rv = 0;         // requested resourceVersion / start_revision - 1
    bool rvEmpty = false;           // resourceVersion="" (most recent, from etcd)
    bool sendInitialEvents = false; // watch-list
    bool allowBookmarks = false;
    QString selector;                // label/field selector, empty if none
    std::int64_t timeoutSeconds = 0; // 0: none
};

struct ListRequest {
    ResourceVersion rv = 0;
    bool rvEmpty = false;  // RV="" (consistent read)
    bool isRelist = false; // false for the very first list of this watcher
    std::int64_t limit = 0;
};

} // namespace ws

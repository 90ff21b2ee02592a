#pragma once

#include "model/WatchEventType.h"
#include "KeyValue.h"

namespace ws {

// One event of the watch cache's ring buffer (watchCacheEvent): the object after the change
// (for a delete: its last state), the object before, and when the cache recorded it.
struct CacheEvent {
    WatchEventType type = WatchEventType::Modified;
    KeyId key = kNoKey;
    ResourceVersion rv = 0;
    KeyValuePtr object;
    KeyValuePtr prevObject;
    TimeUs recordTime = 0;
    TimeUs commitTime = 0; // when etcd committed it (for watcher lag in seconds)
};

} // namespace ws

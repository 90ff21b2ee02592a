#pragma once

#include "model/KeyTable.h"
#include "model/ResourceVersion.h"
#include "sim/Rc.h"

#include <string>

namespace ws {

// One version of one key, as etcd's mvccpb.KeyValue holds it. Immutable once written; the
// watch cache and informers share it instead of copying (raw bytes + key: ~1.1x the JSON size).
struct KeyValue {
    KeyId key = kNoKey;
    ResourceVersion createRev = 0;
    ResourceVersion modRev = 0;
    std::int64_t version = 0;
    std::string value; // the serialized object (JSON), resourceVersion left empty as in etcd
};

using KeyValuePtr = Rc<KeyValue>;

enum class MvccEventType : std::uint8_t { Put, Delete };

// One revision of the history: a put or a delete of one key (Kubernetes writes one key per txn).
struct MvccEvent {
    ResourceVersion rev = 0;
    KeyId key = kNoKey;
    MvccEventType type = MvccEventType::Put;
    TimeUs commitTime = 0;
    KeyValuePtr kv;   // Put: the new version; Delete: null (etcd's tombstone has key+rev only)
    KeyValuePtr prev; // the version before; null for a create

    bool isCreate() const { return type == MvccEventType::Put && kv->createRev == kv->modRev; }
};

} // namespace ws

#pragma once

#include "model/KeyTable.h"
#include "model/ResourceVersion.h"
#include "Rc.h"

#include <cstring>
#include <string_view>

namespace ws {

struct KeyValue;
using KeyValuePtr = Rc<KeyValue>;

// One version of one key, as etcd's mvccpb.KeyValue holds it. Immutable once written; the
// watch cache and informers share it instead of copying. The serialized object (JSON,
// resourceVersion left empty as in etcd) lives in the same allocation, right after these
// fields, so only make() creates one.
struct KeyValue {
    KeyId key = kNoKey;
    std::uint32_t valueSize = 0;
    ResourceVersion createRev = 0;
    ResourceVersion modRev = 0;
    std::int64_t version = 0;

    std::string_view value() const { return {reinterpret_cast<const char*>(this + 1), valueSize}; }

    // A fill for makeWithTail / SimEtcd::put that copies bytes built elsewhere.
    static auto copyOf(std::string_view value) {
        return [value](char* out) {
            if (!value.empty())
                std::memcpy(out, value.data(), value.size());
        };
    }

    static KeyValuePtr make(KeyId key, ResourceVersion createRev, ResourceVersion modRev,
                            std::int64_t version, std::string_view value) {
        return KeyValuePtr::makeWithTail(
            value.size(), copyOf(value),
            KeyValue{key, static_cast<std::uint32_t>(value.size()), createRev, modRev, version});
    }
};

// What a lookup of an absent key returns. At namespace scope, so that reading it costs no
// initialization guard (a function-local static would, on every lookup).
inline const KeyValuePtr kNoObject;

enum class MvccEventType : std::uint8_t { Put, Delete };

// One revision of the history: a put or a delete of one key (Kubernetes writes one key per txn).
// What the watch path asks of every event (create? the previous mod revision) is kept here
// too, so that it does not have to reach into the versions, which are cold by then.
struct MvccEvent {
    ResourceVersion rev = 0;
    KeyId key = kNoKey;
    MvccEventType type = MvccEventType::Put;
    bool created = false; // a put that created the key (create_revision == mod_revision)
    TimeUs commitTime = 0;
    KeyValuePtr kv;   // Put: the new version; Delete: null (etcd's tombstone has key+rev only)
    KeyValuePtr prev; // the version before; null for a create
    ResourceVersion prevModRev = 0; // prev's mod_revision

    bool isCreate() const { return created; }
};

} // namespace ws

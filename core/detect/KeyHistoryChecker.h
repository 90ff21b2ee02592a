#pragma once

#include "DetectorContext.h"

#include <memory>
#include <span>
#include <vector>

namespace ws {

// What only a client that remembers every key's last value can check (reference/etcd-watch.md
// §3): IsCreate (a create exactly when the key did not exist at revision - 1, and a PUT keeps
// the key's create_revision) and PrevKV (prev_kv, when present, is the value last seen for the
// key). Raised as stream-error with the evidence. It learns the keys from lists (a key absent
// from a list was deleted meanwhile) and from the stream; before a baseline (a completed list,
// or a watch replaying from revision 1) it only learns. Only events with hasContent take part.
class KeyHistoryChecker {
public:
    explicit KeyHistoryChecker(DetectorContext& ctx) : m_ctx(ctx) {}
    ~KeyHistoryChecker();

    void onListStarted(WatcherId w);
    void onListedObjects(WatcherId w, std::span<const ObservedEvent> objects);
    void onListCompleted(WatcherId w, ResourceVersion listRv);
    void onWatchOpened(WatcherId w, const WatchRequest& request);
    void onResponse(WatcherId w, TimeUs now, std::span<const ObservedEvent> events);
    // The id is about to name another key: what was learnt of this one goes.
    void forgetKey(KeyId key);

private:
    struct KeyState {
        std::uint32_t epoch = 0; // list epoch that last saw it present
        bool known = false;      // whether exists/modRev reflect the source of truth
        bool exists = false;
        ResourceVersion modRev = 0; // last PUT or DELETE revision
        ResourceVersion createRev = 0;
        std::uint64_t hash = 0;
        std::uint32_t size = 0;
    };
    struct Stream {
        std::vector<KeyState> keys; // by KeyId
        std::uint32_t epoch = 0;
        bool baseline = false;
        KeyState& key(KeyId id) {
            if (id >= keys.size())
                keys.resize(static_cast<std::size_t>(id) + 1);
            return keys[id];
        }
    };
    Stream& stream(WatcherId w);
    Q_DECL_COLD_FUNCTION void raise(WatcherId w, TimeUs now, const ObservedEvent& e,
                                    QString message);

    DetectorContext& m_ctx;
    std::vector<std::unique_ptr<Stream>> m_streams; // by watcher, made on first use
};

} // namespace ws

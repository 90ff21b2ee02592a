#pragma once

#include "DetectorContext.h"

#include <span>
#include <vector>

namespace ws {

// prevkv-nil: etcd sent a non-create event without prev_kv (etcd issue #10681, seed 000), or the
// apiserver reported it as its "PrevKv=nil" InternalError (kubernetes-watch.md §1). When a
// watcher shows both for the same key and revision, only the first is reported.
class PrevKvNilDetector {
public:
    explicit PrevKvNilDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    void addWatcher() { m_last.emplace_back(); }
    // Call only for etcd-layer watchers.
    void onResponse(WatcherId w, TimeUs now, std::span<const ObservedEvent> events) {
        for (const ObservedEvent& e : events) {
            if (!e.hasPrevKv && (e.type == WatchEventType::Modified ||
                                 e.type == WatchEventType::Deleted)) [[unlikely]]
                raiseEvent(w, now, e);
        }
    }
    void onWatchError(WatcherId w, TimeUs now, const ObservedStatus& status);

private:
    struct Last {
        QString key;
        ResourceVersion rv = 0;
    };

    Q_DECL_COLD_FUNCTION void raiseEvent(WatcherId w, TimeUs now, const ObservedEvent& e);

    DetectorContext& m_ctx;
    std::vector<Last> m_last; // the last event reported per watcher
};

} // namespace ws

#pragma once

#include "DetectorContext.h"

namespace ws {

// too-old-rv and too-large-rv from the Status a watch or list failed with
// (kubernetes-watch.md §1): 410 Expired/Gone or an etcd compacted cancel, and 504 "Too large
// resource version" in any of its body shapes (v1.16 has no causes, so the code and the reason
// or message decide).
class ErrorStatusDetector {
public:
    explicit ErrorStatusDetector(DetectorContext& ctx) : m_ctx(ctx) {}

    void onError(WatcherId w, TimeUs now, const ObservedStatus& status, bool onList);

    static bool isTooOld(const ObservedStatus& status);
    static bool isTooLarge(const ObservedStatus& status);

private:
    DetectorContext& m_ctx;
};

} // namespace ws

#pragma once

#include "DetectorContext.h"

#include <QHash>

namespace ws {

// list-pressure: the memory an apiserver's lists hold (kube/ListMemoryRules.h) above
// thresholds(): a warning once per episode (re-armed when it falls below half of the
// threshold), and an error when the apiserver was OOM-killed. The anomaly's watcher is the
// apiserver, so each apiserver's episodes form their own incident.
class ListPressureDetector {
public:
    explicit ListPressureDetector(DetectorContext& ctx) : m_ctx(ctx) {}
    void onMemory(TimeUs now, const ApiserverMemory& m);

private:
    std::int64_t threshold(const ApiserverMemory& m) const;

    DetectorContext& m_ctx;
    QHash<QString, bool> m_raised; // per apiserver: inside an episode
};

} // namespace ws

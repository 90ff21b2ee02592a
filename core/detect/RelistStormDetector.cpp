#include "RelistStormDetector.h"

#include <cmath>

namespace ws {

void RelistStormDetector::addWatcher(WatcherId w) {
    const WatcherInfo& info = m_ctx.watcher(w);
    auto it = m_resourceIndex.constFind(info.resource);
    int index;
    if (it == m_resourceIndex.constEnd()) {
        index = static_cast<int>(m_resources.size());
        m_resources.emplace_back();
        m_resourceIndex.insert(info.resource, index);
    } else {
        index = it.value();
    }
    if (info.layer == WatchLayer::Apiserver)
        ++m_resources[static_cast<size_t>(index)].registered;
    m_resourceOf.push_back(index);
    m_inWindow.push_back(0);
}

void RelistStormDetector::onListStarted(WatcherId w, TimeUs now, const ListRequest& request) {
    if (!request.isRelist)
        return;
    const DetectorThresholds& t = m_ctx.thresholds();
    Resource& r = m_resources[static_cast<size_t>(m_resourceOf[static_cast<size_t>(w)])];
    // Counting distinct watchers incrementally keeps a storm of thousands of relists linear.
    auto countable = [this](WatcherId id) { return !m_ctx.isEtcd(id); };
    while (!r.window.empty() && r.window.front().time <= now - t.relistStormWindow) {
        const WatcherId old = r.window.front().watcher;
        if (--m_inWindow[static_cast<size_t>(old)] == 0 && countable(old))
            --r.distinct;
        r.window.pop_front();
    }
    r.window.push_back({now, w});
    if (m_inWindow[static_cast<size_t>(w)]++ == 0 && countable(w))
        ++r.distinct;

    const int count = static_cast<int>(r.window.size());
    const bool byCount = count >= t.relistStormCount;
    const bool byShare =
        r.registered >= t.relistStormMinWatchers && r.distinct >= t.relistStormShare * r.registered;
    if (r.storming && now - r.lastStorm >= t.relistStormWindow)
        r.storming = false; // a whole window passed without the storm condition
    if (!byCount && !byShare)
        return;
    const bool raise = !r.storming;
    r.storming = true;
    r.lastStorm = now;
    if (!raise)
        return;
    Anomaly a = m_ctx.make(w, now, AnomalyKind::RelistStorm, Severity::Warning);
    a.watcher.clear(); // a property of the resource, not of the client that tipped it over
    const double windowSeconds = static_cast<double>(t.relistStormWindow) / kUsPerSecond;
    a.message = QStringLiteral("%1 relists of %2 in %3 s by %4 of %5 watchers (threshold: %6 "
                               "relists, or %7% of at least %8 watchers)")
                    .arg(count)
                    .arg(a.resource)
                    .arg(windowSeconds)
                    .arg(r.distinct)
                    .arg(r.registered)
                    .arg(t.relistStormCount)
                    .arg(std::lround(t.relistStormShare * 100))
                    .arg(t.relistStormMinWatchers);
    m_ctx.raise(a);
}

} // namespace ws

#include "WatcherLagClock.h"

#include <algorithm>

namespace ws {

void WatcherLagClock::head(ResourceVersion rv, TimeUs reachableAt) {
    if (rv <= m_at)
        return;
    // The first head at or above rv: if it became reachable no later, this one adds nothing.
    auto above = std::lower_bound(m_heads.begin(), m_heads.end(), rv,
                                  [](const Head& h, ResourceVersion v) { return h.rv < v; });
    if (above != m_heads.end() && above->reachableAt <= reachableAt)
        return;
    // Lower heads that became reachable no earlier are now reachable from reachableAt.
    auto from = above;
    while (from != m_heads.begin() && std::prev(from)->reachableAt >= reachableAt)
        --from;
    if (above != m_heads.end() && above->rv == rv)
        ++above; // replaced: the same RV, reachable earlier
    const auto at = m_heads.erase(from, above);
    m_heads.insert(at, Head{rv, reachableAt});
    if (m_heads.size() > kMaxHeads) {
        m_heads[1].reachableAt = m_heads[0].reachableAt;
        m_heads.erase(m_heads.begin());
    }
}

void WatcherLagClock::reached(ResourceVersion rv) {
    // Possibly lower than before: a relist from an apiserver whose cache is behind.
    m_at = rv;
    const auto past = std::upper_bound(m_heads.begin(), m_heads.end(), rv,
                                       [](ResourceVersion v, const Head& h) { return v < h.rv; });
    m_heads.erase(m_heads.begin(), past);
}

double WatcherLagClock::lagSeconds(TimeUs now) const {
    if (m_heads.empty() || m_heads.front().reachableAt >= now)
        return 0.0;
    return double(now - m_heads.front().reachableAt) / kUsPerSecond;
}

} // namespace ws

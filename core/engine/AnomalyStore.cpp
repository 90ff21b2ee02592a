#include "AnomalyStore.h"

#include <algorithm>
#include <vector>

namespace ws {

AnomalyStore::AnomalyStore(AnomalyStoreLimits limits) : m_limits(limits) {}

void AnomalyStore::add(const Anomaly& anomaly) {
    const auto kind = static_cast<std::size_t>(anomaly.kind);
    std::lock_guard lock(m_mutex);
    m_byKind[kind].push_back({m_added, anomaly});
    ++m_added;
    ++m_counts[kind];
    if (m_added - m_evicted <= std::max<qsizetype>(1, m_limits.kept))
        return;
    // The largest kind gives up its oldest (the first of them on a tie: deterministic).
    std::deque<Entry>* largest = &m_byKind.front();
    for (std::deque<Entry>& d : m_byKind)
        if (d.size() > largest->size())
            largest = &d;
    largest->pop_front();
    ++m_evicted;
}

AnomalyList AnomalyStore::kept() const {
    std::lock_guard lock(m_mutex);
    std::vector<const Entry*> entries;
    entries.reserve(static_cast<std::size_t>(m_added - m_evicted));
    for (const std::deque<Entry>& d : m_byKind)
        for (const Entry& e : d)
            entries.push_back(&e);
    std::sort(entries.begin(), entries.end(),
              [](const Entry* a, const Entry* b) { return a->serial < b->serial; });
    AnomalyList out;
    out.reserve(static_cast<qsizetype>(entries.size()));
    for (const Entry* e : entries)
        out.push_back(e->anomaly);
    return out;
}

qint64 AnomalyStore::added() const {
    std::lock_guard lock(m_mutex);
    return m_added;
}

qint64 AnomalyStore::evicted() const {
    std::lock_guard lock(m_mutex);
    return m_evicted;
}

qint64 AnomalyStore::count(AnomalyKind kind) const {
    std::lock_guard lock(m_mutex);
    return m_counts[static_cast<std::size_t>(kind)];
}

} // namespace ws

#include "RevisionRangeSet.h"

#include <algorithm>

namespace ws {

QString RevisionRange::text() const {
    if (first == last)
        return QStringLiteral("revision %1").arg(first);
    return QStringLiteral("revisions %1..%2 (%3)").arg(first).arg(last).arg(count());
}

void RevisionRangeSet::add(RevisionRange r) {
    if (r.empty())
        return;
    // The common case: at or just past the end.
    if (m_ranges.empty() || r.first > m_ranges.back().last + 1) {
        m_ranges.push_back(r);
        return;
    }
    if (r.first >= m_ranges.back().first) {
        m_ranges.back().last = std::max(m_ranges.back().last, r.last);
        return;
    }
    // The first range that ends at or after r.first - 1 (touching counts as overlapping), and
    // every range from there that starts at or before r.last + 1 is merged into r.
    auto begin =
        std::lower_bound(m_ranges.begin(), m_ranges.end(), r.first - 1,
                         [](const RevisionRange& x, ResourceVersion v) { return x.last < v; });
    auto end = begin;
    while (end != m_ranges.end() && end->first <= r.last + 1) {
        r.first = std::min(r.first, end->first);
        r.last = std::max(r.last, end->last);
        ++end;
    }
    begin = m_ranges.erase(begin, end);
    m_ranges.insert(begin, r);
}

bool RevisionRangeSet::contains(ResourceVersion rev) const {
    auto it =
        std::lower_bound(m_ranges.begin(), m_ranges.end(), rev,
                         [](const RevisionRange& x, ResourceVersion v) { return x.last < v; });
    return it != m_ranges.end() && it->first <= rev;
}

std::int64_t RevisionRangeSet::count() const {
    std::int64_t n = 0;
    for (const RevisionRange& r : m_ranges)
        n += r.count();
    return n;
}

std::vector<RevisionRange> RevisionRangeSet::missingIn(RevisionRange within) const {
    std::vector<RevisionRange> out;
    if (within.empty())
        return out;
    ResourceVersion next = within.first; // the first revision not yet looked at
    auto it =
        std::lower_bound(m_ranges.begin(), m_ranges.end(), within.first,
                         [](const RevisionRange& x, ResourceVersion v) { return x.last < v; });
    for (; it != m_ranges.end() && it->first <= within.last; ++it) {
        if (it->first > next)
            out.push_back({next, it->first - 1});
        next = std::max(next, it->last + 1);
    }
    if (next <= within.last)
        out.push_back({next, within.last});
    return out;
}

} // namespace ws

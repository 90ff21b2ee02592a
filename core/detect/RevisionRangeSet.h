#pragma once

#include "model/ResourceVersion.h"

#include <QString>
#include <vector>

namespace ws {

// An inclusive range of revisions [first, last].
struct RevisionRange {
    ResourceVersion first = 0;
    ResourceVersion last = 0;

    std::int64_t count() const { return last >= first ? last - first + 1 : 0; }
    bool empty() const { return last < first; }
    // "revision 7" or "revisions 7..9 (3)": the wording every revision-gap message uses.
    QString text() const;
    bool operator==(const RevisionRange&) const = default;
};

// Revisions as sorted, disjoint, merged ranges: a set whose size grows with the number of holes
// between what it holds, not with the number of revisions. Adding at the end (the usual case for
// a stream) is O(1); anywhere else O(log n + n) for the insertion.
class RevisionRangeSet {
public:
    void add(RevisionRange r); // an empty range is ignored
    void add(ResourceVersion rev) { add({rev, rev}); }
    void clear() { m_ranges.clear(); }

    bool contains(ResourceVersion rev) const;
    bool empty() const { return m_ranges.empty(); }
    std::int64_t count() const; // revisions held
    ResourceVersion highest() const { return m_ranges.empty() ? 0 : m_ranges.back().last; }
    const std::vector<RevisionRange>& ranges() const { return m_ranges; }
    // The parts of `within` this set does not hold, in order.
    std::vector<RevisionRange> missingIn(RevisionRange within) const;

private:
    std::vector<RevisionRange> m_ranges;
};

} // namespace ws

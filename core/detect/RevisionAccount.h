#pragma once

#include "RevisionRangeSet.h"

#include <QJsonObject>
#include <QString>
#include <vector>

namespace ws {

// What a live source owes its user (issue 14, "Faults, with nothing lost"): every revision the
// source of truth wrote while the source was responsible for it is either seen or reported lost
// as a revision-gap with its range. One account per stream of revisions (an etcd watch, a
// reflector); the source feeds it, the account only keeps the books:
//
//   begin(L + 1)          after the first list at L (or begin(S) for a watch from revision S)
//   noteHead(h)           the newest revision the source of truth is known to have written
//   seen(rev)             an event at rev arrived
//   seen({a, b})          [a, b] proven complete: a progress notification or bookmark at b after
//                         a - 1, or (where the stream is trusted not to skip) an event at b
//   lose({a, b})          [a, b] will never be seen (a relist after a compaction): the caller
//                         raises the revision-gap anomaly with range.text()
//
// balanced() holds when seen ∪ lost covers [start, head] exactly. Memory grows with the number
// of gaps, never with the number of revisions. Not thread-safe; copy it to hand it to another
// thread.
class RevisionAccount {
public:
    // The first revision the source is responsible for; revisions below it are ignored. Only the
    // first call counts: a relist later on is a gap to lose(), not a new beginning.
    void begin(ResourceVersion first);
    bool begun() const { return m_start > 0; }
    void noteHead(ResourceVersion head);

    void seen(ResourceVersion rev) { seen(RevisionRange{rev, rev}); }
    void seen(RevisionRange range);
    // Records [first, last] as lost and returns the part of it that was neither seen nor already
    // reported (what a new anomaly must name; empty: nothing new was lost).
    std::vector<RevisionRange> lose(RevisionRange range);

    ResourceVersion start() const { return m_start; }
    ResourceVersion head() const { return m_head; }
    // The highest revision seen or lost: everything after it up to head() is still in flight.
    ResourceVersion accountedTo() const;
    std::int64_t seenCount() const { return m_seen.count(); }
    std::int64_t lostCount() const { return m_lost.count(); }
    const RevisionRangeSet& seenRanges() const { return m_seen; }
    // Every gap as it was reported, in order.
    const std::vector<RevisionRange>& gaps() const { return m_gaps; }
    // Revisions of [start, head] neither seen nor lost: holes below accountedTo() (a loss nobody
    // reported) and the tail above it (not received yet).
    std::vector<RevisionRange> unaccounted() const;
    std::int64_t unaccountedCount() const;
    bool balanced() const { return begun() && unaccountedCount() == 0; }

    // One line for people: "revisions 101..5000 (4900): 4750 seen, 150 lost in 1 gap
    // (revisions 3001..3150 (150)), balanced".
    QString summary() const;
    // {"start","head","seen","lost","gaps":[{"first","last"}],"unaccounted":[...],"balanced"}
    QJsonObject toJson() const;

private:
    ResourceVersion m_start = 0;
    ResourceVersion m_head = 0;
    RevisionRangeSet m_seen;
    RevisionRangeSet m_lost;
    std::vector<RevisionRange> m_gaps;
};

} // namespace ws

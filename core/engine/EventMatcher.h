#pragma once

#include "EventFilter.h"
#include "EventJournal.h"

#include <QRegularExpression>
#include <unordered_set>
#include <vector>

namespace ws {

// An EventFilter made ready to run over a journal: the regex compiled, the verdict on a key's
// resource, namespace and name kept per key (so a scan of millions of events runs the regex
// once per key), and the marks of the anomalies seen so far (key and RV) for anomaly-only.
// Not thread-safe: one per scanning thread.
class EventMatcher {
public:
    explicit EventMatcher(EventFilter filter = {});

    const EventFilter& filter() const { return m_filter; }
    bool valid() const { return m_valid; } // false: matches nothing (see EventFilter::error)

    // An anomaly names the events of `key` at `rv` (an empty key or RV 0 names none).
    void addAnomaly(const QString& key, ResourceVersion rv);
    void addMark(std::uint64_t mark) { m_marks.insert(mark); }
    bool marked(std::uint64_t keyHash, ResourceVersion rv) const {
        return m_marks.count(EventJournal::markOf(keyHash, rv)) != 0;
    }
    std::size_t markCount() const { return m_marks.size(); }

    bool matchesKey(const JournalKey& key) const; // resource, namespace, name
    bool matches(const JournalEntry& entry) const;
    // The same for a record of `journal`; the key's names are read from it once per key.
    bool matches(const JournalRecord& record, const EventJournal& journal);
    // Before copying records to match: verdicts kept for ids the journal forgot since the last
    // call go (such an id may name another key in the records copied next).
    void syncForgotten(const EventJournal& journal);

private:
    struct KeyVerdict {
        std::uint64_t hash = 0;
        std::int8_t verdict = -1; // -1: not asked yet
    };

    EventFilter m_filter;
    QRegularExpression m_regex;
    bool m_valid = true;
    std::unordered_set<std::uint64_t> m_marks;
    std::vector<KeyVerdict> m_keys; // by KeyId
    std::uint64_t m_forgottenSeen = 0;
    std::vector<KeyId> m_forgotten;
};

} // namespace ws

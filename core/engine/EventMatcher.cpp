#include "EventMatcher.h"

namespace ws {

EventMatcher::EventMatcher(EventFilter filter) : m_filter(std::move(filter)) {
    m_valid = m_filter.error().isEmpty();
    if (!m_filter.nameRegex.isEmpty()) {
        m_regex.setPattern(m_filter.nameRegex);
        m_regex.optimize();
    }
}

void EventMatcher::addAnomaly(const QString& key, ResourceVersion rv) {
    if (key.isEmpty() || rv <= 0)
        return;
    const QByteArray utf8 = key.toUtf8();
    m_marks.insert(EventJournal::markOf(
        EventJournal::keyHash(std::string_view(utf8.constData(), std::size_t(utf8.size()))), rv));
}

bool EventMatcher::matchesKey(const JournalKey& key) const {
    if (!m_valid)
        return false;
    if (!m_filter.resource.isEmpty() && key.resource != m_filter.resource)
        return false;
    if (!m_filter.ns.isEmpty() && key.ns != m_filter.ns)
        return false;
    if (!m_filter.nameRegex.isEmpty() && !m_regex.match(key.name).hasMatch())
        return false;
    return true;
}

bool EventMatcher::matches(const JournalEntry& e) const {
    if (!m_valid || !m_filter.showsType(e.type) || !m_filter.showsRv(e.rv))
        return false;
    JournalKey key;
    key.resource = e.resource;
    key.ns = e.ns;
    key.name = e.name;
    if (!matchesKey(key))
        return false;
    if (m_filter.anomalyOnly) {
        const QByteArray utf8 = e.key.toUtf8();
        return marked(
            EventJournal::keyHash(std::string_view(utf8.constData(), std::size_t(utf8.size()))),
            e.rv);
    }
    return true;
}

void EventMatcher::syncForgotten(const EventJournal& journal) {
    bool all = false;
    m_forgottenSeen = journal.forgottenKeys(m_forgottenSeen, &m_forgotten, &all);
    if (all) {
        m_keys.clear();
        return;
    }
    for (const KeyId key : m_forgotten)
        if (key < m_keys.size())
            m_keys[key] = KeyVerdict();
}

bool EventMatcher::matches(const JournalRecord& r, const EventJournal& journal) {
    if (!m_valid || !m_filter.showsType(r.type) || !m_filter.showsRv(r.rv))
        return false;
    if (r.key >= m_keys.size())
        m_keys.resize(static_cast<std::size_t>(r.key) + 1);
    KeyVerdict& k = m_keys[r.key];
    if (k.verdict < 0) {
        const JournalKey names = journal.key(r.key);
        k.hash = names.hash;
        k.verdict = matchesKey(names) ? 1 : 0;
    }
    if (k.verdict == 0)
        return false;
    return !m_filter.anomalyOnly || marked(k.hash, r.rv);
}

} // namespace ws

#include "EventFilterWorker.h"

#include <QElapsedTimer>
#include <algorithm>

namespace ws {

namespace {
constexpr qint64 kChunk = 32768;      // records copied out of the journal at a time
constexpr qint64 kReportEveryMs = 30; // about the window's frame rate
} // namespace

EventFilterWorker::~EventFilterWorker() {
    const std::lock_guard lock(m_mutex); // commands posted after the last run
    m_commands.clear();
}

void EventFilterWorker::post(std::function<void()> command) {
    {
        const std::lock_guard lock(m_mutex);
        m_commands.push_back(std::move(command));
    }
    QMetaObject::invokeMethod(this, "runCommands", Qt::QueuedConnection);
}

void EventFilterWorker::runCommands() {
    for (;;) {
        std::function<void()> command;
        {
            const std::lock_guard lock(m_mutex);
            if (m_commands.empty())
                return;
            command = std::move(m_commands.front());
            m_commands.pop_front();
        }
        command();
    }
}

void EventFilterWorker::start(quint64 generation, std::shared_ptr<const EventJournal> journal,
                              const EventFilter& filter, const std::vector<std::uint64_t>& marks,
                              qint64 from, qint64 to) {
    m_generation = generation;
    if (cancelled())
        return; // a newer start is queued behind this one
    m_journal = std::move(journal);
    m_matcher = std::make_unique<EventMatcher>(filter);
    for (const std::uint64_t mark : marks)
        m_matcher->addMark(mark);
    m_scanned = from;
    scan(to);
}

void EventFilterWorker::extend(quint64 generation, qint64 to) {
    if (generation != m_generation || cancelled())
        return;
    scan(to);
}

void EventFilterWorker::addAnomalies(quint64 generation, const std::vector<std::uint64_t>& marks,
                                     const QVector<QPair<QString, ResourceVersion>>& named) {
    if (generation != m_generation || cancelled() || !m_matcher)
        return;
    for (const std::uint64_t mark : marks)
        m_matcher->addMark(mark);
    if (!m_matcher->filter().anomalyOnly || !m_journal)
        return;
    // The events these anomalies name that were scanned before their marks were known.
    std::vector<std::int64_t> indices;
    for (const auto& [key, rv] : named) {
        const std::vector<std::int64_t> at = m_journal->find(key, rv, m_scanned);
        indices.insert(indices.end(), at.begin(), at.end());
    }
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    QVector<qint64> found;
    for (const JournalEntry& e : m_journal->entriesAt(indices))
        if (m_matcher->matches(e))
            found.push_back(e.index);
    if (!found.isEmpty())
        m_report(m_generation, std::move(found), m_scanned, true);
}

void EventFilterWorker::stop() {
    m_matcher.reset();
    m_journal.reset();
    m_records = {};
}

void EventFilterWorker::scan(qint64 to) {
    if (!m_matcher || !m_journal || m_scanned >= to)
        return;
    QElapsedTimer sinceReport;
    sinceReport.start();
    QVector<qint64> found;
    while (m_scanned < to) {
        if (cancelled())
            return;
        const qint64 end = std::min(to, m_scanned + kChunk);
        m_matcher->syncForgotten(*m_journal);
        const qint64 first = m_journal->copyRecords(m_scanned, end, &m_records);
        for (std::size_t i = 0; i < m_records.size(); ++i)
            if (m_matcher->matches(m_records[i], *m_journal))
                found.push_back(first + static_cast<qint64>(i));
        m_scanned = end;
        if (m_scanned < to && sinceReport.elapsed() >= kReportEveryMs) {
            m_report(m_generation, std::move(found), m_scanned, false);
            found = {};
            sinceReport.restart();
        }
    }
    m_report(m_generation, std::move(found), m_scanned, false);
}

} // namespace ws

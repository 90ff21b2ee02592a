#pragma once

#include "engine/EventJournal.h"
#include "engine/EventMatcher.h"

#include <QObject>
#include <QVector>
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace ws {

// EventFilterScanner's other half, on the scanner's thread: one matcher, the range scanned so
// far, and the scan loop. Every call comes from the scanner through post(), run in the order
// made. The commands go through a queue of our own under a mutex (Qt's event queue only says
// when to look), so that ThreadSanitizer sees what orders them; the worker is deleted on its
// own thread when that ends.
class EventFilterWorker : public QObject {
    Q_OBJECT
public:
    using Report = std::function<void(quint64 generation, QVector<qint64> indices, qint64 scannedTo,
                                      bool late)>;

    EventFilterWorker(std::shared_ptr<std::atomic<quint64>> generation, Report report)
        : m_current(std::move(generation)), m_report(std::move(report)) {}
    ~EventFilterWorker() override;

    // Any thread: runs `command` on the worker's thread, after those posted before.
    void post(std::function<void()> command);

    void start(quint64 generation, std::shared_ptr<const EventJournal> journal,
               const EventFilter& filter, const std::vector<std::uint64_t>& marks, qint64 from,
               qint64 to);
    void extend(quint64 generation, qint64 to);
    void addAnomalies(quint64 generation, const std::vector<std::uint64_t>& marks,
                      const QVector<QPair<QString, ResourceVersion>>& named);
    void stop();

private:
    Q_INVOKABLE void runCommands();
    bool cancelled() const { return m_current->load(std::memory_order_relaxed) != m_generation; }
    void scan(qint64 to);

    std::shared_ptr<std::atomic<quint64>> m_current; // the scanner's latest generation
    Report m_report;
    quint64 m_generation = 0;
    std::shared_ptr<const EventJournal> m_journal;
    std::unique_ptr<EventMatcher> m_matcher;
    qint64 m_scanned = 0;
    std::vector<JournalRecord> m_records;
    std::mutex m_mutex; // guards m_commands
    std::deque<std::function<void()>> m_commands;
};

} // namespace ws

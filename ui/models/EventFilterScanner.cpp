#include "EventFilterScanner.h"

#include "EventFilterWorker.h"

#include <QThread>

namespace ws {

EventFilterScanner::EventFilterScanner(QObject* parent)
    : QObject(parent), m_thread(new QThread(this)),
      m_generation(std::make_shared<std::atomic<quint64>>(0)) {
    m_thread->setObjectName(QStringLiteral("ws-event-filter"));
    m_worker =
        new EventFilterWorker(m_generation, [this](quint64 generation, QVector<qint64> indices,
                                                   qint64 scannedTo, bool late) {
            // From the worker's thread: queued here under the mutex, delivered on ours.
            {
                const std::lock_guard lock(m_foundMutex);
                m_found.push_back({generation, std::move(indices), scannedTo, late});
            }
            QMetaObject::invokeMethod(this, "deliver", Qt::QueuedConnection);
        });
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread->start(QThread::LowPriority);
}

EventFilterScanner::~EventFilterScanner() {
    m_generation->fetch_add(1); // a scan in progress stops at its next chunk
    m_thread->quit();
    m_thread->wait(); // the worker is deleted on it as it ends
    const std::lock_guard lock(m_foundMutex);
    m_found.clear();
}

void EventFilterScanner::deliver() {
    std::vector<Found> batch;
    {
        const std::lock_guard lock(m_foundMutex);
        batch.swap(m_found);
    }
    for (const Found& f : batch)
        if (f.generation == m_generation->load())
            emit found(f.generation, f.indices, f.scannedTo, f.late);
}

quint64 EventFilterScanner::start(std::shared_ptr<const EventJournal> journal,
                                  const EventFilter& filter,
                                  const std::vector<std::uint64_t>& marks, qint64 from, qint64 to) {
    const quint64 generation = m_generation->fetch_add(1) + 1;
    m_requested = to;
    m_active = true;
    m_worker->post([w = m_worker, generation, journal = std::move(journal), filter, marks, from,
                    to] { w->start(generation, journal, filter, marks, from, to); });
    return generation;
}

void EventFilterScanner::extend(qint64 to) {
    if (!m_active || to <= m_requested)
        return;
    m_requested = to;
    const quint64 generation = m_generation->load();
    m_worker->post([w = m_worker, generation, to] { w->extend(generation, to); });
}

void EventFilterScanner::addAnomalies(const std::vector<std::uint64_t>& marks,
                                      const QVector<QPair<QString, ResourceVersion>>& named) {
    if (!m_active)
        return;
    const quint64 generation = m_generation->load();
    m_worker->post(
        [w = m_worker, generation, marks, named] { w->addAnomalies(generation, marks, named); });
}

void EventFilterScanner::stop() {
    m_generation->fetch_add(1);
    m_active = false;
    m_requested = 0;
    m_worker->post([w = m_worker] { w->stop(); });
}

} // namespace ws

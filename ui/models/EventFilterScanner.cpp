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
            // To the scanner's thread; dropped there if the scanner is gone by then.
            QMetaObject::invokeMethod(
                this,
                [this, generation, indices = std::move(indices), scannedTo, late] {
                    if (generation == m_generation->load())
                        emit found(generation, indices, scannedTo, late);
                },
                Qt::QueuedConnection);
        });
    m_worker->moveToThread(m_thread);
    m_thread->start(QThread::LowPriority);
}

EventFilterScanner::~EventFilterScanner() {
    m_generation->fetch_add(1); // a scan in progress stops at its next chunk
    m_thread->quit();
    m_thread->wait();
    delete m_worker; // its thread has ended
}

quint64 EventFilterScanner::start(std::shared_ptr<const EventJournal> journal,
                                  const EventFilter& filter,
                                  const std::vector<std::uint64_t>& marks, qint64 from, qint64 to) {
    const quint64 generation = m_generation->fetch_add(1) + 1;
    m_requested = to;
    m_active = true;
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, generation, journal = std::move(journal), filter, marks, from, to] {
            w->start(generation, journal, filter, marks, from, to);
        },
        Qt::QueuedConnection);
    return generation;
}

void EventFilterScanner::extend(qint64 to) {
    if (!m_active || to <= m_requested)
        return;
    m_requested = to;
    const quint64 generation = m_generation->load();
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker, generation, to] { w->extend(generation, to); },
        Qt::QueuedConnection);
}

void EventFilterScanner::addAnomalies(const std::vector<std::uint64_t>& marks,
                                      const QVector<QPair<QString, ResourceVersion>>& named) {
    if (!m_active)
        return;
    const quint64 generation = m_generation->load();
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, generation, marks, named] { w->addAnomalies(generation, marks, named); },
        Qt::QueuedConnection);
}

void EventFilterScanner::stop() {
    m_generation->fetch_add(1);
    m_active = false;
    m_requested = 0;
    QMetaObject::invokeMethod(
        m_worker, [w = m_worker] { w->stop(); }, Qt::QueuedConnection);
}

} // namespace ws

#pragma once

#include "engine/EventFilter.h"
#include "engine/EventJournal.h"
#include "model/Anomaly.h"

#include <QObject>
#include <QVector>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

class QThread;

namespace ws {

class EventFilterWorker;

// Runs the events table's display filter over the journal on a thread of its own, so that a
// filter over two million events never holds up the window: the journal is read a chunk of
// 32,768 records at a time, the matching indices are published as they are found (at most
// every 30 ms, with how far the scan got), and a new filter cancels the scan in progress at
// the next chunk. New events are filtered as they arrive (extend()). Anomalies that name
// events already scanned are matched by following their key's versions back (addAnomalies()),
// so anomaly-only stays exact when the anomaly comes after its event.
class EventFilterScanner : public QObject {
    Q_OBJECT
public:
    explicit EventFilterScanner(QObject* parent = nullptr);
    ~EventFilterScanner() override; // cancels and waits for the thread

    // Scans [from, to) of `journal` with `filter` (the marks: every anomaly so far) from now on;
    // results of earlier starts are no longer reported. Returns the new generation.
    quint64 start(std::shared_ptr<const EventJournal> journal, const EventFilter& filter,
                  const std::vector<std::uint64_t>& marks, qint64 from, qint64 to);
    // Also scans up to `to` (the journal grew).
    void extend(qint64 to);
    // Anomalies raised since: marks for what is scanned next, and the events already scanned
    // that they name.
    void addAnomalies(const std::vector<std::uint64_t>& marks,
                      const QVector<QPair<QString, ResourceVersion>>& named);
    // Forgets the filter; scans in progress stop at their next chunk.
    void stop();

    quint64 generation() const { return m_generation->load(); }
    qint64 requestedTo() const { return m_requested; }

signals:
    // Matching journal indices, ascending; `late`: found by an anomaly, may lie anywhere among
    // those reported before. `scannedTo`: every index below it has been looked at.
    void found(quint64 generation, const QVector<qint64>& indices, qint64 scannedTo, bool late);

private:
    struct Found {
        quint64 generation = 0;
        QVector<qint64> indices;
        qint64 scannedTo = 0;
        bool late = false;
    };
    Q_INVOKABLE void deliver(); // what the worker found, on the scanner's thread

    QThread* m_thread;
    EventFilterWorker* m_worker; // deleted on its thread when that ends
    std::mutex m_foundMutex;     // guards m_found (the worker's results, not yet delivered)
    std::vector<Found> m_found;
    std::shared_ptr<std::atomic<quint64>> m_generation;
    qint64 m_requested = 0;
    bool m_active = false;
};

} // namespace ws

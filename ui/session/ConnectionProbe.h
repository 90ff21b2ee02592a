#pragma once

#include "sources/cluster/ClusterProbe.h"

#include <QObject>
#include <QPointer>
#include <atomic>
#include <memory>

class QThread;

namespace ws {

// Runs a ClusterProbe on a worker thread so the window never waits on the network: start()
// returns at once, finished() arrives on the owner's thread. Starting again or cancel() drops
// the probe under way (its result is never delivered).
class ConnectionProbe : public QObject {
    Q_OBJECT
public:
    explicit ConnectionProbe(QObject* parent = nullptr);
    ~ConnectionProbe() override; // cancels; waits briefly for the worker

    void start(const SourceSpec& spec);
    void cancel();
    bool running() const { return m_thread != nullptr; }

signals:
    void finished(const ws::ClusterProbeResult& result);

private:
    QPointer<QThread> m_thread;
    std::shared_ptr<std::atomic<bool>> m_cancelled;
    quint64 m_generation = 0;
};

} // namespace ws

#pragma once

#include "Session.h"
#include "SimulationRunner.h"

#include <QThread>
#include <atomic>

namespace ws {

// The simulator as a Session: a SimulationRunner on its own thread, publishing queued
// EngineUpdates (≤ 30 a second) to whoever listens on the GUI thread.
class SimulationSession : public Session {
    Q_OBJECT
public:
    explicit SimulationSession(SimulationOptions options, QObject* parent = nullptr);
    ~SimulationSession() override;

    // Loads the scenario and opens outputs; false with *error on bad input. start() calls it
    // when it has not been called.
    bool prepare(QString* error);
    QString description() const override;
    QStringList resources() const override;
    QString explanation() const;
    void start() override;
    void stop() override;

private:
    SimulationOptions m_options;
    SimulationRunner m_runner;
    bool m_prepared = false;
    std::atomic<bool> m_stop{false};
    QThread* m_thread = nullptr;
};

} // namespace ws

#include "SimulationSession.h"

#include "sim/Simulation.h"

namespace ws {

SimulationSession::SimulationSession(SimulationOptions options, QObject* parent)
    : Session(parent), m_options(std::move(options)) {
    qRegisterMetaType<ws::EngineUpdate>();
}

SimulationSession::~SimulationSession() {
    stop();
}

bool SimulationSession::prepare(QString* error) {
    if (!m_prepared)
        m_prepared = m_runner.prepare(m_options, error);
    return m_prepared;
}

QString SimulationSession::description() const {
    return m_runner.description();
}
QStringList SimulationSession::resources() const {
    return m_runner.resources();
}

QString SimulationSession::explanation() const {
    return m_prepared ? const_cast<SimulationRunner&>(m_runner).simulation().scenario().explanation
                      : QString();
}

void SimulationSession::start() {
    QString error;
    if (!prepare(&error)) {
        emit failed(error);
        return;
    }
    if (m_thread)
        return;
    m_stop = false;
    m_thread = QThread::create([this] {
        QString runError;
        const bool ok = m_runner.run(
            m_stop, [this](EngineUpdate&& u) { emit updated(u); }, &runError);
        if (!ok)
            emit failed(runError);
        emit finished();
    });
    m_thread->setObjectName(QStringLiteral("watchscope-engine"));
    m_thread->start();
}

void SimulationSession::stop() {
    if (!m_thread)
        return;
    m_stop = true;
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
}

} // namespace ws

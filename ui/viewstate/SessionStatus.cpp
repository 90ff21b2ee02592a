#include "SessionStatus.h"

#include "models/CellFormat.h"

namespace ws {

QString SessionStatus::stateText() const {
    if (m_failed)
        return tr("Failed: %1").arg(m_failure);
    if (m_paused)
        return m_held > 0 ? tr("View paused — %1 new anomalies held").arg(m_held)
                          : tr("View paused");
    if (m_finished)
        return tr("Finished");
    if (!m_shown)
        return tr("Waiting for data");
    // A live source says what its transport is doing ("Connecting to …", "Reconnecting …").
    return m_sourceState.isEmpty() ? tr("Live") : m_sourceState;
}

QString SessionStatus::timeText() const {
    return tr("t = %1 s").arg(double(m_now) / double(kUsPerSecond), 0, 'f', 1);
}

QString SessionStatus::eventsText() const {
    return tr("events %1").arg(formatCount(m_events));
}

QString SessionStatus::rateText() const {
    return tr("%1 events/s").arg(formatCount(qRound64(m_rate)));
}

void SessionStatus::noteArrived(const EngineUpdate& update) {
    ++m_updatesApplied;
    m_now = update.now;
    m_events = update.totalEvents;
    m_rate = update.eventsPerSecond;
    m_sourceState = update.sourceState;
    emit changed();
}

void SessionStatus::noteShown() {
    m_shown = true;
    emit changed();
}

void SessionStatus::setPaused(bool paused) {
    m_paused = paused;
    m_held = 0;
    emit changed();
}

void SessionStatus::setHeld(qint64 anomalies) {
    m_held = anomalies;
    emit changed();
}

void SessionStatus::fail(const QString& message) {
    m_failed = true;
    m_failure = message;
    m_lastError = message;
    emit changed();
}

void SessionStatus::finish() {
    if (m_finished)
        return;
    m_finished = true;
    emit changed();
}

void SessionStatus::reset() {
    m_now = 0;
    m_events = 0;
    m_rate = 0;
    m_shown = false;
    m_sourceState.clear();
    m_paused = false;
    m_held = 0;
    m_finished = false;
    m_failed = false;
    m_failure.clear();
    m_lastError.clear();
    m_updatesApplied = 0;
    m_staleUpdates = 0;
    emit changed();
}

} // namespace ws

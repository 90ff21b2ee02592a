#include "SessionRecorder.h"

#include "export/AnomalyJsonlWriter.h"
#include "export/TimelineWriter.h"

namespace ws {

SessionRecorder::SessionRecorder() = default;
SessionRecorder::~SessionRecorder() {
    close(nullptr);
}

bool SessionRecorder::open(const SessionOutputs& outputs, const QDateTime& wallClockStart,
                           TimelineStore& store, QString* error) {
    if (!outputs.capturePath.isEmpty()) {
        *error = QStringLiteral("--out: capture files (.wscap) are not supported yet");
        return false;
    }
    if (!outputs.anomaliesPath.isEmpty()) {
        m_anomalies = std::make_unique<AnomalyJsonlWriter>(wallClockStart);
        if (!m_anomalies->open(outputs.anomaliesPath, error))
            return false;
    }
    if (!outputs.timelinePath.isEmpty()) {
        m_timeline = std::make_unique<TimelineWriter>();
        if (!m_timeline->open(outputs.timelinePath, error))
            return false;
        m_timeline->attach(store);
    }
    return true;
}

void SessionRecorder::record(const Anomaly& anomaly) {
    if (m_anomalies)
        m_anomalies->write(anomaly);
    if (m_timeline)
        m_timeline->addAnomaly(anomaly);
}

bool SessionRecorder::close(QString* error) {
    bool ok = true;
    QString e;
    if (m_anomalies && !m_anomalies->close(&e)) {
        ok = false;
        if (error)
            *error = e;
    }
    if (m_timeline && !m_timeline->close(&e)) {
        ok = false;
        if (error)
            *error = e;
    }
    m_anomalies.reset();
    m_timeline.reset();
    return ok;
}

} // namespace ws

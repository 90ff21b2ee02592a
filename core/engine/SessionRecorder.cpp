#include "SessionRecorder.h"

#include "capture/CaptureWriter.h"
#include "export/AnomalyJsonlWriter.h"
#include "export/TimelineWriter.h"

namespace ws {

SessionRecorder::SessionRecorder() = default;
SessionRecorder::~SessionRecorder() {
    close(0, nullptr);
}

bool SessionRecorder::open(const SessionOutputs& outputs, const QDateTime& wallClockStart,
                           TimelineStore& store, const CaptureHeader& capture, QString* error) {
    if (!outputs.capturePath.isEmpty()) {
        m_capture = std::make_unique<CaptureWriter>();
        if (!m_capture->open(outputs.capturePath, capture, error))
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

FrameTap* SessionRecorder::captureTap() const {
    return m_capture.get();
}

bool SessionRecorder::close(TimeUs endTime, QString* error) {
    bool ok = true;
    QString e;
    if (m_capture && !m_capture->close(endTime, &e)) {
        ok = false;
        if (error)
            *error = e;
    }
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
    m_capture.reset();
    return ok;
}

} // namespace ws

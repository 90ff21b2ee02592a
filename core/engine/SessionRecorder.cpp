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
    // A live session drops what its files cannot take in time (counted); a session that only
    // turns a capture into files waits for them, losing nothing.
    const auto overflow =
        outputs.lossless ? AsyncFileWriter::Overflow::Wait : AsyncFileWriter::Overflow::Drop;
    const qint64 bound =
        outputs.maxQueuedBytes > 0 ? outputs.maxQueuedBytes : AsyncFileWriter::kDefaultMaxQueued;
    if (!outputs.capturePath.isEmpty()) {
        m_capture = std::make_unique<CaptureWriter>(overflow, bound);
        if (!m_capture->open(outputs.capturePath, capture, error))
            return false;
    }
    if (!outputs.anomaliesPath.isEmpty()) {
        m_anomalies = std::make_unique<AnomalyJsonlWriter>(wallClockStart);
        m_anomalies->setOverflow(overflow, bound);
        if (!m_anomalies->open(outputs.anomaliesPath, error))
            return false;
    }
    if (!outputs.timelinePath.isEmpty()) {
        m_timeline = std::make_unique<TimelineWriter>();
        m_timeline->setOverflow(overflow, bound);
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
    return m_captureStopped ? nullptr : m_capture.get();
}

bool SessionRecorder::stopFailedCapture() {
    if (!m_capture || m_captureStopped || m_capture->error().isEmpty())
        return false;
    m_captureStopped = true;
    m_capture->close(0, &m_captureError);
    return true;
}

void SessionRecorder::addFlow(FlowStats& flow) const {
    flow.captureFramesDropped += m_closed.captureFramesDropped;
    flow.captureBytesDropped += m_closed.captureBytesDropped;
    flow.exportLinesDropped += m_closed.exportLinesDropped;
    if (m_capture) {
        flow.captureFramesDropped += m_capture->droppedFrames();
        flow.captureBytesDropped += m_capture->droppedFrameBytes();
        if (flow.fileError.isEmpty())
            flow.fileError = m_capture->error();
    }
    if (m_anomalies)
        flow.exportLinesDropped += m_anomalies->droppedLines();
    if (m_timeline)
        flow.exportLinesDropped += m_timeline->droppedRows();
}

bool SessionRecorder::close(TimeUs endTime, QString* error) {
    bool ok = true;
    QString e;
    if (m_capture && !m_captureStopped && !m_capture->close(endTime, &e)) {
        ok = false;
        if (error)
            *error = e;
    }
    if (m_captureStopped && !m_captureError.isEmpty()) {
        ok = false;
        if (error)
            *error = m_captureError;
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
    // What the files dropped up to their close (a reader that stopped reading) stays counted.
    FlowStats all;
    addFlow(all);
    all.fileError.clear();
    m_closed = all;
    m_anomalies.reset();
    m_timeline.reset();
    m_capture.reset();
    m_captureStopped = false;
    m_captureError.clear();
    return ok;
}

} // namespace ws

#pragma once

#include "EngineUpdate.h"
#include "SessionOutputs.h"
#include "capture/CaptureHeader.h"
#include "model/Anomaly.h"

#include <QDateTime>
#include <memory>

namespace ws {

class AnomalyJsonlWriter;
class CaptureWriter;
class FrameTap;
class TimelineWriter;
class TimelineStore;

// Streams a session's anomalies, timeline samples and (as a frame tap) everything it received to
// the files the user asked for.
class SessionRecorder {
public:
    SessionRecorder();
    ~SessionRecorder();

    // Opens every requested file up front, so a bad path fails before any work is done.
    bool open(const SessionOutputs& outputs, const QDateTime& wallClockStart, TimelineStore& store,
              const CaptureHeader& capture, QString* error);
    void record(const Anomaly& anomaly);
    // The capture writer as a frame tap, when a capture is written.
    FrameTap* captureTap() const;
    const CaptureWriter* capture() const { return m_capture.get(); }
    // `endTime`: session time at the end, for the capture's End record.
    bool close(TimeUs endTime, QString* error);

    // A capture whose file failed (a full disk) is closed at once, so that nothing more is
    // compressed for it; true when that happened now (its error is kept for close()).
    bool stopFailedCapture();
    // Adds what the files dropped so far to `flow`.
    void addFlow(FlowStats& flow) const;

private:
    std::unique_ptr<AnomalyJsonlWriter> m_anomalies;
    std::unique_ptr<TimelineWriter> m_timeline;
    std::unique_ptr<CaptureWriter> m_capture;
    bool m_captureStopped = false; // closed early by stopFailedCapture()
    QString m_captureError;
    FlowStats m_closed; // dropped by the files closed so far
};

} // namespace ws

#pragma once

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

private:
    std::unique_ptr<AnomalyJsonlWriter> m_anomalies;
    std::unique_ptr<TimelineWriter> m_timeline;
    std::unique_ptr<CaptureWriter> m_capture;
};

} // namespace ws

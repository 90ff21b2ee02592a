#pragma once

#include "SessionOutputs.h"
#include "model/Anomaly.h"

#include <QDateTime>
#include <memory>

namespace ws {

class AnomalyJsonlWriter;
class TimelineWriter;
class TimelineStore;

// Streams a session's anomalies and timeline samples to the files the user asked for.
class SessionRecorder {
public:
    SessionRecorder();
    ~SessionRecorder();

    // Opens every requested file up front, so a bad path fails before any work is done.
    bool open(const SessionOutputs& outputs, const QDateTime& wallClockStart, TimelineStore& store,
              QString* error);
    void record(const Anomaly& anomaly);
    bool close(QString* error);

private:
    std::unique_ptr<AnomalyJsonlWriter> m_anomalies;
    std::unique_ptr<TimelineWriter> m_timeline;
};

} // namespace ws

#pragma once

#include "TimelineFormat.h"
#include "model/Anomaly.h"
#include "model/ResourceVersion.h"
#include "util/AsyncFileWriter.h"

#include <QString>
#include <memory>

namespace ws {

class TimelineStore;

// Streams timeline samples (SPEC §3) to a file whose name picks the format:
// - `.csv`: header `time_ms,resource,series,value`, one sample per row;
// - `.jsonl`: `{"time_ms":..,"resource":..,"series":..,"value":..}` per line;
// - `.trace.json`: Chrome Trace Event JSON for Perfetto UI / chrome://tracing: a counter event
//   ("ph":"C", name = series, args {value}, ts in µs) per sample and a global instant event
//   ("ph":"i","s":"g", name = kind) per anomaly. Counter tracks are scoped to a process in both
//   viewers, so each resource gets its own pid (and tid), labelled by process_name/thread_name
//   metadata; sharing one pid would merge e.g. every resource's head_rv into one track. pid 1 is
//   "watchscope" and carries the anomalies.
// time_ms is exact to the microsecond ("1234.567"); values print as integers when integral, else
// with up to 6 decimals. Rows are formatted with std::to_chars into a 1 MiB buffer written in
// blocks. Attached to a TimelineStore it writes every sample as appended, so the store's
// downsampling loses nothing on disk.
class TimelineWriter {
public:
    TimelineWriter();
    ~TimelineWriter(); // closes; call close() to see errors
    TimelineWriter(const TimelineWriter&) = delete;
    TimelineWriter& operator=(const TimelineWriter&) = delete;

    // Errors: "unsupported timeline file ..." for an unknown extension, "cannot write 'path':
    // <reason>" when the file cannot be created.
    bool open(const QString& path, QString* error);
    bool isOpen() const;
    TimelineFormat format() const;

    // Streams the store's future samples into the open file (attach before samples arrive;
    // after close() the listener does nothing, so the store may outlive the writer).
    void attach(TimelineStore& store);
    void writeSample(const QString& resource, const QString& series, TimeUs time, double value);
    // An instant event in a trace; ignored for csv and jsonl.
    void addAnomaly(const Anomaly& anomaly);

    // Finishes the file (closes the trace's array) and reports any write error, e.g. disk full.
    bool close(QString* error = nullptr);

    // Before open(): Drop for a live session (rows the disk cannot take are dropped and
    // counted), Wait (the default) when waiting loses nothing.
    void setOverflow(AsyncFileWriter::Overflow overflow,
                     qint64 maxQueuedBytes = AsyncFileWriter::kDefaultMaxQueued) {
        m_overflow = overflow;
        m_maxQueued = maxQueuedBytes;
    }
    // Rows (lines) dropped so far, and the writer's byte counts.
    qint64 droppedRows() const;
    AsyncFileWriter::Stats stats() const;

private:
    struct State;
    std::shared_ptr<State> d;
    AsyncFileWriter::Overflow m_overflow = AsyncFileWriter::Overflow::Wait;
    qint64 m_maxQueued = AsyncFileWriter::kDefaultMaxQueued;
};

} // namespace ws

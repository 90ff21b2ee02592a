#pragma once

#include "BufferedFile.h"
#include "model/Anomaly.h"

#include <QByteArrayView>
#include <QDateTime>
#include <QString>
#include <optional>
#include <string>

namespace ws {

// Streams anomalies as JSON Lines in the SPEC §2 shape, one object per line with the keys in the
// order time, kind, severity, source, resource, key, rv, watcher, message (key, rv and watcher
// left out when they do not apply; rv as a string). Anomaly times are session-relative; the
// writer prints them as wall-clock UTC with milliseconds: `wallClockStart` + anomaly.time.
class AnomalyJsonlWriter {
public:
    explicit AnomalyJsonlWriter(const QDateTime& wallClockStart);

    // Error: "cannot write 'path': <reason>".
    bool open(const QString& path, QString* error);
    // Each call ends on whole lines on disk, so `tail -f` shows anomalies as they are raised.
    void write(const Anomaly& anomaly);
    void write(const AnomalyList& anomalies);
    // Flushes and closes; false (and `error`) if any write failed, e.g. a full disk.
    bool close(QString* error = nullptr);

    // Before open(): Drop for a live session (lines the disk cannot take are dropped and
    // counted), Wait (the default) when waiting loses nothing.
    void setOverflow(AsyncFileWriter::Overflow overflow,
                     qint64 maxQueuedBytes = AsyncFileWriter::kDefaultMaxQueued) {
        m_file.setOverflow(overflow, maxQueuedBytes);
    }
    qint64 droppedLines() const { return m_file.droppedLines(); }
    AsyncFileWriter::Stats stats() const { return m_file.stats(); }

    // One line's JSON object, without the newline.
    static std::string formatLine(const Anomaly& anomaly, const QDateTime& wallClockStart);
    // The members after time and kind, in SPEC order: `"severity":..,"source":..,"resource":..`
    // then key, rv, watcher where they apply, then `"message":..` (shared with the trace export).
    static void appendFields(std::string& out, const Anomaly& anomaly);

    // Parses a file written by this class back; times become relative to `wallClockStart` again
    // (millisecond precision), or to the first line's time when wallClockStart is invalid.
    // Errors name the file and line: "path:3: unknown kind 'foo'". Blank lines are skipped.
    static std::optional<AnomalyList> read(const QString& path, const QDateTime& wallClockStart,
                                           QString* error);
    // One line; `wallClockStart` must be valid. Errors have no position (read() adds it).
    static std::optional<Anomaly> parseLine(QByteArrayView line, const QDateTime& wallClockStart,
                                            QString* error);

private:
    void appendLine(const Anomaly& anomaly);

    QDateTime m_start;
    BufferedFile m_file;
};

} // namespace ws

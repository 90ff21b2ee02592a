#pragma once

#include "CaptureHeader.h"
#include "CaptureRecord.h"

#include <QByteArray>
#include <QIODevice>
#include <memory>
#include <vector>

namespace ws {

// Reads a .wscap capture (docs/capture-format.md) record by record, a block in memory at a time,
// from a file or any QIODevice (the fuzz target reads from memory). Nothing it is given can make
// it crash or allocate without bound: sizes are checked before use, and a damaged or cut file
// ends the records with a warning that says where — everything before it is still read.
class CaptureReader {
public:
    CaptureReader();
    ~CaptureReader();

    // Opens `path` and reads its header; false and one line ("x.wscap is not a WatchScope
    // capture", "… was written by a newer WatchScope (format 2)") otherwise.
    bool open(const QString& path, QString* error);
    // The same over a device opened for reading (not owned).
    bool open(QIODevice* device, const QString& name, QString* error);

    const CaptureHeader& header() const { return m_header; }
    // The next record; false at the end of the records (complete() says whether the capture
    // was closed cleanly; warning() why it ended early).
    bool next(CaptureRecord* record);
    // True once the End record was read.
    bool complete() const { return m_complete; }
    // Empty, or one line on why the records ended before a clean end: "cut short at byte N
    // (an incomplete block): read up to 12.3 s" or "damaged at byte N (...)".
    QString warning() const { return m_warning; }
    qint64 position() const; // bytes of the file consumed, for progress
    qint64 size() const;
    qint64 framesRead() const { return m_frames; }

    // Frames the writer dropped because the disk could not keep up (Dropped records, format 1.1),
    // in file order: where the replay has holes.
    struct DroppedSpan {
        TimeUs from = 0; // receive times of the first and last frame dropped
        TimeUs to = 0;
        qint64 frames = 0;
        qint64 bytes = 0;
    };
    const std::vector<DroppedSpan>& dropped() const { return m_dropped; }
    // Empty, or one line: "the recording dropped 1,234 frames (5.6 MB) at 12.3 s–14.0 s (…)".
    QString droppedNote() const;

private:
    bool readBlock();
    enum class Parsed { Record, Skipped, Failed };
    Parsed parseRecord(CaptureRecord* record);
    void stop(const QString& why, bool damaged);

    std::unique_ptr<QIODevice> m_own;
    QIODevice* m_device = nullptr;
    QString m_name;
    CaptureHeader m_header;
    QByteArray m_block;
    qsizetype m_blockPos = 0;
    qint64 m_blockStart = 0; // file offset of the block in m_block
    bool m_ended = false;
    bool m_complete = false;
    QString m_warning;
    qint64 m_frames = 0;
    TimeUs m_lastTime = 0;
    std::vector<DroppedSpan> m_dropped;
};

} // namespace ws

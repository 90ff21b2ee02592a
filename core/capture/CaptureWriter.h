#pragma once

#include "CaptureHeader.h"
#include "model/Frame.h"
#include "util/AsyncFileWriter.h"

#include <QElapsedTimer>
#include <memory>

namespace ws {

// Writes a .wscap capture (docs/capture-format.md) as a session receives it: the header at once,
// then connections and frames in order, compressed a block at a time with zstd. A block is
// written whole and flushed when it holds ~1 MiB or half a second has passed, so the file can be
// read (and its size shown) while it grows, and a crash loses at most the block under way.
// Not thread-safe: it runs where the frames are (the session thread). The file itself is written
// by an AsyncFileWriter, so the session thread never waits on the disk: when the disk or pipe
// falls behind by more than the writer's bound, whole blocks of frames are dropped (Drop mode),
// counted, and a Dropped record in the next block that is written says how many and when. The
// first write error (a full disk) stops the capture: error() says it in one line.
class CaptureWriter : public FrameTap {
public:
    using Overflow = AsyncFileWriter::Overflow;
    explicit CaptureWriter(Overflow overflow = Overflow::Drop,
                           qint64 maxQueuedBytes = AsyncFileWriter::kDefaultMaxQueued);
    ~CaptureWriter() override; // close() if still open

    // Creates (truncates) `path` and writes the header; false and one line on failure.
    bool open(const QString& path, const CaptureHeader& header, QString* error);
    bool isOpen() const { return m_sink.isOpen(); }
    void writeConnection(const ConnectionInfo& connection);
    void writeFrame(const Frame& frame);
    // As a tap on the pipeline, it writes what the session receives.
    void connectionOpened(const ConnectionInfo& connection) override {
        writeConnection(connection);
    }
    void frameReceived(const Frame& frame) override { writeFrame(frame); }
    // Ends the block under way (a no-op when it is empty) and waits (a while) until it is on
    // disk; the writer's own flushes as the block fills do not wait.
    bool flush();
    // Writes the End record (the capture is complete) and closes. False with the first write
    // error (disk full ...), if any happened since open().
    bool close(TimeUs endTime, QString* error);

    qint64 fileBytes() const;                          // on disk so far
    qint64 frameBytes() const { return m_frameBytes; } // received bytes given to the writer
    qint64 frames() const { return m_frames; }         // frames given to the writer
    // Frames dropped so far: blocks the writer had no room for (their frame bytes counted), and
    // blocks lost to a write error or a reader that stopped reading (their compressed bytes).
    qint64 droppedFrames() const;
    qint64 droppedFrameBytes() const;
    qint64 queuedBytes() const; // compressed bytes waiting for the disk
    // The first write error, one line; empty if none. Once set, nothing more is written.
    QString error() const;

    // Block policy, for tests: flush at this raw size / after this long (ms).
    void setBlockLimits(qint64 rawBytes, qint64 maxAgeMs) {
        m_blockLimit = rawBytes;
        m_blockAgeMs = maxAgeMs;
    }

private:
    void appendRecord(std::uint8_t type, const QByteArray& payload);
    void maybeFlush();
    bool submitBlock(); // hands the block to the file's thread, or drops it when it has no room
    void noteFrame(const Frame& f);

    struct Compressor;
    AsyncFileWriter m_sink;
    QString m_path;
    std::unique_ptr<Compressor> m_zstd;
    QByteArray m_block;   // raw records of the block under way
    QByteArray m_payload; // one record being built
    QElapsedTimer m_blockAge;
    qint64 m_blockLimit = 1 << 20;
    qint64 m_blockAgeMs = 500;
    qint64 m_frameBytes = 0;
    qint64 m_frames = 0;
    mutable QString m_error;
    // The block under way: its frames, and its Connection records (kept when it is dropped:
    // later frames need them).
    qint64 m_blockFrames = 0;
    qint64 m_blockFrameBytes = 0;
    TimeUs m_blockFirst = 0;
    TimeUs m_blockLast = 0;
    QByteArray m_blockConnections;
    // Dropped before reaching the writer and not yet told in a Dropped record.
    qint64 m_unmarkedFrames = 0;
    qint64 m_unmarkedBytes = 0;
    TimeUs m_unmarkedFirst = 0;
    TimeUs m_unmarkedLast = 0;
    qint64 m_droppedFrames = 0; // before reaching the writer, in total
    qint64 m_droppedBytes = 0;
    qint64 m_refusedFrames = 0; // of those, refused by the writer (which counts them too)
    qint64 m_refusedFileBytes = 0;
};

} // namespace ws

#pragma once

#include "CaptureHeader.h"
#include "model/Frame.h"

#include <QElapsedTimer>
#include <QFile>
#include <memory>

namespace ws {

// Writes a .wscap capture (docs/capture-format.md) as a session receives it: the header at once,
// then connections and frames in order, compressed a block at a time with zstd. A block is
// written whole and flushed when it holds ~1 MiB or half a second has passed, so the file can be
// read (and its size shown) while it grows, and a crash loses at most the block under way.
// Not thread-safe: it runs where the frames are (the session thread).
class CaptureWriter : public FrameTap {
public:
    CaptureWriter();
    ~CaptureWriter() override; // close() if still open

    // Creates (truncates) `path` and writes the header; false and one line on failure.
    bool open(const QString& path, const CaptureHeader& header, QString* error);
    bool isOpen() const { return m_file.isOpen(); }
    void writeConnection(const ConnectionInfo& connection);
    void writeFrame(const Frame& frame);
    // As a tap on the pipeline, it writes what the session receives.
    void connectionOpened(const ConnectionInfo& connection) override {
        writeConnection(connection);
    }
    void frameReceived(const Frame& frame) override { writeFrame(frame); }
    // Ends the block under way (a no-op when it is empty).
    bool flush();
    // Writes the End record (the capture is complete) and closes. False with the first write
    // error (disk full ...), if any happened since open().
    bool close(TimeUs endTime, QString* error);

    qint64 fileBytes() const { return m_fileBytes; }   // on disk so far
    qint64 frameBytes() const { return m_frameBytes; } // received bytes captured
    qint64 frames() const { return m_frames; }
    QString error() const { return m_error; } // the first write error; empty if none

    // Block policy, for tests: flush at this raw size / after this long (ms).
    void setBlockLimits(qint64 rawBytes, qint64 maxAgeMs) {
        m_blockLimit = rawBytes;
        m_blockAgeMs = maxAgeMs;
    }

private:
    void appendRecord(std::uint8_t type, const QByteArray& payload);
    void maybeFlush();

    struct Compressor;
    QFile m_file;
    std::unique_ptr<Compressor> m_zstd;
    QByteArray m_block;   // raw records of the block under way
    QByteArray m_scratch; // compressed output
    QByteArray m_payload; // one record being built
    QElapsedTimer m_blockAge;
    qint64 m_blockLimit = 1 << 20;
    qint64 m_blockAgeMs = 500;
    qint64 m_fileBytes = 0;
    qint64 m_frameBytes = 0;
    qint64 m_frames = 0;
    QString m_error;
};

} // namespace ws

#pragma once

#include "util/AsyncFileWriter.h"

#include <QString>
#include <string>

namespace ws {

// An output file written in large blocks from our own buffer, by an AsyncFileWriter: exporters
// append formatted text to buffer() and call maybeFlush(), which hands the block to the
// writer's thread, so the session thread never waits on the disk. In Drop mode (a live session)
// a block the writer has no room for is dropped and its lines counted; in Wait mode (a file
// made from a capture, nothing live) a flush returns once the block is written. The first
// error is kept: later
// writes are dropped (memory stays bounded on a full disk) and close() reports it.
class BufferedFile {
public:
    static constexpr std::size_t kDefaultFlushSize = 1 << 20;
    using Overflow = AsyncFileWriter::Overflow;

    explicit BufferedFile(std::size_t flushSize = kDefaultFlushSize,
                          Overflow overflow = Overflow::Wait);
    ~BufferedFile(); // closes; errors are lost, call close() to see them
    BufferedFile(const BufferedFile&) = delete;
    BufferedFile& operator=(const BufferedFile&) = delete;

    // Before open(): what a full queue does (Wait unless told).
    void setOverflow(Overflow overflow,
                     qint64 maxQueuedBytes = AsyncFileWriter::kDefaultMaxQueued) {
        m_overflow = overflow;
        m_maxQueued = maxQueuedBytes;
    }

    // Creates or truncates `path`. Error: "cannot write 'path': <reason>".
    bool open(const QString& path, QString* error);

    std::string& buffer() { return m_buffer; }
    void maybeFlush() {
        if (m_buffer.size() >= m_flushSize)
            flush();
    }
    bool flush();

    bool hasError() const;
    QString errorString() const;
    // Lines (newlines) of the blocks dropped so far: the writer was behind, had failed, or the
    // reader stopped reading before close().
    qint64 droppedLines() const { return m_droppedLines; }
    AsyncFileWriter::Stats stats() const;

    // Flushes and closes; false (and `error`) if anything since open() failed.
    bool close(QString* error = nullptr);

private:
    void fail(const QString& reason);

    std::unique_ptr<AsyncFileWriter> m_writer;
    Overflow m_overflow;
    qint64 m_maxQueued = AsyncFileWriter::kDefaultMaxQueued;
    QString m_path;
    std::string m_buffer;
    std::size_t m_flushSize;
    QString m_error;
    qint64 m_droppedLines = 0;
    qint64 m_queuedLines = 0; // handed to the writer; those it had not written at close are lost
    AsyncFileWriter::Stats m_final;
};

} // namespace ws

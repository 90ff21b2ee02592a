#pragma once

#include <QByteArray>
#include <QString>
#include <QtGlobal>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace ws {

// Writes a file on a thread of its own, so that the thread producing the data (the session
// thread) never waits on a slow disk, a full disk or a pipe nobody reads. What waits in memory
// is bounded by bytes: past the bound, append() drops the chunk and counts it (Drop, for a live
// session: the engine must keep up with its sources), or waits for room (Wait, for offline
// conversions, where waiting loses nothing). The first write error stops the writer for good:
// what follows is dropped and counted, and the error is kept as one line.
// The file is opened non-blocking: a FIFO without a reader is an error at open(), and a reader
// that stops reading cannot hold close() for longer than it allows.
class AsyncFileWriter {
public:
    enum class Overflow { Drop, Wait };
    // 32 MiB: several seconds of the fastest stream we record (a capture of ~10 MB/s of
    // frames compresses to a few MB/s), so a disk that hiccups loses nothing, while a disk or
    // pipe that stopped costs a fixed amount of memory.
    static constexpr qint64 kDefaultMaxQueued = qint64(32) << 20;

    struct Stats {
        qint64 queuedBytes = 0;     // waiting in memory now
        qint64 peakQueuedBytes = 0; // the most that ever waited
        qint64 writtenBytes = 0;    // on disk (or in the pipe)
        qint64 droppedChunks = 0;   // refused or abandoned chunks
        qint64 droppedBytes = 0;
        // What the chunks held, in the producer's unit (lines, frames), as it said in append().
        qint64 writtenRecords = 0;
        qint64 droppedRecords = 0;
    };

    explicit AsyncFileWriter(Overflow overflow = Overflow::Drop,
                             qint64 maxQueuedBytes = kDefaultMaxQueued);
    ~AsyncFileWriter(); // close(), abandoning what a stalled reader does not take in 2 s
    AsyncFileWriter(const AsyncFileWriter&) = delete;
    AsyncFileWriter& operator=(const AsyncFileWriter&) = delete;

    // Creates or truncates `path` and starts the thread; false with the reason (strerror's
    // words, or "no process is reading this pipe") in *reason.
    bool open(const QString& path, QString* reason);
    bool isOpen() const { return m_fd >= 0; }
    // Before open(): records end with this byte (a line's '\n'), so that a chunk cut short by a
    // failure counts the records it got out as written. 0 (the default): a chunk is whole or lost.
    void setRecordEnd(char end) { m_recordEnd = end; }
    // Queues `chunk`, which holds `records` of the producer's records (for the counts). False
    // when it was dropped: the queue is full (Drop), or the writer failed or is closed. Never
    // waits in Drop mode.
    bool append(QByteArray chunk, qint64 records = 0);
    // True when `bytes` more would be queued now (a producer may skip work it would drop).
    bool hasRoom(qint64 bytes) const;
    // Waits at most `waitMs` (< 0: as long as it takes) until everything queued is written (or
    // the writer failed); true
    // when nothing is queued any more. For a caller that wants what it appended on disk now.
    bool waitWritten(int waitMs) const;
    bool failed() const;
    QString error() const; // the first write error's reason; empty if none
    Stats stats() const;
    // Writes what is queued and closes. `waitMs` < 0: as long as it takes; otherwise what is
    // still queued after that long (a reader that stopped reading) is dropped. False with the
    // reason when a write failed or bytes were dropped at the close.
    bool close(int waitMs, QString* reason);

    static constexpr int kCloseWaitMs = 2000;

private:
    void run();
    void dropQueuedLocked();

    const Overflow m_overflow;
    const qint64 m_max;
    int m_fd = -1;
    char m_recordEnd = 0;
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;         // the writer: work or close
    mutable std::condition_variable m_room; // producers and close(): the queue shrank
    struct Chunk {
        QByteArray bytes;
        qint64 records = 0;
    };
    std::deque<Chunk> m_queue;
    Stats m_stats;
    QString m_error;
    bool m_failed = false;
    bool m_closing = false;
    bool m_abandon = false;
};

} // namespace ws

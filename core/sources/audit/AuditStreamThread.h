#pragma once

#include "AuditProblemSink.h"
#include "AuditStream.h"

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ws {

class AuditProblems;

// One apiserver's AuditStream read and parsed on a thread of its own, so that reading and
// parsing lines (a third of the audit source's time) overlaps with merging, joining stages and
// the detectors on the session thread. The events come over in batches through a bounded
// queue (the reader waits when kMaxBatches are full: memory stays bounded whatever the file);
// spent batches go back to the reader, so the events' strings keep their memory and a line
// costs no allocation. What the stream could not read travels with the batch, at the place
// between events where it happened, and reaches AuditProblems when the session gets there: the
// same counts, messages and order as reading on the session thread.
class AuditStreamThread {
public:
    using Status = AuditStream::Status;
    static constexpr std::size_t kBatchEvents = 1024;
    static constexpr std::size_t kMaxBatches = 4;

    // As AuditStream's; `problems` is only touched on the caller's thread.
    AuditStreamThread(int index, AuditLogGroup group, bool follow, AuditProblems& problems);
    ~AuditStreamThread(); // stops the reader wherever it is (mid-file, waiting) and joins it

    // Opens the first file (false with the reason, as AuditStream::open) and starts reading.
    bool open(QString* error);
    AuditStreamThread(const AuditStreamThread&) = delete;
    AuditStreamThread& operator=(const AuditStreamThread&) = delete;

    // As AuditStream::next: Event (*out is the next list/watch event; its old strings go back to
    // the reader for reuse), Waiting (at the end of the live file while following: never
    // blocks then), Done. Otherwise waits for the reader's next batch.
    Status next(AuditEvent* out);

    const AuditLogGroup& group() const { return m_group; }
    QString fileName(int file) const { return m_stream->fileName(file); }
    std::int64_t bytesRead() const { return m_bytesRead.load(std::memory_order_relaxed); }
    std::int64_t totalBytes() const { return m_totalBytes.load(std::memory_order_relaxed); }

private:
    struct Problem {
        AuditProblemSink::Kind kind;
        QString where;
        QString what;
        std::size_t beforeEvent; // told when the reader had put this many events in the batch
        std::int64_t count = 1;  // > 1: that many of `kind` without messages (see BatchProblems)
    };
    struct Batch {
        std::vector<AuditEvent> events; // [0, size) hold events; the rest are spare strings
        std::size_t size = 0;
        std::vector<Problem> problems;
        Status end = Status::Event; // Event: more follows; Waiting or Done after the last
    };
    // The reader's sink: problems go into the batch being filled. Past the first
    // AuditProblems::kReportedPerKind of a kind (whose messages nobody would see) only counts
    // travel, merged in place: a file of a million broken lines costs no memory.
    class BatchProblems final : public AuditProblemSink {
    public:
        void add(Kind kind, const QString& where, const QString& what) override;
        Batch* filling = nullptr;

    private:
        std::array<int, Count> m_told{};
    };

    void run();                             // the reader thread
    std::unique_ptr<Batch> takeFreeBatch(); // reader: nullptr once stopped
    void release(std::unique_ptr<Batch> batch);

    BatchProblems m_sink; // before m_stream, which holds a reference to it
    std::unique_ptr<AuditStream> m_stream;
    const AuditLogGroup& m_group; // the stream's, which never changes
    AuditProblems& m_problems;

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::unique_ptr<Batch>> m_full; // for the session, in read order
    std::vector<std::unique_ptr<Batch>> m_free;
    std::size_t m_batches = 0; // made so far, at most kMaxBatches
    bool m_atLiveEnd = false;  // the reader sent Waiting and has read nothing since
    bool m_stop = false;
    std::atomic<bool> m_stopping{false};
    std::atomic<std::int64_t> m_bytesRead{0};
    std::atomic<std::int64_t> m_totalBytes{0};

    // The session's side.
    std::unique_ptr<Batch> m_current;
    std::size_t m_next = 0;        // next event of m_current
    std::size_t m_nextProblem = 0; // next problem of m_current
    bool m_done = false;

    std::thread m_thread; // last: started once everything above exists
};

} // namespace ws

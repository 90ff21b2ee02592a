#include "AuditStreamThread.h"

#include "AuditProblems.h"

#include <chrono>

namespace ws {

namespace {
// --follow: how long the reader sleeps at the end of a live file before it looks again.
constexpr auto kFollowPause = std::chrono::milliseconds(100);
} // namespace

void AuditStreamThread::BatchProblems::add(Kind kind, const QString& where, const QString& what) {
    std::vector<Problem>& problems = filling->problems;
    if (m_told[kind] < AuditProblems::kReportedPerKind) {
        ++m_told[kind];
        problems.push_back(Problem{kind, where, what, filling->size});
        return;
    }
    if (!problems.empty() && problems.back().kind == kind && problems.back().where.isEmpty() &&
        problems.back().beforeEvent == filling->size) {
        ++problems.back().count;
        return;
    }
    problems.push_back(Problem{kind, QString(), QString(), filling->size});
}

AuditStreamThread::AuditStreamThread(int index, AuditLogGroup group, bool follow,
                                     AuditProblems& problems)
    : m_stream(std::make_unique<AuditStream>(index, std::move(group), follow, m_sink)),
      m_group(m_stream->group()), m_problems(problems) {}

bool AuditStreamThread::open(QString* error) {
    if (!m_stream->open(error))
        return false;
    m_totalBytes = m_stream->totalBytes();
    m_thread = std::thread([this] { run(); });
    return true;
}

AuditStreamThread::~AuditStreamThread() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_stopping = true;
    m_changed.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

std::unique_ptr<AuditStreamThread::Batch> AuditStreamThread::takeFreeBatch() {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [this] { return m_stop || !m_free.empty() || m_batches < kMaxBatches; });
    if (m_stop)
        return nullptr;
    if (m_free.empty()) {
        ++m_batches;
        auto batch = std::make_unique<Batch>();
        batch->events.reserve(kBatchEvents);
        return batch;
    }
    auto batch = std::move(m_free.back());
    m_free.pop_back();
    return batch;
}

void AuditStreamThread::release(std::unique_ptr<Batch> batch) {
    {
        std::lock_guard lock(m_mutex);
        m_free.push_back(std::move(batch));
    }
    m_changed.notify_all();
}

void AuditStreamThread::run() {
    for (;;) {
        std::unique_ptr<Batch> batch = takeFreeBatch();
        if (!batch)
            return;
        batch->size = 0;
        batch->problems.clear();
        m_sink.filling = batch.get();
        Status s = Status::Event;
        while (batch->size < kBatchEvents && !m_stopping.load(std::memory_order_relaxed)) {
            if (batch->events.size() == batch->size)
                batch->events.emplace_back();
            s = m_stream->next(&batch->events[batch->size]);
            if (s != Status::Event)
                break;
            ++batch->size;
        }
        m_sink.filling = nullptr;
        batch->end = s;
        m_bytesRead.store(m_stream->bytesRead(), std::memory_order_relaxed);
        m_totalBytes.store(m_stream->totalBytes(), std::memory_order_relaxed);
        {
            std::lock_guard lock(m_mutex);
            // An empty Waiting batch after another one says nothing new: the flag says it.
            if (!(s == Status::Waiting && batch->size == 0 && batch->problems.empty() &&
                  m_atLiveEnd))
                m_full.push_back(std::move(batch));
            m_atLiveEnd = s == Status::Waiting;
        }
        m_changed.notify_all();
        if (batch) // not handed over
            release(std::move(batch));
        if (s == Status::Done)
            return;
        if (s == Status::Waiting) {
            std::unique_lock lock(m_mutex);
            m_changed.wait_for(lock, kFollowPause, [this] { return m_stop; });
        }
    }
}

AuditStreamThread::Status AuditStreamThread::next(AuditEvent* out) {
    for (;;) {
        if (m_current) {
            Batch& b = *m_current;
            // What the stream could not read before this event, told in its place.
            while (m_nextProblem < b.problems.size() &&
                   b.problems[m_nextProblem].beforeEvent <= m_next) {
                const Problem& p = b.problems[m_nextProblem++];
                if (p.where.isEmpty())
                    m_problems.addCount(p.kind, p.count);
                else
                    m_problems.add(p.kind, p.where, p.what);
            }
            if (m_next < b.size) {
                // Swapped: the reader gets the old strings' memory back with the batch.
                std::swap(*out, b.events[m_next++]);
                return Status::Event;
            }
            const Status end = b.end;
            release(std::move(m_current));
            if (end == Status::Done)
                m_done = true;
            if (end != Status::Event)
                return end;
        }
        if (m_done)
            return Status::Done;
        std::unique_lock lock(m_mutex);
        if (m_full.empty() && m_atLiveEnd)
            return Status::Waiting;
        m_changed.wait(lock, [this] { return !m_full.empty() || (m_atLiveEnd && m_full.empty()); });
        if (m_full.empty())
            return Status::Waiting;
        m_current = std::move(m_full.front());
        m_full.pop_front();
        m_next = 0;
        m_nextProblem = 0;
    }
}

} // namespace ws

#include "AsyncFileWriter.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

namespace ws {

namespace {

QString reasonOf(int error) {
    if (error == ENXIO)
        return QStringLiteral("no process is reading this pipe");
    return QString::fromLocal8Bit(std::strerror(error));
}

} // namespace

AsyncFileWriter::AsyncFileWriter(Overflow overflow, qint64 maxQueuedBytes)
    : m_overflow(overflow), m_max(std::max<qint64>(1, maxQueuedBytes)) {}

AsyncFileWriter::~AsyncFileWriter() {
    QString ignored;
    close(kCloseWaitMs, &ignored);
}

bool AsyncFileWriter::open(const QString& path, QString* reason) {
    if (isOpen()) {
        *reason = QStringLiteral("already open");
        return false;
    }
    const QByteArray name = path.toLocal8Bit();
    const int fd =
        ::open(name.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) {
        *reason = reasonOf(errno);
        return false;
    }
    m_fd = fd;
    {
        std::lock_guard lock(m_mutex);
        m_stats = {};
        m_error.clear();
        m_failed = m_closing = m_abandon = false;
    }
    m_thread = std::thread([this] {
        pthread_setname_np(pthread_self(), "ws-file-writer");
        run();
    });
    return true;
}

bool AsyncFileWriter::hasRoom(qint64 bytes) const {
    std::lock_guard lock(m_mutex);
    return !m_failed && !m_closing && (m_queue.empty() || m_stats.queuedBytes + bytes <= m_max);
}

bool AsyncFileWriter::append(QByteArray chunk, qint64 records) {
    if (chunk.isEmpty())
        return true;
    const qint64 size = chunk.size();
    std::unique_lock lock(m_mutex);
    const auto fits = [&] { return m_queue.empty() || m_stats.queuedBytes + size <= m_max; };
    if (m_overflow == Overflow::Wait)
        m_room.wait(lock, [&] { return m_failed || m_closing || fits(); });
    if (!isOpen() || m_failed || m_closing || !fits()) {
        ++m_stats.droppedChunks;
        m_stats.droppedBytes += size;
        m_stats.droppedRecords += records;
        return false;
    }
    m_queue.push_back({std::move(chunk), records});
    m_stats.queuedBytes += size;
    m_stats.peakQueuedBytes = std::max(m_stats.peakQueuedBytes, m_stats.queuedBytes);
    m_wake.notify_one();
    return true;
}

bool AsyncFileWriter::waitWritten(int waitMs) const {
    std::unique_lock lock(m_mutex);
    const auto done = [&] { return m_queue.empty() || m_failed; };
    if (waitMs < 0)
        m_room.wait(lock, done);
    else
        m_room.wait_for(lock, std::chrono::milliseconds(waitMs), done);
    return m_queue.empty();
}

bool AsyncFileWriter::failed() const {
    std::lock_guard lock(m_mutex);
    return m_failed;
}

QString AsyncFileWriter::error() const {
    std::lock_guard lock(m_mutex);
    return m_error;
}

AsyncFileWriter::Stats AsyncFileWriter::stats() const {
    std::lock_guard lock(m_mutex);
    return m_stats;
}

void AsyncFileWriter::dropQueuedLocked() {
    for (const Chunk& c : m_queue) {
        ++m_stats.droppedChunks;
        m_stats.droppedBytes += c.bytes.size();
        m_stats.droppedRecords += c.records;
    }
    m_queue.clear();
    m_stats.queuedBytes = 0;
    m_room.notify_all();
}

void AsyncFileWriter::run() {
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [&] { return !m_queue.empty() || m_closing; });
        if (m_queue.empty() || m_abandon || m_failed)
            break;
        const QByteArray chunk = m_queue.front().bytes; // shared, not copied
        const qint64 records = m_queue.front().records;
        lock.unlock();
        const char* data = chunk.constData();
        qint64 left = chunk.size();
        int error = 0;
        while (left > 0) {
            const ssize_t n = ::write(m_fd, data, static_cast<size_t>(left));
            if (n > 0) {
                data += n;
                left -= n;
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && errno == EAGAIN) {
                // A pipe whose reader is slow or gone: wait for room in short naps, so that a
                // close() that gives up is noticed.
                pollfd p{m_fd, POLLOUT, 0};
                ::poll(&p, 1, 100);
                std::lock_guard check(m_mutex);
                if (m_abandon)
                    break;
                continue;
            }
            error = n < 0 ? errno : EIO;
            break;
        }
        lock.lock();
        if (left == 0) {
            m_queue.pop_front();
            m_stats.queuedBytes -= chunk.size();
            m_stats.writtenBytes += chunk.size();
            m_stats.writtenRecords += records;
            m_room.notify_all();
            continue;
        }
        if (error != 0 && !m_failed) {
            m_failed = true;
            m_error = reasonOf(error);
        }
        // Failed or abandoned: the part of this chunk that went out counts as written, and so
        // do the whole records in it when they can be told apart.
        const qint64 written = chunk.size() - left;
        const qint64 whole =
            m_recordEnd == 0
                ? 0
                : std::count(chunk.constData(), chunk.constData() + written, m_recordEnd);
        m_stats.writtenBytes += written;
        m_stats.droppedBytes -= written;
        m_stats.writtenRecords += whole;
        m_stats.droppedRecords -= whole;
        dropQueuedLocked();
        break;
    }
    m_room.notify_all();
}

bool AsyncFileWriter::close(int waitMs, QString* reason) {
    if (!isOpen())
        return true;
    qint64 abandoned = 0;
    {
        std::unique_lock lock(m_mutex);
        m_closing = true;
        m_wake.notify_all();
        m_room.notify_all();
        const auto drained = [&] { return m_queue.empty() || m_failed; };
        if (waitMs < 0)
            m_room.wait(lock, drained);
        else if (!m_room.wait_for(lock, std::chrono::milliseconds(waitMs), drained)) {
            m_abandon = true;
            abandoned = m_stats.queuedBytes;
        }
        m_wake.notify_all();
    }
    m_thread.join();
    ::close(m_fd);
    m_fd = -1;
    std::lock_guard lock(m_mutex);
    if (!m_queue.empty())
        dropQueuedLocked();
    if (!m_error.isEmpty()) {
        *reason = m_error;
        return false;
    }
    if (abandoned > 0) {
        *reason =
            QStringLiteral("%1 bytes were not written: the reader stopped reading").arg(abandoned);
        m_error = *reason;
        return false;
    }
    return true;
}

} // namespace ws

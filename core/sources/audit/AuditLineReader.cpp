#include "AuditLineReader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ws {

namespace {
constexpr std::size_t kPadding = 64;     // simdjson::SIMDJSON_PADDING
constexpr std::size_t kChunk = 1u << 20; // bytes read at a time
gzFile gz(void* p) {
    return static_cast<gzFile>(p);
}
} // namespace

AuditLineReader::~AuditLineReader() {
    closeFile();
}

void AuditLineReader::closeFile() {
    if (m_gz)
        gzclose(gz(m_gz)); // closes m_fd too
    else if (m_fd >= 0)
        ::close(m_fd);
    m_gz = nullptr;
    m_fd = -1;
}

bool AuditLineReader::open(const QString& path, bool follow, QString* error) {
    closeFile();
    m_path = path;
    m_follow = follow;
    m_offset = m_done = m_size = 0;
    m_fd = ::open(path.toLocal8Bit().constData(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) {
        *error = QStringLiteral("%1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    struct stat st {};
    if (::fstat(m_fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        *error = QStringLiteral("%1: not a regular file").arg(path);
        closeFile();
        return false;
    }
    m_inode = st.st_ino;
    m_size = st.st_size;
    unsigned char magic[2] = {0, 0};
    const bool isGzip = ::pread(m_fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (isGzip) {
        // A compressed file is a rotated one: it does not grow, so it is never tailed.
        m_follow = false;
        m_gz = gzdopen(m_fd, "rb");
        if (!m_gz) {
            *error = QStringLiteral("%1: cannot read as gzip").arg(path);
            closeFile();
            return false;
        }
        gzbuffer(gz(m_gz), 256 * 1024);
    }
    m_buffer.assign(kChunk + kPadding, 0);
    m_begin = m_end = 0;
    m_offset = 0;
    m_lineNumber = 0;
    m_eof = m_failed = m_skipping = false;
    return true;
}

std::int64_t AuditLineReader::bytesRead() const {
    if (m_gz)
        return m_done + static_cast<std::int64_t>(gzoffset(gz(m_gz)));
    return m_done + m_offset;
}

bool AuditLineReader::fill() {
    // Keep the partial line: move it to the front, grow the buffer only for a line longer
    // than what is left.
    if (m_begin > 0) {
        std::memmove(m_buffer.data(), m_buffer.data() + m_begin, m_end - m_begin);
        m_end -= m_begin;
        m_begin = 0;
    }
    if (m_buffer.size() - kPadding - m_end < kChunk / 2)
        m_buffer.resize(std::min(m_buffer.size() * 2, kMaxLine + kChunk + kPadding));
    const std::size_t room = m_buffer.size() - kPadding - m_end;
    if (room == 0)
        return false;
    if (m_gz) {
        const int n = gzread(gz(m_gz), m_buffer.data() + m_end, static_cast<unsigned>(room));
        int errnum = Z_OK;
        const char* what = gzerror(gz(m_gz), &errnum);
        if (n < 0 || (errnum != Z_OK && errnum != Z_STREAM_END)) {
            // Z_BUF_ERROR at the end: "unexpected end of file", a gzip cut short.
            m_error = errnum == Z_BUF_ERROR
                          ? QStringLiteral("truncated gzip (unexpected end of file)")
                          : QStringLiteral("gzip: %1").arg(QString::fromUtf8(what));
            m_failed = true;
            if (n > 0)
                m_end += static_cast<std::size_t>(n);
            return n > 0;
        }
        m_end += static_cast<std::size_t>(n);
        return n > 0;
    }
    const ssize_t n = ::read(m_fd, m_buffer.data() + m_end, room);
    if (n < 0) {
        m_error = QString::fromLocal8Bit(std::strerror(errno));
        m_failed = true;
        return false;
    }
    m_end += static_cast<std::size_t>(n);
    m_offset += n;
    if (m_offset > m_size)
        m_size = m_offset;
    return n > 0;
}

bool AuditLineReader::reopenIfRotated() {
    struct stat st {};
    if (::stat(m_path.toLocal8Bit().constData(), &st) != 0)
        return false; // renamed, the new one not created yet
    const bool replaced = st.st_ino != m_inode;
    const bool truncated = !replaced && st.st_size < m_offset; // copytruncate
    if (!replaced && !truncated) {
        m_size = st.st_size;
        return false;
    }
    const int fd = ::open(m_path.toLocal8Bit().constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    // The old file was read to its end (read() gave 0): a partial line there stays partial.
    ::close(m_fd);
    m_fd = fd;
    m_inode = st.st_ino;
    m_done += m_offset;
    m_offset = 0;
    m_size = st.st_size;
    m_begin = m_end = 0;
    return true;
}

AuditLineReader::Status AuditLineReader::next(std::string_view* line) {
    for (;;) {
        char* base = m_buffer.data();
        if (auto* nl = static_cast<char*>(std::memchr(base + m_begin, '\n', m_end - m_begin))) {
            const std::size_t at = m_begin;
            const std::size_t len = static_cast<std::size_t>(nl - (base + at));
            m_begin = at + len + 1;
            ++m_lineNumber;
            if (m_skipping) {
                m_skipping = false;
                continue;
            }
            std::size_t n = len;
            if (n > 0 && base[at + n - 1] == '\r')
                --n;
            *line = std::string_view(base + at, n);
            return Status::Line;
        }
        if (m_end - m_begin >= kMaxLine) {
            // A line beyond the bound: drop what we have and skip to its end.
            m_notice = QStringLiteral("line %1 is longer than %2 MiB: skipped")
                           .arg(m_lineNumber + 1)
                           .arg(kMaxLine >> 20);
            m_skipping = true;
            m_begin = m_end = 0;
        }
        if (m_failed)
            return Status::Error;
        if (fill())
            continue;
        if (m_failed) {
            // Whole lines before the damage were handed out; a partial one is lost with it.
            return Status::Error;
        }
        if (m_follow) {
            if (reopenIfRotated())
                continue;
            return Status::End;
        }
        if (m_end > m_begin) {
            // The last line has no newline: it is a line all the same (it may be cut short,
            // which the parser will say).
            const std::size_t at = m_begin;
            const std::size_t n = m_end - m_begin;
            m_begin = m_end;
            ++m_lineNumber;
            if (m_skipping) {
                m_skipping = false;
                return Status::End;
            }
            std::memset(base + m_end, 0, kPadding);
            *line = std::string_view(base + at, n);
            return Status::Line;
        }
        return Status::End;
    }
}

} // namespace ws

#pragma once

#include <QString>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace ws {

// The lines of one audit log file, plain or gzip (told by its magic bytes, not its name),
// through one reused buffer: memory stays bounded whatever the file's size. Every line handed
// out is followed by at least 64 readable bytes (simdjson's padding). In follow mode a plain
// file is tailed: at its end next() says End until more is written, a partial last line waits
// for its newline, and a file rotated away (renamed, or truncated in place) is read to its end
// before the new file at the same path is opened.
class AuditLineReader {
public:
    enum class Status { Line, End, Error };

    AuditLineReader() = default;
    ~AuditLineReader();
    AuditLineReader(const AuditLineReader&) = delete;
    AuditLineReader& operator=(const AuditLineReader&) = delete;

    bool open(const QString& path, bool follow, QString* error);
    // Line: *line is the next line, without its newline. End: nothing more now (for good
    // unless following). Error: error() says why (a truncated gzip, a read error); what came
    // before it was handed out, nothing after it will be.
    Status next(std::string_view* line);
    std::int64_t lineNumber() const { return m_lineNumber; } // of the line just returned
    const QString& error() const { return m_error; }
    // A line skipped for its length since the last call ("line 7 is longer than 64 MiB"), once.
    QString takeNotice() { return std::exchange(m_notice, QString()); }
    const QString& path() const { return m_path; }
    // Bytes of the file read so far (compressed bytes for a gzip file), and the file's size.
    std::int64_t bytesRead() const;
    std::int64_t size() const { return m_size; }
    bool gzip() const { return m_gz != nullptr; }
    // Lines longer than this are skipped whole (error() names the line); bounds memory.
    static constexpr std::size_t kMaxLine = 64u << 20;

private:
    bool fill(); // reads more into the buffer; false at the end (or on error)
    bool reopenIfRotated();
    void closeFile();

    QString m_path;
    QString m_error;
    QString m_notice;
    bool m_follow = false;
    int m_fd = -1;
    void* m_gz = nullptr; // gzFile
    std::uint64_t m_inode = 0;
    std::int64_t m_offset = 0; // plain: bytes read from the open file
    std::int64_t m_size = 0;
    std::int64_t m_done = 0; // bytes of files rotated away already read
    std::vector<char> m_buffer;
    std::size_t m_begin = 0; // first unread byte
    std::size_t m_end = 0;   // one past the last byte read
    std::int64_t m_lineNumber = 0;
    bool m_eof = false;
    bool m_skipping = false; // inside a line longer than kMaxLine
    bool m_failed = false;
};

} // namespace ws

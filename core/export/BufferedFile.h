#pragma once

#include <QFile>
#include <QString>
#include <string>

namespace ws {

// An output file written in large blocks from our own buffer (QFile is opened unbuffered, so
// each flush is one write call). Exporters append formatted text to buffer() and call
// maybeFlush(). The first error is kept: later writes are dropped (memory stays bounded on a
// full disk) and close() reports it.
class BufferedFile {
public:
    static constexpr std::size_t kDefaultFlushSize = 1 << 20;

    explicit BufferedFile(std::size_t flushSize = kDefaultFlushSize);
    ~BufferedFile(); // closes; errors are lost, call close() to see them
    BufferedFile(const BufferedFile&) = delete;
    BufferedFile& operator=(const BufferedFile&) = delete;

    // Creates or truncates `path`. Error: "cannot write 'path': <reason>".
    bool open(const QString& path, QString* error);

    std::string& buffer() { return m_buffer; }
    void maybeFlush() {
        if (m_buffer.size() >= m_flushSize)
            flush();
    }
    bool flush();

    bool hasError() const { return !m_error.isEmpty(); }
    const QString& errorString() const { return m_error; }

    // Flushes and closes; false (and `error`) if anything since open() failed.
    bool close(QString* error = nullptr);

private:
    void fail(const QString& reason);

    QFile m_file;
    QString m_path;
    std::string m_buffer;
    std::size_t m_flushSize;
    QString m_error;
};

} // namespace ws

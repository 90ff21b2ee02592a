#include "BufferedFile.h"

namespace ws {

BufferedFile::BufferedFile(std::size_t flushSize) : m_flushSize(flushSize) {
    m_buffer.reserve(flushSize + flushSize / 8);
}

BufferedFile::~BufferedFile() {
    close();
}

bool BufferedFile::open(const QString& path, QString* error) {
    close();
    m_path = path;
    m_error.clear();
    m_buffer.clear();
    m_file.setFileName(path);
    if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Unbuffered)) {
        fail(m_file.errorString());
        if (error)
            *error = m_error;
        return false;
    }
    return true;
}

void BufferedFile::fail(const QString& reason) {
    if (m_error.isEmpty())
        m_error = QStringLiteral("cannot write '%1': %2").arg(m_path, reason);
}

bool BufferedFile::flush() {
    if (hasError() || !m_file.isOpen()) {
        m_buffer.clear();
        return false;
    }
    const char* data = m_buffer.data();
    auto left = static_cast<qint64>(m_buffer.size());
    while (left > 0) {
        const qint64 written = m_file.write(data, left);
        if (written <= 0) {
            fail(m_file.errorString());
            break;
        }
        data += written;
        left -= written;
    }
    m_buffer.clear();
    return !hasError();
}

bool BufferedFile::close(QString* error) {
    if (m_file.isOpen()) {
        flush();
        m_file.close();
        if (m_file.error() != QFileDevice::NoError)
            fail(m_file.errorString());
    }
    if (hasError() && error)
        *error = m_error;
    return !hasError();
}

} // namespace ws

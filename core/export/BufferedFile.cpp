#include "BufferedFile.h"

#include <algorithm>

namespace ws {

BufferedFile::BufferedFile(std::size_t flushSize, Overflow overflow)
    : m_overflow(overflow), m_flushSize(flushSize) {
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
    m_droppedLines = 0;
    m_final = {};
    m_writer = std::make_unique<AsyncFileWriter>(m_overflow, m_maxQueued);
    m_writer->setRecordEnd('\n');
    QString reason;
    if (!m_writer->open(path, &reason)) {
        m_writer.reset();
        fail(reason);
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

bool BufferedFile::hasError() const {
    return !m_error.isEmpty() || (m_writer && m_writer->failed());
}

QString BufferedFile::errorString() const {
    if (m_error.isEmpty() && m_writer && m_writer->failed())
        return QStringLiteral("cannot write '%1': %2").arg(m_path, m_writer->error());
    return m_error;
}

AsyncFileWriter::Stats BufferedFile::stats() const {
    return m_writer ? m_writer->stats() : m_final;
}

bool BufferedFile::flush() {
    if (m_buffer.empty())
        return !hasError();
    const auto lines = static_cast<qint64>(std::count(m_buffer.begin(), m_buffer.end(), '\n'));
    if (!m_writer) {
        m_droppedLines += lines;
        m_buffer.clear();
        return false;
    }
    m_writer->append(QByteArray(m_buffer.data(), static_cast<qsizetype>(m_buffer.size())), lines);
    m_buffer.clear();
    // Waiting loses nothing here (a file made from a capture): the block is on disk on return,
    // as a caller that reads the file next expects.
    if (m_overflow == Overflow::Wait)
        m_writer->waitWritten(-1);
    const AsyncFileWriter::Stats s = m_writer->stats();
    m_droppedLines = s.droppedRecords;
    return !hasError();
}

bool BufferedFile::close(QString* error) {
    if (m_writer) {
        flush();
        QString reason;
        const bool ok = m_writer->close(
            m_overflow == Overflow::Wait ? -1 : AsyncFileWriter::kCloseWaitMs, &reason);
        m_final = m_writer->stats();
        m_droppedLines = m_final.droppedRecords;
        m_writer.reset();
        if (!ok)
            fail(reason);
    }
    if (hasError() && error)
        *error = m_error;
    return !hasError();
}

} // namespace ws

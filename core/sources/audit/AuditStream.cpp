#include "AuditStream.h"

#include "AuditProblemSink.h"

#include <QFileInfo>

namespace ws {

AuditStream::AuditStream(int index, AuditLogGroup group, bool follow, AuditProblemSink& problems)
    : m_index(index), m_group(std::move(group)), m_follow(follow), m_problems(problems) {
    for (const QString& f : m_group.files)
        m_sizes.push_back(QFileInfo(f).size());
}

bool AuditStream::open(QString* error) {
    return openFile(0, error);
}

bool AuditStream::openFile(int file, QString* error) {
    m_file = file;
    // Only the live file (the last one) grows.
    const bool tail = m_follow && file == m_group.files.size() - 1;
    return m_reader.open(m_group.files[file], tail, error);
}

QString AuditStream::fileName(int file) const {
    return QFileInfo(m_group.files.value(file)).fileName();
}

std::int64_t AuditStream::totalBytes() const {
    std::int64_t n = 0;
    for (std::size_t i = 0; i < m_sizes.size(); ++i)
        n += static_cast<int>(i) == m_file ? std::max(m_sizes[i], m_reader.size()) : m_sizes[i];
    return n;
}

QString AuditStream::where() const {
    return QStringLiteral("%1:%2").arg(fileName(m_file)).arg(m_reader.lineNumber());
}

bool AuditStream::advance() {
    m_doneBytes += m_reader.bytesRead();
    while (m_file + 1 < m_group.files.size()) {
        QString error;
        if (openFile(m_file + 1, &error))
            return true;
        m_problems.add(AuditProblemSink::ReadError, fileName(m_file), error); // the next may open
    }
    return false;
}

AuditStream::Status AuditStream::next(AuditEvent* out) {
    if (m_finished)
        return Status::Done;
    for (;;) {
        std::string_view line;
        const AuditLineReader::Status s = m_reader.next(&line);
        if (const QString notice = m_reader.takeNotice(); !notice.isEmpty())
            m_problems.add(AuditProblemSink::LongLine, fileName(m_file), notice);
        if (s == AuditLineReader::Status::Line) {
            ++m_lines;
            if (line.empty())
                continue;
            const AuditLineParser::Result r = m_parser.parse(line, out);
            switch (r) {
            case AuditLineParser::Result::Event:
                out->stream = m_index;
                out->file = m_file;
                out->line = m_reader.lineNumber();
                return Status::Event;
            case AuditLineParser::Result::Ignored:
                continue;
            case AuditLineParser::Result::Broken:
                m_problems.add(AuditProblemSink::BrokenLine, where(), m_parser.error());
                continue;
            case AuditLineParser::Result::UnknownApiVersion:
                m_problems.add(AuditProblemSink::UnknownApiVersion, where(), m_parser.error());
                continue;
            case AuditLineParser::Result::UnknownKind:
                m_problems.add(AuditProblemSink::UnknownKind, where(), m_parser.error());
                continue;
            }
            continue;
        }
        if (s == AuditLineReader::Status::Error)
            m_problems.add(
                AuditProblemSink::ReadError,
                QStringLiteral("%1:%2").arg(fileName(m_file)).arg(m_reader.lineNumber() + 1),
                m_reader.error() + QStringLiteral(": the lines before it were read"));
        else if (m_follow && m_file == m_group.files.size() - 1)
            return Status::Waiting;
        if (!advance()) {
            m_finished = true;
            return Status::Done;
        }
    }
}

} // namespace ws

#pragma once

#include "AuditEvent.h"
#include "AuditLineParser.h"
#include "AuditLineReader.h"
#include "AuditLogFiles.h"

namespace ws {

class AuditProblemSink;

// One apiserver's audit log: its files one after the other (backups, then the live file, which
// --follow tails), each line parsed; list and watch events come out, everything else is
// skipped, and what cannot be read is told to AuditProblems with its file:line.
class AuditStream {
public:
    AuditStream(int index, AuditLogGroup group, bool follow, AuditProblemSink& problems);

    bool open(QString* error); // the first file; false when it cannot be opened
    enum class Status { Event, Waiting, Done };
    // Event: *out is the next list/watch event. Waiting: at the end of the live file while
    // following. Done: every file read.
    Status next(AuditEvent* out);

    const AuditLogGroup& group() const { return m_group; }
    QString fileName(int file) const;
    std::int64_t bytesRead() const { return m_doneBytes + (m_finished ? 0 : m_reader.bytesRead()); }
    std::int64_t totalBytes() const;
    std::int64_t linesRead() const { return m_lines; }

private:
    bool openFile(int file, QString* error);
    bool advance(); // opens the next file that opens; false when none is left
    QString where() const;

    int m_index;
    AuditLogGroup m_group;
    bool m_follow;
    AuditProblemSink& m_problems;
    AuditLineReader m_reader;
    AuditLineParser m_parser;
    int m_file = -1;
    bool m_finished = false;
    std::int64_t m_doneBytes = 0; // of the files finished
    std::int64_t m_lines = 0;
    std::vector<std::int64_t> m_sizes;
};

} // namespace ws

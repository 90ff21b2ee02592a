#pragma once

#include <QString>

namespace ws {

// Where an AuditStream tells what it could not read (AuditProblems counts them; the stream's
// reading thread keeps them with the events they came between, so they are counted in order).
class AuditProblemSink {
public:
    enum Kind {
        BrokenLine,
        UnknownApiVersion,
        UnknownKind,
        LongLine,
        ReadError,
        OutOfOrder,
        Count
    };

    virtual void add(Kind kind, const QString& where, const QString& what) = 0;

protected:
    ~AuditProblemSink() = default;
};

} // namespace ws

#pragma once

#include "AuditProblemSink.h"

#include <QString>
#include <QStringList>
#include <array>
#include <cstdint>

namespace ws {

// What could not be used of an audit log, counted by kind: each problem is one line with its
// file:line, the first few of each kind handed on (as stream-error anomalies), all of them in
// the summary at the end.
class AuditProblems final : public AuditProblemSink {
public:
    static constexpr int kReportedPerKind = 10;

    void add(Kind kind, const QString& where, const QString& what) override;
    // `n` more of `kind` whose messages would not be handed on anyway (past kReportedPerKind).
    void addCount(Kind kind, std::int64_t n);
    std::int64_t count(Kind kind) const { return m_counts[kind]; }
    std::int64_t total() const;
    // The messages not yet handed on ("audit.log:17: broken line: ..."), then forgets them.
    QStringList takeMessages();
    // "3 broken lines, 1 unknown apiVersion skipped; 2 events out of order (first: a.log:9)";
    // empty when there was nothing.
    QString summary() const;

private:
    std::array<std::int64_t, Count> m_counts{};
    std::array<QString, Count> m_first{}; // where the first one was
    QStringList m_pending;
};

} // namespace ws

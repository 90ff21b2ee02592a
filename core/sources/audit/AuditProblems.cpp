#include "AuditProblems.h"

namespace ws {

namespace {
QString noun(AuditProblems::Kind kind, std::int64_t n) {
    const bool one = n == 1;
    switch (kind) {
    case AuditProblems::BrokenLine:
        return one ? QStringLiteral("broken line") : QStringLiteral("broken lines");
    case AuditProblems::UnknownApiVersion:
        return one ? QStringLiteral("line of an unknown apiVersion")
                   : QStringLiteral("lines of an unknown apiVersion");
    case AuditProblems::UnknownKind:
        return one ? QStringLiteral("line of an unknown kind")
                   : QStringLiteral("lines of an unknown kind");
    case AuditProblems::LongLine:
        return one ? QStringLiteral("over-long line") : QStringLiteral("over-long lines");
    case AuditProblems::ReadError:
        return one ? QStringLiteral("unreadable file end") : QStringLiteral("unreadable file ends");
    case AuditProblems::OutOfOrder:
        return one ? QStringLiteral("event out of order") : QStringLiteral("events out of order");
    case AuditProblems::Count:
        break;
    }
    return {};
}
} // namespace

void AuditProblems::add(Kind kind, const QString& where, const QString& what) {
    if (m_counts[kind]++ == 0)
        m_first[kind] = where;
    if (m_counts[kind] <= kReportedPerKind)
        m_pending << QStringLiteral("%1: %2").arg(where, what);
}

void AuditProblems::addCount(Kind kind, std::int64_t n) {
    m_counts[kind] += n;
}

std::int64_t AuditProblems::total() const {
    std::int64_t n = 0;
    for (auto c : m_counts)
        n += c;
    return n;
}

QStringList AuditProblems::takeMessages() {
    return std::exchange(m_pending, {});
}

QString AuditProblems::summary() const {
    QStringList skipped, other;
    for (int k = 0; k < Count; ++k) {
        if (m_counts[k] == 0)
            continue;
        const QString part = QStringLiteral("%1 %2 (first: %3)")
                                 .arg(m_counts[k])
                                 .arg(noun(Kind(k), m_counts[k]), m_first[k]);
        (k == OutOfOrder || k == ReadError ? other : skipped) << part;
    }
    QString out;
    if (!skipped.isEmpty())
        out = QStringLiteral("audit log: skipped %1").arg(skipped.join(QStringLiteral(", ")));
    if (!other.isEmpty())
        out += (out.isEmpty() ? QStringLiteral("audit log: ") : QStringLiteral("; ")) +
               other.join(QStringLiteral(", "));
    return out;
}

} // namespace ws

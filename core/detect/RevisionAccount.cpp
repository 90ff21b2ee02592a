#include "RevisionAccount.h"

#include <QJsonArray>
#include <QStringList>
#include <algorithm>

namespace ws {

namespace {

// How many gaps a summary line names before it says "and N more".
constexpr std::size_t kGapsNamed = 3;

QJsonArray rangesJson(const std::vector<RevisionRange>& ranges) {
    QJsonArray out;
    for (const RevisionRange& r : ranges)
        out.append(QJsonObject{{QStringLiteral("first"), qint64(r.first)},
                               {QStringLiteral("last"), qint64(r.last)}});
    return out;
}

} // namespace

void RevisionAccount::begin(ResourceVersion first) {
    if (first <= 0 || m_start > 0)
        return;
    m_start = first;
    m_head = std::max(m_head, first - 1);
}

void RevisionAccount::noteHead(ResourceVersion head) {
    m_head = std::max(m_head, head);
}

void RevisionAccount::seen(RevisionRange range) {
    if (!begun() && range.first > 0)
        begin(range.first); // a stream that started without saying where
    range.first = std::max(range.first, m_start);
    if (range.empty())
        return;
    m_seen.add(range);
    m_head = std::max(m_head, range.last);
}

std::vector<RevisionRange> RevisionAccount::lose(RevisionRange range) {
    if (!begun() && range.first > 0)
        begin(range.first);
    range.first = std::max(range.first, m_start);
    if (range.empty())
        return {};
    // What is new: neither seen nor already lost.
    std::vector<RevisionRange> fresh;
    for (const RevisionRange& r : m_seen.missingIn(range))
        for (const RevisionRange& n : m_lost.missingIn(r))
            fresh.push_back(n);
    if (fresh.empty())
        return fresh;
    for (const RevisionRange& r : fresh) {
        m_lost.add(r);
        m_gaps.push_back(r);
    }
    m_head = std::max(m_head, range.last);
    return fresh;
}

ResourceVersion RevisionAccount::accountedTo() const {
    return std::max(m_seen.highest(), m_lost.highest());
}

std::vector<RevisionRange> RevisionAccount::unaccounted() const {
    std::vector<RevisionRange> out;
    if (!begun())
        return out;
    for (const RevisionRange& r : m_seen.missingIn({m_start, m_head}))
        for (const RevisionRange& n : m_lost.missingIn(r))
            out.push_back(n);
    return out;
}

std::int64_t RevisionAccount::unaccountedCount() const {
    std::int64_t n = 0;
    for (const RevisionRange& r : unaccounted())
        n += r.count();
    return n;
}

QString RevisionAccount::summary() const {
    if (!begun())
        return QStringLiteral("no revisions to account for yet");
    const RevisionRange all{m_start, m_head};
    if (all.empty())
        return QStringLiteral("from revision %1: nothing written yet, balanced").arg(m_start);
    QString s = QStringLiteral("%1: %2 seen").arg(all.text()).arg(seenCount());
    if (!m_gaps.empty()) {
        QStringList named;
        for (std::size_t i = 0; i < m_gaps.size() && i < kGapsNamed; ++i)
            named << m_gaps[i].text();
        if (m_gaps.size() > kGapsNamed)
            named << QStringLiteral("%1 more").arg(m_gaps.size() - kGapsNamed);
        s += QStringLiteral(", %1 lost in %2 %3 (%4)")
                 .arg(lostCount())
                 .arg(m_gaps.size())
                 .arg(m_gaps.size() == 1 ? QStringLiteral("gap") : QStringLiteral("gaps"))
                 .arg(named.join(QStringLiteral(", ")));
    }
    // Holes below what was accounted for are losses nobody reported; the tail is in flight.
    std::int64_t holes = 0;
    std::int64_t tail = 0;
    const ResourceVersion to = accountedTo();
    for (const RevisionRange& r : unaccounted())
        (r.first > to ? tail : holes) += r.count();
    if (holes > 0)
        s += QStringLiteral(", %1 unaccounted").arg(holes);
    if (tail > 0)
        s += QStringLiteral(", %1 not received yet (%2)")
                 .arg(tail)
                 .arg(RevisionRange{std::max(to + 1, m_start), m_head}.text());
    if (holes == 0 && tail == 0)
        s += QStringLiteral(", balanced");
    return s;
}

QJsonObject RevisionAccount::toJson() const {
    return QJsonObject{{QStringLiteral("start"), qint64(m_start)},
                       {QStringLiteral("head"), qint64(m_head)},
                       {QStringLiteral("seen"), qint64(seenCount())},
                       {QStringLiteral("lost"), qint64(lostCount())},
                       {QStringLiteral("gaps"), rangesJson(m_gaps)},
                       {QStringLiteral("unaccounted"), rangesJson(unaccounted())},
                       {QStringLiteral("balanced"), balanced()}};
}

} // namespace ws

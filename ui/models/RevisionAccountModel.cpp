#include "RevisionAccountModel.h"

#include "CellFormat.h"

#include <QColor>
#include <QStringList>

namespace ws {

namespace {

// How many gaps the cell names; the rest are counted (the tool tip names as many as the CLI).
constexpr std::size_t kGapsShown = 3;

QString gapsText(const RevisionAccount& a) {
    const std::vector<RevisionRange>& gaps = a.gaps();
    if (gaps.empty())
        return QStringLiteral("none");
    QStringList named;
    for (std::size_t i = 0; i < gaps.size() && i < kGapsShown; ++i)
        named << gaps[i].text();
    if (gaps.size() > kGapsShown)
        named << QStringLiteral("%1 more").arg(gaps.size() - kGapsShown);
    return named.join(QStringLiteral(", "));
}

QString balanceText(const RevisionAccount& a) {
    if (!a.begun())
        return QStringLiteral("not begun");
    if (a.balanced())
        return QStringLiteral("balanced");
    const std::int64_t holes = RevisionAccountModel::unreportedLoss(a);
    const std::int64_t tail = a.unaccountedCount() - holes;
    QStringList parts;
    if (holes > 0)
        parts << QStringLiteral("%1 unaccounted").arg(formatCount(holes));
    if (tail > 0)
        parts << QStringLiteral("%1 not received yet").arg(formatCount(tail));
    return parts.join(QStringLiteral(", "));
}

// Compared cell by cell to redraw only what changed: the figures as numbers, the texts as text.
QVariant cellValue(const SourceRevisionAccount& s, int column) {
    const RevisionAccount& a = s.account;
    switch (column) {
    case RevisionAccountModel::StreamColumn:
        return s.name;
    case RevisionAccountModel::RevisionsColumn:
        return a.begun() ? RevisionRange{a.start(), a.head()}.text() : QString();
    case RevisionAccountModel::SeenColumn:
        return QVariant::fromValue<qint64>(a.seenCount());
    case RevisionAccountModel::LostColumn:
        return QVariant::fromValue<qint64>(a.lostCount());
    case RevisionAccountModel::GapsColumn:
        return gapsText(a);
    case RevisionAccountModel::UnaccountedColumn:
        return QVariant::fromValue<qint64>(a.unaccountedCount());
    case RevisionAccountModel::BalanceColumn:
        return balanceText(a);
    }
    return {};
}

QString accountKey(const SourceRevisionAccount& s) {
    return s.name;
}

} // namespace

RevisionAccountModel::RevisionAccountModel(QObject* parent)
    : KeyedTableModel(&accountKey, &cellValue, ColumnCount, parent) {}

int RevisionAccountModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RevisionAccountModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SourceRevisionAccount& s = m_rows.at(index.row());
    const RevisionAccount& a = s.account;
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case SeenColumn:
            return formatCount(a.seenCount());
        case LostColumn:
            return formatCount(a.lostCount());
        case UnaccountedColumn:
            return formatCount(a.unaccountedCount());
        default:
            return cellValue(s, column);
        }
    case Qt::TextAlignmentRole:
        return column == SeenColumn || column == LostColumn || column == UnaccountedColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        // Lost revisions were reported (a revision-gap anomaly) but are a fault all the same;
        // an unreported hole is worse. Revisions still in flight keep the palette.
        if ((column == LostColumn || column == GapsColumn) && a.lostCount() > 0)
            return QColor(0xa0, 0x4a, 0x00);
        if (column == BalanceColumn && RevisionAccountModel::unreportedLoss(a) > 0)
            return QColor(0xc0, 0x10, 0x20);
        return {};
    case Qt::ToolTipRole:
        return tr("Revision account of the %1: %2").arg(s.name, a.summary());
    }
    return {};
}

QVariant RevisionAccountModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StreamColumn:
        return tr("Stream");
    case RevisionsColumn:
        return tr("Revisions");
    case SeenColumn:
        return tr("Seen");
    case LostColumn:
        return tr("Lost");
    case GapsColumn:
        return tr("Gaps");
    case UnaccountedColumn:
        return tr("Unaccounted");
    case BalanceColumn:
        return tr("Balance");
    }
    return {};
}

std::int64_t RevisionAccountModel::unreportedLoss(const RevisionAccount& account) {
    std::int64_t holes = 0;
    const ResourceVersion to = account.accountedTo();
    for (const RevisionRange& r : account.unaccounted())
        if (r.first <= to)
            holes += r.count();
    return holes;
}

int RevisionAccountModel::unbalancedCount() const {
    int n = 0;
    for (int row = 0; row < m_rows.size(); ++row)
        if (!m_rows.at(row).account.balanced())
            ++n;
    return n;
}

} // namespace ws

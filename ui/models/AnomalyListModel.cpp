#include "AnomalyListModel.h"

#include "CellFormat.h"

#include <QColor>
#include <algorithm>

namespace ws {

int AnomalyListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AnomalyListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QColor AnomalyListModel::severityColor(Severity severity) {
    // Dark enough to read as text on a light background, distinct enough to tell apart.
    switch (severity) {
    case Severity::Error:
        return QColor(0xb0, 0x00, 0x20);
    case Severity::Warning:
        return QColor(0xa8, 0x5a, 0x00);
    case Severity::Info:
        return QColor(0x1a, 0x5f, 0xb4);
    }
    return {};
}

QVariant AnomalyListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Anomaly& a = m_rows.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NumberColumn:
            return serialOf(index.row()) + 1;
        case TimeColumn:
            return formatTimeUs(a.time);
        case SeverityColumn:
            return severityName(a.severity);
        case KindColumn:
            return kindName(a.kind);
        case SourceColumn:
            return sourceName(a.source);
        case ResourceColumn:
            return a.resource;
        case RvColumn:
            return a.rv == 0 ? QString() : QString::number(a.rv);
        case WatcherColumn:
            return a.watcher;
        case KeyColumn:
            return a.key;
        case MessageColumn:
            return a.message;
        }
        return {};
    case SortRole:
        switch (column) {
        case NumberColumn:
            return serialOf(index.row());
        case TimeColumn:
            return QVariant::fromValue<qint64>(a.time);
        case SeverityColumn:
            return int(a.severity);
        case RvColumn:
            return QVariant::fromValue<qint64>(a.rv);
        default:
            return data(index, Qt::DisplayRole);
        }
    case AnomalyRole:
        return QVariant::fromValue(a);
    case Qt::ForegroundRole:
        if (column == SeverityColumn || column == KindColumn)
            return severityColor(a.severity);
        return {};
    case Qt::DecorationRole:
        // A colour swatch in the first column, like Wireshark's coloured packet rows.
        if (column == SeverityColumn)
            return severityColor(a.severity);
        return {};
    case Qt::TextAlignmentRole:
        if (column == NumberColumn || column == TimeColumn || column == RvColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (column == MessageColumn || column == KeyColumn)
            return data(index, Qt::DisplayRole);
        return {};
    }
    return {};
}

QVariant AnomalyListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NumberColumn:
        return tr("No.");
    case TimeColumn:
        return tr("Time (s)");
    case SeverityColumn:
        return tr("Severity");
    case KindColumn:
        return tr("Kind");
    case SourceColumn:
        return tr("Source");
    case ResourceColumn:
        return tr("Resource");
    case RvColumn:
        return tr("RV");
    case WatcherColumn:
        return tr("Watcher");
    case KeyColumn:
        return tr("Key");
    case MessageColumn:
        return tr("Message");
    }
    return {};
}

void AnomalyListModel::appendAnomalies(const AnomalyList& batch, qint64 missingBefore) {
    if (missingBefore > 0)
        dropOldest(int(m_rows.size()));
    m_dropped += std::max<qint64>(0, missingBefore);
    if (batch.isEmpty())
        return;
    // A batch larger than the whole list: its oldest part is dropped without being shown.
    const qsizetype skip = std::max<qsizetype>(0, batch.size() - m_maxRows);
    const qsizetype excess = m_rows.size() + batch.size() - skip - m_maxRows;
    if (excess > 0)
        dropOldest(int(std::min<qsizetype>(m_rows.size(), excess + m_dropBatch)));
    m_dropped += skip;
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + int(batch.size() - skip) - 1);
    m_rows.append(batch.mid(skip));
    endInsertRows();
}

void AnomalyListModel::dropOldest(int count) {
    if (count <= 0)
        return;
    emit aboutToDropOldest(count);
    beginRemoveRows({}, 0, count - 1);
    m_rows.remove(0, count);
    m_dropped += count;
    endRemoveRows();
}

void AnomalyListModel::setMaxRows(int maxRows, int dropBatch) {
    m_maxRows = std::max(1, maxRows);
    m_dropBatch = std::clamp(dropBatch, 1, m_maxRows);
    if (m_rows.size() > m_maxRows)
        dropOldest(int(m_rows.size() - m_maxRows));
}

int AnomalyListModel::rowOfSerial(qint64 serial) const {
    const qint64 row = serial - m_dropped;
    return row >= 0 && row < m_rows.size() ? int(row) : -1;
}

void AnomalyListModel::clear() {
    beginResetModel();
    m_rows.clear();
    m_dropped = 0;
    endResetModel();
}

} // namespace ws

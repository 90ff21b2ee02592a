#include "CacheTableModel.h"

#include "CellFormat.h"

#include <QColor>

namespace ws {

namespace {

QString rowKey(const QString& resource, const QString& apiserver) {
    return resource + QLatin1Char('\x1f') + apiserver;
}

double fill(const CacheSnapshot& c) {
    if (!c.bufferUsedKnown())
        return -1; // sorts below every known fill
    return c.bufferCapacity > 0 ? double(c.bufferUsed) / double(c.bufferCapacity) : 0.0;
}

QVariant cellValue(const CacheSnapshot& c, int column) {
    switch (column) {
    case CacheTableModel::ResourceColumn:
        return c.resource;
    case CacheTableModel::ApiserverColumn:
        return c.apiserver;
    case CacheTableModel::HeadRvColumn:
        return QVariant::fromValue<qint64>(c.headRv);
    case CacheTableModel::CacheRvColumn:
        return QVariant::fromValue<qint64>(c.cacheRv);
    case CacheTableModel::CacheLagColumn:
        return QVariant::fromValue<qint64>(c.headRv - c.cacheRv);
    case CacheTableModel::BufferColumn:
        // Only compared for change detection; sorting uses the fill ratio (see data()).
        return QStringLiteral("%1/%2").arg(c.bufferUsed).arg(c.bufferCapacity);
    case CacheTableModel::OldestRvColumn:
        return QVariant::fromValue<qint64>(c.bufferOldestRv);
    case CacheTableModel::ObjectsColumn:
        return c.objects;
    }
    return {};
}

QString snapshotKey(const CacheSnapshot& s) {
    return rowKey(s.resource, s.apiserver);
}

} // namespace

CacheTableModel::CacheTableModel(QObject* parent)
    : KeyedTableModel(&snapshotKey, &cellValue, ColumnCount, parent) {}

int CacheTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CacheTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CacheSnapshot& c = m_rows.at(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case ResourceColumn:
            return c.resource;
        case ApiserverColumn:
            return c.apiserver.isEmpty() ? QStringLiteral("—") : c.apiserver;
        case HeadRvColumn:
            return formatRv(c.headRv);
        case CacheRvColumn:
            return formatRv(c.cacheRv);
        case CacheLagColumn:
            return formatCount(c.headRv - c.cacheRv);
        case BufferColumn:
            // A cluster's apiserver tells its capacity, not how full it is: not 0, unknown.
            if (!c.bufferUsedKnown())
                return tr("unknown / %1").arg(formatCount(c.bufferCapacity));
            return QStringLiteral("%1 / %2 (%3%)")
                .arg(formatCount(c.bufferUsed), formatCount(c.bufferCapacity))
                .arg(qRound(fill(c) * 100));
        case OldestRvColumn:
            return formatRv(c.bufferOldestRv);
        case ObjectsColumn:
            return c.objects == CacheSnapshot::kUnknown ? tr("unknown") : formatCount(c.objects);
        }
        return {};
    case SortRole:
        return column == BufferColumn ? QVariant(fill(c)) : cellValue(c, column);
    case Qt::TextAlignmentRole:
        return column >= HeadRvColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                      : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (column == BufferColumn && !c.bufferUsedKnown())
            return tr("The apiserver's metrics give the ring buffer's capacity but not how much "
                      "of it is in use");
        return {};
    case Qt::ForegroundRole:
        // A full ring buffer is what makes watchers fall out with 410 Gone: show it.
        if (column == BufferColumn && fill(c) >= 0.95)
            return QColor(0xa0, 0x4a, 0x00);
        return {};
    }
    return {};
}

QVariant CacheTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ResourceColumn:
        return tr("Resource");
    case ApiserverColumn:
        return tr("Apiserver");
    case HeadRvColumn:
        return tr("Head RV");
    case CacheRvColumn:
        return tr("Cache RV");
    case CacheLagColumn:
        return tr("Cache lag (rev)");
    case BufferColumn:
        return tr("Buffer used / capacity");
    case OldestRvColumn:
        return tr("Oldest RV");
    case ObjectsColumn:
        return tr("Objects");
    }
    return {};
}

int CacheTableModel::rowOf(const QString& resource, const QString& apiserver) const {
    return m_rows.rowOf(rowKey(resource, apiserver));
}

} // namespace ws

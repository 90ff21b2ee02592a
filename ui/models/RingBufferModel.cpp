#include "RingBufferModel.h"

#include "CellFormat.h"

#include <QColor>

namespace ws {

namespace {

double fill(const CacheSnapshot& c) {
    if (!c.bufferUsedKnown())
        return -1;
    return c.bufferCapacity > 0 ? double(c.bufferUsed) / double(c.bufferCapacity) : 0.0;
}

bool full(const CacheSnapshot& c) {
    return c.bufferUsedKnown() && c.bufferCapacity > 0 && c.bufferUsed >= c.bufferCapacity;
}

} // namespace

RingBufferModel::RingBufferModel(QObject* parent) : QAbstractTableModel(parent) {}

QString RingBufferModel::key(const QString& resource, const QString& apiserver) {
    return resource + QLatin1Char('\x1f') + apiserver;
}

QStringList RingBufferModel::rowsOf(const QString& resource) const {
    return m_apiservers.value(resource);
}

void RingBufferModel::setResource(const QString& resource) {
    if (resource == m_resource)
        return;
    beginResetModel();
    m_resource = resource;
    m_rows = rowsOf(resource);
    endResetModel();
    emit marksChanged();
}

QString RingBufferModel::usedText(const CacheSnapshot& c) {
    if (!c.bufferUsedKnown())
        return tr("unknown / %1").arg(formatCount(c.bufferCapacity));
    return QStringLiteral("%1 / %2 (%3%)")
        .arg(formatCount(c.bufferUsed), formatCount(c.bufferCapacity))
        .arg(qRound(fill(c) * 100));
}

void RingBufferModel::applySnapshots(const QVector<CacheSnapshot>& caches, TimeUs now) {
    bool marksMoved = false;
    QStringList added;
    for (const CacheSnapshot& c : caches) {
        const QString k = key(c.resource, c.apiserver);
        auto it = m_rings.find(k);
        if (it == m_rings.end()) {
            Ring r;
            r.latest = c;
            m_rings.insert(k, r);
            m_apiservers[c.resource].append(c.apiserver);
            if (c.resource == m_resource)
                added << c.apiserver;
            continue;
        }
        Ring& r = *it;
        const Ring before = r; // what the row showed, counters included
        const CacheSnapshot prev = r.latest;
        r.latest = c;
        bool marked = false;
        if (prev.bufferCapacity > 0 && c.bufferCapacity > 0 &&
            c.bufferCapacity != prev.bufferCapacity) {
            ++r.resizes;
            r.capacityBefore = prev.bufferCapacity;
            r.marks.append({Mark::Resize, now, c.bufferCapacity});
            marked = true;
        }
        const bool evicting = full(prev) && full(c) && c.bufferCapacity == prev.bufferCapacity &&
                              c.bufferOldestRv > prev.bufferOldestRv;
        if (evicting && !r.evicting) {
            ++r.evictionEpisodes;
            r.marks.append({Mark::Eviction, now, c.bufferUsed});
            marked = true;
        }
        // An episode ends when a snapshot shows the ring not evicting; one that only repeats
        // the previous one (nothing written in between) does not end it.
        if (evicting || c.bufferOldestRv != prev.bufferOldestRv || !full(c))
            r.evicting = evicting;
        if (marked) {
            if (r.marks.size() > kMaxMarks)
                r.marks.remove(0, r.marks.size() - kMaxMarks);
            ++r.generation;
            marksMoved = marksMoved || c.resource == m_resource;
        }
        if (c.resource != m_resource)
            continue;
        const int row = int(m_rows.indexOf(c.apiserver));
        if (row < 0)
            continue;
        int first = -1;
        int last = -1;
        for (int col = 0; col < ColumnCount; ++col) {
            if (cell(before, col, Qt::DisplayRole) != cell(r, col, Qt::DisplayRole)) {
                if (first < 0)
                    first = col;
                last = col;
            }
        }
        if (first >= 0)
            emit dataChanged(index(row, first), index(row, last));
    }
    if (!added.isEmpty()) {
        const int firstRow = int(m_rows.size());
        beginInsertRows({}, firstRow, firstRow + int(added.size()) - 1);
        m_rows += added;
        endInsertRows();
    }
    if (marksMoved)
        emit marksChanged();
}

void RingBufferModel::clear() {
    beginResetModel();
    m_rows.clear();
    m_rings.clear();
    m_apiservers.clear();
    endResetModel();
    emit marksChanged();
}

int RingBufferModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RingBufferModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

const RingBufferModel::Ring* RingBufferModel::ring(const QString& resource,
                                                   const QString& apiserver) const {
    const auto it = m_rings.constFind(key(resource, apiserver));
    return it == m_rings.cend() ? nullptr : &*it;
}

const RingBufferModel::Ring* RingBufferModel::ringAt(int row) const {
    return row >= 0 && row < m_rows.size() ? ring(m_resource, m_rows[row]) : nullptr;
}

QVariant RingBufferModel::cell(const Ring& r, int column, int role) const {
    const CacheSnapshot& c = r.latest;
    const bool sort = role == SortRole;
    switch (column) {
    case ApiserverColumn:
        return c.apiserver.isEmpty() ? QStringLiteral("—") : c.apiserver;
    case UsedColumn:
        return sort ? QVariant(fill(c)) : QVariant(usedText(c));
    case CapacityColumn:
        return sort ? QVariant(c.bufferCapacity) : QVariant(formatCount(c.bufferCapacity));
    case OldestRvColumn:
        if (!c.bufferUsedKnown() && c.bufferOldestRv == 0)
            return sort ? QVariant(qint64(-1)) : QVariant(tr("unknown"));
        return sort ? QVariant(qint64(c.bufferOldestRv)) : QVariant(formatRv(c.bufferOldestRv));
    case EvictionsColumn:
        if (!c.bufferUsedKnown())
            return sort ? QVariant(qint64(-1)) : QVariant(tr("unknown"));
        if (sort)
            return r.evictionEpisodes;
        return r.evicting ? tr("%1 (evicting)").arg(formatCount(r.evictionEpisodes))
                          : formatCount(r.evictionEpisodes);
    case ResizesColumn:
        if (sort)
            return r.resizes;
        return r.resizes == 0 ? QStringLiteral("0")
                              : tr("%1 (last %2 → %3)")
                                    .arg(formatCount(r.resizes), formatCount(r.capacityBefore),
                                         formatCount(c.bufferCapacity));
    }
    return {};
}

QVariant RingBufferModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Ring* r = ringAt(index.row());
    if (!r)
        return {};
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
    case SortRole:
        return cell(*r, column, role);
    case Qt::TextAlignmentRole:
        return column == ApiserverColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                         : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (column == UsedColumn && fill(r->latest) >= 0.95)
            return QColor(0xa0, 0x4a, 0x00);
        if (column == EvictionsColumn && r->evicting)
            return QColor(0xa0, 0x4a, 0x00);
        if (!r->latest.bufferUsedKnown() &&
            (column == UsedColumn || column == OldestRvColumn || column == EvictionsColumn))
            return QColor(0x70, 0x70, 0x70);
        return {};
    case Qt::ToolTipRole:
        if (!r->latest.bufferUsedKnown() && column != ApiserverColumn && column != CapacityColumn &&
            column != ResizesColumn)
            return tr("The apiserver's metrics give the ring's capacity but not how full it is");
        if (column == EvictionsColumn)
            return tr("Episodes in which the full ring dropped its oldest events (its oldest RV "
                      "advanced at the same capacity)");
        if (column == ResizesColumn)
            return tr("Changes of the ring's capacity");
        return {};
    }
    return {};
}

QVariant RingBufferModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ApiserverColumn:
        return tr("Apiserver");
    case UsedColumn:
        return tr("Used / capacity");
    case CapacityColumn:
        return tr("Capacity");
    case OldestRvColumn:
        return tr("Oldest RV");
    case EvictionsColumn:
        return tr("Evictions");
    case ResizesColumn:
        return tr("Resizes");
    }
    return {};
}

QString RingBufferModel::fullestText() const {
    // With several apiservers, the fullest cache is the one that will evict watchers first.
    const Ring* shown = nullptr;
    double shownFill = -2;
    for (const QString& a : m_rows) {
        const Ring* r = ring(m_resource, a);
        const double f = fill(r->latest);
        if (f > shownFill) {
            shown = r;
            shownFill = f;
        }
    }
    return shown ? usedText(shown->latest) : tr("no data");
}

} // namespace ws

#pragma once

#include "engine/EngineUpdate.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QVector>

namespace ws {

// One row per watch cache, keyed by (resource, apiserver): how far the cache trails etcd and how
// full its ring buffer is. Snapshots are upserts with per-cell dataChanged, like the watcher table.
class CacheTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ResourceColumn,
        ApiserverColumn,
        HeadRvColumn,
        CacheRvColumn,
        CacheLagColumn,
        BufferColumn,
        OldestRvColumn,
        ObjectsColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void applySnapshots(const QVector<CacheSnapshot>& snapshots);
    const CacheSnapshot& cache(int row) const { return m_rows.at(row); }
    int rowOf(const QString& resource, const QString& apiserver) const;
    void clear();

private:
    QVector<CacheSnapshot> m_rows;
    QHash<QString, int> m_rowByKey;
};

} // namespace ws

#pragma once

#include "KeyedTableModel.h"
#include "engine/EngineUpdate.h"

#include <QVector>

namespace ws {

// One row per watch cache, keyed by (resource, apiserver): how far the cache trails etcd and how
// full its ring buffer is. Snapshots are upserts with per-cell dataChanged, like the watcher table.
class CacheTableModel : public KeyedTableModel<CacheSnapshot> {
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

    explicit CacheTableModel(QObject* parent = nullptr);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    const CacheSnapshot& cache(int row) const { return m_rows.at(row); }
    int rowOf(const QString& resource, const QString& apiserver) const;
};

} // namespace ws

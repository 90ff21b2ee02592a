#pragma once

#include "engine/EngineUpdate.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QVector>

namespace ws {

// One row per watcher ever reported, keyed by (resource, id). Snapshots are upserts: a watcher
// that stops being reported keeps its last row (its state says "terminated"), so rows never move
// and a frame costs only the dataChanged of the cells that really changed.
class WatcherTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        ResourceColumn,
        ApiserverColumn,
        ProfileColumn,
        StateColumn,
        RvColumn,
        LagRevisionsColumn,
        LagSecondsColumn,
        EventsColumn,
        RelistsColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1; // raw values for QSortFilterProxyModel

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void applySnapshots(const QVector<WatcherSnapshot>& snapshots);
    const WatcherSnapshot& watcher(int row) const { return m_rows.at(row); }
    int rowOf(const QString& resource, const QString& id) const;
    void clear();

private:
    QVector<WatcherSnapshot> m_rows;
    QHash<QString, int> m_rowByKey;
};

} // namespace ws

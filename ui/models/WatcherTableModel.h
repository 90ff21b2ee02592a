#pragma once

#include "KeyedTableModel.h"
#include "engine/EngineUpdate.h"

#include <QVector>

namespace ws {

// One row per watcher ever reported, keyed by (resource, id). Snapshots are upserts: a watcher
// that stops being reported keeps its last row (its state says "terminated"), so rows never move
// and a frame costs only the dataChanged of the cells that really changed.
class WatcherTableModel : public KeyedTableModel<WatcherSnapshot> {
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

    explicit WatcherTableModel(QObject* parent = nullptr);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    const WatcherSnapshot& watcher(int row) const { return m_rows.at(row); }
    int rowOf(const QString& resource, const QString& id) const;
};

} // namespace ws

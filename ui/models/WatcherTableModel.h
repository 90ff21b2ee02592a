#pragma once

#include "KeyedTableModel.h"
#include "engine/EngineUpdate.h"

#include <QVector>

namespace ws {

// One row per watcher ever reported, keyed by (resource, id). Snapshots are upserts: a watcher
// that stops being reported keeps its last row, so rows never move and a frame costs only the
// dataChanged of the cells that really changed. SortRole gives raw values (numbers as numbers,
// the state by its place in model/WatcherState.h), so a QSortFilterProxyModel on SortRole sorts
// 9 before 10; the state is shown by name and coloured when it is trouble.
class WatcherTableModel : public KeyedTableModel<WatcherSnapshot> {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        ResourceColumn,
        ApiserverColumn,
        SelectorColumn,
        ProfileColumn,
        RvColumn,
        LagRevisionsColumn,
        LagSecondsColumn,
        StateColumn,
        RelistsColumn,
        ErrorsColumn,
        EventsColumn,
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

#pragma once

#include "KeyedRows.h"

#include <QAbstractTableModel>

namespace ws {

// What the watcher and watch-cache tables share: rows of keyed snapshots (KeyedRows) that never
// move, a frame's new rows inserted with one beginInsertRows, and one dataChanged per changed row
// spanning only its changed cells. Not a Q_OBJECT (a template cannot be one); the tables are,
// and give the columns, cells and headers.
template <typename Row> class KeyedTableModel : public QAbstractTableModel {
public:
    int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : m_rows.size();
    }

    void applySnapshots(const QVector<Row>& snapshots) {
        const QVector<Row> added = m_rows.update(snapshots, [this](int row, int first, int last) {
            emit this->dataChanged(this->index(row, first), this->index(row, last));
        });
        if (added.isEmpty())
            return;
        const int firstRow = m_rows.size();
        this->beginInsertRows({}, firstRow, firstRow + int(added.size()) - 1);
        m_rows.append(added);
        this->endInsertRows();
    }

    void clear() {
        this->beginResetModel();
        m_rows.clear();
        this->endResetModel();
    }

protected:
    KeyedTableModel(typename KeyedRows<Row>::KeyOf key, typename KeyedRows<Row>::CellOf cell,
                    int columns, QObject* parent)
        : QAbstractTableModel(parent), m_rows(key, cell, columns) {}

    KeyedRows<Row> m_rows;
};

} // namespace ws

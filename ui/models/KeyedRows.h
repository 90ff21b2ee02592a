#pragma once

#include <QHash>
#include <QString>
#include <QVariant>
#include <QVector>

namespace ws {

// The rows of a table model fed with snapshots keyed by a string (a watcher by resource and id,
// a watch cache by resource and apiserver). A snapshot with a known key updates its row in place
// and reports only the span of cells that changed; rows never move. New keys are handed back
// together so the model inserts a frame's worth with one beginInsertRows. Not a QObject: the
// model keeps the signals, this keeps the bookkeeping both table models share.
template <typename Row> class KeyedRows {
public:
    using KeyOf = QString (*)(const Row&);
    using CellOf = QVariant (*)(const Row&, int column); // compared to find changed cells

    KeyedRows(KeyOf key, CellOf cell, int columns) : m_key(key), m_cell(cell), m_columns(columns) {}

    int size() const { return int(m_rows.size()); }
    const Row& at(int row) const { return m_rows.at(row); }
    int rowOf(const QString& key) const { return m_rowByKey.value(key, -1); }
    void clear() {
        m_rows.clear();
        m_rowByKey.clear();
    }

    // Updates the rows of known keys, calling changed(row, firstColumn, lastColumn) after each
    // row that changed, and returns the snapshots of new keys (the last one of each) in the
    // order they first came, for append() between beginInsertRows and endInsertRows.
    template <typename Changed>
    QVector<Row> update(const QVector<Row>& snapshots, Changed&& changed) {
        QVector<Row> added;
        QHash<QString, int> addedIndex;
        for (const Row& s : snapshots) {
            const QString key = m_key(s);
            const auto it = m_rowByKey.constFind(key);
            if (it == m_rowByKey.cend()) {
                const auto pending = addedIndex.constFind(key);
                if (pending != addedIndex.cend()) {
                    added[*pending] = s;
                } else {
                    addedIndex.insert(key, int(added.size()));
                    added.append(s);
                }
                continue;
            }
            const int row = *it;
            Row& old = m_rows[row];
            int first = -1;
            int last = -1;
            for (int c = 0; c < m_columns; ++c) {
                if (m_cell(old, c) != m_cell(s, c)) {
                    if (first < 0)
                        first = c;
                    last = c;
                }
            }
            if (first < 0)
                continue;
            old = s;
            changed(row, first, last);
        }
        return added;
    }

    void append(const QVector<Row>& added) {
        for (const Row& s : added) {
            m_rowByKey.insert(m_key(s), int(m_rows.size()));
            m_rows.append(s);
        }
    }

private:
    KeyOf m_key;
    CellOf m_cell;
    int m_columns;
    QVector<Row> m_rows;
    QHash<QString, int> m_rowByKey;
};

} // namespace ws

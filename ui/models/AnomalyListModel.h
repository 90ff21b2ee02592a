#pragma once

#include "model/Anomaly.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QVector>

namespace ws {

// The packet list of WatchScope: every anomaly the session raised, in arrival order. Rows are
// appended a batch at a time (one beginInsertRows per EngineUpdate) and cell text is built only
// when a view asks for it, so thousands of rows cost what the visible ones cost. The list keeps
// the newest maxRows(): beyond that the oldest go, a dropBatch() at a time (one beginRemoveRows,
// not one per frame), and the No. column keeps counting from the session's first anomaly.
class AnomalyListModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NumberColumn,
        TimeColumn,
        SeverityColumn,
        KindColumn,
        SourceColumn,
        ResourceColumn,
        RvColumn,
        WatcherColumn,
        KeyColumn,
        MessageColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int AnomalyRole = Qt::UserRole + 2; // QVariant<ws::Anomaly>
    static constexpr int kDefaultMaxRows = 100000;

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // `missingBefore`: that many anomalies came between the last row and batch[0] but were not
    // kept (a paused view holds only the newest); they are counted as dropped, and so are all
    // present rows, which are older still (serials stay contiguous).
    void appendAnomalies(const AnomalyList& batch, qint64 missingBefore = 0);
    const Anomaly& anomaly(int row) const { return m_rows.at(row); }
    const AnomalyList& anomalies() const { return m_rows; }
    // Forgets every row and the count of dropped ones.
    void clear();

    // At most `maxRows` rows; `dropBatch` (≥ 1) more than the excess go when it is exceeded.
    void setMaxRows(int maxRows, int dropBatch);
    int maxRows() const { return m_maxRows; }
    int dropBatch() const { return m_dropBatch; }
    // Anomalies dropped so far (the oldest ones).
    qint64 droppedCount() const { return m_dropped; }
    // 0-based number of a row's anomaly in the session; stays the same when older rows go.
    qint64 serialOf(int row) const { return m_dropped + row; }
    // The row of a serial, or -1 when it was dropped (or is not there yet).
    int rowOfSerial(qint64 serial) const;

    static QColor severityColor(Severity severity);

signals:
    // Rows 0..count-1 are about to go, before rowsAboutToBeRemoved: a view reacts to that one by
    // moving its current row to a neighbour, so whoever wants otherwise must act first.
    void aboutToDropOldest(int count);

private:
    void dropOldest(int count);

    AnomalyList m_rows;
    int m_maxRows = kDefaultMaxRows;
    int m_dropBatch = kDefaultMaxRows / 10;
    qint64 m_dropped = 0;
};

} // namespace ws

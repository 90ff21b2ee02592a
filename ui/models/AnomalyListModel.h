#pragma once

#include "model/Anomaly.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QVector>

namespace ws {

// The packet list of WatchScope: every anomaly the session raised, in arrival order. Rows are
// appended a batch at a time (one beginInsertRows per EngineUpdate) and cell text is built only
// when a view asks for it, so thousands of rows cost what the visible ones cost.
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

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void appendAnomalies(const AnomalyList& batch);
    const Anomaly& anomaly(int row) const { return m_rows.at(row); }
    const AnomalyList& anomalies() const { return m_rows; }
    void clear();

    static QColor severityColor(Severity severity);

private:
    AnomalyList m_rows;
};

} // namespace ws

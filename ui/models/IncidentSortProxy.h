#pragma once

#include <QSortFilterProxyModel>

namespace ws {

// Sorts an IncidentTreeModel by any column (its SortRole), at both levels. Equal values keep
// the earliest first, whichever the direction: sorted by severity, worst first (descending, the
// default), incidents of one severity read in the order they began, and an incident's anomalies
// in the order they came. Paging (fetchMore) goes through to the model.
class IncidentSortProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit IncidentSortProxy(QObject* parent = nullptr);

protected:
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

} // namespace ws

#include "IncidentSortProxy.h"

#include "IncidentTreeModel.h"

namespace ws {

IncidentSortProxy::IncidentSortProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(IncidentTreeModel::SortRole);
    setDynamicSortFilter(true);
}

bool IncidentSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    const QVariant l = left.data(IncidentTreeModel::SortRole);
    const QVariant r = right.data(IncidentTreeModel::SortRole);
    const QPartialOrdering order = QVariant::compare(l, r);
    if (order == QPartialOrdering::Less)
        return true;
    if (order == QPartialOrdering::Greater)
        return false;
    // Ties: the earlier one first, in either direction (the view reverses lessThan for a
    // descending sort, so the tie-break is reversed here to come out ascending).
    const bool descending = sortOrder() == Qt::DescendingOrder;
    const qint64 lt = left.siblingAtColumn(IncidentTreeModel::FirstColumn)
                          .data(IncidentTreeModel::SortRole)
                          .toLongLong();
    const qint64 rt = right.siblingAtColumn(IncidentTreeModel::FirstColumn)
                          .data(IncidentTreeModel::SortRole)
                          .toLongLong();
    if (lt != rt)
        return descending ? lt > rt : lt < rt;
    // Rows of the model are in arrival order at both levels.
    return descending ? left.row() > right.row() : left.row() < right.row();
}

} // namespace ws

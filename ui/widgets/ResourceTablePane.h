#pragma once

#include <QTableView>

class QSortFilterProxyModel;

namespace ws {

// A table of per-resource rows (the watchers, the watch caches), sortable, showing the rows of
// one resource (the one the charts show) or of every resource. The model's SortRole gives raw
// values for sorting and the exact resource name to filter on.
class ResourceTablePane : public QTableView {
    Q_OBJECT
public:
    ResourceTablePane(QAbstractItemModel* model, int resourceColumn, int sortRole,
                      QWidget* parent = nullptr);

    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QAbstractItemModel* sourceModel() const { return m_source; }
    // Only `resource`'s rows (exact match: "pods" does not show "podtemplates"); empty: all.
    void setResource(const QString& resource);
    // "4" when every row is shown, "4 of 5" when one resource of several is.
    QString countText() const;

private:
    QAbstractItemModel* m_source;
    QSortFilterProxyModel* m_proxy;
};

} // namespace ws

#include "ResourceTablePane.h"

#include "TableSetup.h"

#include <QRegularExpression>
#include <QSortFilterProxyModel>

namespace ws {

ResourceTablePane::ResourceTablePane(QAbstractItemModel* model, int resourceColumn, int sortRole,
                                     QWidget* parent)
    : QTableView(parent), m_source(model), m_proxy(new QSortFilterProxyModel(this)) {
    m_proxy->setSourceModel(model);
    m_proxy->setSortRole(sortRole);
    m_proxy->setFilterRole(sortRole);
    m_proxy->setFilterKeyColumn(resourceColumn);
    setUpTableView(this, m_proxy);
}

void ResourceTablePane::setResource(const QString& resource) {
    m_proxy->setFilterRegularExpression(QRegularExpression(
        resource.isEmpty()
            ? QString()
            : QRegularExpression::anchoredPattern(QRegularExpression::escape(resource))));
}

QString ResourceTablePane::countText() const {
    const int n = m_proxy->rowCount();
    const int of = m_source->rowCount();
    return n == of ? QString::number(n) : tr("%1 of %2").arg(n).arg(of);
}

} // namespace ws

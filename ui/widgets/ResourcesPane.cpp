#include "ResourcesPane.h"

#include "TableSetup.h"
#include "models/ResourceTreeModel.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSet>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace ws {

ResourcesPane::ResourcesPane(QWidget* parent)
    : QWidget(parent), m_model(new ResourceTreeModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_view(new QTreeView(this)),
      m_summary(new QLabel(this)) {
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ResourceTreeModel::SortRole);
    m_proxy->setDynamicSortFilter(true);
    m_view->setObjectName(QStringLiteral("resourceTree"));
    m_view->setModel(m_proxy);
    setUpItemView(m_view);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setUniformRowHeights(true);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(ResourceTreeModel::NameColumn, Qt::AscendingOrder);
    m_view->setRootIsDecorated(true);
    m_view->setItemsExpandable(true);
    m_view->setExpandsOnDoubleClick(true);
    QHeaderView* header = m_view->header();
    header->setStretchLastSection(true);
    header->setHighlightSections(false);
    setColumnWidths(header, {128, 52, 58}); // Health takes the rest
    header->setMinimumSectionSize(40);
    // The badge is elided rather than scrolled to (its tooltip has it whole).
    m_view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    addColumnChooser(header);
    m_summary->setContentsMargins(6, 2, 6, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_summary);
    layout->addWidget(m_view, 1);

    // A group comes expanded: its resources are what there is to pick.
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex& parent, int first, int last) {
                if (parent.isValid())
                    return;
                for (int r = first; r <= last; ++r)
                    m_view->expand(m_proxy->index(r, 0));
            });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ResourcesPane::onSelectionChanged);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &ResourcesPane::updateSummary);
    connect(m_model, &QAbstractItemModel::modelReset, this, &ResourcesPane::updateSummary);
    connect(m_model, &QAbstractItemModel::dataChanged, this, &ResourcesPane::updateSummary);
    updateSummary();
}

void ResourcesPane::addResources(const QStringList& resources) {
    m_model->addResources(resources);
}

void ResourcesPane::applyUpdate(const EngineUpdate& update) {
    m_model->applyUpdate(update);
}

void ResourcesPane::clear() {
    m_quiet = true;
    m_model->clear();
    m_known.clear();
    m_quiet = false;
}

void ResourcesPane::updateSummary() {
    int groups = m_model->rowCount();
    int unhealthy = 0;
    for (int g = 0; g < groups; ++g) {
        const QModelIndex group = m_model->index(g, 0);
        for (int r = 0; r < m_model->rowCount(group); ++r)
            if (m_model->index(r, 0, group).data(ResourceTreeModel::SeverityRole).toInt() >= 0)
                ++unhealthy;
    }
    const int resources = m_model->resourceCount();
    QString text =
        tr("%n resource(s)", nullptr, resources) + tr(" in %n API group(s)", nullptr, groups);
    if (unhealthy > 0)
        text += tr(", %n with open incidents", nullptr, unhealthy);
    if (m_summary->text() != text)
        m_summary->setText(text);
}

QStringList ResourcesPane::selectedResources() const {
    QStringList out;
    // In the view's order: the current row's resources first (what the charts show).
    QModelIndexList rows = m_view->selectionModel()->selectedRows(0);
    const QModelIndex current = m_view->selectionModel()->currentIndex().siblingAtColumn(0);
    std::stable_sort(rows.begin(), rows.end(), [&](const QModelIndex& a, const QModelIndex& b) {
        return (a == current) > (b == current);
    });
    for (const QModelIndex& proxyIndex : std::as_const(rows))
        for (const QString& r : m_model->resourcesOf(m_proxy->mapToSource(proxyIndex)))
            if (!out.contains(r))
                out << r;
    return out;
}

namespace {

bool sameSelection(const QStringList& a, const QStringList& b) {
    if (a.size() != b.size() || a.value(0) != b.value(0))
        return false;
    return QSet<QString>(a.cbegin(), a.cend()) == QSet<QString>(b.cbegin(), b.cend());
}

} // namespace

void ResourcesPane::onSelectionChanged() {
    if (m_quiet)
        return;
    const QStringList chosen = selectedResources();
    if (chosen.isEmpty() || sameSelection(chosen, m_known))
        return;
    m_known = chosen;
    emit resourcesChosen(chosen);
}

void ResourcesPane::showSelection(const QStringList& resources) {
    m_known = resources;
    if (sameSelection(resources, selectedResources()))
        return;
    m_quiet = true;
    QItemSelection selection;
    QModelIndex first;
    for (const QString& r : resources) {
        const QModelIndex source = m_model->indexOfResource(r);
        if (!source.isValid())
            continue;
        const QModelIndex row = m_proxy->mapFromSource(source);
        if (!first.isValid())
            first = row;
        selection.select(row, row.siblingAtColumn(ResourceTreeModel::ColumnCount - 1));
    }
    QItemSelectionModel* model = m_view->selectionModel();
    if (first.isValid())
        model->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
    model->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (first.isValid())
        m_view->scrollTo(first);
    m_quiet = false;
}

} // namespace ws

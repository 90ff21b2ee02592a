#include "TableSetup.h"

#include <QAction>
#include <QHeaderView>
#include <QMenu>
#include <QTableView>

namespace ws {

void setUpItemView(QAbstractItemView* view) {
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->setTextElideMode(Qt::ElideRight);
}

QTableView* makeTableView(QAbstractItemModel* model) {
    auto* view = new QTableView;
    setUpTableView(view, model);
    return view;
}

void setUpTableView(QTableView* view, QAbstractItemModel* model) {
    view->setModel(model);
    setUpItemView(view);
    view->setSortingEnabled(true);
    view->setWordWrap(false);
    view->verticalHeader()->setVisible(false);
    view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setStretchLastSection(true);
    view->horizontalHeader()->setDefaultSectionSize(110);
    view->horizontalHeader()->setHighlightSections(false);
    addColumnChooser(view->horizontalHeader());
}

void addColumnChooser(QHeaderView* header) {
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(
        header, &QWidget::customContextMenuRequested, header, [header](const QPoint& pos) {
            const QAbstractItemModel* model = header->model();
            if (!model)
                return;
            QMenu menu;
            for (int c = 0; c < model->columnCount(); ++c) {
                QAction* a = menu.addAction(model->headerData(c, Qt::Horizontal).toString());
                a->setCheckable(true);
                a->setChecked(!header->isSectionHidden(c));
                QObject::connect(a, &QAction::toggled, header,
                                 [header, c](bool on) { header->setSectionHidden(c, !on); });
            }
            menu.exec(header->mapToGlobal(pos));
        });
}

void setColumnWidths(QHeaderView* header, std::initializer_list<int> widths) {
    int column = 0;
    for (int w : widths)
        header->resizeSection(column++, w);
}

} // namespace ws

#include "ViewExporter.h"

#include "ViewExport.h"
#include "widgets/MainWindow.h"
#include "widgets/RvTimelineChart.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTreeView>

namespace ws {

ViewExporter::ViewExporter(MainWindow* window) : QObject(window), m_window(window) {
    QMenu* menu = window->exportMenu();
    QAction* png = menu->addAction(tr("Chart as &PNG…"));
    png->setObjectName(QStringLiteral("exportChartPng"));
    connect(png, &QAction::triggered, this, [this] {
        ask(tr("Export chart as PNG"), tr("PNG images (*.png)"), QStringLiteral("png"),
            [this](const QString& p) { return exportChartPng(p); });
    });
    QAction* svg = menu->addAction(tr("Chart as &SVG…"));
    svg->setObjectName(QStringLiteral("exportChartSvg"));
    connect(svg, &QAction::triggered, this, [this] {
        ask(tr("Export chart as SVG"), tr("SVG images (*.svg)"), QStringLiteral("svg"),
            [this](const QString& p) { return exportChartSvg(p); });
    });
    menu->addSeparator();
    const struct {
        Table table;
        QString label;
        const char* name;
    } tables[] = {{Table::Anomalies, tr("&Anomalies as CSV…"), "exportAnomaliesCsv"},
                  {Table::Watchers, tr("&Watchers as CSV…"), "exportWatchersCsv"},
                  {Table::Caches, tr("Watch &caches as CSV…"), "exportCachesCsv"},
                  {Table::Resources, tr("&Resources as CSV…"), "exportResourcesCsv"}};
    for (const auto& t : tables) {
        QAction* a = menu->addAction(t.label);
        a->setObjectName(QString::fromLatin1(t.name));
        a->setToolTip(tr("The rows the table shows now (its filter and sort), as CSV"));
        const Table table = t.table;
        connect(a, &QAction::triggered, this, [this, table] {
            ask(tr("Export table as CSV"), tr("CSV files (*.csv)"), QStringLiteral("csv"),
                [this, table](const QString& p) { return exportTableCsv(table, p); });
        });
    }
}

void ViewExporter::ask(const QString& title, const QString& filter, const QString& suffix,
                       const std::function<bool(const QString&)>& write) {
    // Window-modal but not a nested event loop: the session keeps being drawn behind it.
    auto* dialog = new QFileDialog(m_window, title, QDir::currentPath(), filter);
    dialog->setObjectName(QStringLiteral("exportFileDialog"));
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(suffix);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [write](const QString& p) { write(p); });
    dialog->open();
}

bool ViewExporter::report(bool ok, const QString& what, const QString& path, const QString& error) {
    if (ok)
        m_window->showStatusMessage(
            tr("Exported %1 to %2").arg(what, QDir::toNativeSeparators(path)), 8000);
    else
        m_window->showError(tr("Not exported"), error);
    return ok;
}

bool ViewExporter::exportChartPng(const QString& path) {
    QString error;
    const bool ok = ViewExport::savePng(m_window->rvChart(), path, &error);
    return report(ok, tr("the chart"), path, error);
}

bool ViewExporter::exportChartSvg(const QString& path) {
    QString error;
    const QString title =
        tr("WatchScope: resource versions of %1").arg(m_window->currentResource());
    const bool ok = ViewExport::saveSvg(m_window->rvChart(), path, title, &error);
    return report(ok, tr("the chart"), path, error);
}

bool ViewExporter::exportTableCsv(Table table, const QString& path) {
    if (table == Table::Resources) {
        const QTreeView* tree = m_window->resourceView();
        QString error;
        const bool ok = ViewExport::saveCsv(tree->model(), tree->header(), path, &error);
        int rows = 0;
        for (int g = 0; g < tree->model()->rowCount(); ++g)
            rows += 1 + tree->model()->rowCount(tree->model()->index(g, 0));
        return report(ok, tr("the resources (%1 rows)").arg(rows), path, error);
    }
    const QTableView* view = table == Table::Anomalies  ? m_window->anomalyView()
                             : table == Table::Watchers ? m_window->watcherView()
                                                        : m_window->cacheView();
    const QString what = table == Table::Anomalies  ? tr("the anomalies")
                         : table == Table::Watchers ? tr("the watchers")
                                                    : tr("the watch caches");
    QString error;
    const bool ok = ViewExport::saveCsv(view->model(), view->horizontalHeader(), path, &error);
    return report(ok, tr("%1 (%2 rows)").arg(what).arg(view->model()->rowCount()), path, error);
}

} // namespace ws

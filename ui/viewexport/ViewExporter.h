#pragma once

#include <QObject>
#include <functional>

class QAction;

namespace ws {

class MainWindow;

// File → Export of the window: the RV timeline chart as PNG or SVG, and the anomaly, watcher
// and watch-cache tables and the resource tree (groups, then their resources) as CSV with what
// their filters show (ViewExport). Each action asks for a file (a window-modal dialog that does not
// block the session) and says in one line in the status bar what was written or why not.
class ViewExporter : public QObject {
    Q_OBJECT
public:
    enum class Table { Anomalies, Watchers, Caches, Resources };

    explicit ViewExporter(MainWindow* window);

    bool exportChartPng(const QString& path);
    bool exportChartSvg(const QString& path);
    bool exportTableCsv(Table table, const QString& path);

private:
    void ask(const QString& title, const QString& filter, const QString& suffix,
             const std::function<bool(const QString&)>& write);
    bool report(bool ok, const QString& what, const QString& path, const QString& error);

    MainWindow* m_window;
};

} // namespace ws

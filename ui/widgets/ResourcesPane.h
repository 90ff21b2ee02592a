#pragma once

#include "engine/EngineUpdate.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTreeView;

namespace ws {

class ResourceTreeModel;

// The session's resources as a tree by API group (ResourceTreeModel): objects, events/s and a
// health badge per resource, aggregated per group. Selecting rows picks what the window shows:
// a resource, several (Ctrl/Shift+click), or a group's resources; the charts show the first of
// them, the watcher and cache tables all of them. showSelection() mirrors a selection made
// elsewhere (the chooser, an anomaly's resource) without emitting it back.
class ResourcesPane : public QWidget {
    Q_OBJECT
public:
    explicit ResourcesPane(QWidget* parent = nullptr);

    ResourceTreeModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTreeView* view() const { return m_view; }

    void addResources(const QStringList& resources);
    void applyUpdate(const EngineUpdate& update);
    void clear();
    // Selects these resources' rows (the current one made current), quietly.
    void showSelection(const QStringList& resources);
    // The resources of the selected rows, in the view's order (a group row: its resources).
    QStringList selectedResources() const;

signals:
    // The reader selected rows: these resources, the first one the one to chart.
    void resourcesChosen(const QStringList& resources);

private:
    void onSelectionChanged();
    void updateSummary();

    ResourceTreeModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTreeView* m_view;
    QLabel* m_summary;
    bool m_quiet = false;
    // What is selected as far as the window knows (shown or chosen last): a selection that only
    // moved (a re-sort, new rows) is not the reader choosing again.
    QStringList m_known;
};

} // namespace ws

#pragma once

#include "engine/EngineUpdate.h"

#include <QWidget>

class QLabel;
class QModelIndex;
class QTreeView;

namespace ws {

class IncidentSortProxy;
class IncidentTreeModel;

// The incidents of the session (SPEC §2), worst first, as Wireshark's Expert Information: one
// row per incident, expanded (a click on its arrow, Enter, or →) to its anomalies, which are
// fetched a page at a time as the reader scrolls down through them. Selecting an anomaly names
// it; selecting an incident names its first anomaly still kept. The window shows what is named
// as it shows a row selected in the anomaly list.
class IncidentsPane : public QWidget {
    Q_OBJECT
public:
    explicit IncidentsPane(QWidget* parent = nullptr);

    IncidentTreeModel* model() const { return m_model; }
    IncidentSortProxy* proxy() const { return m_proxy; }
    QTreeView* view() const { return m_view; }
    QString summaryText() const; // "3 incidents, 1,061 anomalies"

    void applyUpdate(const QVector<Incident>& incidents, const AnomalyList& anomalies,
                     qint64 missingBefore);
    void clear();
    // Selects the anomaly with this 0-based session number, expanding its incident; false when
    // it is no longer kept (or never came).
    bool selectSerial(qint64 serial);
    // Forgets the selection without saying so (a new session).
    void clearSelection();

signals:
    void anomalySelected(const ws::Anomaly& anomaly, qint64 serial);
    // Nothing selected any more, or an incident none of whose anomalies is kept.
    void selectionCleared();
    // The selected anomaly was dropped (only the newest are kept): the selection is gone.
    void selectedDropped();
    void countsChanged();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void onCurrentChanged(const QModelIndex& current);
    // Fetches the next page of an expanded incident whose last fetched row is in view.
    void fetchVisible();
    void updateSummary();

    IncidentTreeModel* m_model;
    IncidentSortProxy* m_proxy;
    QTreeView* m_view;
    QLabel* m_summary;
    bool m_quiet = false; // selection changes made here, not by the reader
};

} // namespace ws

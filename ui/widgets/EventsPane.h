#pragma once

#include "engine/EngineUpdate.h"
#include "engine/EventFilter.h"
#include "engine/EventJournal.h"
#include "viewstate/ThrottledRefresh.h"

#include <QSet>
#include <QWidget>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QModelIndex;
class QPushButton;
class QTableView;

namespace ws {

class EventDetailPane;
class EventTableModel;
class Session;

// Every event the session's sources received, as Wireshark shows packets: the display filter
// (types, resource, namespace, name regex, RV range, anomaly-only) above the events table
// (EventTableModel over the session's EventJournal) above the selected event's details and its
// diff against the previous version of the same object (EventDetailPane). Rows come in from
// the journal on the window's update tick (applyUpdate), never per event; the table follows
// the newest row while the reader stays at the bottom and selects nothing.
// Keys: Enter in the filter bar applies it; Ctrl+Shift+F (focusFilterShortcut(), the window's
// action) focuses it.
class EventsPane : public QWidget {
    Q_OBJECT
public:
    explicit EventsPane(QWidget* parent = nullptr);
    ~EventsPane() override;

    // Shows `session`'s journal from now on (null: none), forgetting the rows, anomalies and
    // selection of the previous one; the filter stays.
    void setSession(Session* session);
    void setJournal(std::shared_ptr<const EventJournal> journal, const QString& note = {});
    // The window's update tick: the anomalies it carries (for anomaly-only and the events they
    // name; the first numbered `firstSerial` in the session, -1: not known) and the events the
    // journal received since the last one; resources seen are offered in the filter bar.
    void applyUpdate(const EngineUpdate& update, qint64 firstSerial = -1);
    // The rows the journal received since the last tick, without an update (a paused view).
    void refresh();
    void focusFilter();

    // The filter as the bar says, and the bar set to `filter` and applied.
    EventFilter filterFromBar() const;
    void setFilter(const EventFilter& filter);
    void applyFilter(); // the bar's filter to the table; a bad one is said in the bar
    void clearFilter();

    // Selects a row of the table; false when there is no such row.
    bool selectRow(int row);
    QString countText() const;
    QString tabCount() const; // "1,234", or "12 of 1,234" through a filter
    static QKeySequence focusFilterShortcut();

    EventTableModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    EventDetailPane* detail() const { return m_detail; }
    QLineEdit* nameEdit() const { return m_name; }
    QLabel* noteLabel() const { return m_note; }

signals:
    // Rows, or rows shown through the filter, changed (a tab title may count them).
    void countsChanged();
    // The event selected is named by an anomaly (the first that names it): the window shows
    // it as it shows one selected in the anomaly list. serial: -1 when not known.
    void anomalySelected(const ws::Anomaly& anomaly, qint64 serial);
    // The selection went, or moved to an event no anomaly names.
    void selectionCleared();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void onCurrentChanged(const QModelIndex& current);
    void updateCounts();
    void foldRows(bool follow);

    std::shared_ptr<const EventJournal> m_journal;
    EventTableModel* m_model;
    QTableView* m_view = nullptr;
    EventDetailPane* m_detail = nullptr;
    QLabel* m_note = nullptr;
    QCheckBox* m_added = nullptr;
    QCheckBox* m_modified = nullptr;
    QCheckBox* m_deleted = nullptr;
    QComboBox* m_resource = nullptr;
    QLineEdit* m_namespace = nullptr;
    QLineEdit* m_name = nullptr;
    QLineEdit* m_minRv = nullptr;
    QLineEdit* m_maxRv = nullptr;
    QCheckBox* m_anomalyOnly = nullptr;
    QLabel* m_filterError = nullptr;
    QLabel* m_counts = nullptr;
    qint64 m_shownIndex = -1; // the journal index the detail pane shows
    QSet<QString> m_offered;  // resources in the filter bar's chooser
    // A hidden table takes the journal's new rows twice a second, not on every tick: inserting
    // rows into a view costs the same seen or not, and only the tab title's count is read.
    ThrottledRefresh m_hiddenRefresh{500, [this] { refresh(); }};
};

} // namespace ws

#pragma once

#include "model/Anomaly.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QModelIndex;
class QTableView;

namespace ws {

class AnomalyFilterProxy;
class AnomalyListModel;

// The raw anomaly rows, as Wireshark's packet list: every anomaly of the session in arrival
// order (the newest 100,000), with its display filter (text, kind, severity) above it. Follows
// the newest row while the reader stays at the bottom and selects nothing. Selecting a row
// names its anomaly; a selected row that the list drops is unselected without a jump to a
// neighbour, and said so.
class AnomaliesPane : public QWidget {
    Q_OBJECT
public:
    explicit AnomaliesPane(QWidget* parent = nullptr);

    AnomalyListModel* model() const { return m_model; }
    AnomalyFilterProxy* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filterEdit; }
    QComboBox* kindChooser() const { return m_kindBox; }
    QComboBox* severityChooser() const { return m_severityBox; }
    QString shownText() const; // "12 shown", "3 of 12 shown"

    // A batch of the session's anomalies (see AnomalyListModel::appendAnomalies).
    void append(const AnomalyList& batch, qint64 missingBefore);
    // Selects a row by its row in the model; false when the display filter hides it.
    bool selectRow(int sourceRow);
    // Forgets the selection without saying so (a new session).
    void clearSelection();
    void focusFilter();

signals:
    void anomalySelected(const ws::Anomaly& anomaly, qint64 serial);
    void selectionCleared();
    // The selected anomaly left the list (it keeps the newest): the selection is gone.
    void selectedDropped();
    // Rows, or rows shown through the filter, changed.
    void countsChanged();

private:
    void onCurrentChanged(const QModelIndex& current);
    void updateShown();

    AnomalyListModel* m_model;
    AnomalyFilterProxy* m_proxy;
    QTableView* m_view = nullptr;
    QLineEdit* m_filterEdit = nullptr;
    QComboBox* m_kindBox = nullptr;
    QComboBox* m_severityBox = nullptr;
    QLabel* m_shownLabel = nullptr;
    bool m_quiet = false; // selection changes made here, not by the reader
};

} // namespace ws

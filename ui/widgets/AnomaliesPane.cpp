#include "AnomaliesPane.h"

#include "TableSetup.h"
#include "models/AnomalyFilterProxy.h"
#include "models/AnomalyListModel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QTableView>
#include <QVBoxLayout>
#include <optional>

namespace ws {

AnomaliesPane::AnomaliesPane(QWidget* parent)
    : QWidget(parent), m_model(new AnomalyListModel(this)), m_proxy(new AnomalyFilterProxy(this)) {
    m_proxy->setSourceModel(m_model);

    m_filterEdit = new QLineEdit;
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->setPlaceholderText(
        tr("Display filter, e.g. resource:pods kind:too-old !watcher:kubelet  (terms AND-ed)"));
    m_filterEdit->setToolTip(
        tr("Whitespace-separated terms, all must match. field:value with field one of kind, "
           "severity, source, resource, key, watcher, rv, message; a bare word searches every "
           "field; a leading ! negates a term."));
    connect(m_filterEdit, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setText(text);
        updateShown();
    });

    m_kindBox = new QComboBox;
    m_kindBox->addItem(tr("All kinds"));
    for (AnomalyKind kind : allAnomalyKinds())
        m_kindBox->addItem(kindName(kind), int(kind));
    connect(m_kindBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QVariant v = m_kindBox->itemData(index);
        m_proxy->setKind(v.isValid() ? std::optional(AnomalyKind(v.toInt())) : std::nullopt);
        updateShown();
    });

    m_severityBox = new QComboBox;
    m_severityBox->addItem(tr("All severities"));
    for (Severity s : {Severity::Error, Severity::Warning, Severity::Info})
        m_severityBox->addItem(severityName(s), int(s));
    connect(m_severityBox, &QComboBox::currentIndexChanged, this, [this](int index) {
        const QVariant v = m_severityBox->itemData(index);
        m_proxy->setSeverity(v.isValid() ? std::optional(Severity(v.toInt())) : std::nullopt);
        updateShown();
    });
    m_shownLabel = new QLabel;

    auto* filterRow = new QHBoxLayout;
    filterRow->setContentsMargins(4, 4, 4, 0);
    filterRow->addWidget(m_filterEdit, 1);
    filterRow->addWidget(m_kindBox);
    filterRow->addWidget(m_severityBox);
    filterRow->addWidget(m_shownLabel);

    m_view = makeTableView(m_proxy);
    m_view->sortByColumn(AnomalyListModel::NumberColumn, Qt::AscendingOrder);
    setColumnWidths(m_view->horizontalHeader(), {48, 72, 86, 150, 76, 90, 64, 160, 170});
    // One simulator or one endpoint per session: the source rarely tells rows apart, so it
    // starts hidden (the header's context menu shows it) and leaves the message room.
    m_view->horizontalHeader()->setSectionHidden(AnomalyListModel::SourceColumn, true);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(filterRow);
    layout->addWidget(m_view, 1);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onCurrentChanged(current); });
    // When the list drops the selected row (it keeps the newest), Qt would move the selection
    // to a neighbour and the details and the chart would jump to an unrelated anomaly: clear
    // the selection instead, and say that the selected anomaly was dropped.
    connect(m_model, &AnomalyListModel::aboutToDropOldest, this, [this](int count) {
        const QModelIndex current = m_view->selectionModel()->currentIndex();
        if (!current.isValid() || m_proxy->mapToSource(current).row() >= count)
            return;
        clearSelection();
        emit selectedDropped();
    });
    updateShown();
}

QString AnomaliesPane::shownText() const {
    return m_shownLabel->text();
}

void AnomaliesPane::updateShown() {
    const int total = m_model->rowCount();
    const int shown = m_proxy->rowCount();
    m_shownLabel->setText(shown == total ? tr("%1 shown").arg(total)
                                         : tr("%1 of %2 shown").arg(shown).arg(total));
    emit countsChanged();
}

void AnomaliesPane::append(const AnomalyList& batch, qint64 missingBefore) {
    if (batch.isEmpty() && missingBefore <= 0)
        return;
    // Keep the newest row in view, as Wireshark does during a live capture, unless the reader
    // scrolled away from the bottom or selected a row.
    QScrollBar* bar = m_view->verticalScrollBar();
    const bool atBottom = bar->value() >= bar->maximum();
    m_model->appendAnomalies(batch, missingBefore);
    if (atBottom && !m_view->selectionModel()->hasSelection())
        m_view->scrollToBottom();
    updateShown();
}

bool AnomaliesPane::selectRow(int sourceRow) {
    const QModelIndex proxy = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    if (!proxy.isValid())
        return false;
    m_view->selectionModel()->setCurrentIndex(proxy, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
    m_view->scrollTo(proxy);
    return true;
}

void AnomaliesPane::clearSelection() {
    m_quiet = true;
    m_view->selectionModel()->clear();
    m_quiet = false;
}

void AnomaliesPane::focusFilter() {
    m_filterEdit->setFocus(Qt::ShortcutFocusReason);
    m_filterEdit->selectAll();
}

void AnomaliesPane::onCurrentChanged(const QModelIndex& current) {
    if (m_quiet)
        return;
    if (!current.isValid()) {
        emit selectionCleared();
        return;
    }
    const int row = m_proxy->mapToSource(current).row();
    emit anomalySelected(m_model->anomaly(row), m_model->serialOf(row));
}

} // namespace ws

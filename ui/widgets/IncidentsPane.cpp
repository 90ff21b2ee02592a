#include "IncidentsPane.h"

#include "TableSetup.h"
#include "models/CellFormat.h"
#include "models/IncidentSortProxy.h"
#include "models/IncidentTreeModel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QScrollBar>
#include <QStyledItemDelegate>
#include <QTreeView>
#include <QVBoxLayout>

namespace ws {

namespace {

// Rows of an incident's anomalies from its last fetched one at which the next page is fetched.
constexpr int kFetchAhead = 50;

// Keys and watcher ids differ at their end ("/registry/pods/ns-0/pod-3", "informer/kube-
// scheduler"): elided in the middle, a narrow column still tells them apart.
class ElideMiddleDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = Qt::ElideMiddle;
    }
};

} // namespace

IncidentsPane::IncidentsPane(QWidget* parent)
    : QWidget(parent), m_model(new IncidentTreeModel(this)), m_proxy(new IncidentSortProxy(this)),
      m_view(new QTreeView), m_summary(new QLabel) {
    m_proxy->setSourceModel(m_model);

    m_view->setObjectName(QStringLiteral("incidentView"));
    m_view->setModel(m_proxy);
    setUpItemView(m_view);
    m_view->setUniformRowHeights(true); // a live tree must not measure every row it has
    m_view->setAllColumnsShowFocus(true);
    m_view->setWordWrap(false);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(IncidentTreeModel::SeverityColumn, Qt::DescendingOrder);
    QHeaderView* header = m_view->header();
    header->setStretchLastSection(true);
    header->setHighlightSections(false);
    header->setSectionsMovable(false);
    addColumnChooser(header);
    // Fits "initial-events-stalled", "1,000,000", "/registry/pods/ns-0/pod-3" and a session time,
    // and most watcher ids; the first message takes the rest.
    setColumnWidths(header, {96, 132, 70, 152, 70, 152, 62, 70});
    auto* elideMiddle = new ElideMiddleDelegate(m_view);
    m_view->setItemDelegateForColumn(IncidentTreeModel::WatchersColumn, elideMiddle);
    m_view->setItemDelegateForColumn(IncidentTreeModel::KeysColumn, elideMiddle);
    m_view->setToolTip(tr("Incidents, worst first. Expand one (Enter, → or its arrow) to see its "
                          "anomalies; selecting one shows it in the details and on the chart."));
    m_view->installEventFilter(this);

    m_summary->setObjectName(QStringLiteral("incidentSummary"));
    auto* top = new QHBoxLayout;
    top->setContentsMargins(6, 4, 6, 0);
    top->addWidget(m_summary, 1);
    auto* hint = new QLabel(tr("Enter expands an incident to its anomalies"));
    hint->setEnabled(false); // greyed: a hint, not data
    top->addWidget(hint);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onCurrentChanged(current); });
    connect(m_view, &QTreeView::expanded, this, [this](const QModelIndex& index) {
        if (m_proxy->rowCount(index) == 0 && m_proxy->canFetchMore(index))
            m_proxy->fetchMore(index);
        fetchVisible();
    });
    connect(m_view->verticalScrollBar(), &QScrollBar::valueChanged, this,
            &IncidentsPane::fetchVisible);
    // An anomaly that goes (only the newest are kept) must not hand the selection to a
    // neighbour: the details and the chart would jump to an unrelated anomaly.
    connect(m_model, &IncidentTreeModel::aboutToDropBefore, this, [this](qint64 serial) {
        const QModelIndex current = m_view->selectionModel()->currentIndex();
        if (!current.isValid() || !current.parent().isValid() ||
            current.data(IncidentTreeModel::SerialRole).toLongLong() >= serial)
            return;
        clearSelection();
        emit selectedDropped();
    });
    updateSummary();
}

QString IncidentsPane::summaryText() const {
    return m_summary->text();
}

void IncidentsPane::updateSummary() {
    const int incidents = m_model->incidentCount();
    const qint64 seen = m_model->anomaliesSeen();
    QString text = (incidents == 1 ? tr("1 incident") : tr("%1 incidents").arg(incidents)) +
                   QStringLiteral(", ") +
                   (seen == 1 ? tr("1 anomaly") : tr("%1 anomalies").arg(formatCount(seen)));
    if (m_model->anomaliesDropped() > 0)
        text += tr(" (the newest %1 listed)").arg(formatCount(m_model->anomaliesKept()));
    m_summary->setText(text);
}

void IncidentsPane::applyUpdate(const QVector<Incident>& incidents, const AnomalyList& anomalies,
                                qint64 missingBefore) {
    if (incidents.isEmpty() && anomalies.isEmpty() && missingBefore <= 0)
        return;
    m_model->applyUpdate(incidents, anomalies, missingBefore);
    updateSummary();
    emit countsChanged();
}

void IncidentsPane::clear() {
    clearSelection();
    m_model->clear();
    updateSummary();
    emit countsChanged();
}

bool IncidentsPane::selectSerial(qint64 serial) {
    const QModelIndex proxy = m_proxy->mapFromSource(m_model->indexOfSerial(serial));
    if (!proxy.isValid())
        return false;
    m_view->expand(proxy.parent());
    m_view->selectionModel()->setCurrentIndex(proxy, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
    m_view->scrollTo(proxy);
    return true;
}

void IncidentsPane::clearSelection() {
    m_quiet = true;
    m_view->selectionModel()->clear();
    m_quiet = false;
}

void IncidentsPane::onCurrentChanged(const QModelIndex& current) {
    if (m_quiet)
        return;
    const QModelIndex source = m_proxy->mapToSource(current);
    if (!source.isValid()) {
        emit selectionCleared();
        return;
    }
    qint64 serial = -1;
    const Anomaly* a = m_model->anomaly(source);
    if (a)
        serial = source.data(IncidentTreeModel::SerialRole).toLongLong();
    else
        a = m_model->firstAnomaly(source.row(), &serial);
    if (!a) {
        emit selectionCleared(); // an incident whose anomalies all went
        return;
    }
    const Anomaly copy = *a; // the receiver may change the model
    emit anomalySelected(copy, serial);
}

void IncidentsPane::fetchVisible() {
    const QModelIndex bottom =
        m_view->indexAt(QPoint(m_view->viewport()->width() / 2, m_view->viewport()->height() - 2));
    if (!bottom.isValid()) {
        // The rows do not fill the view: every expanded incident's last row is in sight.
        for (int r = 0; r < m_proxy->rowCount(); ++r) {
            const QModelIndex incident = m_proxy->index(r, 0);
            if (m_view->isExpanded(incident) && m_proxy->canFetchMore(incident))
                m_proxy->fetchMore(incident);
        }
        return;
    }
    const QModelIndex incident = bottom.parent();
    if (incident.isValid() && bottom.row() >= m_proxy->rowCount(incident) - kFetchAhead &&
        m_proxy->canFetchMore(incident))
        m_proxy->fetchMore(incident);
}

bool IncidentsPane::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view && event->type() == QEvent::KeyPress) {
        const auto* key = static_cast<QKeyEvent*>(event);
        const QModelIndex current = m_view->currentIndex();
        if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
            (key->modifiers() & ~Qt::KeypadModifier) == Qt::NoModifier && current.isValid() &&
            !current.parent().isValid()) {
            const QModelIndex incident = current.siblingAtColumn(0);
            m_view->setExpanded(incident, !m_view->isExpanded(incident));
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace ws

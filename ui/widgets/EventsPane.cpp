#include "EventsPane.h"

#include "EventDetailPane.h"
#include "engine/Session.h"
#include "models/CellFormat.h"
#include "models/EventTableModel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace ws {

namespace {

QString noteFor(Session* session) {
    if (!session)
        return {};
    QStringList kinds;
    for (int i = 0; i < session->sourceCount(); ++i)
        kinds << session->source(i)->kind();
    QString note = QObject::tr("Every event the session's sources received, oldest first.");
    if (kinds.contains(QLatin1String("simulator")) || kinds.contains(QLatin1String("capture")))
        note += u' ' + QObject::tr("The simulator's events are its etcd's commits (the source "
                                   "of truth), not each informer's deliveries.");
    if (kinds.contains(QLatin1String("etcd")))
        note += u' ' + QObject::tr("etcd: every PUT (ADDED when it creates the key) and DELETE "
                                   "of the watch.");
    if (kinds.contains(QLatin1String("cluster")))
        note += u' ' + QObject::tr("Cluster: every event each informer's watch received "
                                   "(bookmarks are not listed).");
    if (kinds.contains(QLatin1String("audit")))
        note += u' ' + QObject::tr("Audit log: it holds requests, not the events they "
                                   "returned, so nothing is listed here; the Watchers tab "
                                   "shows each client's lists and watches.");
    return note;
}

} // namespace

EventsPane::EventsPane(QWidget* parent) : QWidget(parent), m_model(new EventTableModel(this)) {
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setStyleSheet(QStringLiteral("color:#555555"));

    // The display filter.
    m_added = new QCheckBox(QStringLiteral("ADDED"), this);
    m_modified = new QCheckBox(QStringLiteral("MODIFIED"), this);
    m_deleted = new QCheckBox(QStringLiteral("DELETED"), this);
    for (QCheckBox* box : {m_added, m_modified, m_deleted})
        box->setChecked(true);
    m_resource = new QComboBox(this);
    m_resource->setEditable(true);
    m_resource->setInsertPolicy(QComboBox::NoInsert);
    m_resource->addItem(QString());
    m_resource->lineEdit()->setPlaceholderText(tr("resource"));
    m_resource->setMinimumContentsLength(14);
    m_resource->setToolTip(tr("Only this resource (exactly); empty: every resource"));
    m_namespace = new QLineEdit(this);
    m_namespace->setPlaceholderText(tr("namespace"));
    m_namespace->setToolTip(tr("Only this namespace (exactly)"));
    m_name = new QLineEdit(this);
    m_name->setPlaceholderText(tr("name regex"));
    m_name->setToolTip(tr("A regular expression found in the object's name (the key for keys "
                          "that name no object), e.g. ^web-[0-9]+$"));
    m_name->setClearButtonEnabled(true);
    auto* rvValidator =
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[0-9]{0,18}")), this);
    m_minRv = new QLineEdit(this);
    m_minRv->setPlaceholderText(tr("RV from"));
    m_minRv->setValidator(rvValidator);
    m_minRv->setMaximumWidth(110);
    m_maxRv = new QLineEdit(this);
    m_maxRv->setPlaceholderText(tr("RV to"));
    m_maxRv->setValidator(rvValidator);
    m_maxRv->setMaximumWidth(110);
    m_anomalyOnly = new QCheckBox(tr("Anomalies only"), this);
    m_anomalyOnly->setObjectName(QStringLiteral("eventAnomalyOnly"));
    m_anomalyOnly->setToolTip(tr("Only events an anomaly names (its key at its RV)"));
    auto* apply = new QPushButton(tr("Apply"), this);
    apply->setToolTip(tr("Apply the filter (Enter)"));
    auto* clear = new QPushButton(tr("Clear"), this);
    m_filterError = new QLabel(this);
    m_filterError->setObjectName(QStringLiteral("eventFilterError"));
    m_filterError->setStyleSheet(QStringLiteral("color:#b00020"));
    m_filterError->setVisible(false);
    m_counts = new QLabel(this);
    m_counts->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_added);
    bar->addWidget(m_modified);
    bar->addWidget(m_deleted);
    bar->addWidget(m_resource);
    bar->addWidget(m_namespace);
    bar->addWidget(m_name, 2);
    bar->addWidget(m_minRv);
    bar->addWidget(new QLabel(QStringLiteral(".."), this));
    bar->addWidget(m_maxRv);
    bar->addWidget(m_anomalyOnly);
    bar->addWidget(apply);
    bar->addWidget(clear);

    m_view = new QTableView(this);
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setWordWrap(false);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->setVisible(false);
    // Millions of rows: every row the same height, never measured.
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->horizontalHeader()->setStretchLastSection(true);
    const int widths[] = {90, 110, 90, 160, 300, 90, 80, 200};
    for (int c = 0; c < EventTableModel::ColumnCount; ++c)
        m_view->setColumnWidth(c, widths[c]);

    m_detail = new EventDetailPane(this);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_view);
    split->addWidget(m_detail);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_note);
    layout->addLayout(bar);
    layout->addWidget(m_filterError);
    layout->addWidget(split, 1);
    layout->addWidget(m_counts);

    for (QLineEdit* edit : {m_resource->lineEdit(), m_namespace, m_name, m_minRv, m_maxRv})
        connect(edit, &QLineEdit::returnPressed, this, &EventsPane::applyFilter);
    connect(apply, &QPushButton::clicked, this, &EventsPane::applyFilter);
    connect(clear, &QPushButton::clicked, this, &EventsPane::clearFilter);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onCurrentChanged(current); });
    connect(m_model, &EventTableModel::scanProgressed, this, &EventsPane::updateCounts);
    // Rows found by the filter's scan arrive between ticks: follow them too.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_view->selectionModel()->hasSelection() &&
            m_view->verticalScrollBar()->value() >= m_view->verticalScrollBar()->maximum() - 1)
            m_view->scrollToBottom();
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_shownIndex = -1;
        m_detail->clear();
        emit selectionCleared();
    });
    updateCounts();
}

EventsPane::~EventsPane() = default;

QKeySequence EventsPane::focusFilterShortcut() {
    return QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F);
}

void EventsPane::setSession(Session* session) {
    std::shared_ptr<const EventJournal> journal = session ? session->journal() : nullptr;
    if (journal && !journal->enabled())
        setJournal(nullptr, tr("This session records no events (it was made without an event "
                               "journal)."));
    else
        setJournal(std::move(journal), noteFor(session));
}

QString EventsPane::tabCount() const {
    const JournalStats s = m_model->stats();
    if (m_model->filter().isEmpty())
        return formatCount(s.total);
    return tr("%1 of %2").arg(formatCount(m_model->rowCount()), formatCount(s.total));
}

void EventsPane::setJournal(std::shared_ptr<const EventJournal> journal, const QString& note) {
    m_journal = std::move(journal);
    m_note->setText(note);
    m_note->setVisible(!note.isEmpty());
    m_model->setJournal(m_journal);
    m_detail->clear();
    m_shownIndex = -1;
    updateCounts();
}

void EventsPane::applyUpdate(const EngineUpdate& update, qint64 firstSerial) {
    m_model->addAnomalies(update.anomalies, firstSerial);
    const auto offer = [this](const QString& r) {
        if (!r.isEmpty() && !m_offered.contains(r)) {
            m_offered.insert(r);
            m_resource->addItem(r);
        }
    };
    for (const CacheSnapshot& c : update.caches)
        offer(c.resource);
    for (const WatcherSnapshot& w : update.watchers)
        offer(w.resource);
    if (isVisible())
        refresh();
    else
        m_hiddenRefresh.request();
}

void EventsPane::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    refresh(); // the rows a hidden pane was still to take
}

void EventsPane::refresh() {
    foldRows(true);
    updateCounts();
}

void EventsPane::foldRows(bool follow) {
    const QScrollBar* bar = m_view->verticalScrollBar();
    const bool atBottom = bar->value() >= bar->maximum() - 1;
    m_model->refresh();
    if (follow && atBottom && !m_view->selectionModel()->hasSelection())
        m_view->scrollToBottom();
}

void EventsPane::focusFilter() {
    m_name->setFocus(Qt::ShortcutFocusReason);
    m_name->selectAll();
}

EventFilter EventsPane::filterFromBar() const {
    EventFilter f;
    std::uint8_t types = 0;
    if (m_added->isChecked())
        types |= EventFilter::typeBit(WatchEventType::Added);
    if (m_modified->isChecked())
        types |= EventFilter::typeBit(WatchEventType::Modified);
    if (m_deleted->isChecked())
        types |= EventFilter::typeBit(WatchEventType::Deleted);
    const std::uint8_t all = EventFilter::typeBit(WatchEventType::Added) |
                             EventFilter::typeBit(WatchEventType::Modified) |
                             EventFilter::typeBit(WatchEventType::Deleted);
    // None ticked shows none: only bookmarks, which the journal does not hold.
    f.types = types == all ? 0
              : types == 0 ? EventFilter::typeBit(WatchEventType::Bookmark)
                           : types;
    f.resource = m_resource->currentText().trimmed();
    f.ns = m_namespace->text().trimmed();
    f.nameRegex = m_name->text();
    f.minRv = m_minRv->text().toLongLong();
    f.maxRv = m_maxRv->text().toLongLong();
    f.anomalyOnly = m_anomalyOnly->isChecked();
    return f;
}

void EventsPane::setFilter(const EventFilter& f) {
    m_added->setChecked(f.showsType(WatchEventType::Added));
    m_modified->setChecked(f.showsType(WatchEventType::Modified));
    m_deleted->setChecked(f.showsType(WatchEventType::Deleted));
    m_resource->setEditText(f.resource);
    m_namespace->setText(f.ns);
    m_name->setText(f.nameRegex);
    m_minRv->setText(f.minRv > 0 ? QString::number(f.minRv) : QString());
    m_maxRv->setText(f.maxRv > 0 ? QString::number(f.maxRv) : QString());
    m_anomalyOnly->setChecked(f.anomalyOnly);
    applyFilter();
}

void EventsPane::applyFilter() {
    const EventFilter f = filterFromBar();
    const QString error = f.error();
    m_filterError->setText(error.isEmpty() ? QString() : tr("Filter not applied: %1").arg(error));
    m_filterError->setVisible(!error.isEmpty());
    if (!error.isEmpty())
        return;
    m_model->setFilter(f);
    updateCounts();
}

void EventsPane::clearFilter() {
    setFilter(EventFilter());
}

bool EventsPane::selectRow(int row) {
    if (row < 0 || row >= m_model->rowCount())
        return false;
    const QModelIndex index = m_model->index(row, 0);
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
    m_view->scrollTo(index);
    return true;
}

void EventsPane::onCurrentChanged(const QModelIndex& current) {
    const qint64 index = current.isValid() ? m_model->indexAt(current.row()) : -1;
    if (index == m_shownIndex)
        return;
    m_shownIndex = index;
    const JournalEntry entry = index >= 0 && m_journal ? m_journal->entry(index) : JournalEntry();
    if (!entry.valid()) {
        m_detail->clear();
        emit selectionCleared();
        return;
    }
    const JournalEntry previous =
        entry.previous >= 0 ? m_journal->entry(entry.previous) : JournalEntry();
    const QVector<EventAnomaly> anomalies = m_model->anomaliesOf(entry.key, entry.rv);
    m_detail->showEntry(entry, previous, anomalies);
    if (anomalies.isEmpty())
        emit selectionCleared();
    else
        emit anomalySelected(anomalies.front().anomaly, anomalies.front().serial);
}

QString EventsPane::countText() const {
    const JournalStats s = m_model->stats();
    QString text = tr("%1 events received").arg(formatCount(s.total));
    if (s.droppedEntries() > 0)
        text += tr(" · the oldest %1 dropped, the newest %2 kept")
                    .arg(formatCount(s.droppedEntries()), formatCount(s.held()));
    if (s.contentFloor > s.first)
        text += tr(" · objects kept from No. %1 on").arg(formatCount(s.contentFloor + 1));
    if (!m_model->filter().isEmpty()) {
        text += tr(" · %1 shown (%2)")
                    .arg(formatCount(m_model->rowCount()), m_model->filter().describe());
        if (m_model->scanning())
            text += tr(" · filtering… %1%").arg(qRound(m_model->scanProgress() * 100));
    }
    return text;
}

void EventsPane::updateCounts() {
    const QString text = countText();
    if (text == m_counts->text())
        return; // a label relayouts on every setText
    m_counts->setText(text);
    emit countsChanged();
}

} // namespace ws

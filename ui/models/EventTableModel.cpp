#include "EventTableModel.h"

#include "CellFormat.h"
#include "EventFilterScanner.h"

#include <QColor>
#include <algorithm>

namespace ws {

namespace {

std::uint64_t markOfKey(const QString& key, ResourceVersion rv) {
    const QByteArray utf8 = key.toUtf8();
    return EventJournal::markOf(
        EventJournal::keyHash(std::string_view(utf8.constData(), std::size_t(utf8.size()))), rv);
}

QColor typeColor(WatchEventType type) {
    switch (type) {
    case WatchEventType::Added:
        return QColor(0x1b, 0x7a, 0x2e);
    case WatchEventType::Deleted:
        return QColor(0xb0, 0x00, 0x20);
    default:
        return {};
    }
}

} // namespace

EventTableModel::EventTableModel(QObject* parent)
    : QAbstractTableModel(parent), m_scanner(new EventFilterScanner(this)) {
    connect(m_scanner, &EventFilterScanner::found, this, &EventTableModel::onFound);
}

EventTableModel::~EventTableModel() = default;

int EventTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid())
        return 0;
    return filtered() ? int(m_matches.size()) : int(m_end - m_first);
}

int EventTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NumberColumn:
            return tr("No.");
        case TimeColumn:
            return tr("Time (s)");
        case TypeColumn:
            return tr("Type");
        case ResourceColumn:
            return tr("Resource");
        case ObjectColumn:
            return tr("Namespace/Name");
        case RvColumn:
            return tr("RV");
        case SizeColumn:
            return tr("Size");
        case WatcherColumn:
            return tr("Watcher");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case TimeColumn:
            return tr("Session time the event was received");
        case RvColumn:
            return tr("mod_revision (etcd) or metadata.resourceVersion");
        case SizeColumn:
            return tr("Bytes received for the event");
        case WatcherColumn:
            return tr("The stream that received it");
        }
    }
    return {};
}

qint64 EventTableModel::indexAt(int row) const {
    if (row < 0 || row >= rowCount())
        return -1;
    return filtered() ? m_matches[std::size_t(row)] : m_first + row;
}

int EventTableModel::rowOf(qint64 index) const {
    if (!filtered())
        return index >= m_first && index < m_end ? int(index - m_first) : -1;
    const auto it = std::lower_bound(m_matches.begin(), m_matches.end(), index);
    return it != m_matches.end() && *it == index ? int(it - m_matches.begin()) : -1;
}

const JournalEntry* EventTableModel::cached(qint64 index, int row) const {
    auto it = m_cache.constFind(index);
    if (it != m_cache.constEnd())
        return &*it;
    if (!m_journal)
        return nullptr;
    // A page of rows around it, in one read of the journal.
    const int first = row - row % kPageRows;
    const int count = std::min(kPageRows, rowCount() - first);
    QVector<JournalEntry> page;
    if (!filtered()) {
        page = m_journal->entries(m_first + first, count);
    } else {
        const std::vector<std::int64_t> indices(m_matches.begin() + first,
                                                m_matches.begin() + first + count);
        page = m_journal->entriesAt(indices);
    }
    if (m_cache.size() + page.size() > kCachedEntries)
        m_cache.clear();
    for (JournalEntry& e : page)
        m_cache.insert(e.index, std::move(e));
    it = m_cache.constFind(index);
    return it != m_cache.constEnd() ? &*it : nullptr;
}

JournalEntry EventTableModel::entryAt(int row) const {
    const qint64 index = indexAt(row);
    if (index < 0)
        return {};
    const JournalEntry* e = cached(index, row);
    return e ? *e : JournalEntry();
}

QVariant EventTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int column = index.column();
    const qint64 at = indexAt(index.row());
    switch (role) {
    case IndexRole:
        return QVariant::fromValue<qint64>(at);
    case Qt::TextAlignmentRole:
        if (column == NumberColumn || column == TimeColumn || column == RvColumn ||
            column == SizeColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
    case Qt::ForegroundRole:
    case Qt::BackgroundRole:
        break;
    default:
        return {};
    }
    if (role == Qt::DisplayRole && column == NumberColumn)
        return QVariant::fromValue<qint64>(at + 1);
    const JournalEntry* e = cached(at, index.row());
    if (!e) // dropped by the journal since the last refresh
        return role == Qt::DisplayRole && column == TypeColumn ? QVariant(tr("(dropped)"))
                                                               : QVariant();
    if (role == Qt::ForegroundRole)
        return column == TypeColumn ? QVariant(typeColor(e->type)) : QVariant();
    if (role == Qt::BackgroundRole)
        return isMarked(e->key, e->rv) ? QVariant(QColor(0xfb, 0xe3, 0xe4)) : QVariant();
    if (role == Qt::ToolTipRole) {
        if (column == ObjectColumn)
            return e->key;
        if (isMarked(e->key, e->rv))
            return tr("An anomaly names this event");
        return {};
    }
    switch (column) {
    case TimeColumn:
        return QString::number(double(e->time) / double(kUsPerSecond), 'f', 6);
    case TypeColumn:
        return watchEventTypeName(e->type);
    case ResourceColumn:
        return e->resource;
    case ObjectColumn:
        return e->objectName();
    case RvColumn:
        return formatRv(e->rv);
    case SizeColumn:
        return formatCount(e->size);
    case WatcherColumn:
        return e->watcher;
    }
    return {};
}

void EventTableModel::setJournal(std::shared_ptr<const EventJournal> journal) {
    beginResetModel();
    m_journal = std::move(journal);
    m_stats = {};
    m_first = m_end = 0;
    m_matches.clear();
    m_cache.clear();
    m_marks.clear();
    m_markSet.clear();
    m_linked.clear();
    m_linkedCount = 0;
    restartScan();
    endResetModel();
    emit scanProgressed();
}

void EventTableModel::setFilter(const EventFilter& filter) {
    if (filter == m_filter)
        return;
    beginResetModel();
    m_filter = filter;
    m_matches.clear();
    m_cache.clear();
    if (!filtered()) {
        m_first = m_stats.first;
        m_end = m_stats.total;
    }
    restartScan();
    endResetModel();
    emit scanProgressed();
}

void EventTableModel::restartScan() {
    m_scanFrom = m_scannedTo = m_stats.first;
    if (!filtered() || !m_journal || !m_filter.error().isEmpty()) {
        m_scanner->stop();
        m_generation = 0;
        m_scannedTo = m_stats.total;
        return;
    }
    m_generation = m_scanner->start(m_journal, m_filter, m_marks, m_stats.first, m_stats.total);
}

void EventTableModel::refresh() {
    if (!m_journal)
        return;
    const JournalStats s = m_journal->stats();
    m_stats = s;
    if (!filtered()) {
        if (s.first > m_first) {
            const qint64 gone = std::min<qint64>(s.first, m_end) - m_first;
            if (gone > 0) {
                beginRemoveRows({}, 0, int(gone) - 1);
                m_first += gone;
                endRemoveRows();
            }
            if (m_first < s.first) // everything shown went, and more
                m_first = m_end = s.first;
        }
        if (s.total > m_end) {
            const int rows = rowCount();
            beginInsertRows({}, rows, rows + int(s.total - m_end) - 1);
            m_end = s.total;
            endInsertRows();
        }
        return;
    }
    const auto kept = std::lower_bound(m_matches.begin(), m_matches.end(), s.first);
    if (kept != m_matches.begin()) {
        beginRemoveRows({}, 0, int(kept - m_matches.begin()) - 1);
        m_matches.erase(m_matches.begin(), kept);
        endRemoveRows();
    }
    if (m_generation != 0)
        m_scanner->extend(s.total);
    emit scanProgressed();
}

void EventTableModel::onFound(quint64 generation, const QVector<qint64>& indices, qint64 scannedTo,
                              bool late) {
    if (generation != m_generation || !filtered())
        return;
    m_scannedTo = std::max(m_scannedTo, scannedTo);
    if (late || (!indices.isEmpty() && !m_matches.empty() && indices.front() <= m_matches.back())) {
        mergeLate(indices);
    } else {
        // Ascending and after every row: one insert at the end.
        auto begin = std::lower_bound(indices.begin(), indices.end(), m_stats.first);
        if (begin != indices.end()) {
            const int rows = rowCount();
            beginInsertRows({}, rows, rows + int(indices.end() - begin) - 1);
            m_matches.insert(m_matches.end(), begin, indices.end());
            endInsertRows();
        }
    }
    emit scanProgressed();
}

void EventTableModel::mergeLate(const QVector<qint64>& indices) {
    for (const qint64 index : indices) {
        if (index < m_stats.first)
            continue;
        const auto it = std::lower_bound(m_matches.begin(), m_matches.end(), index);
        if (it != m_matches.end() && *it == index)
            continue;
        const int row = int(it - m_matches.begin());
        beginInsertRows({}, row, row);
        m_matches.insert(m_matches.begin() + row, index);
        endInsertRows();
    }
}

void EventTableModel::addAnomalies(const AnomalyList& anomalies, qint64 firstSerial) {
    std::vector<std::uint64_t> fresh;
    QVector<QPair<QString, ResourceVersion>> named;
    for (qsizetype i = 0; i < anomalies.size(); ++i) {
        const Anomaly& a = anomalies[i];
        if (a.key.isEmpty() || a.rv <= 0)
            continue;
        const std::uint64_t mark = markOfKey(a.key, a.rv);
        if (m_linkedCount < kMaxLinkedAnomalies) {
            QVector<EventAnomaly>& linked = m_linked[mark];
            if (linked.size() < kMaxAnomaliesPerEvent) {
                linked.push_back({firstSerial >= 0 ? firstSerial + i : -1, a});
                ++m_linkedCount;
            }
        }
        if (!m_markSet.insert(mark).second)
            continue;
        m_marks.push_back(mark);
        fresh.push_back(mark);
        named.push_back({a.key, a.rv});
    }
    if (fresh.empty())
        return;
    if (m_generation != 0)
        m_scanner->addAnomalies(fresh, named);
    if (rowCount() > 0) // rows they name are shaded
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                         {Qt::BackgroundRole, Qt::ToolTipRole});
}

QVector<EventAnomaly> EventTableModel::anomaliesOf(const QString& key, ResourceVersion rv) const {
    if (m_linked.empty())
        return {};
    const auto it = m_linked.find(markOfKey(key, rv));
    return it != m_linked.end() ? it->second : QVector<EventAnomaly>();
}

bool EventTableModel::isMarked(const QString& key, ResourceVersion rv) const {
    return !m_markSet.empty() && m_markSet.count(markOfKey(key, rv)) != 0;
}

bool EventTableModel::scanning() const {
    return filtered() && m_generation != 0 && m_scannedTo < m_scanner->requestedTo();
}

double EventTableModel::scanProgress() const {
    if (!scanning())
        return 1.0;
    const qint64 span = m_scanner->requestedTo() - m_scanFrom;
    return span > 0 ? double(m_scannedTo - m_scanFrom) / double(span) : 1.0;
}

} // namespace ws

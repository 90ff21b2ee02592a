#include "IncidentTreeModel.h"

#include "AnomalyListModel.h"
#include "CellFormat.h"
#include "detect/IncidentGrouper.h"

#include <algorithm>

namespace ws {

static_assert(IncidentTreeModel::kDefaultMaxAnomalies == AnomalyListModel::kDefaultMaxRows,
              "the incidents keep the anomalies the anomaly list keeps");

namespace {

// At most this many names in a tooltip: enough to recognise them, short enough to read.
constexpr int kTooltipNames = 20;

QString nameList(const QStringList& names, qint64 total) {
    QStringList shown = names.mid(0, kTooltipNames);
    QString text = shown.join(QLatin1Char('\n'));
    if (total > shown.size())
        text += QLatin1Char('\n') +
                IncidentTreeModel::tr("… and %1 more").arg(formatCount(total - shown.size()));
    return text;
}

} // namespace

IncidentTreeModel::IncidentTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

QModelIndex IncidentTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return row < m_nodes.size() ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (!isIncident(parent) || parent.column() != 0 || parent.row() >= m_nodes.size())
        return {};
    if (row >= m_nodes.at(parent.row()).fetched)
        return {};
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex IncidentTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || isIncident(child))
        return {};
    return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int IncidentTreeModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid())
        return int(m_nodes.size());
    if (!isIncident(parent) || parent.column() != 0)
        return 0;
    return m_nodes.at(parent.row()).fetched;
}

int IncidentTreeModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() && !isIncident(parent) ? 0 : ColumnCount;
}

bool IncidentTreeModel::hasChildren(const QModelIndex& parent) const {
    if (!parent.isValid())
        return !m_nodes.isEmpty();
    if (!isIncident(parent) || parent.column() != 0)
        return false;
    return !m_nodes.at(parent.row()).children.isEmpty();
}

bool IncidentTreeModel::canFetchMore(const QModelIndex& parent) const {
    if (!parent.isValid() || !isIncident(parent) || parent.column() != 0)
        return false;
    const Node& n = m_nodes.at(parent.row());
    return n.fetched < n.children.size();
}

void IncidentTreeModel::fetchMore(const QModelIndex& parent) {
    if (!parent.isValid() || !isIncident(parent) || parent.column() != 0)
        return;
    const int row = parent.row();
    Node& n = m_nodes[row];
    n.opened = true;
    if (n.fetchPending || n.fetched >= n.children.size())
        return;
    // The page comes from the event loop, not from inside this call: fetchMore is often called
    // while a view, a proxy or a model tester is handling one of this model's signals, and rows
    // inserted then would nest one change inside another. Requests before it comes are one.
    n.fetchPending = true;
    const quint64 generation = m_generation;
    QMetaObject::invokeMethod(
        this,
        [this, row, generation] {
            if (generation != m_generation || row >= m_nodes.size())
                return; // cleared meanwhile
            Node& node = m_nodes[row];
            node.fetchPending = false;
            showRows(row, std::min<int>(m_pageSize, int(node.children.size()) - node.fetched));
        },
        Qt::QueuedConnection);
}

void IncidentTreeModel::showRows(int row, int count) {
    if (count <= 0)
        return;
    Node& n = m_nodes[row];
    beginInsertRows(index(row, 0), n.fetched, n.fetched + count - 1);
    n.fetched += count;
    endInsertRows();
}

qint64 IncidentTreeModel::droppedAnomalies(int row) const {
    const Node& n = m_nodes.at(row);
    return std::max<qint64>(0, n.incident.count - n.children.size());
}

QVariant IncidentTreeModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (isIncident(index))
        return incidentData(m_nodes.at(index.row()), index.row(), index.column(), role);
    const Node& n = nodeOf(index);
    return anomalyData(n, n.children.at(index.row()), index.column(), role);
}

QVariant IncidentTreeModel::incidentData(const Node& node, int row, int column, int role) const {
    const Incident& i = node.incident;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case SeverityColumn:
            return severityName(i.severity);
        case KindColumn:
            return kindName(i.kind);
        case ResourceColumn:
            return i.resource;
        case WatchersColumn:
            if (!i.scope.isEmpty())
                return i.scope;
            if (!i.apiserver.isEmpty())
                return i.watcherCount == 1
                           ? tr("%1: 1 watcher").arg(i.apiserver)
                           : tr("%1: %2 watchers").arg(i.apiserver, formatCount(i.watcherCount));
            if (i.watcherCount == 1 && !i.watchers.isEmpty())
                return i.watchers.constFirst();
            return i.watcherCount == 0 ? QString() : tr("%1 watchers").arg(i.watcherCount);
        case CountColumn: {
            const qint64 dropped = droppedAnomalies(row);
            return dropped == 0 ? formatCount(i.count)
                                : tr("%1 (%2 listed)")
                                      .arg(formatCount(i.count), formatCount(node.children.size()));
        }
        case KeysColumn:
            if (i.keyCount == 1 && !i.keys.isEmpty())
                return i.keys.constFirst();
            return i.keyCount == 0 ? QString() : tr("%1 keys").arg(formatCount(i.keyCount));
        case FirstColumn:
            return formatTimeUs(i.first);
        case LastColumn:
            return formatTimeUs(i.last);
        case MessageColumn:
            return i.firstMessage;
        }
        return {};
    case SortRole:
        switch (column) {
        case SeverityColumn:
            return int(i.severity);
        case WatchersColumn:
            return i.scope.isEmpty() ? QVariant::fromValue<qint64>(i.watcherCount)
                                     : QVariant::fromValue<qint64>(1);
        case CountColumn:
            return QVariant::fromValue<qint64>(i.count);
        case KeysColumn:
            return QVariant::fromValue<qint64>(i.keyCount);
        case FirstColumn:
            return QVariant::fromValue<qint64>(i.first);
        case LastColumn:
            return QVariant::fromValue<qint64>(i.last);
        default:
            return incidentData(node, row, column, Qt::DisplayRole);
        }
    case Qt::ToolTipRole:
        switch (column) {
        case WatchersColumn:
            if (!i.scope.isEmpty())
                return tr("Anomalies of this one client: %1").arg(i.scope);
            if (!i.apiserver.isEmpty())
                return tr("Clients affected by %1:\n%2")
                    .arg(i.apiserver, nameList(i.watchers, i.watcherCount));
            return nameList(i.watchers, i.watcherCount);
        case KeysColumn:
            return nameList(i.keys, i.keyCount);
        case CountColumn: {
            const qint64 dropped = droppedAnomalies(row);
            if (dropped == 0)
                return tr("%1 anomalies, all listed below").arg(formatCount(i.count));
            return tr("%1 anomalies; the newest %2 are listed below. The window keeps the "
                      "session's newest %3 anomalies: older ones are dropped, the counts stay "
                      "exact.")
                .arg(formatCount(i.count), formatCount(node.children.size()),
                     formatCount(m_maxAnomalies));
        }
        case MessageColumn:
            return i.firstMessage;
        }
        return {};
    case AnomalyRole:
        return {};
    case SerialRole: {
        qint64 serial = -1;
        firstAnomaly(row, &serial);
        return QVariant::fromValue<qint64>(serial);
    }
    case IncidentIdRole:
        return QVariant::fromValue<qint64>(i.id);
    case SeverityRole:
        return int(i.severity);
    case IsIncidentRole:
        return true;
    case Qt::ForegroundRole:
        if (column == SeverityColumn || column == KindColumn)
            return AnomalyListModel::severityColor(i.severity);
        return {};
    case Qt::DecorationRole:
        if (column == SeverityColumn)
            return AnomalyListModel::severityColor(i.severity);
        return {};
    case Qt::TextAlignmentRole:
        if (column == CountColumn || column == FirstColumn || column == LastColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    }
    return {};
}

QVariant IncidentTreeModel::anomalyData(const Node& node, const Child& child, int column,
                                        int role) const {
    const Anomaly& a = child.anomaly;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case SeverityColumn:
            return severityName(a.severity);
        case KindColumn:
        case ResourceColumn:
            return QString(); // its incident's, by construction: said once, on the incident
        case WatchersColumn:
            return a.watcher;
        case CountColumn:
            return tr("#%1").arg(child.serial + 1);
        case KeysColumn:
            return a.key;
        case FirstColumn:
            return formatTimeUs(a.time);
        case LastColumn:
            return a.rv == 0 ? QString() : tr("RV %1").arg(a.rv);
        case MessageColumn:
            return a.message;
        }
        return {};
    case SortRole:
        switch (column) {
        case SeverityColumn:
            return int(a.severity);
        case KindColumn:
            return kindName(a.kind);
        case ResourceColumn:
            return a.resource;
        case CountColumn:
            return QVariant::fromValue<qint64>(child.serial);
        case FirstColumn:
            return QVariant::fromValue<qint64>(a.time);
        case LastColumn:
            return QVariant::fromValue<qint64>(a.rv);
        default:
            return anomalyData(node, child, column, Qt::DisplayRole);
        }
    case Qt::ToolTipRole:
        switch (column) {
        case CountColumn:
            return tr("Anomaly #%1 of the session (the Anomalies tab's No.)").arg(child.serial + 1);
        case KeysColumn:
        case MessageColumn:
            return anomalyData(node, child, column, Qt::DisplayRole);
        }
        return {};
    case AnomalyRole:
        return QVariant::fromValue(a);
    case SerialRole:
        return QVariant::fromValue<qint64>(child.serial);
    case IncidentIdRole:
        return QVariant::fromValue<qint64>(node.incident.id);
    case SeverityRole:
        return int(a.severity);
    case IsIncidentRole:
        return false;
    case Qt::ForegroundRole:
        if (column == SeverityColumn || column == KindColumn)
            return AnomalyListModel::severityColor(a.severity);
        return {};
    case Qt::TextAlignmentRole:
        if (column == CountColumn || column == FirstColumn || column == LastColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    }
    return {};
}

QVariant IncidentTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return QAbstractItemModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case WatchersColumn:
            return tr("The client an incident is about, or how many watchers it touches; an "
                      "anomaly's watcher");
        case CountColumn:
            return tr("Anomalies in the incident; an anomaly's number in the session");
        case KeysColumn:
            return tr("Distinct keys the incident touches; an anomaly's key");
        case LastColumn:
            return tr("The incident's last anomaly; an anomaly's resource version");
        }
        return {};
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn:
        return tr("Severity");
    case KindColumn:
        return tr("Kind");
    case ResourceColumn:
        return tr("Resource");
    case WatchersColumn:
        return tr("Watchers");
    case CountColumn:
        return tr("Count");
    case KeysColumn:
        return tr("Keys");
    case FirstColumn:
        return tr("First (s)");
    case LastColumn:
        return tr("Last (s)");
    case MessageColumn:
        return tr("First message");
    }
    return {};
}

const Anomaly* IncidentTreeModel::anomaly(const QModelIndex& index) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || isIncident(index))
        return nullptr;
    return &nodeOf(index).children.at(index.row()).anomaly;
}

const Anomaly* IncidentTreeModel::firstAnomaly(int row, qint64* serial) const {
    if (row < 0 || row >= m_nodes.size() || m_nodes.at(row).children.isEmpty()) {
        if (serial)
            *serial = -1;
        return nullptr;
    }
    const Child& c = m_nodes.at(row).children.constFirst();
    if (serial)
        *serial = c.serial;
    return &c.anomaly;
}

QModelIndex IncidentTreeModel::indexOfSerial(qint64 serial) {
    if (serial < m_firstKept || serial >= m_nextSerial)
        return {};
    for (int row = 0; row < m_nodes.size(); ++row) {
        const QVector<Child>& children = m_nodes.at(row).children;
        if (children.isEmpty() || serial < children.constFirst().serial ||
            serial > children.constLast().serial)
            continue;
        const auto it = std::lower_bound(children.cbegin(), children.cend(), serial,
                                         [](const Child& c, qint64 s) { return c.serial < s; });
        if (it == children.cend() || it->serial != serial)
            continue;
        const int position = int(it - children.cbegin());
        Node& n = m_nodes[row];
        if (position >= n.fetched) {
            // Whole pages, up to the one it is on.
            n.opened = true;
            const int wanted = (position / m_pageSize + 1) * m_pageSize;
            showRows(row, std::min<int>(wanted, int(n.children.size())) - n.fetched);
        }
        return index(position, 0, index(row, 0));
    }
    return {};
}

qint64 IncidentTreeModel::groupId(const Anomaly& a) {
    if (a.incident != 0)
        return a.incident;
    const QString key = kindName(a.kind) + QLatin1Char('\x1f') + a.resource + QLatin1Char('\x1f') +
                        IncidentGrouper::scopeOf(a) + QLatin1Char('\x1f') + a.apiserver;
    auto it = m_ungroupedIds.find(key);
    if (it == m_ungroupedIds.end())
        it = m_ungroupedIds.insert(key, -qint64(m_ungroupedIds.size()) - 1);
    return *it;
}

void IncidentTreeModel::count(Node& node, const Anomaly& a) {
    // What IncidentGrouper counts, for an incident that came without its Incident.
    Incident& i = node.incident;
    if (i.count == 0) {
        i.kind = a.kind;
        i.resource = a.resource;
        i.scope = IncidentGrouper::scopeOf(a);
        i.apiserver = a.apiserver;
        i.severity = a.severity;
        i.first = a.time;
        i.last = a.time;
        i.firstMessage = a.message;
    }
    ++i.count;
    i.first = std::min(i.first, a.time);
    i.last = std::max(i.last, a.time);
    i.severity = std::max(i.severity, a.severity);
    if (!a.key.isEmpty() && !node.keys.contains(a.key)) {
        node.keys.insert(a.key);
        ++i.keyCount;
        if (i.keys.size() < Incident::kMaxListed)
            i.keys << a.key;
    }
    if (!a.watcher.isEmpty() && !node.watchers.contains(a.watcher)) {
        node.watchers.insert(a.watcher);
        ++i.watcherCount;
        if (i.watchers.size() < Incident::kMaxListed)
            i.watchers << a.watcher;
    }
}

void IncidentTreeModel::applyUpdate(const QVector<Incident>& incidents,
                                    const AnomalyList& anomalies, qint64 missingBefore) {
    // The bound first, exactly as AnomalyListModel::appendAnomalies applies it.
    if (missingBefore > 0) {
        dropBefore(m_nextSerial);
        m_nextSerial += missingBefore;
        m_firstKept = m_nextSerial;
    }
    const qsizetype skip = std::max<qsizetype>(0, anomalies.size() - m_maxAnomalies);
    const qint64 kept = anomaliesKept();
    const qint64 excess = kept + anomalies.size() - skip - m_maxAnomalies;
    if (excess > 0)
        dropBefore(m_firstKept + std::min<qint64>(kept, excess + m_dropBatch));

    // Nothing below emits a signal until every new node is complete: a view (or a model tester)
    // reacting to an insertion must find the model consistent, and nodes not yet inserted are
    // not rows.
    QVector<Node> added;
    QHash<qint64, int> addedIndex;
    QSet<int> changed;              // rows whose incident cells change
    QHash<int, int> childrenBefore; // row -> kept anomalies before this update
    for (const Incident& incident : incidents) {
        const int row = m_rowOf.value(incident.id, -1);
        Node* node = nullptr;
        if (row >= 0) {
            node = &m_nodes[row];
            changed.insert(row);
        } else if (const auto it = addedIndex.constFind(incident.id); it != addedIndex.cend()) {
            node = &added[*it];
        } else {
            addedIndex.insert(incident.id, int(added.size()));
            added.append(Node{});
            node = &added.last();
        }
        node->incident = incident;
        node->provisional = false;
        node->keys.clear();
        node->watchers.clear();
    }
    const qint64 base = m_nextSerial;
    for (qsizetype k = 0; k < anomalies.size(); ++k) {
        const Anomaly& a = anomalies.at(k);
        const qint64 id = groupId(a);
        Node* node = nullptr;
        if (const int row = m_rowOf.value(id, -1); row >= 0) {
            node = &m_nodes[row];
            if (!childrenBefore.contains(row))
                childrenBefore.insert(row, int(node->children.size()));
            if (node->provisional)
                changed.insert(row);
        } else if (const auto it = addedIndex.constFind(id); it != addedIndex.cend()) {
            node = &added[*it];
        } else {
            addedIndex.insert(id, int(added.size()));
            added.append(Node{});
            node = &added.last();
            node->incident.id = id;
            node->provisional = true;
        }
        if (node->provisional)
            count(*node, a);
        if (k >= skip)
            node->children.append(Child{a, base + k});
    }
    m_nextSerial = base + anomalies.size();
    if (skip > 0) // a batch larger than the bound: its oldest part was never kept
        m_firstKept = base + skip;

    if (!added.isEmpty()) {
        const int first = int(m_nodes.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (Node& n : added) {
            m_rowOf.insert(n.incident.id, int(m_nodes.size()));
            m_nodes.append(std::move(n));
        }
        endInsertRows();
    }
    // An expanded incident whose rows were all shown shows what came, a page per update.
    for (auto it = childrenBefore.cbegin(); it != childrenBefore.cend(); ++it) {
        const Node& n = m_nodes.at(it.key());
        if (n.opened && n.fetched == it.value())
            showRows(it.key(), std::min<int>(m_pageSize, int(n.children.size()) - n.fetched));
        changed.insert(it.key()); // the count of listed anomalies
    }
    for (int row : std::as_const(changed))
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void IncidentTreeModel::dropBefore(qint64 serial) {
    if (serial <= m_firstKept)
        return;
    emit aboutToDropBefore(serial);
    for (int row = 0; row < m_nodes.size(); ++row) {
        Node& n = m_nodes[row];
        if (n.children.isEmpty() || n.children.constFirst().serial >= serial)
            continue;
        const auto end = std::lower_bound(n.children.cbegin(), n.children.cend(), serial,
                                          [](const Child& c, qint64 s) { return c.serial < s; });
        const int gone = int(end - n.children.cbegin());
        const int rows = std::min(gone, n.fetched);
        if (rows > 0) {
            beginRemoveRows(index(row, 0), 0, rows - 1);
            n.children.remove(0, gone);
            n.fetched -= rows;
            endRemoveRows();
        } else {
            n.children.remove(0, gone);
        }
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
    m_firstKept = serial;
}

void IncidentTreeModel::setMaxAnomalies(int maxAnomalies, int dropBatch) {
    m_maxAnomalies = std::max(1, maxAnomalies);
    m_dropBatch = std::clamp(dropBatch, 1, m_maxAnomalies);
    if (anomaliesKept() > m_maxAnomalies)
        dropBefore(m_nextSerial - m_maxAnomalies);
}

void IncidentTreeModel::clear() {
    beginResetModel();
    ++m_generation;
    m_nodes.clear();
    m_rowOf.clear();
    m_ungroupedIds.clear();
    m_nextSerial = 0;
    m_firstKept = 0;
    endResetModel();
}

} // namespace ws

#include "ResourceTreeModel.h"

#include "AnomalyListModel.h"
#include "CellFormat.h"
#include "detect/IncidentGrouper.h"
#include "kube/ResourceCatalog.h"

#include <QColor>
#include <algorithm>

namespace ws {

namespace {

constexpr quintptr kGroupId = 0; // internalId of a group row; a resource row's is group + 1

QString rateText(double rate) {
    if (rate < 0)
        return QStringLiteral("—");
    return QString::number(rate, 'f', rate < 10 ? 1 : 0);
}

QString healthText(const ResourceTreeModel::Health& h) {
    if (h.open == 0)
        return ResourceTreeModel::tr("OK");
    const QString count = h.open == 1 ? ResourceTreeModel::tr("1 incident")
                                      : ResourceTreeModel::tr("%1 incidents").arg(h.open);
    return QStringLiteral("%1: %2").arg(count, h.kinds.join(QStringLiteral(", ")));
}

// The badge's text, short enough for a narrow column: the worst open incident's kind, and how
// many more are open ("stale-object +1"); healthText() in the tooltip says them all.
QString healthBadge(const ResourceTreeModel::Health& h) {
    if (h.open == 0 || h.kinds.isEmpty())
        return healthText(h);
    return h.open == 1 ? h.kinds.front()
                       : QStringLiteral("%1 +%2").arg(h.kinds.front()).arg(h.open - 1);
}

// A row or a group shows the same three figures: when none moved, no cell can have changed.
template <typename Shown> bool sameFigures(const Shown& a, const Shown& b) {
    return a.objects == b.objects && a.rate == b.rate && a.health == b.health;
}

QColor healthColor(const ResourceTreeModel::Health& h) {
    return h.worst ? AnomalyListModel::severityColor(*h.worst) : QColor(0x2c, 0x8c, 0x3c);
}

} // namespace

ResourceTreeModel::ResourceTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

QString ResourceTreeModel::groupOf(const QString& resource) {
    return ResourceCatalog::lookup(resource).group;
}

QString ResourceTreeModel::groupLabel(const QString& group) {
    return group.isEmpty() ? QStringLiteral("core") : group;
}

ResourceTreeModel::Row* ResourceTreeModel::find(const QString& resource) {
    const auto it = m_where.constFind(resource);
    return it == m_where.cend() ? nullptr : &m_groups[it->first].rows[it->second];
}

const ResourceTreeModel::Row* ResourceTreeModel::find(const QString& resource) const {
    const auto it = m_where.constFind(resource);
    return it == m_where.cend() ? nullptr : &m_groups[it->first].rows[it->second];
}

void ResourceTreeModel::ensure(const QString& resource) {
    if (resource.isEmpty() || m_where.contains(resource))
        return;
    const QString group = groupOf(resource);
    int g = 0;
    while (g < m_groups.size() && m_groups[g].name != group)
        ++g;
    if (g == m_groups.size()) {
        beginInsertRows({}, g, g);
        m_groups.append(Group{group, {}, -1, -1, {}});
        endInsertRows();
    }
    const int row = int(m_groups[g].rows.size());
    beginInsertRows(index(g, 0), row, row);
    Row r;
    r.resource = resource;
    m_groups[g].rows.append(r);
    m_where.insert(resource, {g, row});
    endInsertRows();
}

void ResourceTreeModel::addResources(const QStringList& resources) {
    for (const QString& r : resources)
        ensure(r);
}

ResourceTreeModel::Health ResourceTreeModel::healthAt(const QString& resource, TimeUs now) const {
    Health h;
    const auto it = m_incidents.constFind(resource);
    if (it == m_incidents.cend())
        return h;
    struct Kind {
        AnomalyKind kind;
        Severity severity;
        int count;
    };
    QVector<Kind> kinds;
    for (const OpenIncident& i : *it) {
        if (now - i.last >= IncidentGrouper::kEpisodeGap)
            continue;
        ++h.open;
        h.worst = h.worst ? std::max(*h.worst, i.severity) : i.severity;
        auto k = std::find_if(kinds.begin(), kinds.end(),
                              [&](const Kind& x) { return x.kind == i.kind; });
        if (k == kinds.end())
            kinds.append({i.kind, i.severity, 1});
        else {
            k->severity = std::max(k->severity, i.severity);
            ++k->count;
        }
    }
    // Worst first, then the most frequent, then by name: the same text for the same incidents.
    std::sort(kinds.begin(), kinds.end(), [](const Kind& a, const Kind& b) {
        if (a.severity != b.severity)
            return a.severity > b.severity;
        if (a.count != b.count)
            return a.count > b.count;
        return kindName(a.kind) < kindName(b.kind);
    });
    for (const Kind& k : kinds)
        h.kinds << kindName(k.kind);
    return h;
}

ResourceTreeModel::Health ResourceTreeModel::combine(const QVector<Health>& parts) {
    Health h;
    for (const Health& p : parts) {
        h.open += p.open;
        if (p.worst)
            h.worst = h.worst ? std::max(*h.worst, *p.worst) : *p.worst;
    }
    // The kinds of the worst resources first.
    QVector<const Health*> sorted;
    for (const Health& p : parts)
        if (p.open > 0)
            sorted.append(&p);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const Health* a, const Health* b) { return *a->worst > *b->worst; });
    for (const Health* p : sorted)
        for (const QString& k : p->kinds)
            if (!h.kinds.contains(k))
                h.kinds << k;
    return h;
}

void ResourceTreeModel::applyUpdate(const EngineUpdate& update) {
    for (const ResourceSnapshot& r : update.resources)
        ensure(r.resource);
    for (const CacheSnapshot& c : update.caches)
        ensure(c.resource);
    for (const WatcherSnapshot& w : update.watchers)
        ensure(w.resource);
    for (const Incident& i : update.incidents) {
        if (i.resource.isEmpty())
            continue;
        ensure(i.resource);
        m_incidents[i.resource].insert(i.id, OpenIncident{i.kind, i.severity, i.last});
    }

    // Objects: what the caches hold (the largest count when apiservers disagree); where no cache
    // counts them (a cluster before its apiserver's storage count), what the informers' stores
    // hold. Only a count an update carries changes a row; a row nobody counted yet is unknown
    // ("—"), never 0.
    QHash<QString, qint64> objects;
    for (const CacheSnapshot& c : update.caches)
        if (c.objects != CacheSnapshot::kUnknown)
            objects[c.resource] = std::max(objects.value(c.resource, -1), c.objects);
    QHash<QString, qint64> stored;
    for (const WatcherSnapshot& w : update.watchers)
        if (w.objects != WatcherSnapshot::kUnknown)
            stored[w.resource] = std::max(stored.value(w.resource, -1), w.objects);
    for (auto it = stored.cbegin(); it != stored.cend(); ++it)
        if (!objects.contains(it.key()))
            objects.insert(it.key(), it.value());
    QHash<QString, qint64> events;
    for (const ResourceSnapshot& r : update.resources)
        events.insert(r.resource, r.events);

    for (int g = 0; g < m_groups.size(); ++g) {
        Group& group = m_groups[g];
        QVector<Health> healths;
        for (int i = 0; i < group.rows.size(); ++i) {
            Row& r = group.rows[i];
            const Row before = r;
            if (const auto o = objects.constFind(r.resource); o != objects.cend())
                r.objects = *o;
            if (const auto e = events.constFind(r.resource); e != events.cend()) {
                if (r.sampleEvents < 0 || *e < r.sampleEvents || update.now < r.sampleTime) {
                    // First sample, or a counter that started again: no rate until the next.
                    r.sampleEvents = *e;
                    r.sampleTime = update.now;
                } else if (update.now - r.sampleTime >= kRateWindow) {
                    r.rate = double(*e - r.sampleEvents) * double(kUsPerSecond) /
                             double(update.now - r.sampleTime);
                    r.sampleEvents = *e;
                    r.sampleTime = update.now;
                }
            }
            r.health = healthAt(r.resource, update.now);
            healths.append(r.health);
            // Most updates change no shown figure: compare them before formatting any cell.
            if (sameFigures(before, r))
                continue;
            int first = -1;
            int last = -1;
            for (int c = 0; c < ColumnCount; ++c) {
                if (cell(before, c, SortRole) != cell(r, c, SortRole) ||
                    cell(before, c, Qt::DisplayRole) != cell(r, c, Qt::DisplayRole)) {
                    if (first < 0)
                        first = c;
                    last = c;
                }
            }
            if (first >= 0) {
                const QModelIndex parent = index(g, 0);
                emit dataChanged(index(i, first, parent), index(i, last, parent));
            }
        }
        const Group before = group;
        group.objects = -1;
        group.rate = -1;
        for (const Row& r : std::as_const(group.rows)) {
            if (r.objects >= 0)
                group.objects = std::max<qint64>(group.objects, 0) + r.objects;
            if (r.rate >= 0)
                group.rate = std::max(group.rate, 0.0) + r.rate;
        }
        group.health = combine(healths);
        if (sameFigures(before, group))
            continue;
        int first = -1;
        int last = -1;
        for (int c = 0; c < ColumnCount; ++c) {
            if (groupCell(before, c, SortRole) != groupCell(group, c, SortRole) ||
                groupCell(before, c, Qt::DisplayRole) != groupCell(group, c, Qt::DisplayRole)) {
                if (first < 0)
                    first = c;
                last = c;
            }
        }
        if (first >= 0)
            emit dataChanged(index(g, first), index(g, last));
    }
}

void ResourceTreeModel::clear() {
    beginResetModel();
    m_groups.clear();
    m_where.clear();
    m_incidents.clear();
    endResetModel();
}

QModelIndex ResourceTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (column < 0 || column >= ColumnCount || row < 0)
        return {};
    if (!parent.isValid())
        return row < m_groups.size() ? createIndex(row, column, kGroupId) : QModelIndex();
    if (parent.internalId() != kGroupId || parent.row() >= m_groups.size())
        return {};
    const Group& g = m_groups[parent.row()];
    return row < g.rows.size() ? createIndex(row, column, quintptr(parent.row()) + 1)
                               : QModelIndex();
}

QModelIndex ResourceTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid() || child.internalId() == kGroupId)
        return {};
    return createIndex(int(child.internalId() - 1), 0, kGroupId);
}

int ResourceTreeModel::rowCount(const QModelIndex& parent) const {
    if (!parent.isValid())
        return int(m_groups.size());
    if (parent.column() != 0 || parent.internalId() != kGroupId)
        return 0;
    return int(m_groups[parent.row()].rows.size());
}

int ResourceTreeModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

QVariant ResourceTreeModel::cell(const Row& r, int column, int role) const {
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return r.resource;
        case ObjectsColumn:
            return r.objects < 0 ? QStringLiteral("—") : formatCount(r.objects);
        case EventRateColumn:
            return rateText(r.rate);
        case HealthColumn:
            return healthBadge(r.health);
        }
        return {};
    case SortRole:
        switch (column) {
        case NameColumn:
            return r.resource;
        case ObjectsColumn:
            return r.objects;
        case EventRateColumn:
            return r.rate;
        case HealthColumn:
            return r.health.worst ? int(*r.health.worst) * 100000 + r.health.open : -1;
        }
        return {};
    }
    return {};
}

QVariant ResourceTreeModel::groupCell(const Group& g, int column, int role) const {
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return groupLabel(g.name);
        case ObjectsColumn:
            return g.objects < 0 ? QStringLiteral("—") : formatCount(g.objects);
        case EventRateColumn:
            return rateText(g.rate);
        case HealthColumn:
            return healthBadge(g.health);
        }
        return {};
    case SortRole:
        switch (column) {
        case NameColumn:
            // core first, as kubectl lists it, then the groups by name.
            return g.name.isEmpty() ? QString() : QStringLiteral("~") + g.name;
        case ObjectsColumn:
            return g.objects;
        case EventRateColumn:
            return g.rate;
        case HealthColumn:
            return g.health.worst ? int(*g.health.worst) * 100000 + g.health.open : -1;
        }
        return {};
    }
    return {};
}

QVariant ResourceTreeModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const bool isGroup = index.internalId() == kGroupId;
    const Group& g = m_groups[isGroup ? index.row() : int(index.internalId() - 1)];
    const Row* r = isGroup ? nullptr : &g.rows[index.row()];
    const Health& h = r ? r->health : g.health;
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
    case SortRole:
        return r ? cell(*r, column, role) : groupCell(g, column, role);
    case FullTextRole:
        return column == HealthColumn ? QVariant(healthText(h)) : QVariant();
    case ResourceRole:
        return r ? r->resource : QString();
    case SeverityRole:
        return h.worst ? int(*h.worst) : -1;
    case Qt::TextAlignmentRole:
        return column == ObjectsColumn || column == EventRateColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::DecorationRole:
        // The badge: a dot in the severity's colour (green when nothing is open).
        return column == HealthColumn ? QVariant(healthColor(h)) : QVariant();
    case Qt::ForegroundRole:
        return column == HealthColumn && h.worst ? QVariant(healthColor(h)) : QVariant();
    case Qt::ToolTipRole:
        if (column == HealthColumn)
            return h.open == 0 ? tr("No open incident")
                               : tr("%1; worst: %2. An incident stays open until a minute "
                                    "passes without an anomaly of it.")
                                     .arg(healthText(h), severityName(*h.worst));
        if (column == EventRateColumn)
            return tr("Events of the resource per second of session time");
        if (column == NameColumn && !r)
            return tr("API group %1").arg(g.name.isEmpty() ? tr("\"\" (core)") : g.name);
        return {};
    }
    return {};
}

QVariant ResourceTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Resource");
    case ObjectsColumn:
        return tr("Objects");
    case EventRateColumn:
        return tr("Events/s");
    case HealthColumn:
        return tr("Health");
    }
    return {};
}

QModelIndex ResourceTreeModel::indexOfResource(const QString& resource, int column) const {
    const auto it = m_where.constFind(resource);
    if (it == m_where.cend())
        return {};
    return index(it->second, column, index(it->first, 0));
}

QModelIndex ResourceTreeModel::indexOfGroup(const QString& group, int column) const {
    for (int g = 0; g < m_groups.size(); ++g)
        if (m_groups[g].name == group)
            return index(g, column);
    return {};
}

QStringList ResourceTreeModel::resourcesOf(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this)
        return {};
    if (index.internalId() != kGroupId)
        return {m_groups[int(index.internalId() - 1)].rows[index.row()].resource};
    QStringList out;
    for (const Row& r : m_groups[index.row()].rows)
        out << r.resource;
    return out;
}

int ResourceTreeModel::resourceCount() const {
    return int(m_where.size());
}

ResourceTreeModel::Health ResourceTreeModel::health(const QString& resource) const {
    const Row* r = find(resource);
    return r ? r->health : Health{};
}

double ResourceTreeModel::eventRate(const QString& resource) const {
    const Row* r = find(resource);
    return r ? r->rate : -1;
}

qint64 ResourceTreeModel::objects(const QString& resource) const {
    const Row* r = find(resource);
    return r ? r->objects : -1;
}

} // namespace ws

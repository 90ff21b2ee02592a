#pragma once

#include "engine/EngineUpdate.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QVector>
#include <optional>

namespace ws {

// The session's resources as a tree by API group ("core" for the core group "", then apps,
// batch, …), as kubectl api-resources groups them: per resource its object count, its event rate
// and a health badge, the worst severity of its open incidents with their count and kinds
// ("2 incidents: stale-object, watcher-lag"). A group row aggregates its resources (objects and
// rates summed, the worst health). Fed by applyUpdate(): objects from the caches (where none counts
// them, as on a cluster before its apiserver's storage count, the informers' stores), the event
// rate from two updates' ResourceSnapshot counters (over at least kRateWindow of session time), the
// incidents as the update carries them; an incident is open until IncidentGrouper's episode gap
// passes without an anomaly of it. Rows never move (a proxy sorts); a row's cells change with
// one dataChanged, only when their text or value did.
class ResourceTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { NameColumn, ObjectsColumn, EventRateColumn, HealthColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    // The resource of a resource row (its name as the session knows it); empty on a group row.
    static constexpr int ResourceRole = Qt::UserRole + 2;
    // Health as a number: -1 none open, then int(Severity) of the worst open incident.
    static constexpr int SeverityRole = Qt::UserRole + 3;
    static constexpr TimeUs kRateWindow = seconds(1);

    explicit ResourceTreeModel(QObject* parent = nullptr);

    // "" for "pods" or "configmaps", "apps" for "deployments.apps" (or "deployments", a
    // well-known resource of that group); shown as groupLabel().
    static QString groupOf(const QString& resource);
    static QString groupLabel(const QString& group); // "core" for ""

    // Resources the session offers before its updates mention them.
    void addResources(const QStringList& resources);
    void applyUpdate(const EngineUpdate& update);
    void clear();

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    QModelIndex indexOfResource(const QString& resource, int column = 0) const;
    QModelIndex indexOfGroup(const QString& group, int column = 0) const;
    // The resources of a row: itself, or a group's.
    QStringList resourcesOf(const QModelIndex& index) const;
    int resourceCount() const;

    // What the cells show, for tests and the window.
    struct Health {
        std::optional<Severity> worst; // none: no open incident
        int open = 0;
        QStringList kinds; // of the open incidents, worst first
        bool operator==(const Health&) const = default;
    };
    Health health(const QString& resource) const;
    double eventRate(const QString& resource) const; // events/s; -1 until two updates
    qint64 objects(const QString& resource) const;   // -1 when no cache counts them

private:
    struct Row {
        QString resource;
        qint64 objects = -1;
        double rate = -1;
        Health health;
        // The counter and time of the rate's last sample.
        qint64 sampleEvents = -1;
        TimeUs sampleTime = 0;
    };
    struct Group {
        QString name;
        QVector<Row> rows;
        qint64 objects = -1;
        double rate = -1;
        Health health;
    };
    struct OpenIncident {
        AnomalyKind kind;
        Severity severity;
        TimeUs last;
    };

    Row* find(const QString& resource);
    const Row* find(const QString& resource) const;
    void ensure(const QString& resource);
    QVariant cell(const Row& r, int column, int role) const;
    QVariant groupCell(const Group& g, int column, int role) const;
    Health healthAt(const QString& resource, TimeUs now) const;
    static Health combine(const QVector<Health>& parts);

    QVector<Group> m_groups;
    QHash<QString, QPair<int, int>> m_where;                       // resource -> (group, row)
    QHash<QString, QHash<std::int64_t, OpenIncident>> m_incidents; // by resource, by id
};

} // namespace ws

#pragma once

#include "model/Anomaly.h"
#include "model/Incident.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QSet>
#include <QVector>

namespace ws {

// WatchScope's Expert Information (SPEC §2, "Incidents"): one row per incident (kind, resource,
// scope, worst severity, count, the keys and watchers it touches, first and last time, what its
// first anomaly said), and under each its anomalies, in the order they came. An anomaly row
// leaves its kind and resource blank (they are its incident's) and says its watcher, number in
// the session, key, time, RV and message.
//
// Fed with what each EngineUpdate carries: incidents are upserted by id (an update carries the
// ones that opened or grew, whole), anomalies go under the incident their `incident` id names.
// An anomaly whose incident never came (a capture or a test without incidents: id 0) is grouped
// here by kind, resource and, for one client's own failures, watcher, into a provisional
// incident the model counts itself; a real incident with its id replaces it.
//
// Children are rows only when asked for: an incident's anomalies become rows a page at a time
// (pageSize(), through canFetchMore()/fetchMore(), which a tree view calls on expanding), so an
// incident of 100,000 anomalies expands as fast as one of ten. fetchMore() is asynchronous: the
// page is inserted from the event loop, never inside the caller's signal handling. Once an
// incident was expanded, anomalies that arrive while all its rows are shown appear as rows too
// (a page per update).
//
// Bounded as the anomaly list is (AnomalyListModel): it keeps the session's newest
// maxAnomalies() anomalies across all incidents (by default the list's 100,000, so both keep the
// same ones) and drops the oldest a dropBatch() at a time. Incidents themselves are never dropped
// and their counts, keys, watchers and times stay the engine's, which are exact: an incident
// whose older anomalies went says how many of its anomalies are still listed.
class IncidentTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        SeverityColumn,
        KindColumn,
        ResourceColumn,
        WatchersColumn, // an incident's scope or watchers; an anomaly's watcher
        CountColumn,    // an incident's count; an anomaly's number in the session ("#12")
        KeysColumn,     // an incident's keys; an anomaly's key
        FirstColumn,    // an incident's first time; an anomaly's time
        LastColumn,     // an incident's last time; an anomaly's RV
        MessageColumn,  // an incident's first message; an anomaly's message
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;       // raw values, for the sort proxy
    static constexpr int AnomalyRole = Qt::UserRole + 2;    // anomaly rows: QVariant<ws::Anomaly>
    static constexpr int SerialRole = Qt::UserRole + 3;     // 0-based number in the session;
                                                            // an incident: its first listed one's
                                                            // (-1 when none is listed)
    static constexpr int IncidentIdRole = Qt::UserRole + 4; // both levels
    static constexpr int SeverityRole = Qt::UserRole + 5;   // int(ws::Severity), both levels
    static constexpr int IsIncidentRole = Qt::UserRole + 6; // bool
    static constexpr int kDefaultPageSize = 1000;
    static constexpr int kDefaultMaxAnomalies = 100000; // AnomalyListModel::kDefaultMaxRows

    explicit IncidentTreeModel(QObject* parent = nullptr);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;

    // One update's incidents and anomalies. `missingBefore`: that many anomalies came before
    // anomalies[0] but are not given (a paused view holds only the newest); they count as
    // dropped, and so do all anomalies listed so far, which are older still (as in the list).
    void applyUpdate(const QVector<Incident>& incidents, const AnomalyList& anomalies,
                     qint64 missingBefore = 0);
    // Forgets every incident and anomaly (a new session).
    void clear();

    // At most `maxAnomalies` anomalies kept; `dropBatch` (≥ 1) more than the excess go when it
    // is exceeded.
    void setMaxAnomalies(int maxAnomalies, int dropBatch);
    int maxAnomalies() const { return m_maxAnomalies; }
    int dropBatch() const { return m_dropBatch; }
    void setPageSize(int rows) { m_pageSize = std::max(1, rows); }
    int pageSize() const { return m_pageSize; }

    int incidentCount() const { return int(m_nodes.size()); }
    const Incident& incident(int row) const { return m_nodes.at(row).incident; }
    int rowOfIncident(qint64 id) const { return m_rowOf.value(id, -1); }
    // Anomalies of the incident still kept (rows or not yet fetched) / no longer kept.
    int listedAnomalies(int row) const { return int(m_nodes.at(row).children.size()); }
    qint64 droppedAnomalies(int row) const;
    // Anomalies given so far, and how many of them are no longer kept (the oldest).
    qint64 anomaliesSeen() const { return m_nextSerial; }
    qint64 anomaliesDropped() const { return m_firstKept; }
    qint64 anomaliesKept() const { return m_nextSerial - m_firstKept; }

    // The anomaly of an anomaly row (nullptr for an incident row).
    const Anomaly* anomaly(const QModelIndex& index) const;
    // An incident's first anomaly still kept, and its number; nullptr when none is.
    const Anomaly* firstAnomaly(int row, qint64* serial = nullptr) const;
    // The row (column 0) of the anomaly with this 0-based session number, fetching its
    // incident's rows up to it; invalid when it was dropped or never came.
    QModelIndex indexOfSerial(qint64 serial);

signals:
    // The anomalies numbered below `serial` are about to go (before any rowsAboutToBeRemoved): a
    // view whose current row is one of them reacts to the removal by moving to a neighbour, so
    // whoever wants otherwise must act first.
    void aboutToDropBefore(qint64 serial);

private:
    struct Child {
        Anomaly anomaly;
        qint64 serial;
    };
    struct Node {
        Incident incident;
        QVector<Child> children;   // kept anomalies, by number
        int fetched = 0;           // the first `fetched` children are rows
        bool opened = false;       // fetched once: later anomalies become rows while all are
        bool fetchPending = false; // a page asked for by fetchMore(), not inserted yet
        bool provisional = false;  // counted here: no Incident of its id came (yet)
        QSet<QString> keys;        // provisional only: to count distinct keys and watchers
        QSet<QString> watchers;
    };

    bool isIncident(const QModelIndex& index) const { return index.internalId() == 0; }
    const Node& nodeOf(const QModelIndex& anomalyIndex) const {
        return m_nodes.at(int(anomalyIndex.internalId() - 1));
    }
    QVariant incidentData(const Node& node, int row, int column, int role) const;
    QVariant anomalyData(const Node& node, const Child& child, int column, int role) const;
    qint64 groupId(const Anomaly& anomaly); // the incident an anomaly goes under
    static void count(Node& node, const Anomaly& anomaly);
    void dropBefore(qint64 serial);
    void showRows(int row, int count);

    QVector<Node> m_nodes;
    QHash<qint64, int> m_rowOf;            // incident id -> row
    QHash<QString, qint64> m_ungroupedIds; // group of anomalies without incident -> id (< 0)
    qint64 m_nextSerial = 0;               // number of the next anomaly
    qint64 m_firstKept = 0;                // number of the oldest kept one (all before: dropped)
    int m_maxAnomalies = kDefaultMaxAnomalies;
    int m_dropBatch = kDefaultMaxAnomalies / 10;
    int m_pageSize = kDefaultPageSize;
    quint64 m_generation = 0; // bumped by clear(): a page asked for before is not inserted
};

} // namespace ws

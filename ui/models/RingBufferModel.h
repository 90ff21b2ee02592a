#pragma once

#include "engine/EngineUpdate.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QStringList>
#include <QVector>

namespace ws {

// The watch-cache ring buffers of one resource, one row per apiserver side by side: used,
// capacity, oldest RV, and what happened to the ring as successive snapshots show it:
// evictions (the oldest RV advancing while the ring was full and stayed full at the same
// capacity: events dropped to make room, what later gets a slow watcher 410 Gone) and resizes
// (the capacity changing: 1.19+ grows and shrinks the ring by its 75 s freshness rule, a
// restarted cache starts over). Evictions are counted in episodes (consecutive snapshots that
// evict), each one marked with its start; resizes one by one. Every resource's rings are kept,
// so the counts survive looking at another resource. A source that cannot see how full the
// ring is (a cluster: /metrics gives the capacity only) shows "unknown", never 0.
class RingBufferModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        ApiserverColumn,
        UsedColumn,
        CapacityColumn,
        OldestRvColumn,
        EvictionsColumn,
        ResizesColumn,
        ColumnCount
    };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int kMaxMarks = 256; // per ring, the newest

    struct Mark {
        enum Kind { Eviction, Resize };
        Kind kind = Eviction;
        TimeUs time = 0;
        qint64 value = 0; // the capacity after a resize; the used count at an eviction
    };
    struct Ring {
        CacheSnapshot latest;
        qint64 evictionEpisodes = 0;
        bool evicting = false;
        qint64 resizes = 0;
        qint64 capacityBefore = 0; // of the last resize
        QVector<Mark> marks;
        quint64 generation = 0; // bumped whenever marks change
    };

    explicit RingBufferModel(QObject* parent = nullptr);

    // The resource whose rings are the rows.
    void setResource(const QString& resource);
    QString resource() const { return m_resource; }
    // `now`: the session time of the snapshots (marks are placed at it).
    void applySnapshots(const QVector<CacheSnapshot>& caches, TimeUs now);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The shown resource's apiservers, in row order ("" for a source without one).
    QStringList apiservers() const { return m_rows; }
    const Ring* ring(const QString& resource, const QString& apiserver) const;
    const Ring* ringAt(int row) const;
    // "used / capacity (fill%)" of the shown resource's fullest ring ("unknown / 1,024" when no
    // ring of it tells how full it is), or "no data".
    QString fullestText() const;
    static QString usedText(const CacheSnapshot& c); // "100 / 100 (100%)" or "unknown / 100"

signals:
    // The shown resource's marks changed (a new eviction episode or resize).
    void marksChanged();

private:
    static QString key(const QString& resource, const QString& apiserver);
    QVariant cell(const Ring& r, int column, int role) const;
    QStringList rowsOf(const QString& resource) const;

    QString m_resource;
    QStringList m_rows;                       // apiservers of m_resource, in the order first seen
    QHash<QString, Ring> m_rings;             // by resource + apiserver
    QHash<QString, QStringList> m_apiservers; // by resource, in the order first seen
};

} // namespace ws

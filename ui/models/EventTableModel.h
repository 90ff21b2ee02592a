#pragma once

#include "engine/EventFilter.h"
#include "engine/EventJournal.h"
#include "model/Anomaly.h"

#include <QAbstractTableModel>
#include <QHash>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ws {

class EventFilterScanner;

// An anomaly the engine raised that names an event (its key at its RV), with its session-wide
// number (-1: not known).
struct EventAnomaly {
    qint64 serial = -1;
    Anomaly anomaly;
};

// The events table (Wireshark's packet list) over a session's EventJournal. Rows are not
// pushed per event: refresh(), called from the window's update tick (≤ 30 a second), folds in
// what the journal received since (one insert at the end) and what it dropped (one removal at
// the top); cell text is built in data() from pages of 128 entries read from the journal when
// a view asks for them (a few thousand entries are cached). With a display filter the rows are
// the matching events, found by an EventFilterScanner on its own thread and added as they are
// found; new events are filtered as they arrive.
class EventTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        NumberColumn,
        TimeColumn,
        TypeColumn,
        ResourceColumn,
        ObjectColumn,
        RvColumn,
        SizeColumn,
        WatcherColumn,
        ColumnCount
    };
    static constexpr int IndexRole = Qt::UserRole + 1; // qint64: the event's journal index
    static constexpr int kPageRows = 128;
    static constexpr int kCachedEntries = 4096;

    explicit EventTableModel(QObject* parent = nullptr);
    ~EventTableModel() override;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Shows `journal` from now on (null: nothing), with no rows until the next refresh(); the
    // filter stays, the anomalies seen are forgotten.
    void setJournal(std::shared_ptr<const EventJournal> journal);
    const std::shared_ptr<const EventJournal>& journal() const { return m_journal; }
    // Folds in the events the journal received and dropped since the last call.
    void refresh();

    // Rows from now on: the events `filter` lets through (every event when it is empty). A
    // filter with an error() shows no rows.
    void setFilter(const EventFilter& filter);
    const EventFilter& filter() const { return m_filter; }
    // Anomalies raised since the last call, the first of them numbered `firstSerial` in the
    // session (-1: not known): anomaly-only shows the events they name.
    void addAnomalies(const AnomalyList& anomalies, qint64 firstSerial = -1);
    // True when the event at (key, rv) is named by an anomaly seen so far.
    bool isMarked(const QString& key, ResourceVersion rv) const;
    // The anomalies that name the event at (key, rv): the first kMaxAnomaliesPerEvent of them,
    // for the first kMaxLinkedAnomalies anomalies seen (the anomaly list's own bound).
    QVector<EventAnomaly> anomaliesOf(const QString& key, ResourceVersion rv) const;
    static constexpr int kMaxAnomaliesPerEvent = 8;
    static constexpr qint64 kMaxLinkedAnomalies = 100000;

    // A filter's scan: true until every event up to the last refresh has been looked at.
    bool scanning() const;
    double scanProgress() const; // 0..1 of the events held when the filter was set
    qint64 scannedTo() const { return m_scannedTo; }

    JournalStats stats() const { return m_stats; } // as of the last refresh()
    qint64 indexAt(int row) const;                 // the journal index of a row; -1: none
    int rowOf(qint64 index) const;                 // -1: not a row (dropped or filtered out)
    JournalEntry entryAt(int row) const;           // without the object; cached

signals:
    // A filter's scan progressed or finished (scanning(), scanProgress()).
    void scanProgressed();

private:
    bool filtered() const { return !m_filter.isEmpty(); }
    void onFound(quint64 generation, const QVector<qint64>& indices, qint64 scannedTo, bool late);
    void mergeLate(const QVector<qint64>& indices);
    void restartScan();
    const JournalEntry* cached(qint64 index, int row) const;

    std::shared_ptr<const EventJournal> m_journal;
    EventFilterScanner* m_scanner;
    EventFilter m_filter;
    JournalStats m_stats;
    // Unfiltered: rows are the indices [m_first, m_end). Filtered: m_matches (ascending).
    qint64 m_first = 0;
    qint64 m_end = 0;
    std::vector<std::int64_t> m_matches; // ascending
    quint64 m_generation = 0;
    qint64 m_scanFrom = 0;
    qint64 m_scannedTo = 0;
    std::vector<std::uint64_t> m_marks; // every anomaly's (key, RV), in arrival order
    std::unordered_set<std::uint64_t> m_markSet;
    std::unordered_map<std::uint64_t, QVector<EventAnomaly>> m_linked; // by mark
    qint64 m_linkedCount = 0;
    mutable QHash<qint64, JournalEntry> m_cache; // by journal index
};

} // namespace ws

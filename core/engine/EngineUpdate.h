#pragma once

#include "SourceRevisionAccount.h"
#include "model/Anomaly.h"
#include "model/Incident.h"
#include "model/ResourceVersion.h"
#include "model/VersionContext.h"
#include "model/WatcherState.h"

#include <QMetaType>
#include <QPointF>
#include <QString>
#include <QVector>

namespace ws {

// One batched update from a session's worker thread to the GUI (at most ~30 a second). A value
// type: it crosses threads by queued signal and owns everything it carries.

struct CacheSnapshot {
    QString resource;
    QString apiserver;           // "apiserver-0"; empty for a source without an apiserver
    ResourceVersion headRv = 0;  // etcd head (source of truth)
    ResourceVersion cacheRv = 0; // watch-cache RV
    // Events in the ring buffer; kUnknown when the source cannot see it (a cluster source reads
    // the apiserver's /metrics, which give the capacity but not how much of it is in use).
    qint64 bufferUsed = 0;
    qint64 bufferCapacity = 0;
    ResourceVersion bufferOldestRv = 0;
    qint64 objects = 0;

    static constexpr qint64 kUnknown = -1;
    bool bufferUsedKnown() const { return bufferUsed >= 0; }
};

// What a source knows of one resource as a whole, whatever its caches and watchers.
struct ResourceSnapshot {
    QString resource;
    // Events of the resource so far, a counter that only grows within a session (a rate is
    // taken from two updates): writes to etcd (simulator), events received from etcd (etcd
    // source), events received by the resource's busiest informer (cluster source).
    qint64 events = 0;
};

struct WatcherSnapshot {
    QString id;
    QString resource;
    QString apiserver; // which apiserver it is connected to (empty for etcd watchers)
    QString selector;  // label/field selector of its watch ("spec.nodeName=node-1"); empty: none
    QString profile;   // client-go profile, "cacher", "etcdctl"...
    // Derived by the pipeline from the observations, the same way for every source
    // (model/WatcherState.h); `detail` is the source's own word for it ("backoff (relist)",
    // "reconnecting in 800 ms", "down"), empty when it has none.
    WatcherState state = WatcherState::Listing;
    QString detail;
    ResourceVersion rv = 0;
    // How far behind its resource's head, in revisions and in seconds; both kUnknown when the
    // source knows no head (a cluster whose /metrics are unreadable, or older than 1.31).
    qint64 lagRevisions = 0;
    double lagSeconds = 0;
    qint64 eventsReceived = 0;
    int relists = 0;
    int errors = 0; // failed lists, ERROR events, broken streams (WatcherStatus::errors)
    // Requests the client's REST layer sent again after a 429/5xx with Retry-After, before the
    // watcher saw an answer (client-go's rest_client_request_retries_total); cluster source only.
    int httpRetries = 0;
    // Objects the watcher's store holds (an informer's keys); kUnknown where the source does not
    // keep a store for it.
    qint64 objects = kUnknown;

    static constexpr qint64 kUnknown = -1;
    bool lagKnown() const { return lagRevisions >= 0; }
};

// New timeline samples since the previous update, per series (x = time in ms).
struct SeriesDelta {
    QString resource;
    QString series;
    QVector<QPointF> points;
};

// Where a consumer was slower than its producer, since the session began (counters only grow;
// the newer update's win when updates merge). Every queue between two threads is bounded; this
// says what each one had to hold back or drop, so that nothing is lost silently.
struct FlowStats {
    // Transport threads -> session thread (the sources' FrameQueues): a full queue makes the
    // transport wait, nothing is dropped.
    qint64 frameQueueBytes = 0; // queued now
    qint64 frameQueuePeakBytes = 0;
    qint64 transportStalls = 0;
    qint64 transportStalledMs = 0;
    // Session thread -> window (Session::publish): updates the window had not taken yet merge;
    // past the merge bounds the oldest anomalies and samples of a merged update are dropped.
    qint64 updatesMerged = 0;
    qint64 anomaliesDropped = 0;
    qint64 pointsDropped = 0;
    // Session memory: anomalies the session's AnomalyStore no longer holds (the oldest of the
    // most numerous kinds, past AnomalyStoreLimits). Not lost: the files and the window had
    // every one as it came, and the incidents count them; only a later copy
    // (Session::anomalies()) lacks them.
    qint64 anomaliesNotKept = 0;
    // Session thread -> files (AsyncFileWriter): what the disk or pipe could not take in time.
    qint64 captureFramesDropped = 0; // of captures written so far, this one included
    qint64 captureBytesDropped = 0;
    qint64 exportLinesDropped = 0; // anomalies JSONL and timeline rows
    QString fileError;             // the first write error, one line; empty if none

    bool anyDropped() const {
        return anomaliesDropped + pointsDropped + captureFramesDropped + exportLinesDropped > 0;
    }
    // One line for a status bar or stderr, or empty when nothing was dropped or held back.
    QString summary() const;
};

struct EngineUpdate {
    TimeUs now = 0; // session time (virtual time for the simulator)
    bool finished = false;
    qint64 totalEvents = 0;     // events written to the source of truth so far
    double eventsPerSecond = 0; // wall-clock ingest rate
    QString sourceState; // "connecting to http://…", "" when the sources have nothing to say
    QVector<CacheSnapshot> caches;
    QVector<WatcherSnapshot> watchers;
    QVector<ResourceSnapshot> resources; // every resource the sources know of now
    AnomalyList anomalies;               // raised since the previous update
    // Anomalies raised before anomalies[0] since the previous update that a merge dropped
    // (the window was behind): the window counts them as dropped.
    qint64 missingAnomalies = 0;
    QVector<Incident> incidents; // opened or grown since the previous update, as they are now
    QVector<SeriesDelta> series;
    // The versions the sources know now (a snapshot: the newer update's win); what the anomaly
    // explanations depend on.
    VersionContext versions;
    FlowStats flow;
    // Every live source's revision accounts as they are now (a snapshot: the newer update's
    // win), so that the window shows what the CLI prints at the end without asking a source.
    QVector<SourceRevisionAccount> accounts;
    // Every source's sessionWarnings() as they are now (a snapshot: the newer update's win).
    QStringList warnings;
};

// How much a merged update may hold, whatever the time the consumer takes to take it: past
// these, its oldest anomalies and samples are dropped and counted.
struct MergeLimits {
    // A fifth of the anomaly list's 100,000 rows: a window that is behind by more than that
    // many anomalies loses the oldest, as the list itself would (batches of them at a time).
    qsizetype anomalies = 20000;
    // Samples of all series together (16 bytes each: 16 MiB). When over, each series keeps
    // its newest points / series, at least minPointsPerSeries.
    qsizetype points = 1000000;
    qsizetype minPointsPerSeries = 600; // a minute at 10 samples/s
};

struct MergeDrops {
    qint64 anomalies = 0;
    qint64 points = 0;
};

// Folds `newer` into `older` when the consumer has not taken `older` yet: snapshots, totals,
// flow figures and the state are the newer ones; anomalies and samples of both are kept, in
// order, up to `limits` (the oldest go first; older.missingAnomalies counts dropped anomalies).
MergeDrops mergeUpdate(EngineUpdate& older, EngineUpdate&& newer, const MergeLimits& limits = {});
// Holds `update` to `limits` the same way (the oldest anomalies and samples go first).
MergeDrops capUpdate(EngineUpdate& update, const MergeLimits& limits);

} // namespace ws

Q_DECLARE_METATYPE(ws::EngineUpdate)

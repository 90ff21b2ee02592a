#pragma once

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
    qint64 bufferUsed = 0;
    qint64 bufferCapacity = 0;
    ResourceVersion bufferOldestRv = 0;
    qint64 objects = 0;
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
    qint64 lagRevisions = 0;
    double lagSeconds = 0;
    qint64 eventsReceived = 0;
    int relists = 0;
    int errors = 0; // failed lists, ERROR events, broken streams (WatcherStatus::errors)
};

// New timeline samples since the previous update, per series (x = time in ms).
struct SeriesDelta {
    QString resource;
    QString series;
    QVector<QPointF> points;
};

struct EngineUpdate {
    TimeUs now = 0; // session time (virtual time for the simulator)
    bool finished = false;
    qint64 totalEvents = 0;     // events written to the source of truth so far
    double eventsPerSecond = 0; // wall-clock ingest rate
    QString sourceState; // "connecting to http://…", "" when the sources have nothing to say
    QVector<CacheSnapshot> caches;
    QVector<WatcherSnapshot> watchers;
    AnomalyList anomalies;       // raised since the previous update
    QVector<Incident> incidents; // opened or grown since the previous update, as they are now
    QVector<SeriesDelta> series;
    // The versions the sources know now (a snapshot: the newer update's win); what the anomaly
    // explanations depend on.
    VersionContext versions;
};

// Folds `newer` into `older` when the consumer has not taken `older` yet: snapshots, totals and
// the state are the newer ones; anomalies and samples of both are kept, in order.
void mergeUpdate(EngineUpdate& older, EngineUpdate&& newer);

} // namespace ws

Q_DECLARE_METATYPE(ws::EngineUpdate)

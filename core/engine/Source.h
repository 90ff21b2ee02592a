#pragma once

#include "EngineUpdate.h"
#include "FrameQueue.h"
#include "SourceRevisionAccount.h"
#include "model/ResourceVersion.h"
#include "model/VersionContext.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace ws {

class Pipeline;

// One transport turned into observations: the simulator, an etcd gRPC watch, a kube-apiserver
// over HTTP, a capture file. A source only describes what it received: it feeds the pipeline's
// DetectorHub and TimelineStore (through Pipeline) and answers snapshots; anomalies, outputs,
// the resource filter, rates and the ≤ 30/s EngineUpdate are the pipeline's and the session's.
//
// Threads: prepare() runs on the thread that builds the session (the GUI thread: it must not
// wait on the network); open(), poll(), snapshot() and close() run on the session thread. A
// source may run transport threads of its own; what they receive reaches poll() as frames.
class Source {
public:
    virtual ~Source() = default;

    virtual QString description() const = 0; // one line, never credentials
    virtual QString explanation() const { return {}; }
    // What a capture's header keeps so that a replay can run this source's frames again
    // (docs/capture-format.md): a scenario's YAML and seed, an etcd prefix, ... Never a secret.
    virtual QJsonObject replayInfo() const { return {}; }
    // When the session began, if the source knows better than now (a capture replay: when the
    // capture began). Invalid: now.
    virtual QDateTime wallStart() const { return {}; }
    // False when a capture started partway through the session could not be replayed (the
    // cluster source: its replay makes every request again from the first).
    virtual bool capturableMidway() const { return true; }
    // True when Secrets' values reach the pipeline (and a capture) as received: --keep-secrets.
    virtual bool keepsSecrets() const { return false; }
    // One line the user should see once the session ended (a truncated capture), or empty.
    virtual QString warning() const { return {}; }
    // What weakens the connection's security (TLS verification off, credentials sent in
    // clear), one line each: shown for as long as the session runs, not only at its end.
    // Known after prepare(); never a credential.
    virtual QStringList securityWarnings() const { return {}; }
    // What the session goes on without (an API group discovery could not read, a resource the
    // user may not list), one line each in the order they became known; the list only grows.
    // Every EngineUpdate carries it: the CLI prints each line once, the window shows them.
    virtual QStringList sessionWarnings() const { return {}; }
    virtual QString kind() const = 0; // "simulator", "etcd", "cluster", "capture"

    // Checks the input without touching the network (loads files, validates options); false
    // with one clear line in *error. Called once, before open().
    virtual bool prepare(QString* error) = 0;
    // Attaches to the pipeline (watchers, series) and starts transport threads. Must not block
    // on the network: connecting happens on the source's own threads.
    virtual bool open(Pipeline& pipeline, QString* error) = 0;
    // Does a slice of work (a simulator tick, the frames received since the last call) and
    // returns how long, in wall-clock µs, until it has more to do (0: call again at once).
    virtual TimeUs poll(Pipeline& pipeline) = 0;
    virtual bool finished() const = 0;
    // Non-empty once the source has given up (the session ends with this line).
    virtual QString failure() const { return {}; }
    // One line about the transport: "connecting to http://…", "watching", "" when nothing to say.
    virtual QString state() const { return {}; }
    // Stops transport threads; the last observations still reach the pipeline.
    virtual void close(Pipeline& pipeline) = 0;

    // The resources it offers now (a live source learns more as it goes).
    virtual QStringList resources() const = 0;
    // Session time of the source: virtual for the simulator, since open() for live sources.
    virtual TimeUs now() const = 0;
    // Events written to the source of truth (simulator) or received (live), for the rate.
    virtual qint64 totalEvents() const = 0;
    // The caches and watchers as they are now (the pipeline filters them by resource).
    virtual void snapshot(QVector<CacheSnapshot>& caches,
                          QVector<WatcherSnapshot>& watchers) const = 0;
    // Per resource, as it is now: its event counter (the pipeline filters them by resource).
    virtual void resourceSnapshot(QVector<ResourceSnapshot>& resources) const { (void)resources; }
    // The versions behind what it receives, as far as it knows them now (a live source learns
    // them as it goes: etcd's from Status, an apiserver's from discovery). On the session thread,
    // like snapshot(); what transport threads learn is guarded by the source.
    virtual VersionContext versions() const { return {}; }
    // What a live source owes its user (issue 14): for each stream of revisions it follows, the
    // account of every revision the source of truth wrote while it was responsible for it, seen
    // or reported lost. Copies, safe on any thread; empty for a source that keeps none (the
    // simulator writes its own truth). The CLI prints them when a session ends; every
    // EngineUpdate carries them to the window.
    virtual QVector<SourceRevisionAccount> revisionAccounts() const { return {}; }
    // The queue its transport threads fill, if it has one: its figures are shown (FlowStats).
    virtual const FrameQueue* frameQueue() const { return nullptr; }
    // The session loop's bell (nullptr: no more), on the session thread. A source that returns
    // true rings it whenever its transport threads hand it work, and its poll() returns how
    // long until it needs a poll if none comes: the loop then sleeps until then or the ring. One
    // that returns false (the default) is polled again every few milliseconds while idle.
    virtual bool setDoorbell(Doorbell* doorbell) {
        (void)doorbell;
        return false;
    }
};

} // namespace ws

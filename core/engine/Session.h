#pragma once

#include "EngineUpdate.h"
#include "Pipeline.h"
#include "Source.h"
#include "SourceSpec.h"
#include "util/Doorbell.h"

#include <QObject>
#include <QStringList>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

class QThread;

namespace ws {

// One running session: its sources feeding one Pipeline, driven by a SessionLoop on a thread
// of its own. Updates reach the thread that owns the session (the GUI thread) as the `updated`
// signal, at most ~30 a second; when that thread falls behind, waiting updates merge into one
// (latest snapshots win, anomalies and samples are kept up to MergeLimits, the oldest dropped
// and counted past them) instead of piling up: a window that stops taking updates costs a
// bounded amount of memory, and says what it missed (EngineUpdate::flow, missingAnomalies).
// Nothing here waits on the network: prepare() validates input only, the sources connect on
// their own threads, and stopLater() ends a session without waiting for it.
class Session : public QObject {
    Q_OBJECT
public:
    Session(std::vector<std::unique_ptr<Source>> sources, PipelineOptions options,
            QObject* parent = nullptr);
    ~Session() override; // stops and waits

    // A prepared session on `sources` with the spec's --resources and the given output files;
    // nullptr when `sources` is empty (the factory that made them said why in *error) or on bad
    // input (one clear line in *error). `journal`: the event journal's limits (off by default:
    // only the window reads it).
    static std::unique_ptr<Session> prepared(std::vector<std::unique_ptr<Source>> sources,
                                             const SourceSpec& spec, const SessionOutputs& outputs,
                                             QString* error, EventJournalLimits journal = {});

    // Checks every source's input, attaches them to the pipeline and opens the output files;
    // false with one clear line. start() calls it when it has not been called.
    bool prepare(QString* error);
    void start();     // returns at once
    void stop();      // stops the thread and waits for it
    void stopLater(); // asks the thread to stop; the session deletes itself when it has
    // Ends a runHere() loop as if its sources had finished: outputs are closed and complete.
    // Async-signal-safe (a lock-free atomic store and Doorbell::ring), for the CLI's SIGINT
    // handler.
    void requestStop() noexcept {
        m_stop.store(true, std::memory_order_relaxed);
        m_wake.ring();
    }
    bool running() const { return m_running.load(); }

    QString description() const; // the sources', never credentials
    QString explanation() const;
    // The sources' securityWarnings(), once prepared: the user sees them while it runs.
    QStringList securityWarnings() const;
    QStringList resources() const; // offered by the sources and shown (--resources); thread-safe
    int sourceCount() const { return static_cast<int>(m_sources.size()); }
    Source* source(int index) const { return m_sources[static_cast<std::size_t>(index)].get(); }

    // The pipeline itself: only while the session thread is not running (before start(), after
    // finished or stop()).
    Pipeline& pipeline() { return m_pipeline; }
    // The pipeline's event journal: thread-safe, from any thread, at any time; it outlives the
    // session for as long as it is held.
    std::shared_ptr<const EventJournal> journal() const { return m_pipeline.sharedJournal(); }

    // Thread-safe views for the CLI and tests.
    // The anomalies raised so far that the session keeps in memory (AnomalyStoreLimits: the
    // oldest of the most numerous kinds go past it); anomalyStore() counts them all.
    AnomalyList anomalies() const;
    std::shared_ptr<const AnomalyStore> anomalyStore() const {
        return m_pipeline.sharedAnomalyStore();
    }
    QString failure() const; // the message of failed(), if any

    // Runs the whole session on the calling thread (the CLI, tests): `publish` sees every
    // update as it is made, at most every `publishInterval` of wall time. False with *error
    // when a source failed.
    bool runHere(const std::function<void(const EngineUpdate&)>& publish, QString* error,
                 TimeUs publishInterval = milliseconds(33));

    // Empty, or one line on why this session cannot be written to a capture (the words of
    // `record --out`): a source that cannot be replayed (a cluster, today), a replay of a
    // capture (the capture is the file already).
    QString captureRefusal() const;
    // The same for a capture started while the session runs (the window's Record).
    QString midwayCaptureRefusal() const;
    // Recording while the session runs (the window's Record button). Thread-safe and never
    // waits: the session thread opens the file between two polls and answers with
    // captureStarted() or captureFailed(); from then on everything the session receives is
    // written (a scenario's capture is its YAML and seed). stopCapture() writes the End record
    // and answers with captureStopped(); so does the end of the session.
    void startCapture(const QString& path);
    void stopCapture();
    qint64 captureBytes() const { return m_captureBytes.load(); } // on disk; -1: not recording

    // The update waiting for the owner's thread, and what merging cost. Thread-safe.
    struct DeliveryStats {
        qint64 published = 0;          // updates the session thread made
        qint64 publishedAnomalies = 0; // in them
        qint64 publishedPoints = 0;
        qint64 delivered = 0;        // updated() emitted
        qint64 merged = 0;           // folded into one still waiting
        qint64 anomaliesDropped = 0; // by merges past MergeLimits
        qint64 pointsDropped = 0;
        qint64 waitingAnomalies = 0; // in the waiting update now
        qint64 waitingPoints = 0;
        qint64 peakWaitingAnomalies = 0;
        qint64 peakWaitingPoints = 0;
    };
    DeliveryStats deliveryStats() const;
    // Before start(): how much a waiting update may hold (tests make it small).
    void setMergeLimits(const MergeLimits& limits) { m_limits = limits; }

signals:
    void updated(const ws::EngineUpdate& update);
    void failed(const QString& message);
    void finished();
    void captureStarted(const QString& path);
    void captureFailed(const QString& message);
    // `error`: empty, or why the file may be incomplete (a write failed).
    void captureStopped(const QString& path, qint64 bytes, const QString& error);

private:
    void publish(EngineUpdate&& update);
    void deliver(); // on the owner's thread: takes the waiting update and emits updated()
    void work();
    void refreshResources();
    void serveCaptureRequests(); // on the session thread
    void endCaptures(const QString& why);
    template <typename F> void later(F&& f) {
        QMetaObject::invokeMethod(this, std::forward<F>(f), Qt::QueuedConnection);
    }

    // Wakes the session thread's loop (stop, capture requests; the sources' frames): declared
    // before the sources, which ring it until they are closed.
    Doorbell m_wake;
    std::vector<std::unique_ptr<Source>> m_sources;
    Pipeline m_pipeline;
    bool m_prepared = false;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_running{false};
    QThread* m_thread = nullptr;

    CaptureHeader m_captureHeader; // what a capture of this session starts with (prepare())
    QString m_capturePath;         // session thread: the capture being written
    std::atomic<bool> m_captureRequested{false};
    std::atomic<qint64> m_captureBytes{-1};

    mutable std::mutex m_mutex; // guards everything below
    struct CaptureRequest {
        bool start = false;
        QString path;
    };
    std::vector<CaptureRequest> m_captureRequests;
    bool m_acceptsCaptures = false; // while the session thread runs its loop
    std::optional<EngineUpdate> m_waiting;
    MergeLimits m_limits;
    DeliveryStats m_delivery;
    QStringList m_resources;
    QString m_failure;
};

} // namespace ws

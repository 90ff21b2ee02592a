#pragma once

#include "EngineUpdate.h"
#include "Pipeline.h"
#include "Source.h"
#include "SourceSpec.h"

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
// (latest snapshots win, every anomaly and sample is kept) instead of piling up.
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
    // input (one clear line in *error).
    static std::unique_ptr<Session> prepared(std::vector<std::unique_ptr<Source>> sources,
                                             const SourceSpec& spec, const SessionOutputs& outputs,
                                             QString* error);

    // Checks every source's input, attaches them to the pipeline and opens the output files;
    // false with one clear line. start() calls it when it has not been called.
    bool prepare(QString* error);
    void start();     // returns at once
    void stop();      // stops the thread and waits for it
    void stopLater(); // asks the thread to stop; the session deletes itself when it has
    bool running() const { return m_running.load(); }

    QString description() const; // the sources', never credentials
    QString explanation() const;
    QStringList resources() const; // offered by the sources and shown (--resources); thread-safe
    int sourceCount() const { return static_cast<int>(m_sources.size()); }
    Source* source(int index) const { return m_sources[static_cast<std::size_t>(index)].get(); }

    // The pipeline itself: only while the session thread is not running (before start(), after
    // finished or stop()).
    Pipeline& pipeline() { return m_pipeline; }

    // Thread-safe views for the CLI and tests.
    AnomalyList anomalies() const; // every anomaly published so far
    QString failure() const;       // the message of failed(), if any

    // Runs the whole session on the calling thread (the CLI, tests): `publish` sees every
    // update as it is made. False with *error when a source failed.
    bool runHere(const std::function<void(const EngineUpdate&)>& publish, QString* error);

signals:
    void updated(const ws::EngineUpdate& update);
    void failed(const QString& message);
    void finished();

private:
    void publish(EngineUpdate&& update);
    void deliver(); // on the owner's thread: takes the waiting update and emits updated()
    void work();
    void refreshResources();

    std::vector<std::unique_ptr<Source>> m_sources;
    Pipeline m_pipeline;
    bool m_prepared = false;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_running{false};
    QThread* m_thread = nullptr;

    mutable std::mutex m_mutex; // guards everything below
    std::optional<EngineUpdate> m_waiting;
    AnomalyList m_published;
    QStringList m_resources;
    QString m_failure;
};

} // namespace ws

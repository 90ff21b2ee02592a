#pragma once

#include "EtcdEventProcessor.h"
#include "engine/EngineUpdate.h"
#include "engine/Source.h"
#include "engine/SourceSpec.h"
#include "model/Frame.h"

#include <memory>

namespace ws {

class EtcdFrameDecoder;
class Pipeline;

// Everything the etcd source does with its frames, live or replayed from a capture: decodes
// them (EtcdFrameDecoder -> EtcdEventProcessor -> the pipeline's detectors), ticks the
// detectors and samples the SPEC §3 series on Tick frames, and answers snapshots. Live and
// replay call consume() with the same frames in the same order, so they find the same
// anomalies and the same timeline.
class EtcdFrameConsumer {
public:
    EtcdFrameConsumer(const EtcdSourceSpec& spec, Pipeline& pipeline);
    ~EtcdFrameConsumer();

    void consume(const Frame& frame);
    static Frame tick(int connection, TimeUs t, bool final);
    TimeUs time() const { return m_time; } // of the last frame consumed

    EtcdProcessorStats stats() const;
    // The watch's revision account, as the live source and a replay of its capture keep it.
    QVector<SourceRevisionAccount> revisionAccounts() const;
    QStringList resources() const;
    qint64 totalEvents() const;
    // `state`: the watcher's state as the source knows it ("connecting" before any answer).
    // Events of each resource received from etcd (creates, updates, deletes).
    void resourceSnapshot(QVector<ResourceSnapshot>& resources) const;
    void snapshot(QVector<CacheSnapshot>& caches, QVector<WatcherSnapshot>& watchers,
                  const QString& state) const;

    static const QString& watcherId();

private:
    void sample(TimeUs t);

    Pipeline& m_pipeline;
    std::unique_ptr<EtcdEventProcessor> m_processor;
    std::unique_ptr<EtcdFrameDecoder> m_decoder;
    TimeUs m_time = 0;  // the processor's clock: a frame's receive time while decoding
    QString m_selector; // what the watch covers: "prefix /registry/"
    TimeUs m_nextSample = 0;
};

} // namespace ws

#pragma once

#include "AnomalyStore.h"
#include "EngineUpdate.h"
#include "EventJournal.h"
#include "ResourceFilter.h"
#include "SessionOutputs.h"
#include "SessionRecorder.h"
#include "detect/DetectorHub.h"
#include "detect/IncidentGrouper.h"
#include "model/Frame.h"
#include "model/KeyTable.h"
#include "timeline/TimelineStore.h"

#include <QDateTime>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace ws {

class CaptureWriter;
class Source;

struct PipelineOptions {
    ResourceFilter resources;
    SessionOutputs outputs;
    EventJournalLimits journal; // off unless asked for (EventJournalLimits::window())
    AnomalyStoreLimits anomalies;
};

// The one pipeline every source feeds: the key table, the DetectorHub (one for all sources, so
// a client moving between apiservers is seen by one set of detectors), the TimelineStore, the
// output files, the resource filter, the frame taps, and the assembly of EngineUpdates with
// their events/s rate. Not thread-safe: lives on the session thread (built before it starts).
class Pipeline {
public:
    explicit Pipeline(PipelineOptions options = {});
    ~Pipeline();
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    KeyTable& keys() { return m_keys; }
    DetectorHub& hub() { return m_hub; }
    TimelineStore& timeline() { return m_timeline; }
    // Every event the sources received (bounded); sources append on the session thread, the
    // GUI reads it from its own (sharedJournal() keeps it alive after the session is gone).
    EventJournal& journal() { return *m_journal; }
    std::shared_ptr<const EventJournal> sharedJournal() const { return m_journal; }
    const ResourceFilter& resources() const { return m_options.resources; }
    const PipelineOptions& options() const { return m_options; }

    // Opens the files the user asked for (a bad path fails before any work); wall-clock start
    // of the session is now.
    // A capture (--out) is written as a frame tap, with `capture` as its header (its time: the
    // session's start). `wallStart` invalid: the session starts now.
    bool openOutputs(const CaptureHeader& capture, const QDateTime& wallStart, QString* error);
    bool closeOutputs(TimeUs endTime, QString* error);
    const SessionRecorder& recorder() const { return m_recorder; }

    // A capture started while the session runs (the window's Record button): `header` first,
    // then every connection already open, then every frame from now on, until stopCapture() (or
    // closeOutputs()) writes the End record at `endTime`. False with one line when the file
    // cannot be written or a capture is already being written.
    bool startCapture(const QString& path, const CaptureHeader& header, QString* error);
    bool stopCapture(TimeUs endTime, QString* error);
    // The capture being written by startCapture(), or null.
    const CaptureWriter* liveCapture() const { return m_liveCapture.get(); }
    // What the sources' queues and the files held back or dropped so far (the session adds
    // its own delivery figures). The recorder's capture stops here when its file failed.
    FlowStats flow(const std::vector<Source*>& sources);
    QDateTime wallStart() const { return m_wallStart; }

    // For a watcher over many resources (an etcd keyspace): the resource of an anomaly that
    // names a key but no resource. The first resolver with an answer wins.
    void addKeyResourceResolver(std::function<QString(const QString& key)> resolver) {
        m_resolvers.push_back(std::move(resolver));
    }

    // The capture seam: sources report their connections and every frame they decode.
    void addTap(FrameTap* tap) { m_taps.push_back(tap); }
    void connectionOpened(const ConnectionInfo& connection);
    void frameReceived(const Frame& frame);
    std::int64_t framesReceived() const { return m_frames; }
    std::int64_t bytesReceived() const { return m_bytes; }

    // Everything since the previous update: anomalies and samples in full, snapshots of now.
    EngineUpdate takeUpdate(const std::vector<Source*>& sources, bool finished, TimeUs wallNow);

    // The anomalies shown so far that memory keeps (AnomalyStoreLimits): a copy.
    AnomalyList anomalies() const { return m_anomalies->kept(); }
    // Every anomaly shown is added here once; thread-safe, and alive as long as it is held.
    const AnomalyStore& anomalyStore() const { return *m_anomalies; }
    std::shared_ptr<const AnomalyStore> sharedAnomalyStore() const { return m_anomalies; }
    const IncidentGrouper& incidents() const { return m_incidents; }

private:
    void onAnomaly(const Anomaly& anomaly);

    PipelineOptions m_options;
    KeyTable m_keys;
    DetectorHub m_hub;
    TimelineStore m_timeline;
    std::shared_ptr<EventJournal> m_journal;
    std::shared_ptr<AnomalyStore> m_anomalies; // every anomaly shown, once (bounded)
    SessionRecorder m_recorder;
    QDateTime m_wallStart;
    std::vector<FrameTap*> m_taps;
    std::map<int, ConnectionInfo> m_connections; // every connection seen, for a later capture
    std::unique_ptr<CaptureWriter> m_liveCapture;
    qint64 m_pastCaptureFramesDropped = 0; // of live captures stopped so far
    qint64 m_pastCaptureBytesDropped = 0;
    std::vector<std::function<QString(const QString&)>> m_resolvers;
    std::int64_t m_frames = 0;
    std::int64_t m_bytes = 0;
    AnomalyList m_pending; // since the last update
    IncidentGrouper m_incidents;
    std::set<std::int64_t> m_changedIncidents;     // since the last update, in id order
    std::vector<QVector<QPointF>> m_pendingSeries; // by SeriesId
    // Ingest rate over at least half a second of wall time.
    qint64 m_rateEvents = 0;
    TimeUs m_rateWall = 0;
    double m_rate = 0;
};

} // namespace ws

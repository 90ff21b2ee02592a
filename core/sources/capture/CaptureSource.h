#pragma once

#include "capture/CaptureReader.h"
#include "engine/ReplayControl.h"
#include "engine/Source.h"

#include <map>
#include <memory>

namespace ws {

class ClusterFrameConsumer;
class EtcdFrameConsumer;

// A .wscap capture played back as a source: its frames go, in order and with their recorded
// times, through the very consumer of the source that recorded them (EtcdFrameConsumer for
// etcd, ClusterFrameConsumer for a cluster), so the anomalies and the timeline come out as they did
// live. Paced at `speed` recorded seconds per wall second (0: as fast as it can). A cut or damaged
// file plays up to its last whole record and says so in warning().
class CaptureSource : public Source {
public:
    CaptureSource(QString path, double speed);
    ~CaptureSource() override;

    QString description() const override;
    QString kind() const override { return QStringLiteral("capture"); }
    bool keepsSecrets() const override { return !m_reader.header().secretsRedacted; }
    QJsonObject replayInfo() const override { return m_reader.header().replay; }
    QDateTime wallStart() const override;
    QString warning() const override;
    // A replayed cluster session's, as the live session had them.
    QStringList sessionWarnings() const override;
    bool prepare(QString* error) override;
    bool open(Pipeline& pipeline, QString* error) override;
    TimeUs poll(Pipeline& pipeline) override;
    bool finished() const override { return m_done; }
    QString state() const override;
    void close(Pipeline& pipeline) override;
    QStringList resources() const override;
    TimeUs now() const override { return m_time; }
    qint64 totalEvents() const override;
    void snapshot(QVector<CacheSnapshot>& caches,
                  QVector<WatcherSnapshot>& watchers) const override;
    void resourceSnapshot(QVector<ResourceSnapshot>& resources) const override;
    // What the recorded connections say ("etcd 3.4.23", "kube-apiserver v1.31.2, client-go
    // 0.27"), and for a cluster what its replayed discovery found, as the replay reaches them.
    VersionContext versions() const override;
    // The recorded source's accounts, kept again from its frames (an etcd capture's watch).
    QVector<SourceRevisionAccount> revisionAccounts() const override;

    const CaptureHeader& header() const { return m_reader.header(); }
    // Paced (speed, pause, seek) by `control` instead of the constructor's speed. Before open().
    void setReplayControl(std::shared_ptr<ReplayControl> control) {
        m_pacer.setControl(std::move(control));
    }

private:
    bool feed(Pipeline& pipeline, const CaptureRecord& record);

    QString m_path;
    ReplayPacer m_pacer;
    CaptureReader m_reader;
    std::unique_ptr<EtcdFrameConsumer> m_etcd;       // a capture of etcd
    std::unique_ptr<ClusterFrameConsumer> m_cluster; // a capture of a cluster
    CaptureRecord m_pending;                         // read, not yet due
    bool m_hasPending = false;
    TimeUs m_time = 0;
    bool m_done = false;
    VersionContext m_versions; // from the connection records read so far
};

} // namespace ws

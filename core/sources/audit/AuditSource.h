#pragma once

#include "AuditMerger.h"
#include "AuditObserver.h"
#include "AuditProblems.h"
#include "AuditRequestTracker.h"
#include "AuditStreamThread.h"
#include "engine/Source.h"
#include "engine/SourceSpec.h"

#include <QElapsedTimer>
#include <memory>
#include <optional>
#include <vector>

namespace ws {

// kube-apiserver audit logs (--audit-log PATH[,PATH...] [--follow]) read as a source: the
// files of each apiserver (AuditLogFiles) parsed line by line, each on its own thread
// (AuditStreamThread), merged in time
// order (AuditMerger), the stages of each request put together (AuditRequestTracker) and its
// lists and watches fed to the detectors and series (AuditObserver). Session time is log time
// from the first event; it reads as fast as it can (a log is history), and with --follow
// waits for more at the end of each live file.
class AuditSource : public Source {
public:
    explicit AuditSource(SourceSpec spec);
    ~AuditSource() override;

    QString description() const override;
    QString kind() const override { return QStringLiteral("audit"); }
    QDateTime wallStart() const override;
    QString warning() const override;
    bool prepare(QString* error) override;
    bool open(Pipeline& pipeline, QString* error) override;
    TimeUs poll(Pipeline& pipeline) override;
    bool finished() const override { return m_finished; }
    QString state() const override;
    void close(Pipeline& pipeline) override;
    QStringList resources() const override;
    TimeUs now() const override;
    qint64 totalEvents() const override { return m_events; }
    void snapshot(QVector<CacheSnapshot>& caches,
                  QVector<WatcherSnapshot>& watchers) const override;
    void resourceSnapshot(QVector<ResourceSnapshot>& resources) const override;

    const AuditProblems& problems() const { return m_problems; }
    std::int64_t requests() const { return m_tracker ? m_tracker->requests() : 0; }

private:
    void reportProblems(Pipeline& pipeline);
    void consume(AuditEvent& event);

    SourceSpec m_spec;
    std::vector<AuditLogGroup> m_groups;
    AuditProblems m_problems;
    std::vector<std::unique_ptr<AuditStreamThread>> m_streams;
    std::unique_ptr<AuditMerger> m_merger;
    std::unique_ptr<AuditObserver> m_observer;
    std::unique_ptr<AuditRequestTracker> m_tracker;
    std::optional<AuditEvent> m_first; // read by prepare() for the session's start
    qint64 m_events = 0;
    std::int64_t m_badUris = 0;
    bool m_finished = false;
    QElapsedTimer m_clock;
};

} // namespace ws

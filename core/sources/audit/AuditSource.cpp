#include "AuditSource.h"

#include "engine/Pipeline.h"

namespace ws {

namespace {
constexpr int kEventsPerPoll = 20000;             // a slice of work between two looks at the clock
constexpr TimeUs kFollowPoll = milliseconds(200); // --follow: how often a live file is looked at
} // namespace

AuditSource::AuditSource(SourceSpec spec) : m_spec(std::move(spec)) {}
AuditSource::~AuditSource() = default;

QString AuditSource::description() const {
    QStringList names;
    for (const AuditLogGroup& g : m_groups)
        names << g.apiserver;
    return QStringLiteral("audit log %1%2")
        .arg(names.isEmpty() ? m_spec.auditLogs.join(u',') : names.join(QStringLiteral(", ")),
             m_spec.follow ? QStringLiteral(" (following)") : QString());
}

QDateTime AuditSource::wallStart() const {
    if (!m_observer && !m_first)
        return {};
    const TimeUs origin = m_observer ? m_observer->origin() : m_first->received;
    return QDateTime::fromMSecsSinceEpoch(origin / kUsPerMs, Qt::UTC);
}

QString AuditSource::warning() const {
    QString w = m_problems.summary();
    auto add = [&w](const QString& part) {
        w += (w.isEmpty() ? QStringLiteral("audit log: ") : QStringLiteral("; ")) + part;
    };
    if (m_badUris > 0)
        add(QStringLiteral("%1 list/watch events without a resource requestURI skipped")
                .arg(m_badUris));
    if (m_tracker && m_tracker->givenUp() > 0)
        add(QStringLiteral("%1 requests given up waiting for their last stage")
                .arg(m_tracker->givenUp()));
    return w;
}

bool AuditSource::prepare(QString* error) {
    if (m_spec.auditLogs.isEmpty()) {
        *error = QStringLiteral("--audit-log: give a file or folder");
        return false;
    }
    m_groups = AuditLogFiles::expand(m_spec.auditLogs, error);
    if (m_groups.empty())
        return false;
    for (std::size_t i = 0; i < m_groups.size(); ++i) {
        auto stream = std::make_unique<AuditStreamThread>(static_cast<int>(i), m_groups[i],
                                                          m_spec.follow, m_problems);
        if (!stream->open(error)) {
            *error = QStringLiteral("--audit-log: %1").arg(*error);
            return false;
        }
        m_streams.push_back(std::move(stream));
    }
    m_merger = std::make_unique<AuditMerger>(m_streams, m_problems);
    // The first event fixes the session's start (and its wall-clock time in the outputs).
    AuditEvent first;
    if (m_merger->next(&first) == AuditMerger::Status::Event)
        m_first = std::move(first);
    return true;
}

bool AuditSource::open(Pipeline& pipeline, QString* /*error*/) {
    m_observer = std::make_unique<AuditObserver>(pipeline);
    if (m_first)
        m_observer->setOrigin(m_first->received);
    QStringList apiservers;
    for (const AuditLogGroup& g : m_groups)
        apiservers << g.apiserver;
    AuditObserver* o = m_observer.get();
    m_tracker = std::make_unique<AuditRequestTracker>(
        apiservers, AuditRequestTracker::Listener{[o](const AuditRequest& r) { o->started(r); },
                                                  [o](const AuditRequest& r) { o->watchOpened(r); },
                                                  [o](const AuditRequest& r) { o->completed(r); }});
    m_clock.start();
    return true;
}

void AuditSource::consume(AuditEvent& event) {
    ++m_events;
    if (!m_first) { // following a log that was empty when the session began
        m_first = event;
        m_observer->setOrigin(event.received);
    }
    QString error;
    if (!m_tracker->add(event, &error))
        ++m_badUris;
}

void AuditSource::reportProblems(Pipeline& pipeline) {
    for (const QString& message : m_problems.takeMessages()) {
        Anomaly a;
        a.time = m_observer->now();
        a.kind = AnomalyKind::StreamError;
        a.severity = Severity::Warning;
        a.source = AnomalySource::Apiserver;
        a.message = QStringLiteral("audit log %1").arg(message);
        pipeline.hub().report(a);
    }
}

TimeUs AuditSource::poll(Pipeline& pipeline) {
    if (m_finished)
        return kFollowPoll;
    if (m_first && m_events == 0) {
        AuditEvent first = *m_first;
        consume(first);
    }
    // --duration: log time from the first request; while following, wall-clock time.
    const std::optional<TimeUs> end = m_spec.duration;
    if (end && m_spec.follow && m_clock.elapsed() * kUsPerMs >= *end) {
        m_finished = true;
        return 0;
    }
    // One event for the slice: its strings go back to the reader thread with each swap, and
    // come back with the next event, so neither thread allocates or frees per line.
    AuditEvent event;
    for (int i = 0; i < kEventsPerPoll; ++i) {
        const AuditMerger::Status s = m_merger->next(&event);
        if (s == AuditMerger::Status::Waiting) {
            reportProblems(pipeline);
            return kFollowPoll;
        }
        if (s == AuditMerger::Status::Done ||
            (end && !m_spec.follow && event.stageTime - m_observer->origin() > *end)) {
            m_finished = true;
            break;
        }
        consume(event);
    }
    reportProblems(pipeline);
    return 0;
}

QString AuditSource::state() const {
    std::int64_t read = 0, total = 0;
    for (const auto& s : m_streams) {
        read += s->bytesRead();
        total += s->totalBytes();
    }
    const double elapsed = std::max<qint64>(1, m_clock.elapsed()) / 1000.0;
    return QStringLiteral("%1 of %2 MB read in %3 s, %4 MB/s")
        .arg(double(read) / 1e6, 0, 'f', 1)
        .arg(double(total) / 1e6, 0, 'f', 1)
        .arg(elapsed, 0, 'f', 1)
        .arg(double(read) / 1e6 / elapsed, 0, 'f', 1);
}

void AuditSource::close(Pipeline& pipeline) {
    reportProblems(pipeline);
}

QStringList AuditSource::resources() const {
    return m_observer ? m_observer->resources() : QStringList();
}

TimeUs AuditSource::now() const {
    return m_observer ? m_observer->now() : 0;
}

void AuditSource::snapshot(QVector<CacheSnapshot>& /*caches*/,
                           QVector<WatcherSnapshot>& watchers) const {
    if (m_observer)
        m_observer->snapshot(watchers);
}

void AuditSource::resourceSnapshot(QVector<ResourceSnapshot>& resources) const {
    if (m_observer)
        m_observer->resourceSnapshot(resources);
}

} // namespace ws

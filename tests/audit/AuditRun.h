#pragma once

// Runs the audit-log source over a Pipeline on the test's thread, as the session does.

#include "AuditLines.h"
#include "engine/Pipeline.h"
#include "engine/SeriesNames.h"
#include "sources/audit/AuditSource.h"

#include <QDeadlineTimer>
#include <memory>

namespace ws::test {

struct AuditRun {
    std::unique_ptr<Pipeline> pipeline = std::make_unique<Pipeline>();
    std::unique_ptr<AuditSource> source;
    QString error;

    bool start(const QStringList& paths, bool follow = false) {
        SourceSpec spec;
        spec.kind = SourceSpec::Kind::AuditLog;
        spec.auditLogs = paths;
        spec.follow = follow;
        source = std::make_unique<AuditSource>(spec);
        return source->prepare(&error) && source->open(*pipeline, &error);
    }
    // Writes each log (file name, lines) into `dir` and reads them all, to the end.
    bool read(const QString& dir, const QList<std::pair<QString, QByteArray>>& logs) {
        QStringList paths;
        for (const auto& [name, bytes] : logs) {
            paths << dir + u'/' + name;
            if (!writeFile(paths.back(), bytes)) {
                error = QStringLiteral("cannot write %1").arg(paths.back());
                return false;
            }
        }
        if (!start(paths))
            return false;
        drain();
        return true;
    }
    // Reads everything there is (not following).
    void drain() {
        while (!source->finished())
            source->poll(*pipeline);
        source->close(*pipeline);
    }
    // Following: polls until `done` holds or 10 s passed.
    template <typename Done> bool pollUntil(Done done) {
        QDeadlineTimer deadline(10000);
        while (!done()) {
            if (deadline.hasExpired())
                return false;
            source->poll(*pipeline);
        }
        return true;
    }
    int count(AnomalyKind kind, const QString& watcher = {}) const {
        int n = 0;
        for (const Anomaly& a : pipeline->anomalies())
            n += a.kind == kind && (watcher.isEmpty() || a.watcher == watcher);
        return n;
    }
    QStringList messages(AnomalyKind kind) const {
        QStringList out;
        for (const Anomaly& a : pipeline->anomalies())
            if (a.kind == kind)
                out << a.message;
        return out;
    }
    // The last value of a series, or -1 when it has none.
    double last(const QString& resource, const QString& series) const {
        const SeriesId id = pipeline->timeline().findSeries(resource, series);
        if (id < 0)
            return -1;
        const auto points = pipeline->timeline().points(id);
        return points.empty() ? -1 : points.back().value;
    }
    QVector<WatcherSnapshot> watchers() const {
        QVector<CacheSnapshot> caches;
        QVector<WatcherSnapshot> out;
        source->snapshot(caches, out);
        return out;
    }
};

} // namespace ws::test

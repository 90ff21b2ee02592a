#pragma once

#include "AuditRequest.h"
#include "engine/EngineUpdate.h"
#include "model/Observation.h"
#include "timeline/TimelineStore.h"

#include <QHash>
#include <vector>

namespace ws {

class Pipeline;

// Turns reconstructed requests into what the pipeline's detectors and series take: each client
// (user + user agent) of a resource, per selector, is one watcher; a list is listStarted then
// listCompleted or listFailed, a watch watchOpened then watchClosed (or watchError). What an
// audit log does not show (the RV a list returned, the events of a watch) is not made up: the
// RV a request asked for goes to the revision-regression check as asked.
class AuditObserver {
public:
    // A watch that ends before this share of its timeoutSeconds was cut by the server (an
    // apiserver closes it at timeoutSeconds exactly: s/apiserver/pkg/endpoints/handlers/
    // watch.go serveWatch's timeout); a client that cancels is told apart by nothing here.
    static constexpr double kWatchCutShare = 0.5;

    explicit AuditObserver(Pipeline& pipeline) : m_pipeline(pipeline) {}

    // Log time (µs since the epoch) that is session time 0.
    void setOrigin(TimeUs epochUs) { m_origin = epochUs; }
    TimeUs origin() const { return m_origin; }
    TimeUs now() const { return m_now; }

    void started(const AuditRequest& request);
    void watchOpened(const AuditRequest& request);
    void completed(const AuditRequest& request);

    QStringList resources() const { return m_resourceNames; }
    void snapshot(QVector<WatcherSnapshot>& watchers) const;
    void resourceSnapshot(QVector<ResourceSnapshot>& resources) const;

private:
    // What the watcher table's `detail` says, kept as numbers and written out only when a
    // snapshot is taken (formatting it at every request was a tenth of the source's time).
    struct Detail {
        enum class Kind : std::uint8_t { None, Listing, Watching, Done } kind = Kind::None;
        bool watch = false;
        int code = 0;
        TimeUs duration = 0;
    };
    struct Client {
        WatcherId hubId = -1;
        mutable WatcherSnapshot row; // what the watcher table shows (detail written on demand)
        Detail detail;
        mutable bool detailStale = false;
        bool listed = false;
        SeriesId requestedRv = kHiddenSeries;
        TimeUs lastArrival = 0; // of the latest request told to the regression check (epoch µs)
    };
    struct Resource {
        QString name;
        qint64 lists = 0;
        qint64 watches = 0;
        qint64 listsInflight = 0;
        // Looked up once: a lookup by name per request was a tenth of the source's time.
        SeriesId requestsList = kHiddenSeries;
        SeriesId requestsWatch = kHiddenSeries;
        SeriesId listInflight = kHiddenSeries;
    };
    // A caller's client and resource, found once per caller (by its index).
    struct Known {
        int client = -1;
        int resource = -1;
    };

    Known& known(const AuditRequest& r);
    Client& client(const AuditRequest& r) { return m_clients[std::size_t(known(r).client)]; }
    Resource& resource(const AuditRequest& r) {
        return m_resources[std::size_t(known(r).resource)];
    }
    int findClient(const AuditRequest& r);
    int findResource(const QString& name);
    static void setDetail(Client& c, Detail d);
    TimeUs at(TimeUs epochUs);
    void sample(SeriesId series, TimeUs t, double value);
    static ObservedStatus status(const AuditRequest& r);

    Pipeline& m_pipeline;
    TimeUs m_origin = 0;
    TimeUs m_now = 0;
    std::vector<Client> m_clients;
    QHash<QString, int> m_clientIndex; // by watcher id
    std::vector<Resource> m_resources;
    QHash<QString, int> m_resourceIndex;
    QStringList m_resourceNames;
    std::vector<Known> m_known; // by AuditCaller::index
};

} // namespace ws

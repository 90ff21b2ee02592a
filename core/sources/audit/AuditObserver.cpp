#include "AuditObserver.h"

#include "engine/Pipeline.h"
#include "engine/SeriesNames.h"

namespace ws {

TimeUs AuditObserver::at(TimeUs epochUs) {
    const TimeUs t = std::max<TimeUs>(0, epochUs - m_origin);
    m_now = std::max(m_now, t);
    return t;
}

void AuditObserver::sample(SeriesId series, TimeUs t, double value) {
    m_pipeline.timeline().append(series, t, value); // kHiddenSeries (--resources): nothing
}

int AuditObserver::findResource(const QString& name) {
    if (auto it = m_resourceIndex.constFind(name); it != m_resourceIndex.constEnd())
        return *it;
    TimelineStore& timeline = m_pipeline.timeline();
    Resource r;
    r.name = name;
    r.requestsList = timeline.series(name, series::requestsList());
    r.requestsWatch = timeline.series(name, series::requestsWatch());
    r.listInflight = timeline.series(name, series::listInflight());
    const int index = static_cast<int>(m_resources.size());
    m_resources.push_back(r);
    m_resourceIndex.insert(name, index);
    m_resourceNames << name;
    return index;
}

int AuditObserver::findClient(const AuditRequest& r) {
    // One watcher per client, resource and selector; callers that differ only in apiserver
    // (or in bytes that make the same strings) are one.
    QString id = r.client() + u' ' + r.resource();
    if (!r.selector().isEmpty())
        id += QStringLiteral(" {%1}").arg(r.selector());
    if (auto it = m_clientIndex.constFind(id); it != m_clientIndex.constEnd())
        return *it;
    WatcherInfo info;
    info.id = id;
    info.resource = r.resource();
    info.layer = WatchLayer::Apiserver;
    Client c;
    c.hubId = m_pipeline.hub().registerWatcher(info);
    c.row.id = id;
    c.row.resource = r.resource();
    c.row.selector = r.selector();
    c.row.profile = r.client();
    c.requestedRv = m_pipeline.timeline().series(r.resource(), series::requestedRv(r.client()));
    const int index = static_cast<int>(m_clients.size());
    m_clientIndex.insert(id, index);
    m_clients.push_back(std::move(c));
    return index;
}

AuditObserver::Known& AuditObserver::known(const AuditRequest& r) {
    const std::size_t i = r.caller->index;
    if (i >= m_known.size())
        m_known.resize(i + 1);
    Known& k = m_known[i];
    if (k.client < 0) {
        // The resource first: a new resource's series come before its first client's.
        k.resource = findResource(r.resource());
        k.client = findClient(r);
    }
    return k;
}

void AuditObserver::setDetail(Client& c, Detail d) {
    c.detail = d;
    c.detailStale = true;
}

ObservedStatus AuditObserver::status(const AuditRequest& r) {
    ObservedStatus s;
    s.code = r.code;
    s.reason = QString::fromUtf8(r.reason.data(), qsizetype(r.reason.size()));
    s.message = QString::fromUtf8(r.message.data(), qsizetype(r.message.size()));
    s.requestedRv = r.requestedRv;
    s.server = r.apiserver();
    return s;
}

void AuditObserver::started(const AuditRequest& r) {
    const TimeUs t = at(r.received);
    Known& k = known(r);
    Resource& res = m_resources[std::size_t(k.resource)];
    Client& c = m_clients[std::size_t(k.client)];
    if (c.row.apiserver != r.apiserver())
        c.row.apiserver = r.apiserver();
    c.row.rv = r.requestedRv;
    sample(c.requestedRv, t, double(r.requestedRv));
    // A log shows a list when it completes, so a request can be learned after one that arrived
    // later: the regression check takes a client's requests in the order they arrived.
    if (r.received >= c.lastArrival) {
        c.lastArrival = r.received;
        m_pipeline.hub().requestedRv(c.hubId, t, r.requestedRv, !r.watch);
    }
    if (r.watch) {
        sample(res.requestsWatch, t, double(++res.watches));
        return; // it opens when its response starts
    }
    sample(res.requestsList, t, double(++res.lists));
    sample(res.listInflight, t, double(++res.listsInflight));
    // A continue page is part of the list that asked for its first page: no new list.
    if (r.continued)
        return;
    ListRequest list;
    list.rv = r.requestedRv;
    list.rvEmpty = r.rvEmpty;
    list.isRelist = c.listed;
    list.limit = r.limit;
    if (c.listed)
        ++c.row.relists;
    c.listed = true;
    setDetail(c, {Detail::Kind::Listing});
    m_pipeline.hub().listStarted(c.hubId, t, list);
}

void AuditObserver::watchOpened(const AuditRequest& r) {
    const TimeUs t = at(r.started);
    Client& c = client(r);
    WatchRequest watch;
    watch.rv = r.requestedRv;
    watch.rvEmpty = r.rvEmpty;
    watch.allowBookmarks = r.allowWatchBookmarks;
    watch.selector = r.selector();
    watch.timeoutSeconds = r.timeoutSeconds;
    if (r.sendInitialEvents.value_or(false)) {
        // A watch-list is how client-go syncs (the client's row counts its resyncs), but for
        // the apiserver it is a watch the cache streams, no LIST: relist-storm does not count
        // it. Its initial-events-end bookmark is in the response body, which no audit level
        // below RequestResponse keeps: it is not waited for (initial-events-stalled would fire
        // on every one), so the request goes to the detectors as a plain watch.
        if (c.listed)
            ++c.row.relists;
        c.listed = true;
    }
    setDetail(c, {Detail::Kind::Watching});
    m_pipeline.hub().watchOpened(c.hubId, t, watch);
}

void AuditObserver::completed(const AuditRequest& r) {
    const TimeUs t = at(r.completed);
    Client& c = client(r);
    DetectorHub& hub = m_pipeline.hub();
    setDetail(c, {Detail::Kind::Done, r.watch, r.code, r.duration()});
    if (!r.watch) {
        Resource& res = resource(r);
        sample(res.listInflight, t, double(--res.listsInflight));
        if (r.failed())
            hub.listFailed(c.hubId, t, status(r));
        else if (!r.continued)
            // A list that succeeded made progress; how many items it had the log does not say.
            hub.listCompleted(c.hubId, t, 0, 1);
        return;
    }
    if (r.failed()) {
        hub.watchError(c.hubId, t, status(r));
        hub.watchClosed(c.hubId, t, WatchCloseReason::AfterError);
        return;
    }
    const std::int64_t timeout = r.timeoutSeconds;
    const bool cut = timeout > 0 && r.duration() < seconds(double(timeout) * kWatchCutShare);
    hub.watchClosed(c.hubId, t,
                    cut ? WatchCloseReason::ServerClosed : WatchCloseReason::ClientTimeout);
}

void AuditObserver::snapshot(QVector<WatcherSnapshot>& watchers) const {
    for (const Client& c : m_clients) {
        if (c.detailStale) {
            c.detailStale = false;
            const Detail& d = c.detail;
            switch (d.kind) {
            case Detail::Kind::None:
                break;
            case Detail::Kind::Listing:
                c.row.detail = QStringLiteral("listing");
                break;
            case Detail::Kind::Watching:
                c.row.detail = QStringLiteral("watching");
                break;
            case Detail::Kind::Done:
                c.row.detail = QStringLiteral("%1 %2 in %3 s")
                                   .arg(d.watch ? QStringLiteral("watch") : QStringLiteral("list"))
                                   .arg(d.code)
                                   .arg(double(d.duration) / kUsPerSecond, 0, 'f', 1);
                break;
            }
        }
        watchers.push_back(c.row);
    }
}

void AuditObserver::resourceSnapshot(QVector<ResourceSnapshot>& resources) const {
    for (const Resource& r : m_resources)
        resources.push_back({r.name, r.lists + r.watches});
}

} // namespace ws

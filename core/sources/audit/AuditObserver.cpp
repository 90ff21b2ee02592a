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

AuditObserver::Resource& AuditObserver::resource(const QString& name) {
    auto it = m_resources.find(name);
    if (it == m_resources.end()) {
        TimelineStore& timeline = m_pipeline.timeline();
        Resource r;
        r.requestsList = timeline.series(name, series::requestsList());
        r.requestsWatch = timeline.series(name, series::requestsWatch());
        r.listInflight = timeline.series(name, series::listInflight());
        it = m_resources.insert(name, r);
        m_resourceNames << name;
    }
    return *it;
}

AuditObserver::Client& AuditObserver::client(const AuditRequest& r) {
    const QString selector = r.selector();
    QString id = r.client + u' ' + r.resource;
    if (!selector.isEmpty())
        id += QStringLiteral(" {%1}").arg(selector);
    auto it = m_clientIndex.constFind(id);
    if (it != m_clientIndex.constEnd())
        return m_clients[static_cast<std::size_t>(*it)];
    WatcherInfo info;
    info.id = id;
    info.resource = r.resource;
    info.layer = WatchLayer::Apiserver;
    Client c;
    c.hubId = m_pipeline.hub().registerWatcher(info);
    c.row.id = id;
    c.row.resource = r.resource;
    c.row.selector = selector;
    c.row.profile = r.client;
    c.requestedRv = m_pipeline.timeline().series(r.resource, series::requestedRv(r.client));
    m_clientIndex.insert(id, static_cast<int>(m_clients.size()));
    m_clients.push_back(c);
    return m_clients.back();
}

ObservedStatus AuditObserver::status(const AuditRequest& r) {
    ObservedStatus s;
    s.code = r.code;
    s.reason = r.reason;
    s.message = r.message;
    s.requestedRv = r.requestedRv();
    s.server = r.apiserver;
    return s;
}

void AuditObserver::started(const AuditRequest& r) {
    const TimeUs t = at(r.received);
    Resource& res = resource(r.resource);
    Client& c = client(r);
    c.row.apiserver = r.apiserver;
    c.row.rv = r.requestedRv();
    sample(c.requestedRv, t, double(r.requestedRv()));
    // A log shows a list when it completes, so a request can be learned after one that arrived
    // later: the regression check takes a client's requests in the order they arrived.
    if (r.received >= c.lastArrival) {
        c.lastArrival = r.received;
        m_pipeline.hub().requestedRv(c.hubId, t, r.requestedRv(), !r.watch());
    }
    if (r.watch()) {
        sample(res.requestsWatch, t, double(++res.watches));
        return; // it opens when its response starts
    }
    sample(res.requestsList, t, double(++res.lists));
    sample(res.listInflight, t, double(++res.listsInflight));
    // A continue page is part of the list that asked for its first page: no new list.
    if (!r.query.continueToken.isEmpty())
        return;
    ListRequest list;
    list.rv = r.requestedRv();
    list.rvEmpty = r.query.resourceVersion.isEmpty();
    list.isRelist = c.listed;
    list.limit = r.query.limit;
    if (c.listed)
        ++c.row.relists;
    c.listed = true;
    c.row.detail = QStringLiteral("listing");
    m_pipeline.hub().listStarted(c.hubId, t, list);
}

void AuditObserver::watchOpened(const AuditRequest& r) {
    const TimeUs t = at(r.started);
    Client& c = client(r);
    WatchRequest watch;
    watch.rv = r.requestedRv();
    watch.rvEmpty = r.query.resourceVersion.isEmpty();
    watch.allowBookmarks = r.query.allowWatchBookmarks;
    watch.selector = r.selector();
    watch.timeoutSeconds = r.query.timeoutSeconds;
    if (r.query.sendInitialEvents.value_or(false)) {
        // A watch-list is how client-go syncs (the client's row counts its resyncs), but for
        // the apiserver it is a watch the cache streams, no LIST: relist-storm does not count
        // it. Its initial-events-end bookmark is in the response body, which no audit level
        // below RequestResponse keeps: it is not waited for (initial-events-stalled would fire
        // on every one), so the request goes to the detectors as a plain watch.
        if (c.listed)
            ++c.row.relists;
        c.listed = true;
    }
    c.row.detail = QStringLiteral("watching");
    m_pipeline.hub().watchOpened(c.hubId, t, watch);
}

void AuditObserver::completed(const AuditRequest& r) {
    const TimeUs t = at(r.completed);
    Client& c = client(r);
    DetectorHub& hub = m_pipeline.hub();
    c.row.detail = QStringLiteral("%1 %2 in %3 s")
                       .arg(r.watch() ? QStringLiteral("watch") : QStringLiteral("list"))
                       .arg(r.code)
                       .arg(double(r.duration()) / kUsPerSecond, 0, 'f', 1);
    if (!r.watch()) {
        Resource& res = resource(r.resource);
        sample(res.listInflight, t, double(--res.listsInflight));
        if (r.failed())
            hub.listFailed(c.hubId, t, status(r));
        else if (r.query.continueToken.isEmpty())
            // A list that succeeded made progress; how many items it had the log does not say.
            hub.listCompleted(c.hubId, t, 0, 1);
        return;
    }
    if (r.failed()) {
        hub.watchError(c.hubId, t, status(r));
        hub.watchClosed(c.hubId, t, WatchCloseReason::AfterError);
        return;
    }
    const std::int64_t timeout = r.query.timeoutSeconds;
    const bool cut = timeout > 0 && r.duration() < seconds(double(timeout) * kWatchCutShare);
    hub.watchClosed(c.hubId, t,
                    cut ? WatchCloseReason::ServerClosed : WatchCloseReason::ClientTimeout);
}

void AuditObserver::snapshot(QVector<WatcherSnapshot>& watchers) const {
    for (const Client& c : m_clients)
        watchers.push_back(c.row);
}

void AuditObserver::resourceSnapshot(QVector<ResourceSnapshot>& resources) const {
    for (auto it = m_resources.constBegin(); it != m_resources.constEnd(); ++it)
        resources.push_back({it.key(), it->lists + it->watches});
}

} // namespace ws

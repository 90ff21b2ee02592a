#include "ApiHandler.h"

#include "AcceptNegotiation.h"
#include "ObjectJson.h"
#include "ObjectProto.h"
#include "ServedCluster.h"
#include "kube/ListOptionsValidation.h"
#include "sources/sim/etcd/SimEtcd.h"
#include "util/JsonText.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

namespace ws {

namespace {

constexpr std::string_view kJson = "application/json";
constexpr TimeUs kDefaultWatchTimeout = seconds(1800); // --min-request-timeout

ApiStatus makeStatus(int code, const char* reason, const QString& message) {
    ApiStatus s;
    s.code = code;
    s.reason = QLatin1String(reason);
    s.message = message;
    return s;
}

// WatchScope's own response header on a LIST: which store answered it (a real apiserver does
// not say; tests and curious users can see the version's delegation rules at work).
constexpr const char* kServedFromHeader = "X-WatchScope-Served-From";

std::string servedFromName(const ApiServer::ListResult& r) {
    switch (r.servedFrom) {
    case ApiServer::ListServedFrom::Etcd:
        return "etcd";
    case ApiServer::ListServedFrom::Cache:
        return "cache";
    case ApiServer::ListServedFrom::CacheSnapshot:
        return "cache-snapshot";
    }
    return {};
}

// The list options of a LIST or WATCH request, as the validation sees them.
WatchQuery listOptionsOf(const ApiRequest& api) {
    WatchQuery q;
    q.resourceVersion = api.resourceVersion;
    q.resourceVersionMatch = api.resourceVersionMatch;
    q.sendInitialEvents = api.sendInitialEvents;
    q.hasContinue = !api.continueToken.isEmpty();
    return q;
}

} // namespace

ApiHandler::ApiHandler(ServedCluster& cluster, const ServeOptions& options,
                       std::string serverAddress)
    : m_cluster(cluster), m_options(options),
      m_discovery(cluster.resources(), cluster.profile(), std::move(serverAddress)) {}

ApiHandler::~ApiHandler() = default;

void ApiHandler::respondStatus(ResponseSink& sink, const ApiStatus& status) {
    HttpHeaders headers;
    if (status.retryAfterSeconds > 0)
        headers.emplace_back("Retry-After", std::to_string(status.retryAfterSeconds));
    if (status.plainText) {
        headers.emplace_back("X-Content-Type-Options", "nosniff");
        sink.respond(status.code, "text/plain; charset=utf-8", status.message.toStdString() + '\n',
                     std::move(headers));
        return;
    }
    sink.respond(status.code, kJson, status.toJson().toStdString() + '\n', std::move(headers));
}

ServedEncoding ApiHandler::negotiate(const std::string& accept, int resource, ResponseSink& sink) {
    const ResourceInfo& info = m_cluster.resources()[static_cast<std::size_t>(resource)];
    const bool protobuf = ObjectProto::encodes(info);
    const ServedEncoding encoding = negotiateEncoding(accept, protobuf);
    if (encoding == ServedEncoding::NotAcceptable) {
        // negotiation.NewNotAcceptableError: what this resource can be written as.
        respondStatus(sink,
                      makeStatus(406, "NotAcceptable",
                                 QStringLiteral("only the following media types are "
                                                "accepted: application/json%1")
                                     .arg(protobuf ? QStringLiteral(", ") +
                                                         QLatin1String(ObjectProto::kContentType)
                                                   : QString())));
    }
    return encoding;
}

bool ApiHandler::accepting() const {
    return m_cluster.server().up();
}

void ApiHandler::pumpWatches() {
    std::erase_if(m_watches, [](const auto& w) { return !w->pump(); });
}

bool ApiHandler::authorized(const HttpRequestInfo& request, const ApiRequest& api,
                            ResponseSink& sink) {
    if (m_options.authorizeGroups.isEmpty())
        return true;
    for (const QString& g : request.groups)
        if (m_options.authorizeGroups.contains(g))
            return true;
    static const char* verbs[] = {
        "get", "list", "watch", "create", "update", "delete", "deletecollection", "patch"};
    const QString verb = QLatin1String(verbs[static_cast<int>(api.verb)]);
    const QString scope = api.ns.isEmpty() ? QStringLiteral("at the cluster scope")
                                           : QStringLiteral("in the namespace \"%1\"").arg(api.ns);
    ApiStatus s = makeStatus(403, "Forbidden",
                             QStringLiteral("%1 is forbidden: User \"%2\" cannot %3 resource "
                                            "\"%1\" in API group \"%4\" %5")
                                 .arg(api.resource, request.user, verb, api.group, scope));
    respondStatus(sink, s);
    return false;
}

void ApiHandler::handle(const HttpRequestInfo& request, const std::shared_ptr<ResponseSink>& sink) {
    ++m_requests;
    if (!accepting()) {
        // A restarting apiserver: the connection is dropped (a load balancer's reset).
        sink->abort();
        return;
    }
    const QString target = QString::fromStdString(request.target);
    const QString path = target.section(u'?', 0, 0);
    const bool isGet = request.method == "GET";
    auto text = [&](int code, std::string body,
                    std::string_view type = "text/plain; charset=utf-8") {
        sink->respond(code, type, std::move(body));
    };
    if (isGet && path == QLatin1String("/version"))
        return text(200, m_discovery.version(), kJson);
    if (isGet && path == QLatin1String("/readyz") &&
        m_cluster.profile().watchCacheInitializationPostStartHook &&
        !m_cluster.server().cachesInitializedSinceStart()) {
        // WatchCacheInitializationPostStartHook (on from 1.36): the "storage-readiness" post-start
        // hook holds /readyz until every watch cache has been initialized once.
        return text(500, "[-]poststarthook/storage-readiness failed: reason withheld\n"
                         "readyz check failed\n");
    }
    if (isGet && (path == QLatin1String("/healthz") || path == QLatin1String("/livez") ||
                  path == QLatin1String("/readyz")))
        return text(200, "ok");
    if (isGet && path == QLatin1String("/metrics"))
        return text(200, m_metrics ? m_metrics() : std::string(),
                    "text/plain; version=0.0.4; charset=utf-8");
    if (isGet && (path == QLatin1String("/api") || path == QLatin1String("/apis"))) {
        const bool core = path == QLatin1String("/api");
        const std::string aggregated = m_discovery.aggregatedVersionFor(request.accept);
        if (!aggregated.empty())
            return text(200, m_discovery.aggregated(core, aggregated),
                        DiscoveryDocuments::aggregatedContentType(aggregated));
        return text(200, core ? m_discovery.coreVersions() : m_discovery.groups(), kJson);
    }
    const QStringList parts = path.split(u'/', Qt::SkipEmptyParts);
    if (isGet && parts.size() == 2 && parts[0] == QLatin1String("api")) {
        bool found = false;
        std::string body = m_discovery.resourceList(parts[1], &found);
        if (found)
            return text(200, std::move(body), kJson);
    }
    if (isGet && parts.size() == 2 && parts[0] == QLatin1String("apis")) {
        bool found = false;
        std::string body = m_discovery.group(parts[1], &found);
        if (found)
            return text(200, std::move(body), kJson);
    }
    if (isGet && parts.size() == 3 && parts[0] == QLatin1String("apis")) {
        bool found = false;
        std::string body = m_discovery.resourceList(parts[1] + u'/' + parts[2], &found);
        if (found)
            return text(200, std::move(body), kJson);
    }
    QString error;
    const auto api = ApiRequest::parse(QString::fromStdString(request.method), target, &error);
    const int resource = api ? m_cluster.resourceIndex(api->resource, api->group) : -1;
    if (!api && !error.isEmpty())
        return respondStatus(*sink, makeStatus(400, "BadRequest", error));
    if (!api || resource < 0 || !api->subresource.isEmpty()) {
        ApiStatus s = makeStatus(
            404, "NotFound", QStringLiteral("the server could not find the requested resource"));
        return respondStatus(*sink, s);
    }
    if (!authorized(request, *api, *sink))
        return;
    switch (api->verb) {
    case ApiRequest::Verb::List:
        return list(*api, resource, request.accept, sink);
    case ApiRequest::Verb::Watch:
        return watch(*api, resource, request.accept, sink);
    case ApiRequest::Verb::Get:
        return get(*api, resource, *sink);
    case ApiRequest::Verb::Create:
    case ApiRequest::Verb::Update:
    case ApiRequest::Verb::Delete:
        return write(*api, resource, request, *sink);
    case ApiRequest::Verb::DeleteCollection:
    case ApiRequest::Verb::Patch:
        return respondStatus(*sink,
                             makeStatus(405, "MethodNotAllowed",
                                        QStringLiteral("the server does not allow this method on "
                                                       "the requested resource")));
    }
}

void ApiHandler::list(const ApiRequest& api, int resource, const std::string& accept,
                      const std::shared_ptr<ResponseSink>& sink) {
    const ServedEncoding encoding = negotiate(accept, resource, *sink);
    if (encoding == ServedEncoding::NotAcceptable)
        return;
    // The handler's order (handlers/get.go ListResource): the label selector is parsed with the
    // query (400), the options validated (422), then the field selector converted (400).
    QString error;
    std::optional<LabelSelector> labels;
    if (!api.labelSelector.isEmpty()) {
        labels = LabelSelector::parse(api.labelSelector, &error);
        if (!labels)
            return respondStatus(*sink, makeStatus(400, "BadRequest", error));
    }
    if (auto invalid = invalidListOptions(m_cluster.profile(), listOptionsOf(api)))
        return respondStatus(*sink, *invalid);
    const auto fields = FieldSelector::parse(api.fieldSelector, api.resource, &error);
    if (!fields)
        return respondStatus(*sink, makeStatus(400, "BadRequest", error));
    ApiServer::ListOptions o;
    o.resource = resource;
    o.rvEmpty = api.resourceVersion.isEmpty();
    if (!o.rvEmpty) {
        bool ok = false;
        o.rv = api.resourceVersion.toLongLong(&ok);
        if (!ok || o.rv < 0)
            return respondStatus(
                *sink,
                makeStatus(
                    400, "BadRequest",
                    QStringLiteral("invalid resource version: %1").arg(api.resourceVersion)));
    }
    o.limit = api.limit;
    o.selectorGroup = fields->selectorGroup;
    o.exact = api.resourceVersionMatch == QLatin1String("Exact");
    o.notOlderThan = api.resourceVersionMatch == QLatin1String("NotOlderThan");
    o.continueToken = api.continueToken;
    o.ns = api.ns;
    o.protobuf = encoding == ServedEncoding::Protobuf;
    // The store filters by the other selectors while it pages (etcd3 GetList's predicate).
    const SimKeyspace& keys = m_cluster.keyspace();
    if (fields->filtersObjects() || labels) {
        const FieldSelector filters = *fields;
        o.matches = [&keys, filters, labels](const KeyValue& kv) {
            if (filters.filtersObjects() &&
                !filters.matches(keys.namespaceOf(kv.key), keys.nameOf(kv.key)))
                return false;
            return !labels || labels->matches(LabelSelector::labelsOf(kv.value()));
        };
    }
    const ResourceInfo info = m_cluster.resources()[static_cast<std::size_t>(resource)];
    m_cluster.server().list(o, [this, sink, info, encoding](ApiServer::ListResult result) {
        if (sink->gone())
            return;
        if (!result.ok) {
            if (result.status.code == 0)
                return sink->abort();
            return respondStatus(*sink, result.status);
        }
        std::string body;
        if (encoding == ServedEncoding::Protobuf) {
            std::string why;
            if (!ObjectProto::appendList(body, info, result.rv, result.continueToken.toStdString(),
                                         std::max<std::int64_t>(result.remainingItemCount, 0),
                                         result.items, &why))
                return respondStatus(
                    *sink, makeStatus(500, "InternalError",
                                      QStringLiteral("Internal error occurred: cannot encode the "
                                                     "%1 as protobuf: %2")
                                          .arg(info.kind + QStringLiteral("List"),
                                               QString::fromStdString(why))));
            return sink->respond(200, ObjectProto::kContentType, std::move(body),
                                 {{kServedFromHeader, servedFromName(result)}});
        }
        body.reserve(result.items.size() * 1200 + 256);
        ObjectJson::openList(body, info, result.rv, result.continueToken.toStdString(),
                             std::max<std::int64_t>(result.remainingItemCount, 0));
        for (std::size_t i = 0; i < result.items.size(); ++i) {
            if (i)
                body += ',';
            ObjectJson::appendObject(body, *result.items[i], result.items[i]->modRev);
        }
        ObjectJson::closeList(body);
        sink->respond(200, kJson, std::move(body), {{kServedFromHeader, servedFromName(result)}});
    });
}

void ApiHandler::get(const ApiRequest& api, int resource, ResponseSink& sink) {
    const ResourceInfo& info = m_cluster.resources()[static_cast<std::size_t>(resource)];
    const KeyId key =
        m_cluster.keyspace().findKey(resource, info.namespaced ? api.ns : QString(), api.name);
    KeyValuePtr object;
    if (key != kNoKey) {
        Cacher* cacher = m_cluster.server().cacher(resource);
        // RV="" reads etcd; any other RV may be served by a ready cache (a GET on a cache that
        // is not ready goes to etcd: always for RV=0, for any RV from 1.31, KEP-4568).
        if (!api.resourceVersion.isEmpty() && cacher && cacher->ready())
            object = cacher->cache().object(key);
        else
            object = m_cluster.etcd().get(key);
    }
    if (!object)
        return respondStatus(sink, ServedCluster::notFound(info, api.name));
    std::string body;
    ObjectJson::appendObject(body, *object, object->modRev);
    sink.respond(200, kJson, std::move(body));
}

bool ApiHandler::validateWatchList(const ApiRequest& api, ResponseSink& sink) {
    if (auto invalid = invalidWatchOptions(m_cluster.profile(), listOptionsOf(api))) {
        respondStatus(sink, *invalid);
        return false;
    }
    return true;
}

void ApiHandler::watch(const ApiRequest& api, int resource, const std::string& accept,
                       const std::shared_ptr<ResponseSink>& sink) {
    const ResourceInfo& info = m_cluster.resources()[static_cast<std::size_t>(resource)];
    const ServedEncoding encoding = negotiate(accept, resource, *sink);
    if (encoding == ServedEncoding::NotAcceptable)
        return;
    QString error;
    std::optional<LabelSelector> labels;
    if (!api.labelSelector.isEmpty()) {
        labels = LabelSelector::parse(api.labelSelector, &error);
        if (!labels)
            return respondStatus(*sink, makeStatus(400, "BadRequest", error));
    }
    if (!validateWatchList(api, *sink))
        return;
    const auto fields = FieldSelector::parse(api.fieldSelector, api.resource, &error);
    if (!fields)
        return respondStatus(*sink, makeStatus(400, "BadRequest", error));
    FieldSelector filters = *fields;
    if (!api.ns.isEmpty()) {
        // A namespaced watch is a metadata.namespace field selector on the cluster-wide stream.
        if (!filters.ns.isEmpty() && filters.ns != api.ns)
            filters.notName = filters.name = QStringLiteral("\x01-matches-nothing");
        filters.ns = api.ns;
    }
    ApiServer::WatchOptions o;
    o.resource = resource;
    o.rvEmpty = api.resourceVersion.isEmpty();
    if (!o.rvEmpty) {
        bool ok = false;
        o.rv = api.resourceVersion.toLongLong(&ok);
        if (!ok || o.rv < 0)
            return respondStatus(
                *sink,
                makeStatus(
                    400, "BadRequest",
                    QStringLiteral("invalid resource version: %1").arg(api.resourceVersion)));
    }
    const ServerProfile& p = m_cluster.profile();
    o.sendInitialEvents = p.servesWatchList() && api.sendInitialEvents.value_or(false);
    // Named by the request: exempt from the watch-list defaulting of a plain RV ""/"0" watch.
    o.explicitInitialEvents =
        api.sendInitialEvents.has_value() || !api.resourceVersionMatch.isEmpty();
    o.allowBookmarks = api.allowWatchBookmarks;
    o.selectorGroup = fields->selectorGroup;
    o.nameSelector = !fields->name.isEmpty(); // pins the configmap/secret/node trigger index
    o.timeout = api.timeoutSeconds > 0 ? seconds(api.timeoutSeconds) : kDefaultWatchTimeout;
    ApiStatus status;
    std::shared_ptr<ServerWatch> w = m_cluster.server().watch(o, &status);
    if (!w) {
        if (status.code == 0)
            return sink->abort();
        return respondStatus(*sink, status);
    }
    WatchStream::Encoding written;
    written.protobuf = encoding == ServedEncoding::Protobuf;
    written.zeroCreationTimestamp = m_cluster.profile().writesZeroCreationTimestamp();
    auto stream = std::make_unique<WatchStream>(m_cluster.keyspace(), info, w, sink, filters,
                                                std::move(labels), written);
    if (stream->pump())
        m_watches.push_back(std::move(stream));
}

void ApiHandler::write(const ApiRequest& api, int resource, const HttpRequestInfo& request,
                       ResponseSink& sink) {
    ServedCluster::WriteResult r;
    const QByteArray body = QByteArray::fromStdString(request.body);
    const ResourceInfo& info = m_cluster.resources()[static_cast<std::size_t>(resource)];
    if (api.verb == ApiRequest::Verb::Create)
        r = m_cluster.create(resource, api.ns, body);
    else if (api.verb == ApiRequest::Verb::Update)
        r = m_cluster.update(resource, api.ns, api.name, body);
    else
        r = m_cluster.remove(resource, api.ns, api.name);
    if (!r.object)
        return respondStatus(sink, r.status);
    std::string out;
    if (api.verb == ApiRequest::Verb::Delete) {
        const QJsonObject meta =
            QJsonDocument::fromJson(QByteArray::fromStdString(std::string(r.object->value())))
                .object()
                .value(QLatin1String("metadata"))
                .toObject();
        out =
            ObjectJson::deleteSuccess(info, api.name, meta.value(QLatin1String("uid")).toString());
    } else {
        ObjectJson::appendObject(out, *r.object, r.rv);
    }
    sink.respond(r.httpStatus, kJson, std::move(out));
}

} // namespace ws

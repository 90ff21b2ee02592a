#include "ApiRequest.h"

#include <QUrl>
#include <QUrlQuery>

namespace ws {

namespace {
bool truthy(const QString& v) {
    return v == QLatin1String("1") || v.compare(QLatin1String("true"), Qt::CaseInsensitive) == 0;
}
} // namespace

std::optional<ApiRequest> ApiRequest::parse(const QString& method, const QString& target,
                                            QString* error) {
    error->clear();
    const QUrl url(target);
    QStringList parts = url.path().split(u'/', Qt::SkipEmptyParts);
    ApiRequest r;
    if (parts.size() >= 3 && parts[0] == QLatin1String("api")) {
        r.version = parts[1];
        parts = parts.mid(2);
    } else if (parts.size() >= 4 && parts[0] == QLatin1String("apis")) {
        r.group = parts[1];
        r.version = parts[2];
        parts = parts.mid(3);
    } else {
        return std::nullopt;
    }
    // namespaces/{ns}/{resource}[/{name}[/{subresource}]]; "namespaces" alone or
    // namespaces/{name} is the namespaces resource itself.
    if (parts.size() >= 3 && parts[0] == QLatin1String("namespaces")) {
        r.ns = parts[1];
        parts = parts.mid(2);
    }
    r.resource = parts.value(0);
    r.name = parts.value(1);
    r.subresource = parts.value(2);
    if (parts.size() > 3)
        return std::nullopt;

    const QUrlQuery q(url);
    auto value = [&](const char* key) {
        return q.queryItemValue(QLatin1String(key), QUrl::FullyDecoded);
    };
    r.hasResourceVersion = q.hasQueryItem(QStringLiteral("resourceVersion"));
    r.resourceVersion = value("resourceVersion");
    r.resourceVersionMatch = value("resourceVersionMatch");
    r.continueToken = value("continue");
    r.labelSelector = value("labelSelector");
    r.fieldSelector = value("fieldSelector");
    r.allowWatchBookmarks = truthy(value("allowWatchBookmarks"));
    if (q.hasQueryItem(QStringLiteral("sendInitialEvents")))
        r.sendInitialEvents = truthy(value("sendInitialEvents"));
    for (auto [key, out] : {std::pair{"limit", &r.limit}, {"timeoutSeconds", &r.timeoutSeconds}}) {
        const QString v = value(key);
        if (v.isEmpty())
            continue;
        bool ok = false;
        *out = v.toLongLong(&ok);
        if (!ok || *out < 0) {
            *error = QStringLiteral("%1: invalid value '%2'").arg(QLatin1String(key), v);
            return std::nullopt;
        }
    }
    const bool watch = truthy(value("watch"));
    if (method == QLatin1String("GET"))
        r.verb = !r.name.isEmpty() ? Verb::Get : watch ? Verb::Watch : Verb::List;
    else if (method == QLatin1String("POST"))
        r.verb = Verb::Create;
    else if (method == QLatin1String("PUT"))
        r.verb = Verb::Update;
    else if (method == QLatin1String("PATCH"))
        r.verb = Verb::Patch;
    else if (method == QLatin1String("DELETE"))
        r.verb = r.name.isEmpty() ? Verb::DeleteCollection : Verb::Delete;
    else {
        *error = QStringLiteral("method %1 is not supported").arg(method);
        return std::nullopt;
    }
    return r;
}

} // namespace ws

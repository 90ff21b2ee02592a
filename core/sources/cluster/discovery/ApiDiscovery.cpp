#include "ApiDiscovery.h"

#include "sources/cluster/http/HttpRequest.h"
#include "sources/cluster/json/StatusJson.h"
#include "util/OneLine.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ws {

namespace {
constexpr qsizetype kMaxBody = 32 * 1024 * 1024; // a discovery document is a few hundred KiB
constexpr int kTimeoutMs = 15000;
} // namespace

ApiDiscovery::ApiDiscovery(QString endpoint, QString user, NextId nextId, Submit submit)
    : m_endpoint(std::move(endpoint)), m_user(std::move(user)), m_nextId(std::move(nextId)),
      m_submit(std::move(submit)) {}

void ApiDiscovery::start() {
    m_started = true;
    send(QStringLiteral("/version"), Purpose::Version);
    send(QStringLiteral("/api/v1"), Purpose::CoreResources);
    send(QStringLiteral("/apis"), Purpose::Groups);
}

void ApiDiscovery::send(const QString& path, Purpose purpose, const QString& groupVersion) {
    HttpRequest request;
    request.id = m_nextId();
    request.pathAndQuery = path;
    request.timeoutMs = kTimeoutMs;
    Request r;
    r.purpose = purpose;
    r.path = path;
    r.groupVersion = groupVersion;
    m_inFlight.emplace(request.id, std::move(r));
    m_submit(std::move(request));
}

bool ApiDiscovery::onFrame(const Frame& frame) {
    const auto it = m_inFlight.find(frame.connection);
    if (it == m_inFlight.end())
        return false;
    if (!it->second.response.add(frame, kMaxBody))
        return true;
    Request done = std::move(it->second);
    m_inFlight.erase(it);
    finish(done, done.response.end.error, done.response.end.message);
    // The server writes parts of the line (a Status message, a group version it listed): a
    // newline of theirs must not break ours in two (found by fuzz_api_discovery).
    m_failure = oneLine(m_failure);
    return true;
}

void ApiDiscovery::finish(Request& r, HttpErrorKind error, const QString& message) {
    if (!m_failure.isEmpty())
        return;
    if (error != HttpErrorKind::None) {
        // The transport's line names the endpoint already.
        m_failure = message.contains(m_endpoint)
                        ? message
                        : QStringLiteral("cannot reach %1: %2").arg(m_endpoint, message);
        return;
    }
    if (r.response.status == 200) {
        parse(r);
        return;
    }
    QString why;
    const auto status =
        parseStatusJson(std::string_view(r.response.body.constData(),
                                         static_cast<std::size_t>(r.response.body.size())),
                        &why);
    if (r.response.status == 401)
        m_failure =
            QStringLiteral("%1 rejected the credentials%2 (401 Unauthorized)")
                .arg(m_endpoint,
                     m_user.isEmpty() ? QString() : QStringLiteral(" of user %1").arg(m_user));
    else if (r.response.status == 403)
        m_failure =
            QStringLiteral("%1: 403 Forbidden: %2")
                .arg(m_endpoint, status ? status->message : QStringLiteral("access denied"));
    else if (r.purpose == Purpose::GroupResources && r.response.status == 503)
        return; // an unavailable aggregated API
    else
        m_failure = QStringLiteral("%1: HTTP %2%3")
                        .arg(m_endpoint, QString::number(r.response.status),
                             status ? QStringLiteral(": ") + status->message : QString());
}

void ApiDiscovery::parse(const Request& r) {
    // A document we cannot read would silently hide resources: it fails the discovery, as
    // kubectl's does.
    if (r.response.bodyOverLimit) {
        m_failure = QStringLiteral("%1: %2 answered a discovery document over %3 MiB")
                        .arg(m_endpoint, r.path, QString::number(kMaxBody / (1024 * 1024)));
        return;
    }
    QJsonParseError error;
    const QJsonDocument json = QJsonDocument::fromJson(r.response.body, &error);
    if (error.error != QJsonParseError::NoError || !json.isObject()) {
        m_failure = QStringLiteral("%1: %2 answered 200 with a body that is not a JSON object (%3)")
                        .arg(m_endpoint, r.path,
                             error.error != QJsonParseError::NoError
                                 ? QStringLiteral("%1 at byte %2")
                                       .arg(error.errorString(), QString::number(error.offset))
                                 : QStringLiteral("%1 bytes").arg(r.response.body.size()));
        return;
    }
    const QJsonObject doc = json.object();
    switch (r.purpose) {
    case Purpose::Version:
        m_gitVersion = doc.value(QLatin1String("gitVersion")).toString();
        break;
    case Purpose::Groups:
        for (const QJsonValue& g : doc.value(QLatin1String("groups")).toArray()) {
            const QString gv = g.toObject()
                                   .value(QLatin1String("preferredVersion"))
                                   .toObject()
                                   .value(QLatin1String("groupVersion"))
                                   .toString();
            if (!gv.isEmpty())
                send(QStringLiteral("/apis/") + gv, Purpose::GroupResources, gv);
        }
        break;
    case Purpose::CoreResources:
    case Purpose::GroupResources: {
        const QString gv =
            r.purpose == Purpose::CoreResources ? QStringLiteral("v1") : r.groupVersion;
        const QString group = gv.contains(u'/') ? gv.section(u'/', 0, 0) : QString();
        const QString version = gv.section(u'/', -1);
        for (const QJsonValue& v : doc.value(QLatin1String("resources")).toArray()) {
            const QJsonObject o = v.toObject();
            const QString name = o.value(QLatin1String("name")).toString();
            const QJsonArray verbs = o.value(QLatin1String("verbs")).toArray();
            // Subresources (pods/log) and what cannot be watched have no watch cache to see.
            if (name.isEmpty() || name.contains(u'/') || !verbs.contains(QStringLiteral("list")) ||
                !verbs.contains(QStringLiteral("watch")))
                continue;
            ResourceInfo info;
            info.plural = name;
            info.singular = o.value(QLatin1String("singularName")).toString();
            info.kind = o.value(QLatin1String("kind")).toString();
            info.group = group;
            info.version = version;
            info.namespaced = o.value(QLatin1String("namespaced")).toBool();
            m_resources.push_back(info);
        }
        break;
    }
    }
}

} // namespace ws

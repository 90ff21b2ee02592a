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
    Request r;
    r.purpose = purpose;
    r.path = path;
    r.groupVersion = groupVersion;
    m_waiting.push_back(std::move(r));
    submitWaiting();
}

void ApiDiscovery::submitWaiting() {
    while (m_failure.isEmpty() && !m_waiting.empty() &&
           static_cast<int>(m_inFlight.size()) < kMaxInFlight) {
        Request r = std::move(m_waiting.front());
        m_waiting.pop_front();
        HttpRequest request;
        request.id = m_nextId();
        request.pathAndQuery = r.path;
        request.timeoutMs = kTimeoutMs;
        m_inFlight.emplace(request.id, std::move(r));
        m_submit(std::move(request));
    }
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
    // The server writes parts of the lines (a Status message, a group version it listed): a
    // newline of theirs must not break ours in two (found by fuzz_api_discovery).
    m_failure = oneLine(m_failure);
    submitWaiting();
    if (m_failure.isEmpty() && m_inFlight.empty() && m_waiting.empty())
        assemble();
    return true;
}

QString ApiDiscovery::whyFailed(const Request& r, HttpErrorKind error,
                                const QString& message) const {
    if (error != HttpErrorKind::None) // the line names the endpoint once
        return message.startsWith(m_endpoint + u' ') ? message.mid(m_endpoint.size() + 1) : message;
    QString why;
    const auto status =
        parseStatusJson(std::string_view(r.response.body.constData(),
                                         static_cast<std::size_t>(r.response.body.size())),
                        &why);
    if (r.response.status == 401)
        return QStringLiteral("401 Unauthorized");
    if (r.response.status == 403)
        return QStringLiteral("403 Forbidden: %1")
            .arg(status ? status->message : QStringLiteral("access denied"));
    return QStringLiteral("HTTP %1%2")
        .arg(QString::number(r.response.status),
             status ? QStringLiteral(": ") + status->message : QString());
}

void ApiDiscovery::finish(Request& r, HttpErrorKind error, const QString& message) {
    if (!m_failure.isEmpty())
        return;
    if (error == HttpErrorKind::None && r.response.status == 200) {
        parse(r);
        return;
    }
    if (r.purpose == Purpose::CoreResources && error == HttpErrorKind::None &&
        r.response.status == 404)
        return; // client-go reads a missing /api/v1 as a core group without resources
    if (r.purpose == Purpose::CoreResources || r.purpose == Purpose::GroupResources) {
        leaveOut(r, whyFailed(r, error, message));
        return;
    }
    if (error != HttpErrorKind::None) {
        // The transport's line names the endpoint already.
        m_failure = message.contains(m_endpoint)
                        ? message
                        : QStringLiteral("cannot reach %1: %2").arg(m_endpoint, message);
        return;
    }
    if (r.response.status == 401)
        m_failure =
            QStringLiteral("%1 rejected the credentials%2 (401 Unauthorized)")
                .arg(m_endpoint,
                     m_user.isEmpty() ? QString() : QStringLiteral(" of user %1").arg(m_user));
    else
        m_failure = QStringLiteral("%1: %2").arg(m_endpoint, whyFailed(r, error, message));
}

void ApiDiscovery::leaveOut(const Request& r, const QString& why) {
    const QString gv = r.purpose == Purpose::CoreResources ? QStringLiteral("v1") : r.groupVersion;
    if (m_firstLeftOut.isEmpty())
        m_firstLeftOut = oneLine(QStringLiteral("%1: %2").arg(gv, why));
    m_warnings << oneLine(
        QStringLiteral("%1: API group-version %2 left out, its discovery failed: %3")
            .arg(m_endpoint, gv, why));
}

void ApiDiscovery::assemble() {
    // As ServerPreferredResources: the core group, then the groups in /apis' order; in a group,
    // a resource from the first version listing it unless the preferred version lists it too.
    m_resources = m_byGroupVersion[QStringLiteral("v1")];
    for (const Group& g : m_groups) {
        std::map<QString, std::size_t> at; // plural -> index in m_resources
        for (const QString& version : g.versions) {
            const auto it = m_byGroupVersion.find(g.name + u'/' + version);
            if (it == m_byGroupVersion.end())
                continue;
            for (const ResourceInfo& info : it->second) {
                const auto seen = at.find(info.plural);
                if (seen == at.end()) {
                    at.emplace(info.plural, m_resources.size());
                    m_resources.push_back(info);
                } else if (version == g.preferred) {
                    m_resources[seen->second] = info;
                }
            }
        }
    }
    if (!m_resources.empty())
        return;
    m_failure =
        m_warnings.isEmpty()
            ? QStringLiteral("%1 serves nothing that can be listed and watched").arg(m_endpoint)
            : QStringLiteral("%1: no resource could be discovered (%2 group-version%3 "
                             "failed; the first: %4)")
                  .arg(m_endpoint, QString::number(m_warnings.size()),
                       m_warnings.size() == 1 ? QString() : QStringLiteral("s"), m_firstLeftOut);
}

void ApiDiscovery::parse(const Request& r) {
    // A document we cannot read would silently hide resources: it fails the discovery, as
    // kubectl's does.
    const bool ofGroupVersion =
        r.purpose == Purpose::CoreResources || r.purpose == Purpose::GroupResources;
    if (r.response.bodyOverLimit) {
        const QString why = QStringLiteral("%1 answered a discovery document over %2 MiB")
                                .arg(r.path, QString::number(kMaxBody / (1024 * 1024)));
        if (ofGroupVersion)
            leaveOut(r, why);
        else
            m_failure = QStringLiteral("%1: %2").arg(m_endpoint, why);
        return;
    }
    QJsonParseError error;
    const QJsonDocument json = QJsonDocument::fromJson(r.response.body, &error);
    if (error.error != QJsonParseError::NoError || !json.isObject()) {
        const QString why =
            QStringLiteral("%1 answered 200 with a body that is not a JSON object "
                           "(%2)")
                .arg(r.path, error.error != QJsonParseError::NoError
                                 ? QStringLiteral("%1 at byte %2")
                                       .arg(error.errorString(), QString::number(error.offset))
                                 : QStringLiteral("%1 bytes").arg(r.response.body.size()));
        if (ofGroupVersion)
            leaveOut(r, why);
        else
            m_failure = QStringLiteral("%1: %2").arg(m_endpoint, why);
        return;
    }
    const QJsonObject doc = json.object();
    switch (r.purpose) {
    case Purpose::Version:
        m_gitVersion = doc.value(QLatin1String("gitVersion")).toString();
        break;
    case Purpose::Groups:
        for (const QJsonValue& v : doc.value(QLatin1String("groups")).toArray()) {
            const QJsonObject o = v.toObject();
            Group g;
            g.name = o.value(QLatin1String("name")).toString();
            g.preferred = o.value(QLatin1String("preferredVersion"))
                              .toObject()
                              .value(QLatin1String("version"))
                              .toString();
            for (const QJsonValue& version : o.value(QLatin1String("versions")).toArray()) {
                const QString name = version.toObject().value(QLatin1String("version")).toString();
                if (!name.isEmpty() && !g.versions.contains(name))
                    g.versions << name;
            }
            if (g.versions.isEmpty() && !g.preferred.isEmpty())
                g.versions << g.preferred;
            if (g.name.isEmpty() || g.versions.isEmpty())
                continue;
            // Every version, as client-go fetches them: a resource may be served only in one
            // that is not preferred.
            for (const QString& version : g.versions) {
                const QString gv = g.name + u'/' + version;
                send(QStringLiteral("/apis/") + gv, Purpose::GroupResources, gv);
            }
            m_groups.push_back(std::move(g));
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
            m_byGroupVersion[gv].push_back(info);
        }
        break;
    }
    }
}

} // namespace ws

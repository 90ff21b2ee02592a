// `serve --server-version V` against the real kube-apiserver V (tests/peers): the same request
// script to both, the answers compared after normalising what differs by nature (numbers in
// messages: RVs, the current revision). The script is the requests whose answer does not depend
// on the objects a server holds: a missing object and an unknown resource, the list and watch
// options each version refuses (422, 400), a list at a future RV (504 Too large resource
// version), the initial-events-end bookmark of a watch-list (byte for byte but its RV); and the
// /api/v1 discovery entry of each resource serve serves. Compared:
// the status, Content-Type, Retry-After and the Status body (kind, status, reason, code, details,
// message). A difference either is a bug to fix in serve or is written in kKnownDifferences with
// its reason. With WS_CONFORMANCE_DIR set, each row is appended to server.jsonl there
// (scripts/conformance.sh writes docs/conformance.md from it).

#include "support/ConformanceRows.h"
#include "support/RealCluster.h"
#include "support/ServeProcess.h"

#include <QEventLoop>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTest>
#include <QTimer>

using namespace ws;
using ws::test::RealCluster;
using ws::test::ServeProcess;

namespace {

struct Answer {
    int status = 0;
    QByteArray contentType;
    QByteArray retryAfter;
    QByteArray body; // a watch: its first event
    QString error;   // no answer
};

// One GET; a watch is read until its first event (a line) and then cut.
Answer get(QNetworkAccessManager& net, const QString& base, const QString& pathAndQuery,
           const QByteArray& token, const QSslConfiguration& tls,
           const QByteArray& accept = "application/json") {
    QNetworkRequest request(QUrl(base + pathAndQuery));
    request.setRawHeader("Accept", accept);
    if (!token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + token);
    if (base.startsWith(QLatin1String("https")))
        request.setSslConfiguration(tls);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    QNetworkReply* reply = net.get(request);
    Answer a;
    QEventLoop loop;
    const bool watch = pathAndQuery.contains(QLatin1String("watch=true"));
    QObject::connect(reply, &QNetworkReply::readyRead, &loop, [&] {
        if (!watch)
            return;
        a.body += reply->readAll();
        if (a.body.contains('\n'))
            loop.quit();
    });
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    loop.exec();
    a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    a.contentType = reply->rawHeader("Content-Type");
    a.retryAfter = reply->rawHeader("Retry-After");
    a.body += reply->readAll();
    if (watch && a.status == 200 && a.body.contains('\n'))
        a.body = a.body.left(a.body.indexOf('\n')); // a stream: its first event
    if (a.status == 0)
        a.error = reply->errorString();
    reply->abort();
    reply->deleteLater();
    return a;
}

// What is compared of an answer, one "field: value" a line.
QStringList normalised(const Answer& a) {
    static const QRegularExpression numbers(QStringLiteral("\\d{3,}"));
    QStringList out;
    if (!a.error.isEmpty())
        return {QStringLiteral("no answer: ") + a.error};
    out << QStringLiteral("status: %1").arg(a.status)
        << QStringLiteral("content-type: ") + QString::fromLatin1(a.contentType)
        << QStringLiteral("retry-after: ") + QString::fromLatin1(a.retryAfter);
    QJsonObject status = QJsonDocument::fromJson(a.body).object();
    if (status.value(QStringLiteral("type")).isString()) { // a watch event
        const QString type = status.value(QStringLiteral("type")).toString();
        out << QStringLiteral("event: ") + type;
        // A bookmark byte for byte, but for its RV.
        if (type == QLatin1String("BOOKMARK"))
            out << QStringLiteral("bookmark: ") +
                       QString::fromUtf8(a.body).trimmed().replace(numbers, QStringLiteral("N"));
        status = status.value(QStringLiteral("object")).toObject();
    }
    if (status.value(QStringLiteral("kind")).toString() != QLatin1String("Status"))
        return out << QStringLiteral("body kind: ") +
                          status.value(QStringLiteral("kind")).toString();
    for (const char* key : {"status", "reason", "code"})
        out << QLatin1String(key) + QStringLiteral(": ") +
                   status.value(QLatin1String(key)).toVariant().toString();
    out << QStringLiteral("message: ") + status.value(QStringLiteral("message"))
                                             .toString()
                                             .replace(numbers, QStringLiteral("N"));
    const QJsonObject details = status.value(QStringLiteral("details")).toObject();
    if (!details.isEmpty())
        out << QStringLiteral("details: ") +
                   QString::fromUtf8(QJsonDocument(details).toJson(QJsonDocument::Compact))
                       .replace(numbers, QStringLiteral("N"));
    return out;
}

struct ScriptedRequest {
    const char* name;
    const char* pathAndQuery;
};

// Answers that do not depend on which objects the server holds.
const ScriptedRequest kScript[] = {
    {"get-missing-object", "/api/v1/namespaces/default/configmaps/ws-missing"},
    {"unknown-resource", "/api/v1/nopes"},
    {"list-match-without-rv", "/api/v1/configmaps?resourceVersionMatch=Exact"},
    {"list-bad-continue", "/api/v1/configmaps?limit=1&continue=garbage"},
    {"list-bad-field-selector", "/api/v1/configmaps?fieldSelector=spec.bogus%3D1"},
    {"list-bad-label-selector", "/api/v1/configmaps?labelSelector=%21%21"},
    {"list-future-rv", "/api/v1/configmaps?resourceVersion=99999999999"},
    {"watch-match-without-initial-events",
     "/api/v1/configmaps?watch=true&resourceVersionMatch=NotOlderThan"},
    {"watch-initial-events-without-match", "/api/v1/configmaps?watch=true&sendInitialEvents=true"},
    {"list-initial-events", "/api/v1/configmaps?sendInitialEvents=true"},
    {"list-exact-at-zero", "/api/v1/configmaps?resourceVersion=0&resourceVersionMatch=Exact"},
    // A namespace nobody created holds no configmaps: the watch-list's first event is its
    // initial-events-end bookmark (or the 422 of a version without WatchList).
    {"watch-list-bookmark", "/api/v1/namespaces/ws-empty/configmaps?watch=true&"
                            "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&"
                            "allowWatchBookmarks=true"},
};
// Not in the script: a watch from an old RV (resourceVersion=1). Whether it is too old depends on
// the history a server holds: a fresh real apiserver's configmaps cache starts at its first list,
// a few revisions into etcd, and serves RV 1 with the ADDED events since; serve's starts later.

// A discovery entry (APIResource) of a resource serve serves, one "field: value" a line. The
// verbs on a line of their own (discoveryVerbs): serve lists only the ones it serves.
QStringList discoveryEntry(const QJsonObject& resource) {
    QStringList out;
    for (const char* key : {"name", "singularName", "namespaced", "kind", "shortNames",
                            "categories", "storageVersionHash"}) {
        const QJsonValue v = resource.value(QLatin1String(key));
        out << QLatin1String(key) + QStringLiteral(": ") +
                   (v.isArray() ? QString::fromUtf8(
                                      QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact))
                                : v.toVariant().toString());
    }
    return out;
}

QJsonObject resourceNamed(const QByteArray& list, const QString& name) {
    const QJsonArray resources =
        QJsonDocument::fromJson(list).object().value(QStringLiteral("resources")).toArray();
    for (const QJsonValue& r : resources)
        if (r.toObject().value(QStringLiteral("name")).toString() == name)
            return r.toObject();
    return {};
}

// What kubectl 1.30+ asks /api and /apis for.
const QByteArray kAggregatedAccept =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

// The aggregated document's envelope, and its core group's one version, a line each.
QStringList aggregatedEnvelope(const Answer& a) {
    const QJsonObject list = QJsonDocument::fromJson(a.body).object();
    const QJsonObject core = list.value(QStringLiteral("items")).toArray().at(0).toObject();
    const QJsonObject version = core.value(QStringLiteral("versions")).toArray().at(0).toObject();
    return {QStringLiteral("status: %1").arg(a.status),
            QStringLiteral("content-type: ") + QString::fromLatin1(a.contentType),
            QStringLiteral("kind: ") + list.value(QStringLiteral("kind")).toString(),
            QStringLiteral("apiVersion: ") + list.value(QStringLiteral("apiVersion")).toString(),
            QStringLiteral("core metadata: ") +
                QString::fromUtf8(QJsonDocument(core.value(QStringLiteral("metadata")).toObject())
                                      .toJson(QJsonDocument::Compact)),
            QStringLiteral("core version: ") + version.value(QStringLiteral("version")).toString(),
            QStringLiteral("freshness: ") + version.value(QStringLiteral("freshness")).toString()};
}

// An APIResourceDiscovery of the core group, but its verbs and subresources (serve serves
// none).
QStringList aggregatedEntry(const QByteArray& body, const QString& name) {
    const QJsonObject core = QJsonDocument::fromJson(body)
                                 .object()
                                 .value(QStringLiteral("items"))
                                 .toArray()
                                 .at(0)
                                 .toObject();
    const QJsonArray resources = core.value(QStringLiteral("versions"))
                                     .toArray()
                                     .at(0)
                                     .toObject()
                                     .value(QStringLiteral("resources"))
                                     .toArray();
    QJsonObject entry;
    for (const QJsonValue& r : resources)
        if (r.toObject().value(QStringLiteral("resource")).toString() == name)
            entry = r.toObject();
    QStringList out;
    for (const char* key :
         {"resource", "responseKind", "scope", "singularResource", "shortNames", "categories"}) {
        const QJsonValue v = entry.value(QLatin1String(key));
        out << QLatin1String(key) + QStringLiteral(": ") +
                   (v.isArray() ? QString::fromUtf8(
                                      QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact))
                    : v.isObject() ? QString::fromUtf8(
                                         QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact))
                                   : v.toVariant().toString());
    }
    return out;
}

const QString kServeVerbs = QStringLiteral(
    "serve serves get, list, watch, create, update and delete, and lists only those; patch and "
    "deletecollection get 405 from it");
const QString kGoDecoderText = QStringLiteral(
    "the text after \"continue key is not valid:\" is Go's base64 or JSON decoder error for the "
    "bytes given; serve says \"illegal value\"");
const QString kGoLabelParserText = QStringLiteral(
    "the text after \"unable to parse requirement:\" is the Go label parser's token error "
    "(\"found '!', expected: identifier\"); serve quotes the requirement");

// Differences between serve and the real apiserver that are understood: "version/request" ->
// the reason. A listed difference that is gone fails the test too (remove it from here).
const QHash<QString, QString> kKnownDifferences = {
    {QStringLiteral("1.33/list-bad-continue"), kGoDecoderText},
    {QStringLiteral("1.35/list-bad-continue"), kGoDecoderText},
    {QStringLiteral("1.33/list-bad-label-selector"), kGoLabelParserText},
    {QStringLiteral("1.35/list-bad-label-selector"), kGoLabelParserText},
    {QStringLiteral("1.33/discovery-verbs-configmaps"), kServeVerbs},
    {QStringLiteral("1.35/discovery-verbs-configmaps"), kServeVerbs},
    {QStringLiteral("1.33/discovery-verbs-pods"), kServeVerbs},
    {QStringLiteral("1.35/discovery-verbs-pods"), kServeVerbs},
};

} // namespace

class TestRealServe : public QObject {
    Q_OBJECT

    std::unique_ptr<RealCluster> m_cluster;
    ServeProcess m_serve;
    QString m_version;

private slots:
    void initTestCase() {
        m_cluster = std::make_unique<RealCluster>(ws::test::RealClusterOptions::fromEnvironment());
        START_REAL_CLUSTER(*m_cluster);
        QByteArray out;
        QString error;
        QVERIFY2(m_cluster->kubectl(
                     {QStringLiteral("version"), QStringLiteral("-o"), QStringLiteral("json")},
                     &out, &error),
                 qPrintable(error));
        m_version = QJsonDocument::fromJson(out)
                        .object()
                        .value(QStringLiteral("serverVersion"))
                        .toObject()
                        .value(QStringLiteral("gitVersion"))
                        .toString()
                        .mid(1);
        QVERIFY2(!m_version.isEmpty(), out.constData());
        // serve's etcd is the real one's release: whether it answers progress requests decides
        // whether a watch-list is served at all (1.31+).
        QNetworkAccessManager net;
        const Answer etcd = get(net, m_cluster->etcdUrl(), QStringLiteral("/version"), {}, tls());
        const QString etcdVersion = QJsonDocument::fromJson(etcd.body)
                                        .object()
                                        .value(QStringLiteral("etcdserver"))
                                        .toString();
        QVERIFY2(!etcdVersion.isEmpty(), etcd.body.constData());
        QVERIFY2(m_serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                                QStringLiteral("--server-version"), m_version,
                                QStringLiteral("--etcd-version"), etcdVersion},
                               &error),
                 qPrintable(error));
    }

    void sameAnswersAsKubeApiserver() {
        QNetworkAccessManager net;
        const QByteArray token = RealCluster::token(RealCluster::User::Admin).toUtf8();
        QStringList failures;
        for (const ScriptedRequest& r : kScript) {
            const QString path = QString::fromLatin1(r.pathAndQuery);
            const QStringList real = normalised(get(net, m_cluster->url(), path, token, tls()));
            const QStringList served = normalised(get(net, m_serve.url(), path, {}, tls()));
            compare(QLatin1String(r.name), path, real, served, &failures);
        }
        for (const QString& f : failures)
            qWarning("%s", qPrintable(f)); // QTest cuts a long failure message
        QVERIFY2(failures.isEmpty(), qPrintable(QStringLiteral("%1 of %2 answers differ")
                                                    .arg(failures.size())
                                                    .arg(std::size(kScript))));
    }

    // The legacy discovery entry of each resource serve serves, as the real apiserver of the
    // version describes it (subresources are not compared: serve serves none).
    void sameDiscoveryAsKubeApiserver() {
        QNetworkAccessManager net;
        const QByteArray token = RealCluster::token(RealCluster::User::Admin).toUtf8();
        const QString path = QStringLiteral("/api/v1");
        const Answer real = get(net, m_cluster->url(), path, token, tls());
        const Answer served = get(net, m_serve.url(), path, {}, tls());
        QCOMPARE(real.status, 200);
        QCOMPARE(served.status, 200);
        const QJsonArray resources = QJsonDocument::fromJson(served.body)
                                         .object()
                                         .value(QStringLiteral("resources"))
                                         .toArray();
        QVERIFY(!resources.isEmpty());
        QStringList failures;
        for (const QJsonValue& v : resources) {
            const QString name = v.toObject().value(QStringLiteral("name")).toString();
            const QJsonObject realEntry = resourceNamed(real.body, name);
            compare(QStringLiteral("discovery-") + name, path, discoveryEntry(realEntry),
                    discoveryEntry(v.toObject()), &failures);
            const auto verbs = [](const QJsonObject& o) {
                return QStringList{
                    QStringLiteral("verbs: ") +
                    QString::fromUtf8(QJsonDocument(o.value(QStringLiteral("verbs")).toArray())
                                          .toJson(QJsonDocument::Compact))};
            };
            compare(QStringLiteral("discovery-verbs-") + name, path, verbs(realEntry),
                    verbs(v.toObject()), &failures);
        }
        for (const QString& f : failures)
            qWarning("%s", qPrintable(f));
        QVERIFY2(failures.isEmpty(),
                 qPrintable(QStringLiteral("%1 discovery entries differ").arg(failures.size())));
    }

    // /api as kubectl 1.30+ asks for it: the aggregated document (apidiscovery.k8s.io/v2), and
    // in it the entry of each resource serve serves.
    void sameAggregatedDiscoveryAsKubeApiserver() {
        QNetworkAccessManager net;
        const QByteArray token = RealCluster::token(RealCluster::User::Admin).toUtf8();
        const QString path = QStringLiteral("/api");
        const Answer real = get(net, m_cluster->url(), path, token, tls(), kAggregatedAccept);
        const Answer served = get(net, m_serve.url(), path, {}, tls(), kAggregatedAccept);
        QStringList failures;
        compare(QStringLiteral("aggregated-discovery"), path, aggregatedEnvelope(real),
                aggregatedEnvelope(served), &failures);
        for (const char* name : {"configmaps", "pods"})
            compare(QStringLiteral("aggregated-discovery-") + QLatin1String(name), path,
                    aggregatedEntry(real.body, QLatin1String(name)),
                    aggregatedEntry(served.body, QLatin1String(name)), &failures);
        for (const QString& f : failures)
            qWarning("%s", qPrintable(f));
        QVERIFY2(
            failures.isEmpty(),
            qPrintable(QStringLiteral("%1 aggregated discovery rows differ").arg(failures.size())));
    }

private:
    QSslConfiguration tls() const {
        QSslConfiguration c = QSslConfiguration::defaultConfiguration();
        c.setCaCertificates(QSslCertificate::fromPath(m_cluster->caFile()));
        return c;
    }

    // One row of docs/conformance.md's server table; a difference that is not known, or a known
    // one that is gone, goes into failures.
    void compare(const QString& request, const QString& path, const QStringList& real,
                 const QStringList& served, QStringList* failures) {
        const bool same = real == served;
        const QString key = m_version.section(u'.', 0, 1) + QLatin1Char('/') + request;
        const QString known = kKnownDifferences.value(key);
        ws::test::appendConformanceRow(
            QStringLiteral("server"),
            {{QStringLiteral("version"), m_version},
             {QStringLiteral("request"), request},
             {QStringLiteral("path"), path},
             {QStringLiteral("verdict"), same ? QStringLiteral("same") : QStringLiteral("differs")},
             {QStringLiteral("reason"), known},
             {QStringLiteral("real"), QJsonArray::fromStringList(real)},
             {QStringLiteral("serve"), QJsonArray::fromStringList(served)}});
        const QString detail = QStringLiteral("\n  kube-apiserver %1: %2\n  serve: %3")
                                   .arg(m_version, real.join(QStringLiteral(" | ")),
                                        served.join(QStringLiteral(" | ")));
        const QString failure = ws::test::conformanceFailure(
            key + QStringLiteral(" (GET ") + path + u')', same, known, detail);
        if (!failure.isEmpty())
            *failures << failure;
    }
};

QTEST_GUILESS_MAIN(TestRealServe)
#include "tst_realserve.moc"

// ApiDiscovery fed the documents `watchscope-cli serve` answered (kept as the fuzz target's
// seeds, tests/fuzz/corpus/api_discovery): what it finds, and the one line it fails with when
// a document cannot be read, where it used to find nothing and say nothing.
#include "sources/cluster/discovery/ApiDiscovery.h"
#include "sources/cluster/http/HttpFrameRecords.h"
#include "sources/cluster/http/HttpRequest.h"
#include "support/FuzzReproducer.h"
#include "support/HttpFrames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>
#include <deque>
#include <tuple>

using namespace ws;

namespace {

Frame frame(int connection, HttpFrameKind kind, QByteArray bytes) {
    return ws::test::httpFrame(connection, kind, std::move(bytes));
}

// Answers discovery's requests in the order sent, with `answers` (status, body) in turn; a
// status of 0 ends the request with a transport timeout instead.
struct Conversation {
    std::deque<HttpRequest> pending;
    int nextId = 1;
    std::size_t mostInFlight = 0;
    ApiDiscovery discovery{QStringLiteral("https://10.0.0.1:6443"), QStringLiteral("admin"),
                           [this] { return nextId++; },
                           [this](HttpRequest r) {
                               pending.push_back(std::move(r));
                               mostInFlight = std::max(mostInFlight, pending.size());
                           }};
    QStringList paths;

    void run(const QList<QPair<int, QByteArray>>& answers, qsizetype chunk = 0) {
        discovery.start();
        for (const auto& [status, body] : answers) {
            if (pending.empty() || discovery.done())
                break;
            const HttpRequest r = pending.front();
            pending.pop_front();
            paths << r.pathAndQuery;
            if (status == 0) {
                HttpResponseEnd end;
                end.error = HttpErrorKind::Timeout;
                end.message = QStringLiteral("%1 timed out").arg(r.pathAndQuery);
                discovery.onFrame(frame(r.id, HttpFrameKind::ResponseEnd, encodeHttpRecord(end)));
                continue;
            }
            HttpResponseHead head;
            head.status = status;
            discovery.onFrame(frame(r.id, HttpFrameKind::ResponseHead, encodeHttpRecord(head)));
            const qsizetype step = chunk > 0 ? chunk : qMax<qsizetype>(1, body.size());
            for (qsizetype at = 0; at < body.size(); at += step)
                discovery.onFrame(frame(r.id, HttpFrameKind::BodyChunk, body.mid(at, step)));
            discovery.onFrame(
                frame(r.id, HttpFrameKind::ResponseEnd, encodeHttpRecord(HttpResponseEnd())));
        }
    }
};

QList<QPair<int, QByteArray>> recorded(const QString& name) {
    QList<QPair<int, QByteArray>> out;
    for (const QByteArray& part :
         test::fuzzReproducer(QStringLiteral("api_discovery"), name).split('\0')) {
        const bool hasStatus = part.size() >= 3 && part.at(0) >= '1' && part.at(0) <= '5' &&
                               std::isdigit(static_cast<unsigned char>(part.at(1))) &&
                               std::isdigit(static_cast<unsigned char>(part.at(2)));
        out.append({hasStatus ? part.left(3).toInt() : 200, hasStatus ? part.mid(3) : part});
    }
    return out;
}

QByteArray versionDoc() {
    return R"({"major":"1","minor":"35","gitVersion":"v1.35.4"})";
}

QByteArray resourceList(const QString& gv, const QStringList& plurals) {
    QJsonArray resources;
    for (const QString& p : plurals)
        resources.append(
            QJsonObject{{QStringLiteral("name"), p},
                        {QStringLiteral("kind"), p},
                        {QStringLiteral("namespaced"), true},
                        {QStringLiteral("verbs"),
                         QJsonArray{QStringLiteral("list"), QStringLiteral("watch")}}});
    return QJsonDocument(QJsonObject{{QStringLiteral("kind"), QStringLiteral("APIResourceList")},
                                     {QStringLiteral("groupVersion"), gv},
                                     {QStringLiteral("resources"), resources}})
        .toJson(QJsonDocument::Compact);
}

// /apis with these groups: name, versions in the server's order, the preferred one.
QByteArray groupList(const QList<std::tuple<QString, QStringList, QString>>& groups) {
    QJsonArray list;
    for (const auto& [name, versions, preferred] : groups) {
        QJsonArray vs;
        for (const QString& v : versions)
            vs.append(QJsonObject{{QStringLiteral("groupVersion"), name + u'/' + v},
                                  {QStringLiteral("version"), v}});
        list.append(
            QJsonObject{{QStringLiteral("name"), name},
                        {QStringLiteral("versions"), vs},
                        {QStringLiteral("preferredVersion"),
                         QJsonObject{{QStringLiteral("groupVersion"), name + u'/' + preferred},
                                     {QStringLiteral("version"), preferred}}}});
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("kind"), QStringLiteral("APIGroupList")},
                                     {QStringLiteral("groups"), list}})
        .toJson(QJsonDocument::Compact);
}

QStringList found(const ApiDiscovery& d) {
    QStringList out;
    for (const ResourceInfo& r : d.resources())
        out << r.qualifiedName() + u'@' + r.version;
    return out;
}

} // namespace

class TestApiDiscovery : public QObject {
    Q_OBJECT
private slots:
    void findsWhatServeServes() {
        const auto answers = recorded(QStringLiteral("serve-crd-conversion-stall"));
        QCOMPARE(answers.size(), 4);
        Conversation c;
        c.run(answers, 7); // in 7-byte chunks, as a slow link delivers them
        QVERIFY2(c.discovery.succeeded(), qPrintable(c.discovery.failure()));
        QCOMPARE(c.paths, (QStringList{QStringLiteral("/version"), QStringLiteral("/api/v1"),
                                       QStringLiteral("/apis"),
                                       QStringLiteral("/apis/stable.example.com/v1")}));
        QVERIFY(c.discovery.gitVersion().startsWith(u'v'));
        QStringList plurals;
        for (const ResourceInfo& r : c.discovery.resources())
            plurals << r.plural + u'.' + r.group;
        QVERIFY2(plurals.contains(QStringLiteral("crontabs.stable.example.com")),
                 qPrintable(plurals.join(u' ')));
    }

    void unavailableGroupIsSkipped() {
        Conversation c;
        c.run(recorded(QStringLiteral("serve-group-unavailable")));
        QVERIFY2(c.discovery.succeeded(), qPrintable(c.discovery.failure()));
        for (const ResourceInfo& r : c.discovery.resources())
            QVERIFY(r.group.isEmpty());
        QCOMPARE(c.discovery.warnings(),
                 QStringList{QStringLiteral(
                     "https://10.0.0.1:6443: API group-version stable.example.com/v1 left out, its "
                     "discovery failed: HTTP 503: service unavailable")});
    }

    // Any failure of one group-version (a status, a transport error, a timeout, a document
    // that cannot be read) leaves that group-version out, told once; the others go on.
    void failedGroupVersionsAreLeftOut() {
        Conversation c;
        c.run({{200, versionDoc()},
               {200, resourceList(QStringLiteral("v1"), {QStringLiteral("configmaps")})},
               {200, groupList(
                         {{QStringLiteral("a.io"), {QStringLiteral("v1")}, QStringLiteral("v1")},
                          {QStringLiteral("b.io"), {QStringLiteral("v1")}, QStringLiteral("v1")},
                          {QStringLiteral("c.io"), {QStringLiteral("v1")}, QStringLiteral("v1")},
                          {QStringLiteral("d.io"), {QStringLiteral("v1")}, QStringLiteral("v1")},
                          {QStringLiteral("e.io"), {QStringLiteral("v1")}, QStringLiteral("v1")}})},
               {500, R"({"kind":"Status","message":"boom","code":500})"},
               {404, "404 page not found"},
               {0, {}},
               {200, "<html>proxy error</html>"},
               {200, resourceList(QStringLiteral("e.io/v1"), {QStringLiteral("things")})}});
        QVERIFY2(c.discovery.succeeded(), qPrintable(c.discovery.failure()));
        QCOMPARE(found(c.discovery),
                 (QStringList{QStringLiteral("configmaps@v1"), QStringLiteral("things.e.io@v1")}));
        const QStringList w = c.discovery.warnings();
        QCOMPARE(w.size(), 4);
        QVERIFY2(w[0].contains(QLatin1String("a.io/v1 left out")) &&
                     w[0].endsWith(QLatin1String("HTTP 500: boom")),
                 qPrintable(w[0]));
        QVERIFY2(w[1].contains(QLatin1String("b.io/v1")) &&
                     w[1].endsWith(QLatin1String("HTTP 404")),
                 qPrintable(w[1]));
        QVERIFY2(w[2].contains(QLatin1String("c.io/v1")) &&
                     w[2].contains(QLatin1String("timed out")),
                 qPrintable(w[2]));
        QVERIFY2(w[3].contains(QLatin1String("d.io/v1")) &&
                     w[3].contains(QLatin1String("not a JSON object")),
                 qPrintable(w[3]));
    }

    // As client-go's ServerPreferredResources: a resource from the preferred version when it
    // has it, else from the first version the group lists that has it.
    void resourcesOnlyInOtherVersionsAreFound() {
        Conversation c;
        c.run({{200, versionDoc()},
               {200, resourceList(QStringLiteral("v1"), {QStringLiteral("pods")})},
               {200, groupList({{QStringLiteral("x.io"),
                                 {QStringLiteral("v1beta1"), QStringLiteral("v1"),
                                  QStringLiteral("v1alpha1")},
                                 QStringLiteral("v1")}})},
               {200, resourceList(QStringLiteral("x.io/v1beta1"),
                                  {QStringLiteral("widgets"), QStringLiteral("gadgets")})},
               {200, resourceList(QStringLiteral("x.io/v1"), {QStringLiteral("widgets")})},
               {200, resourceList(QStringLiteral("x.io/v1alpha1"),
                                  {QStringLiteral("gadgets"), QStringLiteral("gizmos")})}});
        QVERIFY2(c.discovery.succeeded(), qPrintable(c.discovery.failure()));
        QCOMPARE(found(c.discovery),
                 (QStringList{QStringLiteral("pods@v1"), QStringLiteral("widgets.x.io@v1"),
                              QStringLiteral("gadgets.x.io@v1beta1"),
                              QStringLiteral("gizmos.x.io@v1alpha1")}));
    }

    // Qt sends at most 6 requests per host at once and queues the rest with their timers
    // running: discovery keeps no more than that in flight, so each timeout counts from send.
    void noMoreInFlightThanAreSent() {
        QList<std::tuple<QString, QStringList, QString>> groups;
        for (int i = 0; i < 40; ++i)
            groups.append(
                {QStringLiteral("g%1.io").arg(i), {QStringLiteral("v1")}, QStringLiteral("v1")});
        QList<QPair<int, QByteArray>> answers{
            {200, versionDoc()},
            {200, resourceList(QStringLiteral("v1"), {QStringLiteral("pods")})},
            {200, groupList(groups)}};
        for (int i = 0; i < 40; ++i)
            answers.append({200, resourceList(QStringLiteral("g%1.io/v1").arg(i),
                                              {QStringLiteral("things")})});
        Conversation c;
        c.run(answers);
        QVERIFY2(c.discovery.succeeded(), qPrintable(c.discovery.failure()));
        QCOMPARE(c.discovery.resources().size(), std::size_t(41));
        QCOMPARE(c.mostInFlight, std::size_t(ApiDiscovery::kMaxInFlight));
    }

    // /version or /apis failing ends discovery: there is no cluster to go on with.
    void groupListFailureFails() {
        Conversation c;
        c.run({{200, versionDoc()},
               {200, resourceList(QStringLiteral("v1"), {QStringLiteral("pods")})},
               {0, {}}});
        QVERIFY(c.discovery.done());
        QCOMPARE(c.discovery.failure(),
                 QStringLiteral("cannot reach https://10.0.0.1:6443: /apis timed out"));
    }

    void unauthorizedNamesTheUser() {
        Conversation c;
        c.run(recorded(QStringLiteral("serve-unauthorized")));
        QVERIFY(c.discovery.done());
        QCOMPARE(c.discovery.failure(),
                 QStringLiteral("https://10.0.0.1:6443 rejected the credentials of user admin "
                                "(401 Unauthorized)"));
    }

    // A proxy's HTML error page with 200 used to leave discovery "successful" with no
    // resources at all: nothing would be watched and nothing said why.
    // Now the core group-version is left out like any other: with no group besides, nothing is
    // left and discovery fails with the reason.
    void unreadableDocumentFails() {
        Conversation c;
        c.run(recorded(QStringLiteral("regress-html-200")) +
              QList<QPair<int, QByteArray>>{{200, groupList({})}});
        QVERIFY(c.discovery.done());
        QVERIFY(!c.discovery.succeeded());
        const QString failure = c.discovery.failure();
        QVERIFY2(failure.startsWith(QStringLiteral(
                     "https://10.0.0.1:6443: no resource could be discovered (1 group-version "
                     "failed; the first: v1: /api/v1 answered 200 with a body that is not a "
                     "JSON object (")),
                 qPrintable(failure));
        QVERIFY(!failure.contains(u'\n'));
    }

    // A 403 Status whose message has a newline (fuzz_api_discovery, CI 2026-11-26) made the
    // failure two lines: the server's text is quoted escaped.
    void serverTextStaysOnOneLine() {
        Conversation c;
        c.run(recorded(QStringLiteral("regress-status-newline")));
        QVERIFY(c.discovery.done());
        QCOMPARE(c.discovery.failure(),
                 QStringLiteral("https://10.0.0.1:6443: 403 Forbidden: a\\nb"));
    }

    void oversizedDocumentFails() {
        Conversation c;
        const auto version = recorded(QStringLiteral("serve-crd-conversion-stall")).first();
        QByteArray huge = "{\"kind\":\"APIResourceList\",\"resources\":[";
        huge += QByteArray(33 * 1024 * 1024, ' ');
        huge += "]}";
        c.run({version, {200, huge}, {200, groupList({})}}, 1024 * 1024);
        QVERIFY(c.discovery.done());
        QCOMPARE(c.discovery.failure(),
                 QStringLiteral("https://10.0.0.1:6443: no resource could be discovered (1 "
                                "group-version failed; the first: v1: /api/v1 answered a "
                                "discovery document over 32 MiB)"));
    }
};

QTEST_GUILESS_MAIN(TestApiDiscovery)
#include "tst_apidiscovery.moc"

// The cluster source against a scripted kube-apiserver (support/ScriptedApiServer.h) over a real
// socket, for answers `serve` does not give: a 1.35 server whose etcd lacks progress
// notifications (Debian's etcd 3.4.23) answers every watch-list with HTTP 200 and one ERROR
// event, a watch cache still initialising answers LISTs with 429 and Retry-After, a connection
// closed before any answer.

#include "engine/Session.h"
#include "sources/SourceFactory.h"
#include "support/ScriptedApiServer.h"

#include <QTest>

using namespace ws;
using ws::test::ScriptedApiServer;

namespace {

const QString kCollection = QStringLiteral("/api/v1/configmaps");

// A list of one ConfigMap at RV 1042.
const QByteArray kList = ScriptedApiServer::configMapList();
// Cacher.Watch's newErrWatcher when etcd cannot request watch progress.
const QByteArray kNoProgressNotify =
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
    "\"status\":\"Failure\",\"message\":\"a watch stream was requested by the client but the "
    "required storage feature RequestWatchProgress is disabled\",\"reason\":\"InternalError\","
    "\"code\":500}}\n";

} // namespace

class TestClusterScripted : public QObject {
    Q_OBJECT

    std::unique_ptr<Session> startSession(const ScriptedApiServer& api, const QString& clientGo) {
        SourceSpec spec;
        spec.kind = SourceSpec::Kind::Server;
        spec.servers = {api.url()};
        spec.resources = {QStringLiteral("configmaps")};
        spec.clientGo = clientGo;
        QString error;
        auto session = Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error);
        if (!session)
            qWarning("%s", qPrintable(error));
        else
            session->start();
        return session;
    }
    static bool synced(Session& session) {
        for (const SourceRevisionAccount& a : session.source(0)->revisionAccounts())
            if (a.account.begun())
                return true;
        return false;
    }
    static WatcherSnapshot watcher(Session& session) {
        QVector<CacheSnapshot> caches;
        QVector<WatcherSnapshot> watchers;
        session.source(0)->snapshot(caches, watchers);
        return watchers.value(0);
    }

private slots:
    // client-go 0.35 falls back to LIST for that ListAndWatch: the informer syncs from the LIST
    // and watches from its RV. Before, WatchScope tried the watch-list again and again and never
    // got any data.
    void watchListErrorEventFallsBackToList() {
        ScriptedApiServer api;
        QString error;
        QVERIFY2(api.listen(&error), qPrintable(error));
        api.setHandler(
            [](const ScriptedApiServer::Request& r) -> std::optional<ScriptedApiServer::Reply> {
                if (r.path != kCollection)
                    return std::nullopt;
                if (r.isWatchList())
                    return ScriptedApiServer::watch({kNoProgressNotify}, true);
                if (r.isWatch())
                    return ScriptedApiServer::watch({});
                ScriptedApiServer::Reply list;
                list.chunks << kList;
                return list;
            });
        auto session = startSession(api, QStringLiteral("0.35"));
        QVERIFY(session);
        QVERIFY2(QTest::qWaitFor([&] { return synced(*session); }, 10000),
                 "the informer did not sync from the fallback LIST");
        QTRY_VERIFY_WITH_TIMEOUT(api.requestsFor(kCollection).size() >= 3, 5000);
        const QList<ScriptedApiServer::Request> asked = api.requestsFor(kCollection);
        QVERIFY(asked[0].isWatchList());
        QVERIFY(!asked[1].isWatch());
        QCOMPARE(asked[1].query.queryItemValue(QStringLiteral("resourceVersion")),
                 QStringLiteral("0"));
        QVERIFY(asked[2].isWatch() && !asked[2].isWatchList());
        QCOMPARE(asked[2].query.queryItemValue(QStringLiteral("resourceVersion")),
                 QStringLiteral("1042"));
        QCOMPARE(watcher(*session).rv, ResourceVersion(1042));
        session->stop();
    }

    // A LIST answered 429 "storage is (re)initializing" with Retry-After: 1 is sent again by
    // client-go's REST layer; the reflector sees the LIST that succeeds, and the session counts
    // the retries on the watcher.
    void listRetryAfterIsRetriedBelowTheReflector() {
        ScriptedApiServer api;
        QString error;
        QVERIFY2(api.listen(&error), qPrintable(error));
        int lists = 0;
        api.setHandler([&lists](const ScriptedApiServer::Request& r)
                           -> std::optional<ScriptedApiServer::Reply> {
            if (r.path != kCollection)
                return std::nullopt;
            if (r.isWatch())
                return ScriptedApiServer::watch({});
            if (++lists <= 2) {
                auto busy =
                    ScriptedApiServer::status(429, "TooManyRequests", "storage is (re)initializing",
                                              "{\"retryAfterSeconds\":1}");
                busy.headers.append({QByteArray("Retry-After"), QByteArray("1")});
                return busy;
            }
            ScriptedApiServer::Reply list;
            list.chunks << kList;
            return list;
        });
        auto session = startSession(api, QStringLiteral("0.34"));
        QVERIFY(session);
        QVERIFY2(QTest::qWaitFor([&] { return synced(*session); }, 10000),
                 "the informer did not sync after the retried LISTs");
        QCOMPARE(lists, 3);
        const WatcherSnapshot w = watcher(*session);
        QCOMPARE(w.httpRetries, 2);
        QCOMPARE(w.relists, 0);
        QCOMPARE(w.rv, ResourceVersion(1042));
        session->stop();
    }

    // A LIST whose connection is closed before any answer (an apiserver going away, a load
    // balancer) is sent again by the REST layer after 1 s; the reflector sees the LIST that
    // succeeds. The transport first sends it again at once over another kept-alive connection
    // (discovery's), as Go's does for a GET that a reused connection dropped unanswered: the
    // hang-ups outnumber those connections, so some reach the REST layer.
    void listClosedBeforeAnswerIsRetried() {
        ScriptedApiServer api;
        QString error;
        QVERIFY2(api.listen(&error), qPrintable(error));
        int lists = 0;
        api.setHandler([&lists](const ScriptedApiServer::Request& r)
                           -> std::optional<ScriptedApiServer::Reply> {
            if (r.path != kCollection)
                return std::nullopt;
            if (r.isWatch())
                return ScriptedApiServer::watch({});
            if (++lists <= 6)
                return ScriptedApiServer::hangUp();
            ScriptedApiServer::Reply list;
            list.chunks << kList;
            return list;
        });
        auto session = startSession(api, QStringLiteral("0.34"));
        QVERIFY(session);
        QVERIFY2(QTest::qWaitFor([&] { return synced(*session); }, 10000),
                 "the informer did not sync after the retried LISTs");
        const WatcherSnapshot w = watcher(*session);
        QVERIFY2(w.httpRetries >= 1, qPrintable(QString::number(w.httpRetries)));
        QCOMPARE(w.relists, 0);
        QCOMPARE(w.rv, ResourceVersion(1042));
        session->stop();
    }
};

QTEST_GUILESS_MAIN(TestClusterScripted)
#include "tst_clusterscripted.moc"

// The cluster source's reflector (sources/cluster/ClusterReflector) answered frame by frame on a
// test clock, with the bytes a kube-apiserver sends, for the client-go behaviours that need
// minutes or exact timing to show: the watch-list at the start of every ListAndWatch and its
// fallback to LIST for that cycle (an HTTP 422, or an in-stream ERROR such as the 500 a 1.32 or
// 1.34+ server sends when its etcd has no progress notifications), rest.Request's Retry-After
// retries, and the relist backoff (its reset, and one manager or two).

#include "detect/DetectorHub.h"
#include "model/KeyTable.h"
#include "model/WatcherState.h"
#include "sources/cluster/ClusterReflector.h"
#include "sources/cluster/http/HttpFrameRecords.h"
#include "sources/cluster/proto/WireFormat.h"
#include "support/HttpFrames.h"

#include <QTest>
#include <QUrlQuery>

using namespace ws;

namespace {

// A real watch's events, one JSON object a line.
QByteArray added(const char* name, int rv) {
    return QStringLiteral("{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":"
                          "\"v1\",\"metadata\":{\"name\":\"%1\",\"namespace\":\"default\","
                          "\"resourceVersion\":\"%2\"},\"data\":{\"k\":\"v\"}}}\n")
        .arg(QLatin1String(name))
        .arg(rv)
        .toUtf8();
}
QByteArray initialEventsEnd(int rv) {
    return QStringLiteral(
               "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":"
               "\"v1\",\"metadata\":{\"resourceVersion\":\"%1\",\"annotations\":{"
               "\"k8s.io/initial-events-end\":\"true\"}}}}\n")
        .arg(rv)
        .toUtf8();
}
// The cacher's periodic bookmark.
QByteArray bookmark(int rv) {
    return QStringLiteral("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\","
                          "\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"%1\"}}}\n")
        .arg(rv)
        .toUtf8();
}
// cacher.go's newErrWatcher for a watch-list when etcd lacks RequestWatchProgress.
const QByteArray kNoProgressNotify =
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
    "\"status\":\"Failure\",\"message\":\"a watch stream was requested by the client but the "
    "required storage feature RequestWatchProgress is disabled\",\"reason\":\"InternalError\","
    "\"code\":500}}\n";
QByteArray expiredEvent(int rv, int oldest) {
    return QStringLiteral("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":"
                          "\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old "
                          "resource version: %1 (%2)\",\"reason\":\"Expired\",\"code\":410}}\n")
        .arg(rv)
        .arg(oldest)
        .toUtf8();
}
// An ERROR event a watch may carry: a 429 with its retryAfterSeconds.
const QByteArray kTooManyRequestsEvent =
    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
    "\"status\":\"Failure\",\"message\":\"storage is (re)initializing\",\"reason\":"
    "\"TooManyRequests\",\"details\":{\"retryAfterSeconds\":1},\"code\":429}}\n";
QByteArray list(int rv) {
    return QStringLiteral("{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{"
                          "\"resourceVersion\":\"%1\"},\"items\":[{\"metadata\":{\"name\":\"a\","
                          "\"namespace\":\"default\",\"resourceVersion\":\"90\"},\"data\":{\"k\":"
                          "\"v\"}}]}")
        .arg(rv)
        .toUtf8();
}
// One page of a list at `rv`, its items named `names`, with a continue token unless it is the
// last one.
QByteArray page(int rv, const QStringList& names, const QString& continueToken = {}) {
    QStringList items;
    for (const QString& name : names)
        items << QStringLiteral("{\"metadata\":{\"name\":\"%1\",\"namespace\":\"default\","
                                "\"resourceVersion\":\"90\"},\"data\":{\"k\":\"v\"}}")
                     .arg(name);
    return QStringLiteral("{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{"
                          "\"resourceVersion\":\"%1\"%2},\"items\":[%3]}")
        .arg(rv)
        .arg(continueToken.isEmpty() ? QString()
                                     : QStringLiteral(",\"continue\":\"%1\"").arg(continueToken))
        .arg(items.join(u','))
        .toUtf8();
}
// A continue token whose RV etcd compacted (the apiserver's 410 on a continue page).
const QByteArray kContinueExpired =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
    "\"The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this response "
    "to retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the "
    "first chunk was returned and now may show up in the list.\",\"reason\":\"Expired\","
    "\"code\":410}";
// A list at an RV etcd compacted.
const QByteArray kListExpired =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
    "\"The resourceVersion for the provided list is too old.\",\"reason\":\"Expired\","
    "\"code\":410}";
// A 1.33 server (WatchList gate off) refusing sendInitialEvents.
const QByteArray kWatchListInvalid =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
    "\"ListOptions.meta.k8s.io \\\"\\\" is invalid: sendInitialEvents: Forbidden: "
    "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled\","
    "\"reason\":\"Invalid\",\"details\":{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\","
    "\"causes\":[{\"reason\":\"FieldValueForbidden\",\"message\":\"Forbidden: sendInitialEvents "
    "is forbidden for watch unless the WatchList feature gate is enabled\",\"field\":"
    "\"sendInitialEvents\"}]},\"code\":422}";
// A watch cache still initialising (1.31+), with its Retry-After.
const QByteArray kStorageInitializing =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
    "\"storage is (re)initializing\",\"reason\":\"TooManyRequests\",\"details\":{"
    "\"retryAfterSeconds\":1},\"code\":429}";
const QByteArray kInternalError =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
    "\"Internal error occurred: etcdserver: request timed out\",\"reason\":\"InternalError\","
    "\"details\":{\"causes\":[{\"message\":\"etcdserver: request timed out\"}]},\"code\":500}";
const QByteArray kUnauthorized =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":"
    "\"Unauthorized\",\"reason\":\"Unauthorized\",\"code\":401}";
const QByteArray kJson = "application/json";

// One reflector of configmaps, its requests, and a clock the test moves.
class Rig {
public:
    explicit Rig(const QString& profile) : m_hub(m_keys) {
        m_hub.setSink([this](const Anomaly& a) { anomalies << a; });
        ClusterReflector::Config c;
        c.id = QStringLiteral("informer/configmaps");
        c.resource = ResourceCatalog::lookup(QStringLiteral("configmaps"));
        QString error;
        const auto p = ClientProfile::fromName(profile, &error);
        if (!p)
            qFatal("%s", qPrintable(error));
        c.profile = *p;
        c.servers = {QStringLiteral("apiserver")};
        m_reflector = std::make_unique<ClusterReflector>(
            c, m_hub, m_keys,
            [this](int, HttpRequest request) {
                sent.push_back({request, now});
            },
            [this](int, int id) { cancelled.push_back(id); }, [this] { return m_nextId++; }, 7);
        m_reflector->start(now);
    }

    struct Sent {
        HttpRequest request;
        TimeUs at = 0;
        QUrlQuery query() const { return QUrlQuery(request.pathAndQuery.section(u'?', 1)); }
        bool isWatch() const { return query().queryItemValue(QStringLiteral("watch")) == "true"; }
        bool isWatchList() const {
            return isWatch() &&
                   query().queryItemValue(QStringLiteral("sendInitialEvents")) == "true";
        }
        bool isList() const { return !isWatch(); }
        QString rv() const { return query().queryItemValue(QStringLiteral("resourceVersion")); }
        bool hasRv() const { return query().hasQueryItem(QStringLiteral("resourceVersion")); }
        // "limit=500&resourceVersion=0", "continue=c1&limit=500": what pages it asks for.
        QString paging() const {
            QStringList items;
            for (const char* name : {"continue", "limit", "resourceVersion"})
                if (query().hasQueryItem(QLatin1String(name)))
                    items << QStringLiteral("%1=%2").arg(
                        QLatin1String(name), query().queryItemValue(QLatin1String(name)));
            return items.join(u'&');
        }
    };

    ClusterReflector& reflector() { return *m_reflector; }
    // The watcher state the window shows (model/WatcherState.h).
    QString state() const {
        return watcherStateName(m_hub.watcherStatus(m_reflector->hubId()).state);
    }
    const Sent& last() const { return sent.back(); }

    void head(int status, const QByteArray& retryAfter = {}, bool credentialReplaced = false) {
        HttpResponseHead h;
        h.status = status;
        h.credentialReplaced = credentialReplaced;
        h.headers.append({"Content-Type", kJson});
        if (!retryAfter.isEmpty())
            h.headers.append({"Retry-After", retryAfter});
        frame(HttpFrameKind::ResponseHead, encodeHttpRecord(h));
    }
    void chunk(const QByteArray& bytes) { frame(HttpFrameKind::BodyChunk, bytes); }
    void end(HttpErrorKind error = HttpErrorKind::None) {
        HttpResponseEnd e;
        e.error = error;
        if (error != HttpErrorKind::None)
            e.message = QStringLiteral("apiserver: %1").arg(httpErrorKindName(error));
        frame(HttpFrameKind::ResponseEnd, encodeHttpRecord(e));
    }
    // A whole answer to the last request.
    void answer(int status, const QByteArray& body, const QByteArray& retryAfter = {}) {
        head(status, retryAfter);
        chunk(body);
        end();
    }
    // Moves the clock in 10 ms ticks for `span`.
    void pass(TimeUs span) {
        const TimeUs until = now + span;
        while (now < until) {
            now += milliseconds(10);
            m_reflector->tick(now);
        }
    }
    // Moves the clock in 10 ms ticks until `count` requests were sent, at most `limit` on.
    bool waitForRequests(std::size_t count, TimeUs limit) {
        const TimeUs until = now + limit;
        while (sent.size() < count && now < until) {
            now += milliseconds(10);
            m_reflector->tick(now);
        }
        return sent.size() >= count;
    }
    // The gap between the last request and the one before it.
    TimeUs lastGap() const { return sent.back().at - sent[sent.size() - 2].at; }

    // A LIST answered at `rv`, then its WATCH opened (the watch is the last request).
    void listAndWatch(int rv) {
        QVERIFY(last().isList());
        answer(200, list(rv));
        QVERIFY(last().isWatch() && !last().isWatchList());
        head(200);
    }

    std::vector<Sent> sent;
    std::vector<int> cancelled;
    QList<Anomaly> anomalies;
    TimeUs now = seconds(10);

private:
    void frame(HttpFrameKind kind, const QByteArray& bytes) {
        m_reflector->onFrame(ws::test::httpFrame(sent.back().request.id, kind, bytes, now), now);
    }

    KeyTable m_keys;
    DetectorHub m_hub;
    std::unique_ptr<ClusterReflector> m_reflector;
    int m_nextId = 1;
};

} // namespace

class TestClusterReflector : public QObject {
    Q_OBJECT

private slots:
    // A watch-list answered by an in-stream ERROR (HTTP 200, then the Status): 0.29+ fall back to
    // a LIST in the same ListAndWatch, at once, and then watch from the list's RV; 0.27-0.28 only
    // fall back on a 422, so they back off and try the watch-list again.
    void watchListErrorEventFallsBackToList_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("fallsBack");
        QTest::newRow("0.35 (default)") << "0.35" << true;
        QTest::newRow("0.36") << "0.36" << true;
        QTest::newRow("0.29+watchlist") << "0.29+watchlist" << true;
        QTest::newRow("0.28+watchlist") << "0.28+watchlist" << false;
        QTest::newRow("0.27+watchlist") << "0.27+watchlist" << false;
    }
    void watchListErrorEventFallsBackToList() {
        QFETCH(QString, profile);
        QFETCH(bool, fallsBack);
        Rig rig(profile);
        QCOMPARE(rig.sent.size(), std::size_t(1));
        QVERIFY(rig.last().isWatchList());
        QVERIFY(!rig.last().hasRv()); // never synced: RV ""
        rig.head(200);
        rig.chunk(kNoProgressNotify);
        if (!fallsBack) {
            rig.end();
            QCOMPARE(rig.reflector().stateName(), QStringLiteral("backoff (relist)"));
            QVERIFY(rig.waitForRequests(2, seconds(2)));
            QVERIFY(rig.lastGap() >= milliseconds(800));
            QVERIFY(rig.last().isWatchList());
            return;
        }
        // The ERROR ends the watch-list at once (the stream is stopped), and the LIST goes out
        // at the same moment: no backoff.
        QCOMPARE(rig.sent.size(), std::size_t(2));
        QCOMPARE(rig.cancelled.size(), std::size_t(1));
        QVERIFY(rig.last().isList());
        QCOMPARE(rig.lastGap(), TimeUs(0));
        QCOMPARE(rig.last().rv(), QStringLiteral("0"));
        rig.listAndWatch(100);
        QCOMPARE(rig.last().rv(), QStringLiteral("100"));
        QCOMPARE(rig.reflector().resourceVersion(), ResourceVersion(100));
        QCOMPARE(rig.reflector().objects(), std::int64_t(1));
        QCOMPARE(rig.reflector().stateName(), QStringLiteral("watching"));
    }

    // Every ListAndWatch of a watch-list client starts with a watch-list at the last synced RV,
    // a relist too, and a fallback to LIST lasts one ListAndWatch: after a 422 (every version
    // 0.27-0.36 keeps trying) and after an in-stream ERROR. A client without the gate relists
    // with a LIST.
    void everyListAndWatchStartsWithWatchList_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("refusedBy422");
        QTest::newRow("0.35, watch-list served") << "0.35" << false;
        QTest::newRow("0.35, 422 first") << "0.35" << true;
        QTest::newRow("0.27+watchlist, 422 first") << "0.27+watchlist" << true;
        QTest::newRow("0.34+watchlist, 422 first") << "0.34+watchlist" << true;
    }
    void everyListAndWatchStartsWithWatchList() {
        QFETCH(QString, profile);
        QFETCH(bool, refusedBy422);
        Rig rig(profile);
        QVERIFY(rig.last().isWatchList());
        if (refusedBy422) {
            rig.answer(422, kWatchListInvalid);
            QVERIFY(rig.last().isList());
            QCOMPARE(rig.lastGap(), TimeUs(0));
            QVERIFY(rig.anomalies.isEmpty()); // a server without watch-list is no anomaly
            rig.listAndWatch(100);
        } else {
            rig.head(200);
            rig.chunk(added("a", 90) + initialEventsEnd(100));
            QCOMPARE(rig.reflector().resourceVersion(), ResourceVersion(100));
            QCOMPARE(rig.reflector().stateName(), QStringLiteral("watching"));
        }
        // The watch goes on to RV 120, then the server says 410: ListAndWatch returns, backs
        // off, and the next one starts with a watch-list from RV 120.
        rig.chunk(added("b", 120));
        rig.chunk(expiredEvent(120, 150));
        rig.end();
        const std::size_t before = rig.sent.size();
        QVERIFY(rig.waitForRequests(before + 1, seconds(2)));
        QVERIFY2(rig.last().isWatchList(), qPrintable(rig.last().request.pathAndQuery));
        QCOMPARE(rig.last().rv(), QStringLiteral("120"));
        QCOMPARE(rig.last().query().queryItemValue(QStringLiteral("resourceVersionMatch")),
                 QStringLiteral("NotOlderThan"));
        QCOMPARE(rig.reflector().relists(), 1);
        // A watch-list whose RV is too old is retried at once with RV="" (rewatchResourceVersion).
        rig.head(200);
        rig.chunk(expiredEvent(120, 150));
        QCOMPARE(rig.sent.size(), before + 2);
        QVERIFY(rig.last().isWatchList());
        QVERIFY(!rig.last().hasRv());
        // That one refused by the server without watch-list: this cycle lists, from RV="".
        rig.answer(422, kWatchListInvalid);
        QVERIFY(rig.last().isList());
        rig.answer(200, list(200));
        QCOMPARE(rig.reflector().resourceVersion(), ResourceVersion(200));
        rig.head(200);
        rig.chunk(expiredEvent(200, 250));
        rig.end();
        QVERIFY(rig.waitForRequests(rig.sent.size() + 1, seconds(4)));
        QVERIFY2(rig.last().isWatchList(), qPrintable(rig.last().request.pathAndQuery));
        QCOMPARE(rig.last().rv(), QStringLiteral("200"));
    }
    // A relist shows as "relisting" whether it is a LIST (0.34) or a watch-list (0.35) until it
    // has synced; the first sync is "listing" or "syncing", and a synced watch is "live".
    void relistStateForListAndWatchList_data() {
        QTest::addColumn<QString>("profile");
        QTest::newRow("0.34 (LIST)") << "0.34";
        QTest::newRow("0.35 (watch-list)") << "0.35";
    }
    void relistStateForListAndWatchList() {
        QFETCH(QString, profile);
        Rig rig(profile);
        const bool watchList = rig.last().isWatchList();
        if (watchList)
            rig.head(200); // a watch counts as opened once the server accepts it
        QCOMPARE(rig.state(), watchList ? QStringLiteral("syncing") : QStringLiteral("listing"));
        if (watchList) {
            rig.chunk(added("a", 90) + initialEventsEnd(100));
        } else {
            rig.listAndWatch(100);
        }
        QCOMPARE(rig.state(), QStringLiteral("live"));
        rig.chunk(expiredEvent(100, 150));
        rig.end();
        QCOMPARE(rig.state(), QStringLiteral("backoff"));
        QVERIFY(rig.waitForRequests(rig.sent.size() + 1, seconds(2)));
        QCOMPARE(rig.last().isWatchList(), watchList);
        QCOMPARE(rig.reflector().relists(), 1);
        if (watchList)
            rig.head(200);
        QCOMPARE(rig.state(), QStringLiteral("relisting"));
        if (watchList) {
            rig.chunk(added("a", 90));
            QCOMPARE(rig.state(), QStringLiteral("relisting"));
            rig.chunk(initialEventsEnd(160));
        } else {
            rig.head(200);
            rig.chunk(list(160));
            rig.end();
            QVERIFY(rig.last().isWatch());
            rig.head(200);
        }
        QCOMPARE(rig.state(), QStringLiteral("live"));
        QCOMPARE(rig.reflector().resourceVersion(), ResourceVersion(160));
    }

    // An ERROR event with a 429 on a plain watch: from 0.22 client-go backs off and watches again
    // from its last RV (reflector.watch: apierrors.IsTooManyRequests); before, the watch's error
    // ends ListAndWatch and it relists.
    void tooManyRequestsEventOnAWatch_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("rewatches");
        QTest::newRow("0.21") << "0.21" << false;
        QTest::newRow("0.22") << "0.22" << true;
        QTest::newRow("0.34") << "0.34" << true;
        QTest::newRow("0.35 (watch-list client)") << "0.35" << true;
    }
    void tooManyRequestsEventOnAWatch() {
        QFETCH(QString, profile);
        QFETCH(bool, rewatches);
        Rig rig(profile);
        if (rig.last().isWatchList()) {
            rig.head(200);
            rig.chunk(added("a", 90) + initialEventsEnd(100));
        } else {
            rig.listAndWatch(100);
        }
        rig.chunk(added("b", 120));
        rig.chunk(kTooManyRequestsEvent);
        rig.end();
        QCOMPARE(rig.reflector().stateName(), rewatches ? QStringLiteral("backoff (rewatch)")
                                                        : QStringLiteral("backoff (relist)"));
        QVERIFY(rig.waitForRequests(rig.sent.size() + 1, seconds(2)));
        QVERIFY(rig.lastGap() >= milliseconds(800));
        if (rewatches) {
            QVERIFY2(rig.last().isWatch() && !rig.last().isWatchList(),
                     qPrintable(rig.last().request.pathAndQuery));
            QCOMPARE(rig.last().rv(), QStringLiteral("120"));
            QCOMPARE(rig.reflector().relists(), 0);
            rig.head(200);
            QCOMPARE(rig.state(), QStringLiteral("live"));
        } else {
            QVERIFY(rig.last().isList());
            QCOMPARE(rig.reflector().relists(), 1);
        }
    }

    // A LIST answered 401 while the transport replaces the exec credential it went with: client-go
    // returns the error to the reflector, which backs off and lists again with the new one. A 401
    // nothing replaces (a static token) stops the informer for good.
    void listUnauthorizedWhileTheCredentialIsReplaced_data() {
        QTest::addColumn<bool>("replaced");
        QTest::newRow("exec credential replaced") << true;
        QTest::newRow("static token") << false;
    }
    void listUnauthorizedWhileTheCredentialIsReplaced() {
        QFETCH(bool, replaced);
        Rig rig(QStringLiteral("0.34"));
        QVERIFY(rig.last().isList());
        rig.head(401, {}, replaced);
        rig.chunk(kUnauthorized);
        rig.end();
        QVERIFY(rig.reflector().answered());
        if (!replaced) {
            QVERIFY(rig.reflector().rejected());
            QCOMPARE(rig.reflector().stateName(), QStringLiteral("stopped"));
            QVERIFY(!rig.waitForRequests(2, seconds(60)));
            return;
        }
        QVERIFY(!rig.reflector().rejected());
        QCOMPARE(rig.reflector().stateName(), QStringLiteral("backoff (relist)"));
        QVERIFY(rig.waitForRequests(2, seconds(2)));
        QVERIFY(rig.lastGap() >= milliseconds(800));
        QVERIFY(rig.last().isList());
        rig.listAndWatch(100);
        QCOMPARE(rig.reflector().resourceVersion(), ResourceVersion(100));
        QCOMPARE(rig.reflector().objects(), std::int64_t(1));
        QCOMPARE(rig.state(), QStringLiteral("live"));
    }

    // An apiserver restarted while its watch cache initialises (1.31+): every watch is refused
    // with 429 "storage is (re)initializing" and Retry-After. The REST layer retries each 10 times
    // below the reflector, which backs off and watches again; the user sees one cache-not-ready
    // once the refusals span 30 s, the retries counted, and the informer live again from its RV
    // once the cache takes the watch.
    void watchCacheInitialisingIsShown() {
        Rig rig(QStringLiteral("0.35"));
        rig.head(200);
        rig.chunk(added("a", 90) + initialEventsEnd(100));
        rig.end(); // the apiserver went away (a watcher-terminated)
        QVERIFY(rig.last().isWatch() && !rig.last().isWatchList());
        const qsizetype before = rig.anomalies.size();
        const TimeUs refusedFrom = rig.now;
        while (rig.now - refusedFrom < seconds(40)) {
            QCOMPARE(rig.last().rv(), QStringLiteral("100"));
            rig.answer(429, kStorageInitializing, "1");
            QVERIFY(rig.waitForRequests(rig.sent.size() + 1, seconds(40)));
        }
        QVERIFY2(rig.reflector().httpRetries() >= 20,
                 qPrintable(QString::number(rig.reflector().httpRetries())));
        QStringList kinds;
        for (const Anomaly& a : rig.anomalies.mid(before))
            kinds << kindName(a.kind);
        QCOMPARE(kinds, QStringList{QStringLiteral("cache-not-ready")});
        const Anomaly& shown = rig.anomalies.last();
        QCOMPARE(shown.severity, Severity::Warning);
        QVERIFY2(shown.message.contains(QLatin1String("storage is (re)initializing")),
                 qPrintable(shown.message));
        QVERIFY2(shown.time - refusedFrom >= seconds(30) && shown.time - refusedFrom < seconds(32),
                 qPrintable(QString::number(shown.time - refusedFrom)));
        // The cache takes the watch: live from RV 100, nothing relisted, nothing more raised.
        rig.head(200);
        QCOMPARE(rig.state(), QStringLiteral("live"));
        QCOMPARE(rig.reflector().relists(), 0);
        QCOMPARE(rig.reflector().objects(), std::int64_t(1));
        QCOMPARE(rig.anomalies.size(), before + 1);
    }

    void withoutTheGateRelistsWithList() {
        Rig rig(QStringLiteral("0.34"));
        rig.listAndWatch(100);
        rig.chunk(expiredEvent(100, 150));
        rig.end();
        QVERIFY(rig.waitForRequests(3, seconds(2)));
        QVERIFY(rig.last().isList());
        QCOMPARE(rig.last().rv(), QStringLiteral("100"));
    }

    // An RV="0" list that came back in pages (no watch cache: events) makes every later list
    // paged too, at its exact RV (reflector.paginatedResult, 0.18+); a list the cache answered
    // whole leaves relists at an exact RV unpaginated. A 410 on such a relist retries at RV=""
    // on the same pager: paged or not as the relist was.
    void relistsInPagesAfterAPagedList_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("firstPaged");
        QTest::addColumn<QString>("relist");
        QTest::addColumn<QString>("retry");
        QTest::newRow("0.34, paged") << "0.34" << true << "limit=500&resourceVersion=100"
                                     << "limit=500";
        QTest::newRow("0.34, whole") << "0.34" << false << "resourceVersion=100"
                                     << "";
        QTest::newRow("0.18.0, paged") << "0.18.0" << true << "limit=500&resourceVersion=100"
                                       << "limit=500";
        QTest::newRow("0.18.0, whole") << "0.18.0" << false << "resourceVersion=100"
                                       << "";
    }
    void relistsInPagesAfterAPagedList() {
        QFETCH(QString, profile);
        QFETCH(bool, firstPaged);
        QFETCH(QString, relist);
        QFETCH(QString, retry);
        Rig rig(profile);
        QCOMPARE(rig.last().paging(), QStringLiteral("limit=500&resourceVersion=0"));
        if (firstPaged) {
            rig.answer(200, page(100, {"a", "b"}, QStringLiteral("c1")));
            QCOMPARE(rig.last().paging(), QStringLiteral("continue=c1&limit=500"));
            rig.answer(200, page(100, {"c"}));
        } else {
            rig.answer(200, page(100, {"a", "b", "c"}));
        }
        // Every page's items are in the view.
        QCOMPARE(rig.reflector().objects(), std::int64_t(3));
        QVERIFY(rig.last().isWatch());
        QCOMPARE(rig.last().rv(), QStringLiteral("100"));
        rig.head(200);
        rig.chunk(expiredEvent(100, 150));
        rig.end();
        QVERIFY(rig.waitForRequests(rig.sent.size() + 1, seconds(4)));
        QVERIFY(rig.last().isList());
        QCOMPARE(rig.last().paging(), relist);
        rig.answer(410, kListExpired);
        QVERIFY(rig.last().isList());
        QCOMPARE(rig.lastGap(), TimeUs(0));
        QCOMPARE(rig.last().paging(), retry);
    }

    // tools/pager's FullListIfExpired: a 410 on a continue page (etcd compacted past the first
    // page's RV) ends the paging in one list at the RV the first page asked for, without limit;
    // the reflector never sees the 410, and the view is that list's.
    void expiredContinuePageListsWhole() {
        Rig rig(QStringLiteral("0.34"));
        rig.answer(200, page(100, {"a", "b"}, QStringLiteral("c1")));
        rig.answer(410, kContinueExpired);
        QCOMPARE(rig.lastGap(), TimeUs(0));
        QCOMPARE(rig.last().paging(), QStringLiteral("resourceVersion=0"));
        rig.answer(200, page(120, {"b", "c", "d"}));
        QVERIFY(rig.last().isWatch());
        QCOMPARE(rig.last().rv(), QStringLiteral("120"));
        QCOMPARE(rig.reflector().objects(), std::int64_t(3));
        QCOMPARE(rig.reflector().relists(), 0);
        // The list was paged: a relist is paged at its exact RV, and its own expired continue
        // page lists whole at that RV.
        rig.head(200);
        rig.chunk(expiredEvent(120, 150));
        rig.end();
        QVERIFY(rig.waitForRequests(rig.sent.size() + 1, seconds(4)));
        QCOMPARE(rig.last().paging(), QStringLiteral("limit=500&resourceVersion=120"));
        rig.answer(200, page(130, {"b"}, QStringLiteral("c2")));
        rig.answer(410, kContinueExpired);
        QCOMPARE(rig.last().paging(), QStringLiteral("resourceVersion=120"));
        // That list expired too: RV="" on the same pager, in pages.
        rig.answer(410, kListExpired);
        QCOMPARE(rig.last().paging(), QStringLiteral("limit=500"));
    }

    // From 0.32 the typed clientset asks for protobuf first for its own groups
    // (UseProtobufAsDefault); before, JSON. Custom resources, aggregated APIs and Secrets are
    // JSON whatever the wire.
    void acceptFollowsTheRelease_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<QByteArray>("accept");
        const QByteArray protobuf = "application/vnd.kubernetes.protobuf,application/json";
        QTest::newRow("0.31") << "0.31" << QByteArray("application/json");
        QTest::newRow("0.32") << "0.32" << protobuf;
        QTest::newRow("0.35") << "0.35" << protobuf;
        QTest::newRow("current") << "current" << protobuf;
    }
    void acceptFollowsTheRelease() {
        QFETCH(QString, profile);
        QFETCH(QByteArray, accept);
        Rig rig(profile);
        QCOMPARE(rig.last().request.accept, accept);
        rig.answer(200, list(100));
        QCOMPARE(rig.last().request.accept, accept); // the watch too

        ResourceInfo crd;
        crd.group = QStringLiteral("snapshot.storage.k8s.io"); // a CRD in a .k8s.io group
        crd.plural = QStringLiteral("volumesnapshots");
        ResourceInfo secrets = ResourceCatalog::lookup(QStringLiteral("secrets"));
        ResourceInfo leases = ResourceCatalog::lookup(QStringLiteral("leases"));
        QCOMPARE(wire::accept(WireFormat::Protobuf, crd), QByteArray("application/json"));
        QCOMPARE(wire::accept(WireFormat::Protobuf, secrets), QByteArray("application/json"));
        QCOMPARE(wire::accept(WireFormat::Protobuf, leases),
                 QByteArray("application/vnd.kubernetes.protobuf,application/json"));
    }

    // rest.Request retries a 429/5xx carrying Retry-After before the reflector sees it: a LIST
    // 9 times in 0.16-0.18 and 10 times from 0.19, a WATCH 10 times from 0.22 and never before.
    // Each retry waits the Retry-After, counts on the watcher, and raises nothing; the last
    // answer reaches the reflector as client-go's would see it.
    void retryAfterRetries_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("watch");
        QTest::addColumn<int>("retries");
        QTest::addColumn<QString>("then"); // what the reflector does with the last 429
        const QString relist = QStringLiteral("backoff (relist)");
        const QString rewatch = QStringLiteral("backoff (rewatch)");
        QTest::newRow("0.16 list") << "0.16" << false << 9 << relist;
        QTest::newRow("0.18.9 list") << "0.18.9" << false << 9 << relist;
        QTest::newRow("0.19.1 list") << "0.19.1" << false << 10 << relist;
        QTest::newRow("0.34 list") << "0.34" << false << 10 << relist;
        QTest::newRow("0.21 watch") << "0.21" << true << 0 << relist;
        QTest::newRow("0.22 watch") << "0.22" << true << 10 << rewatch;
        QTest::newRow("0.34 watch") << "0.34" << true << 10 << rewatch;
    }
    void retryAfterRetries() {
        QFETCH(QString, profile);
        QFETCH(bool, watch);
        QFETCH(int, retries);
        QFETCH(QString, then);
        Rig rig(profile);
        if (watch)
            rig.answer(200, list(100));
        const std::size_t first = rig.sent.size();
        const QString path = rig.last().request.pathAndQuery;
        QCOMPARE(rig.last().isWatch(), watch);
        for (int i = 0; i < retries; ++i) {
            rig.answer(429, kStorageInitializing, "2");
            QVERIFY(rig.anomalies.isEmpty());
            QCOMPARE(rig.reflector().httpRetries(), i + 1);
            QVERIFY(rig.waitForRequests(first + i + 1, seconds(3)));
            QVERIFY(rig.lastGap() >= seconds(2));
            QCOMPARE(rig.last().request.pathAndQuery, path); // the same request again
        }
        rig.answer(429, kStorageInitializing, "2");
        QCOMPARE(rig.reflector().httpRetries(), retries);
        QCOMPARE(rig.reflector().stateName(), then);
    }
    // Only a 429 or 5xx, and only with a Retry-After in seconds.
    void noRetryWithoutRetryAfter() {
        Rig rig(QStringLiteral("0.34"));
        rig.answer(500, kInternalError);
        QCOMPARE(rig.reflector().httpRetries(), 0);
        QCOMPARE(rig.reflector().stateName(), QStringLiteral("backoff (relist)"));
        Rig dated(QStringLiteral("0.34"));
        dated.answer(503, kInternalError, "Wed, 21 Oct 2026 07:28:00 GMT");
        QCOMPARE(dated.reflector().httpRetries(), 0);
        Rig notFound(QStringLiteral("0.34"));
        notFound.answer(404, kInternalError, "1");
        QCOMPARE(notFound.reflector().httpRetries(), 0);
        Rig ok(QStringLiteral("0.34"));
        ok.answer(500, kInternalError, "1");
        QCOMPARE(ok.reflector().httpRetries(), 1);
        QCOMPARE(ok.reflector().stateName(), QStringLiteral("listing (Retry-After)"));
        QVERIFY(ok.waitForRequests(2, seconds(2)));
        ok.answer(200, list(100)); // what the reflector sees: a list, no failure
        QCOMPARE(ok.reflector().resourceVersion(), ResourceVersion(100));
        QCOMPARE(ok.reflector().relists(), 0);
    }

    // A connection closed or reset before any answer: a GET LIST is retried after 1 s, a WATCH
    // too from 0.22 (also on a timeout); any other transport failure reaches the reflector.
    void closedBeforeAnswerIsRetried_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("watch");
        QTest::addColumn<int>("error"); // HttpErrorKind
        QTest::addColumn<bool>("retried");
        const int closed = int(HttpErrorKind::ConnectionClosed);
        QTest::newRow("0.34 list, closed") << "0.34" << false << closed << true;
        QTest::newRow("0.16 list, closed") << "0.16" << false << closed << true;
        QTest::newRow("0.34 list, timeout")
            << "0.34" << false << int(HttpErrorKind::Timeout) << false;
        QTest::newRow("0.34 list, refused")
            << "0.34" << false << int(HttpErrorKind::ConnectionRefused) << false;
        QTest::newRow("0.34 list, other") << "0.34" << false << int(HttpErrorKind::Other) << false;
        QTest::newRow("0.21 watch, closed") << "0.21" << true << closed << false;
        QTest::newRow("0.22 watch, closed") << "0.22" << true << closed << true;
        QTest::newRow("0.35 watch, timeout")
            << "0.35" << true << int(HttpErrorKind::Timeout) << true;
    }
    void closedBeforeAnswerIsRetried() {
        QFETCH(QString, profile);
        QFETCH(bool, watch);
        QFETCH(int, error);
        QFETCH(bool, retried);
        Rig rig(profile);
        if (watch && !rig.last().isWatch())
            rig.answer(200, list(100));
        const QString path = rig.last().request.pathAndQuery;
        const std::size_t before = rig.sent.size();
        rig.end(HttpErrorKind(error));
        QCOMPARE(rig.reflector().httpRetries(), retried ? 1 : 0);
        if (!retried) {
            QVERIFY(rig.reflector().stateName().startsWith(QLatin1String("backoff")));
            return;
        }
        QVERIFY(rig.anomalies.isEmpty());
        QVERIFY(rig.waitForRequests(before + 1, seconds(2)));
        QVERIFY(rig.lastGap() >= seconds(1));
        QCOMPARE(rig.last().request.pathAndQuery, path);
    }

    // A 410 storm (every watch expires at once): a successful LIST does not reset the backoff,
    // so the relists space out 0.8, 1.6, 3.2, 6.4 s (each up to twice that with jitter).
    void relistBackoffSurvivesSuccessfulLists() {
        Rig rig(QStringLiteral("0.34"));
        std::vector<TimeUs> gaps;
        for (int i = 0; i < 5; ++i) {
            rig.listAndWatch(100 + i);
            rig.chunk(expiredEvent(100 + i, 200));
            rig.end();
            const std::size_t before = rig.sent.size();
            QVERIFY(rig.waitForRequests(before + 1, seconds(70)));
            gaps.push_back(rig.lastGap());
        }
        for (std::size_t i = 0; i < gaps.size(); ++i) {
            const TimeUs base = std::min<TimeUs>(milliseconds(800) << i, seconds(30));
            QVERIFY2(
                gaps[i] >= base && gaps[i] <= 2 * base,
                qPrintable(QStringLiteral("relist %1 after %2 ms").arg(i).arg(gaps[i] / 1000)));
        }
    }

    // From 0.28 a re-watch (after a 429 on the watch request) waits on the relist backoff; 0.27
    // keeps initConnBackoffManager apart, which starts at 800 ms.
    void rewatchSharesTheBackoff_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("shared");
        QTest::newRow("0.27") << "0.27" << false;
        QTest::newRow("0.28") << "0.28" << true;
        QTest::newRow("0.34") << "0.34" << true;
    }
    void rewatchSharesTheBackoff() {
        QFETCH(QString, profile);
        QFETCH(bool, shared);
        Rig rig(profile);
        // Three failed LISTs (500 without Retry-After): 0.8, 1.6, 3.2 s.
        for (int i = 0; i < 3; ++i) {
            rig.answer(500, kInternalError);
            QVERIFY(rig.waitForRequests(rig.sent.size() + 1, seconds(10)));
        }
        rig.answer(200, list(100));
        QVERIFY(rig.last().isWatch());
        rig.answer(429, kStorageInitializing); // no Retry-After: the reflector sees it
        QCOMPARE(rig.reflector().stateName(), QStringLiteral("backoff (rewatch)"));
        QVERIFY(rig.waitForRequests(rig.sent.size() + 1, seconds(20)));
        QVERIFY(rig.last().isWatch());
        const TimeUs base = shared ? milliseconds(6400) : milliseconds(800);
        QVERIFY2(rig.lastGap() >= base && rig.lastGap() <= 2 * base,
                 qPrintable(QStringLiteral("re-watch after %1 ms").arg(rig.lastGap() / 1000)));
    }

    // 0.18-0.35 forget the failures 2 minutes after the last wait, so a storm stays at 30-60 s;
    // 0.36's DelayWithReset starts over every 2 minutes from the reflector's start.
    void backoffResetRule_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<bool>("periodic");
        QTest::newRow("0.35") << "0.35" << false;
        QTest::newRow("0.36") << "0.36" << true;
    }
    void backoffResetRule() {
        QFETCH(QString, profile);
        QFETCH(bool, periodic);
        Rig rig(profile);
        const TimeUs start = rig.now;
        bool sawCap = false;
        bool resetAfterCap = false;
        while (rig.now - start < seconds(240)) {
            // Every watch-list and every fallback LIST fails with a 500 (no Retry-After).
            rig.answer(500, kInternalError);
            if (rig.last().isList() && rig.sent.size() >= 2 && rig.lastGap() == 0)
                rig.answer(500, kInternalError); // the fallback LIST of this cycle
            QVERIFY(rig.waitForRequests(rig.sent.size() + 1, seconds(70)));
            if (rig.lastGap() >= seconds(30))
                sawCap = true;
            else if (sawCap && rig.lastGap() < seconds(2))
                resetAfterCap = true;
        }
        QVERIFY(sawCap);
        QCOMPARE(resetAfterCap, periodic);
    }

    // A watch the cacher sends a bookmark every minute (its resource's cache RV passed the RV it
    // was served from) that then stays silent is on a connection that died unseen: it is cut
    // after 150 s and watched again from its RV, well before timeoutSeconds (>= 300 s) + 5 s.
    // Each byte that comes puts the cut off again.
    void silentWatchDueBookmarksIsWatchedAgain() {
        Rig rig(QStringLiteral("0.34"));
        rig.listAndWatch(100);
        const int watch = rig.last().request.id;
        rig.chunk(bookmark(120));
        rig.pass(seconds(100));
        rig.chunk(bookmark(120)); // a minute on: the same RV, still a byte
        rig.pass(seconds(149));
        QVERIFY(rig.cancelled.empty());
        rig.pass(seconds(2));
        QCOMPARE(rig.cancelled, std::vector<int>{watch});
        const std::size_t before = rig.sent.size();
        rig.end(HttpErrorKind::Cancelled);
        QCOMPARE(rig.sent.size(), before + 1);
        QVERIFY(rig.last().isWatch() && !rig.last().isWatchList());
        QCOMPARE(rig.last().rv(), QStringLiteral("120"));
        QVERIFY(rig.anomalies.isEmpty());
    }

    // Until its resource's cache RV passes the RV the watch was served from, the cacher sends a
    // watch of a quiet resource nothing (not even a bookmark at that RV after the first): such
    // a watch is left to its timeoutSeconds.
    void silentWatchBeforeBookmarksAreDueIsLeftAlone() {
        Rig rig(QStringLiteral("0.34"));
        rig.listAndWatch(100);
        rig.chunk(bookmark(100));
        rig.pass(seconds(290));
        QVERIFY(rig.cancelled.empty());
    }
};

QTEST_GUILESS_MAIN(TestClusterReflector)
#include "tst_clusterreflector.moc"

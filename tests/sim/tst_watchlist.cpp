// A watch-list informer (client-go 0.27+ with WatchListClient, v0.35 by default) against the
// simulated kube-apiserver, tick by tick: with the WatchList gate on it syncs from the
// watch-list; with it off the request gets 422 and the informer falls back to LIST + WATCH
// without any anomaly (0.27-0.28 only on that 422, 0.29+ on any error); through a proxy that
// accepts sendInitialEvents but never sends the initial-events-end bookmark it never syncs and
// initial-events-stalled is raised.
#include "SimHarness.h"
#include "kube/ListOptionsValidation.h"
#include "sources/sim/client/ClientReflector.h"

#include <QTest>

using namespace ws;
using ws::test::SimHarness;

namespace {

constexpr int kObjects = 10;

struct Run {
    Run(const QString& serverVersion, const QString& clientGo, bool viaProxy = false,
        bool behindLoadBalancer = false, int watchListGate = -1)
        : h(serverVersion, kObjects) {
        if (behindLoadBalancer || watchListGate >= 0) {
            ApiServerConfig config;
            config.profile = h.server->profile();
            config.behindLoadBalancer = behindLoadBalancer;
            if (watchListGate >= 0)
                config.profile.watchList = watchListGate == 1;
            config.etcd = EtcdFacts(QStringLiteral("3.5.13")); // as SimHarness's
            h.server = std::make_unique<ApiServer>(h.ctx, config, std::vector<int>{h.resource});
            h.server->start();
        }
        ClientConfig config;
        config.id = QStringLiteral("informer");
        config.resource = h.resource;
        QString error;
        const auto profile = ClientProfile::fromName(clientGo, &error);
        if (!profile)
            qFatal("%s", qPrintable(error));
        config.profile = *profile;
        config.viaInitialEventsProxy = viaProxy;
        client = std::make_unique<ClientReflector>(h.ctx, std::vector<ApiServer*>{h.server.get()},
                                                   config);
    }
    void runFor(TimeUs d) {
        const TimeUs end = h.ctx.now + d;
        int n = 0;
        while (h.ctx.now < end) {
            h.tick();
            if (++n % 10 == 0)
                h.write(n / 10); // 10 writes/s: live events and moving RVs
            client->tick();
            h.hub.tick(h.ctx.now);
        }
    }
    int stalled() const {
        int n = 0;
        for (const Anomaly& a : h.anomalies)
            n += a.kind == AnomalyKind::InitialEventsStalled;
        return n;
    }
    QString summary() const {
        QStringList out;
        for (const Anomaly& a : h.anomalies)
            out << kindName(a.kind) + QStringLiteral(": ") + a.message;
        return out.join(QStringLiteral("; "));
    }

    SimHarness h;
    std::unique_ptr<ClientReflector> client;
};

} // namespace

class TestWatchList : public QObject {
    Q_OBJECT

private slots:
    // reflector.ListAndWatch at v0.27/v0.28 (`if !apierrors.IsInvalid(err) { return err }`) and
    // v0.29+ (any error falls back); reflector.watchList's own retries (isWatchErrorRetriable,
    // isExpiredError, isTooLargeResourceVersionError).
    void fallbackRules() {
        const auto server = ServerProfile::fromVersion(QStringLiteral("1.33"), nullptr);
        QVERIFY(server);
        const ApiStatus rejected = *invalidWatchOptions(*server, WatchQuery::watchList(QString()));
        ApiStatus internal;
        internal.code = 500;
        internal.reason = QStringLiteral("InternalError");
        ApiStatus tooMany;
        tooMany.code = 429;
        tooMany.reason = QStringLiteral("TooManyRequests");
        const ApiStatus refused = ApiStatus::connectionRefused(QStringLiteral("apiserver-0"));
        const ApiStatus reset = ApiStatus::connectionReset(QStringLiteral("apiserver-0"));
        const ApiStatus veryShortWatch; // not an API status
        for (const char* name : {"0.27+watchlist", "0.28+watchlist"}) {
            const auto p = ClientProfile::fromName(QLatin1String(name), nullptr);
            QVERIFY2(p && p->watchList, name);
            QVERIFY(p->watchListFallsBackToList(rejected));
            QVERIFY(!p->watchListFallsBackToList(internal));
            QVERIFY(!p->watchListFallsBackToList(reset));
            QVERIFY(!p->watchListFallsBackToList(veryShortWatch));
        }
        for (const char* name : {"0.29+watchlist", "0.34+watchlist", "0.35", "current-watchlist"}) {
            const auto p = ClientProfile::fromName(QLatin1String(name), nullptr);
            QVERIFY2(p && p->watchList, name);
            for (const ApiStatus& s : {rejected, internal, reset, veryShortWatch})
                QVERIFY2(p->watchListFallsBackToList(s), name);
        }
        const auto p = ClientProfile::fromName(QStringLiteral("0.35"), nullptr);
        using Retry = ClientProfile::WatchListRetry;
        QCOMPARE(p->watchListRetries(refused), Retry::AfterBackoff);
        QCOMPARE(p->watchListRetries(tooMany), Retry::AfterBackoff);
        QCOMPARE(p->watchListRetries(ApiStatus::tooOld(*server, 5, 10)), Retry::AtOnceWithEmptyRv);
        QCOMPARE(p->watchListRetries(ApiStatus::tooLarge(*server, 50, 10)),
                 Retry::AtOnceWithEmptyRv);
        QCOMPARE(p->watchListRetries(rejected), Retry::No);
        QCOMPARE(p->watchListRetries(reset), Retry::No);
        QCOMPARE(p->watchListRetries(internal), Retry::No);
        // Watch-list exists from 0.27.
        for (const char* bad : {"0.26+watchlist", "0.16+watchlist", "+watchlist",
                                "current+watchlist", "1.28+watchlist", "0.37+watchlist"}) {
            QString error;
            QVERIFY2(!ClientProfile::fromName(QLatin1String(bad), &error), bad);
            QVERIFY2(error.contains(QStringLiteral("from client-go 0.27")), qPrintable(error));
        }
        // Without the suffix nothing changes: no watch-list before v0.35's default.
        QVERIFY(!ClientProfile::fromName(QStringLiteral("0.27"), nullptr)->watchList);
    }

    void directToKubeApiserver_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<int>("gate"); // -1: the version's default
        QTest::addColumn<QString>("clientGo");
        QTest::addColumn<bool>("servesWatchList"); // else 422 and LIST + WATCH
        QTest::newRow("1.34 on, 0.35") << "1.34" << -1 << "0.35" << true;
        QTest::newRow("1.32 on, 0.35") << "1.32" << -1 << "0.35" << true;
        QTest::newRow("1.33 off, 0.35") << "1.33" << -1 << "0.35" << false;
        QTest::newRow("1.33 WatchList=true, 0.35") << "1.33" << 1 << "0.35" << true;
        QTest::newRow("1.31 off, 0.35") << "1.31" << -1 << "0.35" << false;
        QTest::newRow("1.27 off, 0.28+watchlist") << "1.27" << -1 << "0.28+watchlist" << false;
        QTest::newRow("1.33 off, 0.28+watchlist") << "1.33" << -1 << "0.28+watchlist" << false;
        QTest::newRow("1.33 off, 0.29+watchlist") << "1.33" << -1 << "0.29+watchlist" << false;
        // 1.19-1.26 reject resourceVersionMatch on a watch: a 422 too.
        QTest::newRow("1.26, 0.28+watchlist") << "1.26" << -1 << "0.28+watchlist" << false;
        QTest::newRow("1.22, 0.35") << "1.22" << -1 << "0.35" << false;
        QTest::newRow("1.34 on, 0.28+watchlist") << "1.34" << -1 << "0.28+watchlist" << true;
    }
    void directToKubeApiserver() {
        QFETCH(QString, server);
        QFETCH(int, gate);
        QFETCH(QString, clientGo);
        QFETCH(bool, servesWatchList);
        Run r(server, clientGo, false, false, gate);
        r.runFor(seconds(45));
        QVERIFY2(r.h.anomalies.empty(), qPrintable(r.summary()));
        QCOMPARE(r.client->stateName(), QStringLiteral("watching"));
        QCOMPARE(r.client->store().size(), std::size_t(kObjects));
        QVERIFY(r.client->resourceVersion() > 0);
        // A watch-list replaces the LIST; a rejected one is followed by one LIST.
        QCOMPARE(r.h.server->listRequests(), std::int64_t(servesWatchList ? 0 : 1));
        const WatcherStatus status = r.h.hub.watcherStatus(r.client->hubId());
        QCOMPARE(status.errors, servesWatchList ? 0 : 1); // the 422
    }

    // The stalled proxy: the same client, whatever the gate behind it, never syncs.
    void throughProxyNeverSyncs_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("clientGo");
        QTest::newRow("1.34 on, 0.35") << "1.34"
                                       << "0.35";
        QTest::newRow("1.33 off, 0.35") << "1.33"
                                        << "0.35";
        QTest::newRow("1.33 off, 0.29+watchlist") << "1.33"
                                                  << "0.29+watchlist";
    }
    void throughProxyNeverSyncs() {
        QFETCH(QString, server);
        QFETCH(QString, clientGo);
        Run r(server, clientGo, true);
        r.runFor(seconds(45));
        QCOMPARE(r.client->stateName(), QStringLiteral("initial events"));
        QCOMPARE(r.client->store().size(), std::size_t(0)); // never replaced: not synced
        QCOMPARE(r.h.server->listRequests(), std::int64_t(0));
        QCOMPARE(r.stalled(), 1);
        for (const Anomaly& a : r.h.anomalies)
            QCOMPARE(a.kind, AnomalyKind::InitialEventsStalled);
        QCOMPARE(r.h.anomalies.front().watcher, QStringLiteral("informer"));
    }

    // A kube-apiserver 1.16-1.18 knows neither resourceVersionMatch nor sendInitialEvents: it
    // serves a plain watch, like the proxy.
    void beforeResourceVersionMatchTheServerIgnoresIt() {
        Run r(QStringLiteral("1.18"), QStringLiteral("0.35"));
        r.runFor(seconds(45));
        QCOMPARE(r.h.server->listRequests(), std::int64_t(0));
        QCOMPARE(r.client->store().size(), std::size_t(0));
        QCOMPARE(r.stalled(), 1);
    }

    // An error other than 422 (the apiserver behind a load balancer is down: connection reset,
    // which reflector.watchList does not retry itself, once the REST client's ten retries are
    // spent): 0.27-0.28 end ListAndWatch and try the watch-list again after a backoff; 0.29+
    // fall back to a LIST at once.
    void fallbackOnOtherErrors_data() {
        QTest::addColumn<QString>("clientGo");
        QTest::addColumn<bool>("fallsBack");
        QTest::newRow("0.27+watchlist") << "0.27+watchlist" << false;
        QTest::newRow("0.28+watchlist") << "0.28+watchlist" << false;
        QTest::newRow("0.29+watchlist") << "0.29+watchlist" << true;
        QTest::newRow("0.35") << "0.35" << true;
    }
    void fallbackOnOtherErrors() {
        QFETCH(QString, clientGo);
        QFETCH(bool, fallsBack);
        Run r(QStringLiteral("1.34"), clientGo, false, true);
        r.h.server->restart(seconds(20));
        r.runFor(seconds(15));
        const std::int64_t watchesWhileDown = r.h.server->watchRequests();
        const std::int64_t listsWhileDown = r.h.server->listRequests();
        // The REST client sends the reset watch-list again itself, 1 s apart, ten times
        // (RestRetries): the reflector sees the eleventh reset after 10 s.
        if (fallsBack) {
            QCOMPARE(watchesWhileDown, std::int64_t(11));
            QCOMPARE(listsWhileDown, std::int64_t(5)); // the LIST, and its own retries, 1 s apart
        } else {
            // A new watch-list after the backoff, with retries of its own.
            QVERIFY2(watchesWhileDown > 11, qPrintable(QString::number(watchesWhileDown)));
            QCOMPARE(listsWhileDown, std::int64_t(0));
        }
        // Back up (gate on): the next watch-list syncs.
        r.runFor(seconds(40));
        QCOMPARE(r.client->store().size(), std::size_t(kObjects));
        QCOMPARE(r.client->stateName(), QStringLiteral("watching"));
        QCOMPARE(r.stalled(), 0);
    }
};

QTEST_APPLESS_MAIN(TestWatchList)
#include "tst_watchlist.moc"

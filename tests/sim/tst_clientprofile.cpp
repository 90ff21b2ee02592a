#include "SimHarness.h"
#include "kube/ApiStatus.h"
#include "kube/ClientProfile.h"
#include "kube/ServerProfile.h"
#include "sources/sim/client/ClientReflector.h"

#include <QTest>

using namespace ws;

class TestClientProfile : public QObject {
    Q_OBJECT
private slots:
    // reference §6: relist RV is "" after Expired/TooLarge, "0" when never synced, else the last
    // synced RV; client-go before 0.18 always listed with "0".
    void relistResourceVersion_data() {
        QTest::addColumn<QString>("profile");
        QTest::addColumn<qint64>("lastSync");
        QTest::addColumn<bool>("unavailable");
        QTest::addColumn<QString>("expected"); // "", "0" or a number
        QTest::newRow("0.16 never synced") << "0.16" << qint64(0) << false << "0";
        QTest::newRow("0.16 synced") << "0.16" << qint64(500) << false << "0";
        QTest::newRow("0.16 after 410") << "0.16" << qint64(500) << true << "0";
        // 0.17.0 alone had 0.18's rules (reverted in 0.17.1); "0.17" means 0.17.1+.
        QTest::newRow("0.17 synced") << "0.17" << qint64(500) << false << "0";
        QTest::newRow("0.17.4 synced") << "0.17.4" << qint64(500) << false << "0";
        QTest::newRow("0.17.0 synced") << "0.17.0" << qint64(500) << false << "500";
        QTest::newRow("0.17.0 after 410") << "0.17.0" << qint64(500) << true << "";
        QTest::newRow("0.18.0 never synced") << "0.18.0" << qint64(0) << false << "0";
        QTest::newRow("0.18.0 synced") << "0.18.0" << qint64(500) << false << "500";
        QTest::newRow("0.18.0 after 410") << "0.18.0" << qint64(500) << true << "";
        QTest::newRow("0.22 synced") << "0.22" << qint64(7) << false << "7";
        QTest::newRow("current after 504") << "current" << qint64(900) << true << "";
    }
    void relistResourceVersion() {
        QFETCH(QString, profile);
        QFETCH(qint64, lastSync);
        QFETCH(bool, unavailable);
        QFETCH(QString, expected);
        const auto p = ClientProfile::fromName(profile, nullptr);
        QVERIFY(p);
        const auto rv = p->relistResourceVersion(lastSync, unavailable);
        const QString got = rv.empty ? QString() : QString::number(rv.rv);
        QCOMPARE(got, expected);
        // The pager's 500 for ""/"0", no limit for an RV the cache can serve (0.18+); before
        // 0.18 every list is paged.
        const bool paged = rv.empty || rv.rv == 0 || profile == QLatin1String("0.17.0");
        QCOMPARE(rv.limit, paged ? 500 : 0);
    }

    // seed 002, reference §1/§6: which client recognises which server's 504 as "too large RV",
    // on each side of every change. The bodies are the servers' own (ApiStatus::tooLarge): 1.16
    // no causes, 1.17.0-1.18.5 a cause with only the message, 1.18.6+ a cause with reason
    // ResourceVersionTooLarge.
    void recognisesTooLarge_data() {
        QTest::addColumn<QString>("client");
        QTest::addColumn<QString>("server");
        QTest::addColumn<bool>("recognised");
        const auto row = [](const char* client, const char* server, bool recognised) {
            QTest::addRow("%s vs %s", client, server)
                << QString::fromLatin1(client) << QString::fromLatin1(server) << recognised;
        };
        // 0.16/0.17 and 0.18.0-0.18.5: nothing.
        row("0.16", "1.20", false);
        row("0.17", "1.20", false);
        row("0.18.0", "1.20", false);
        row("0.18.5", "1.18.6", false);
        row("0.18.5", "1.20", false);
        // 0.18.6-0.18.8 and 0.19.0: only the cause reason (servers 1.18.6+).
        row("0.18.6", "1.18.6", true);
        row("0.18.6", "1.20", true);
        row("0.18.6", "1.18.5", false);
        row("0.18.6", "1.18", false);
        row("0.18.6", "1.17", false);
        row("0.18.6", "1.16", false);
        row("0.18.8", "1.18.6", true);
        row("0.18.8", "1.17", false);
        row("0.19.0", "1.18.6", true);
        row("0.19.0", "1.17", false);
        // 0.18.9+, 0.19.1+, 0.20-0.26: also Timeout with the cause message (servers 1.17+).
        row("0.18.9", "1.17", true);
        row("0.18.9", "1.18.5", true);
        row("0.18.9", "1.18.6", true);
        row("0.18.9", "1.16", false);
        row("0.18.10", "1.17", true); // not 0.18.1
        row("0.18.10", "1.16", false);
        row("0.18.19", "1.17", true);
        row("0.19.1", "1.17", true);
        row("0.19.1", "1.16", false);
        row("0.20", "1.16", false);
        row("0.22", "1.20", true);
        row("0.26", "1.17", true);
        row("0.26", "1.16", false);
        // 0.27+: also the message alone (1.16 servers).
        row("0.27", "1.16", true);
        row("0.27.0", "1.16", true);
        row("v0.30.2", "1.16", true);
        row("0.35", "1.16", true);
        row("current", "1.16", true);
    }
    void recognisesTooLarge() {
        QFETCH(QString, client);
        QFETCH(QString, server);
        QFETCH(bool, recognised);
        QString error;
        const auto c = ClientProfile::fromName(client, &error);
        QVERIFY2(c, qPrintable(error));
        const auto s = ServerProfile::fromVersion(server, &error);
        QVERIFY2(s, qPrintable(error));
        QCOMPARE(c->isTooLargeResourceVersion(ApiStatus::tooLarge(*s, 100, 50)), recognised);
        // At once with RV="" when recognised; otherwise back off and list the same RV again.
        QCOMPARE(c->relistsAtOnceWithEmptyRv(ApiStatus::tooLarge(*s, 100, 50), false), recognised);
    }

    // A 410 on the watch makes the next list RV="" only in 0.17.0; 0.18+ relist from the last
    // RV first, and 0.16/0.17.1+ list from "0" anyway. A 410 on a list retries at once with
    // RV="" from 0.17.0 on.
    void expiredHandling_data() {
        QTest::addColumn<QString>("client");
        QTest::addColumn<bool>("watch410");
        QTest::addColumn<bool>("list410");
        QTest::newRow("0.16") << "0.16" << false << false;
        QTest::newRow("0.17") << "0.17" << false << false;
        QTest::newRow("0.17.0") << "0.17.0" << true << true;
        QTest::newRow("0.17.1") << "0.17.1" << false << false;
        QTest::newRow("0.18.0") << "0.18.0" << false << true;
        QTest::newRow("current") << "current" << false << true;
    }
    void expiredHandling() {
        QFETCH(QString, client);
        QFETCH(bool, watch410);
        QFETCH(bool, list410);
        const auto p = ClientProfile::fromName(client, nullptr);
        QVERIFY(p);
        QCOMPARE(p->watchExpiredRelistsFromEmpty, watch410);
        const ApiStatus expired =
            ApiStatus::tooOld(*ServerProfile::fromVersion("1.17", nullptr), 100, 200);
        QCOMPARE(p->relistsAtOnceWithEmptyRv(expired, false), list410);
        QVERIFY(!p->relistsAtOnceWithEmptyRv(expired, true)); // once only
        QCOMPARE(p->fixedRelistPeriod, client.startsWith(QLatin1String("0.16")) ||
                                           client.startsWith(QLatin1String("0.17")));
    }

    // The message and cause checks of 0.18.9+ and 0.27+ also need reason Timeout
    // (apierrors.IsTimeout): another Status that mentions the text is not a too-large RV.
    void tooLargeNeedsTimeoutReason() {
        const auto c = ClientProfile::fromName(QStringLiteral("0.27"), nullptr);
        QVERIFY(c);
        ApiStatus s = ApiStatus::tooLarge(*ServerProfile::fromVersion("1.16", nullptr), 100, 50);
        QVERIFY(c->isTooLargeResourceVersion(s));
        s.reason = QStringLiteral("InternalError");
        QVERIFY(!c->isTooLargeResourceVersion(s));
        ApiStatus m = ApiStatus::tooLarge(*ServerProfile::fromVersion("1.17", nullptr), 100, 50);
        const auto c189 = ClientProfile::fromName(QStringLiteral("0.18.9"), nullptr);
        QVERIFY(c189->isTooLargeResourceVersion(m));
        m.reason = QStringLiteral("InternalError");
        QVERIFY(!c189->isTooLargeResourceVersion(m));
    }

    // Version names: any 0.16-0.36 release, with or without "v" and a patch, except 0.18 and
    // 0.19, whose patch releases differ.
    void parsesVersions_data() {
        QTest::addColumn<QString>("client");
        QTest::addColumn<int>("tooLarge"); // ClientProfile::TooLargeRecognition
        using R = ClientProfile::TooLargeRecognition;
        QTest::newRow("0.16.15") << "0.16.15" << int(R::None);
        QTest::newRow("0.17.4") << "0.17.4" << int(R::None);
        QTest::newRow("0.18.1") << "0.18.1" << int(R::None);
        QTest::newRow("0.18.5") << "0.18.5" << int(R::None);
        QTest::newRow("0.18.6") << "0.18.6" << int(R::ReasonOnly);
        QTest::newRow("0.18.8") << "0.18.8" << int(R::ReasonOnly);
        QTest::newRow("0.18.9") << "0.18.9" << int(R::Causes);
        QTest::newRow("0.18.10") << "0.18.10" << int(R::Causes);
        QTest::newRow("0.19.0") << "0.19.0" << int(R::ReasonOnly);
        QTest::newRow("0.19.1") << "0.19.1" << int(R::Causes);
        QTest::newRow("0.19.16") << "0.19.16" << int(R::Causes);
        QTest::newRow("v0.20.15") << "v0.20.15" << int(R::Causes);
        QTest::newRow("0.26 spaced") << " 0.26 " << int(R::Causes);
        QTest::newRow("0.27") << "0.27" << int(R::Full);
        QTest::newRow("0.36.1") << "0.36.1" << int(R::Full);
    }
    void parsesVersions() {
        QFETCH(QString, client);
        QFETCH(int, tooLarge);
        QString error;
        const auto p = ClientProfile::fromName(client, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(int(p->tooLarge), tooLarge);
        QCOMPARE(p->name, client.trimmed());
    }

    void badNames_data() {
        QTest::addColumn<QString>("client");
        QTest::addColumn<QString>("says");
        QTest::newRow("unknown") << "0.99"
                                 << "known: 0.16";
        QTest::newRow("empty") << ""
                               << "known: 0.16";
        QTest::newRow("newer than modelled") << "0.37"
                                             << "known: 0.16";
        QTest::newRow("older than modelled") << "0.15.3"
                                             << "known: 0.16";
        QTest::newRow("a server version") << "1.20"
                                          << "known: 0.16";
        QTest::newRow("not a version") << "0.18.x"
                                       << "known: 0.16";
        QTest::newRow("0.18 without patch") << "0.18"
                                            << "0.18.6-0.18.8";
        QTest::newRow("0.19 without patch") << "v0.19"
                                            << "0.19.0 and 0.19.1+";
    }
    void badNames() {
        QFETCH(QString, client);
        QFETCH(QString, says);
        QString error;
        QVERIFY(!ClientProfile::fromName(client, &error));
        QVERIFY2(error.startsWith(
                     QStringLiteral("unknown client-go profile '%1'").arg(client.trimmed())),
                 qPrintable(error));
        QVERIFY2(error.contains(says), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error)); // one line
        QVERIFY(!ServerProfile::fromVersion(QStringLiteral("2.0"), &error));
        QVERIFY(error.contains(QStringLiteral("bad server version")));
    }

    // What the window's What If offers: each one a version the profiles accept, oldest first,
    // and each patch release listed one where a modelled behaviour changes.
    void knownVersions() {
        const QStringList versions = ServerProfile::knownVersions();
        QCOMPARE(versions.first(), QStringLiteral("1.16"));
        QCOMPARE(versions.last(), QStringLiteral("1.36"));
        std::optional<ServerProfile> previous;
        for (const QString& v : versions) {
            QString error;
            const auto p = ServerProfile::fromVersion(v, &error);
            QVERIFY2(p, qPrintable(error));
            QCOMPARE(versions.count(v), 1);
            if (previous) {
                QVERIFY2(p->minor > previous->minor ||
                             (p->minor == previous->minor && p->patch > previous->patch),
                         qPrintable(v));
                if (p->minor == previous->minor) // a patch release: something else than before
                    QVERIFY2(p->separateCacheWatchRpc != previous->separateCacheWatchRpc ||
                                 p->watchWithoutRvFromEtcd() != previous->watchWithoutRvFromEtcd(),
                             qPrintable(v));
            }
            previous = p;
        }
        for (const QString& name : ClientProfile::knownNames())
            QVERIFY2(ClientProfile::fromName(name, nullptr), qPrintable(name));
    }

    // reference §6: 0.16/0.17 run ListAndWatch under wait.Until with a fixed 1 s period, 0.18+
    // under wait.BackoffUntil (800 ms doubling, jitter 1). Before re-watching after "connection
    // refused", 0.16-0.19 sleep a fixed 1 s, 0.20+ back off the same exponential way. The
    // apiserver is down (it refuses connections) for the whole run.
    void retryTiming_data() {
        QTest::addColumn<QString>("client");
        QTest::addColumn<bool>("rewatch"); // synced before the apiserver went down
        QTest::addColumn<bool>("fixed");
        QTest::newRow("0.16 relists every second") << "0.16" << false << true;
        QTest::newRow("0.17 relists every second") << "0.17" << false << true;
        QTest::newRow("0.18.0 relists with backoff") << "0.18.0" << false << false;
        QTest::newRow("current relists with backoff") << "current" << false << false;
        QTest::newRow("0.17 re-watches every second") << "0.17" << true << true;
        QTest::newRow("0.18.0 re-watches every second") << "0.18.0" << true << true;
        QTest::newRow("0.19.1 re-watches every second") << "0.19.1" << true << true;
        QTest::newRow("0.20 re-watches with backoff") << "0.20" << true << false;
        QTest::newRow("current re-watches with backoff") << "current" << true << false;
    }
    void retryTiming() {
        QFETCH(QString, client);
        QFETCH(bool, rewatch);
        QFETCH(bool, fixed);
        test::SimHarness h(QStringLiteral("1.20"));
        ClientConfig config;
        config.id = QStringLiteral("informer");
        config.resource = h.resource;
        config.profile = *ClientProfile::fromName(client, nullptr);
        ClientReflector r(h.ctx, {h.server.get()}, config);
        const auto step = [&] {
            h.tick();
            r.tick();
        };
        if (rewatch) {
            while (h.ctx.now < seconds(3))
                step();
            QCOMPARE(r.stateName(), QStringLiteral("watching"));
        }
        h.server->restart(seconds(600));
        // When each request failed: a list (relist) or a watch request (re-watch).
        std::vector<TimeUs> failures;
        int errors = h.hub.watcherStatus(r.hubId()).errors;
        const TimeUs end = h.ctx.now + seconds(20);
        while (h.ctx.now < end) {
            step();
            const int now = h.hub.watcherStatus(r.hubId()).errors;
            if (now != errors && (failures.empty() || failures.back() != h.ctx.now))
                failures.push_back(h.ctx.now);
            errors = now;
        }
        QCOMPARE(r.stateName(), rewatch ? QStringLiteral("backoff (rewatch)")
                                        : QStringLiteral("backoff (relist)"));
        QCOMPARE(r.relists(), 0); // a refused watch request is retried as a watch
        QVERIFY(failures.size() >= 4);
        const TimeUs tick = h.ctx.dt;
        for (std::size_t i = 1; i < failures.size(); ++i) {
            const TimeUs gap = failures[i] - failures[i - 1];
            const TimeUs base = milliseconds(800) << (i - 1); // the exponential step
            const QString what = QStringLiteral("gap %1: %2 us").arg(i).arg(gap);
            if (fixed)
                QVERIFY2(gap == seconds(1), qPrintable(what));
            else
                QVERIFY2(gap >= base && gap <= 2 * base + tick, qPrintable(what));
        }
        if (fixed)
            QCOMPARE(failures.size(), std::size_t(20));
        else
            QVERIFY(failures.size() <= 5); // 0, >=0.8, >=2.4, >=5.6, >=12 s
    }
    // reference §2/§9: WatchListClient is on by default from v0.35, and every LIST of
    // ListAndWatch becomes a watch-list, the relist too: sendInitialEvents from the last synced
    // RV (NotOlderThan). A watch 410 after an apiserver restart therefore resyncs from the
    // cache's current state instead of watching the expired RV again.
    void watchListRelistsAfterExpiredWatch_data() {
        QTest::addColumn<QString>("client");
        QTest::addColumn<bool>("watchList");
        QTest::newRow("0.34 lists") << "0.34" << false;
        QTest::newRow("0.35 watch-lists") << "0.35" << true;
        QTest::newRow("current-watchlist watch-lists") << "current-watchlist" << true;
    }
    void watchListRelistsAfterExpiredWatch() {
        QFETCH(QString, client);
        QFETCH(bool, watchList);
        test::SimHarness h(QStringLiteral("1.34"));
        ClientConfig config;
        config.id = QStringLiteral("informer");
        config.resource = h.resource;
        config.profile = *ClientProfile::fromName(client, nullptr);
        QCOMPARE(config.profile.watchList, watchList);
        ClientReflector r(h.ctx, {h.server.get()}, config);
        const auto step = [&] {
            h.tick();
            r.tick();
        };
        while (h.ctx.now < seconds(3))
            step();
        QCOMPARE(r.stateName(), QStringLiteral("watching"));
        QCOMPARE(r.store().size(), std::size_t(10));
        const ResourceVersion before = r.resourceVersion();
        // The apiserver restarts while objects change: its new cache starts above the client's
        // RV, so the client's re-watch gets 410 Expired.
        h.server->restart(seconds(2));
        for (int i = 0; i < 20; ++i) {
            h.write(i);
            step();
        }
        while (h.ctx.now < seconds(40))
            step();
        QVERIFY(h.anomalies.size() >= 1);
        bool expired = false;
        for (const Anomaly& a : h.anomalies)
            expired = expired || kindName(a.kind) == QLatin1String("too-old-rv");
        QVERIFY2(expired, "the re-watch after the restart did not get a 410");
        QCOMPARE(r.stateName(), QStringLiteral("watching"));
        QVERIFY(r.resourceVersion() > before);
        QCOMPARE(r.resourceVersion(), h.etcd.currentRevision());
        QCOMPARE(r.store().size(), std::size_t(10));
    }
};

QTEST_GUILESS_MAIN(TestClientProfile)
#include "tst_clientprofile.moc"

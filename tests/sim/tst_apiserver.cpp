#include "SimHarness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ws;
using namespace ws::test;

class TestApiServer : public QObject {
    Q_OBJECT
private slots:
    // reference §1: a list with RV=N beyond the cache waits 3 s, then 504 in the version's shape.
    void tooLargeAfterThreeSeconds_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("hasCauses");
        QTest::addColumn<QString>("causeReason");
        QTest::newRow("1.16: no causes") << "1.16" << false << "";
        QTest::newRow("1.17: cause with message only") << "1.17" << true << "";
        QTest::newRow("1.18.5: cause with message only") << "1.18.5" << true << "";
        QTest::newRow("1.18.6: ResourceVersionTooLarge")
            << "1.18.6" << true << "ResourceVersionTooLarge";
        QTest::newRow("1.30: ResourceVersionTooLarge")
            << "1.30" << true << "ResourceVersionTooLarge";
    }
    void tooLargeAfterThreeSeconds() {
        QFETCH(QString, version);
        QFETCH(bool, hasCauses);
        QFETCH(QString, causeReason);
        SimHarness h(version);
        h.runFor(milliseconds(100));
        const ResourceVersion requested = h.etcd.currentRevision() + 1000;
        std::optional<ApiServer::ListResult> result;
        TimeUs answeredAt = 0;
        ApiServer::ListOptions options;
        options.resource = h.resource;
        options.rv = requested;
        const TimeUs askedAt = h.ctx.now;
        h.server->list(options, [&](ApiServer::ListResult r) {
            result = std::move(r);
            answeredAt = h.ctx.now;
        });
        h.runFor(seconds(2.9));
        QVERIFY(!result); // still waiting for the cache
        h.runFor(seconds(0.2));
        QVERIFY(result);
        QCOMPARE(answeredAt - askedAt, seconds(3));
        QCOMPARE(result->status.code, 504);
        const QJsonObject body = QJsonDocument::fromJson(result->status.toJson()).object();
        QCOMPARE(body.value("code").toInt(), 504);
        QCOMPARE(body.value("reason").toString(), QStringLiteral("Timeout"));
        QCOMPARE(body.value("message").toString(),
                 QStringLiteral("Timeout: Too large resource version: %1, current: %2")
                     .arg(requested)
                     .arg(h.server->cacher(h.resource)->cache().resourceVersion()));
        const QJsonObject details = body.value("details").toObject();
        QCOMPARE(details.value("retryAfterSeconds").toInt(), 1);
        QCOMPARE(details.contains("causes"), hasCauses);
        if (hasCauses) {
            const QJsonObject cause = details.value("causes").toArray().first().toObject();
            QCOMPARE(cause.value("message").toString(),
                     QStringLiteral("Too large resource version"));
            QCOMPARE(cause.value("reason").toString(), causeReason);
        }
    }

    void listCatchesUpWithinThreeSeconds() {
        SimHarness h("1.30");
        h.runFor(milliseconds(100));
        const ResourceVersion requested = h.etcd.currentRevision() + 5;
        std::optional<ApiServer::ListResult> result;
        ApiServer::ListOptions options;
        options.resource = h.resource;
        options.rv = requested;
        h.server->list(options, [&](ApiServer::ListResult r) { result = std::move(r); });
        h.runFor(seconds(1));
        for (int i = 0; i < 5; ++i)
            h.write(i);
        h.runFor(milliseconds(50));
        QVERIFY(result);
        QVERIFY(result->ok);
        QVERIFY(result->rv >= requested);
    }

    // A watch from an RV that fell out of the ring: HTTP 200, one ERROR event (410) and EOF.
    void watchTooOld_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("reason");
        // NewGone up to 1.16, NewResourceExpired from 1.17.0 (reference §1).
        QTest::newRow("1.16 Gone") << "1.16"
                                   << "Gone";
        QTest::newRow("1.17 Expired") << "1.17"
                                      << "Expired";
        QTest::newRow("1.18 Expired") << "1.18"
                                      << "Expired";
    }
    void watchTooOld() {
        QFETCH(QString, version);
        QFETCH(QString, reason);
        SimHarness h(version);
        h.runFor(milliseconds(100));
        const ResourceVersion before = h.etcd.currentRevision();
        for (int i = 0; i < 300; ++i) { // 300 events 1 s apart: the ring (100) evicts
            h.write(i);
            h.runFor(seconds(1));
        }
        ApiServer::WatchOptions options;
        options.resource = h.resource;
        options.rv = before;
        ApiStatus error;
        auto w = h.server->watch(options, &error);
        QVERIFY(w);
        QCOMPARE(w->buffer.size(), std::size_t(1));
        QCOMPARE(w->buffer.front().type, WatchEventType::Error);
        QVERIFY(w->closed);
        QCOMPARE(w->error->code, 410);
        QCOMPARE(w->error->reason, reason);
        const ResourceVersion oldest = h.server->cacher(h.resource)->cache().oldestRv();
        QCOMPARE(w->error->message,
                 QStringLiteral("too old resource version: %1 (%2)").arg(before).arg(oldest - 1));
    }

    // reference §4: a watcher that does not drain its buffer exhausts the dispatcher's shared
    // budget (100 ms, refilling 50 ms/s) and is closed without an ERROR event; one that reads
    // keeps its watch.
    void dispatchTermination_data() {
        QTest::addColumn<int>("readPerTick"); // events the client reads per 10 ms tick
        QTest::addColumn<bool>("terminated");
        QTest::newRow("never reads") << 0 << true;
        QTest::newRow("reads 1 per tick (100/s) < 300/s") << 1 << true;
        QTest::newRow("reads 5 per tick (500/s) > 300/s") << 5 << false;
    }
    void dispatchTermination() {
        QFETCH(int, readPerTick);
        QFETCH(bool, terminated);
        SimHarness h("1.30");
        h.runFor(milliseconds(100));
        ApiServer::WatchOptions options;
        options.resource = h.resource;
        options.rv = h.etcd.currentRevision();
        ApiStatus error;
        auto w = h.server->watch(options, &error);
        QVERIFY(w);
        for (int i = 0; i < 600; ++i) { // 300 writes/s for 2 s
            for (int k = 0; k < 3; ++k)
                h.write(i * 3 + k);
            h.tick();
            for (int r = 0; r < readPerTick && !w->buffer.empty(); ++r)
                w->buffer.pop_front();
        }
        QCOMPARE(w->closed, terminated);
        if (terminated) {
            QCOMPARE(w->closeReason, WatchCloseReason::ServerClosed);
            QVERIFY(!w->error); // no ERROR event
            QCOMPARE(h.server->cacher(h.resource)->terminatedWatchers(), 1);
        }
    }
};

QTEST_GUILESS_MAIN(TestApiServer)
#include "tst_apiserver.moc"

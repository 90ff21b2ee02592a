// The request tracker's parts: auditIDs as 128 bits (AuditId), their open-addressing table
// (AuditIdTable, against std::unordered_map on the same operations), and the tracker itself on
// UUID and other auditIDs mixed, with the oldest open requests given up past maxOpen.

#include "sources/audit/AuditIdTable.h"
#include "sources/audit/AuditRequestTracker.h"

#include <QRandomGenerator>
#include <QTest>
#include <unordered_map>

using namespace ws;

namespace {

AuditEvent stage(const char* id, AuditStage s, bool watch, TimeUs at) {
    AuditEvent e;
    e.auditId = id;
    e.stage = s;
    e.watch = watch;
    e.requestUri = watch ? "/api/v1/configmaps?resourceVersion=42&timeoutSeconds=300&watch=true"
                         : "/api/v1/configmaps?limit=500&resourceVersion=0";
    e.username = "alice";
    e.userAgent = "kubectl/v1.30.2";
    e.resource = "configmaps";
    e.received = at;
    e.stageTime = at;
    return e;
}

} // namespace

class TstAuditTracker : public QObject {
    Q_OBJECT

private slots:
    void uuids() {
        const auto id = AuditId::fromUuid("0b2d3c4e-8f1a-4b6c-9d2e-7f3a1b5c6d7e");
        QVERIFY(id);
        QCOMPARE(id->hi, 0x0b2d3c4e8f1a4b6cull);
        QCOMPARE(id->lo, 0x9d2e7f3a1b5c6d7eull);
        QVERIFY(!AuditId::fromUuid("0B2D3C4E-8F1A-4B6C-9D2E-7F3A1B5C6D7E")); // another string
        QVERIFY(!AuditId::fromUuid("0b2d3c4e-8f1a-4b6c-9d2e-7f3a1b5c6d7"));
        QVERIFY(!AuditId::fromUuid("0b2d3c4e-8f1a-4b6c-9d2e-7f3a1b5c6d7ee"));
        QVERIFY(!AuditId::fromUuid("0b2d3c4e08f1a-4b6c-9d2e-7f3a1b5c6d7e"));
        QVERIFY(!AuditId::fromUuid("0b2d3c4e-8f1a-4b6c-9d2e-7f3a1b5c6d7g"));
        QVERIFY(!AuditId::fromUuid("a1"));
    }

    // Random inserts, finds and erases over few hash homes (many collisions, long runs,
    // wrap-around): the table answers as std::unordered_map does.
    void tableAsUnorderedMap() {
        QRandomGenerator rng(7);
        AuditIdTable table;
        std::unordered_map<AuditId, std::uint32_t, AuditIdHash> want;
        std::vector<AuditId> ids;
        for (std::uint64_t i = 0; i < 3000; ++i)
            ids.push_back(AuditId{i % 7, i * 0x9e3779b97f4a7c15ull});
        for (int step = 0; step < 200000; ++step) {
            const AuditId& id = ids[rng.bounded(int(ids.size()))];
            const auto it = want.find(id);
            switch (rng.bounded(3)) {
            case 0:
                if (it == want.end()) {
                    table.insert(id, std::uint32_t(step));
                    want.emplace(id, std::uint32_t(step));
                }
                break;
            case 1:
                table.erase(id);
                want.erase(id);
                break;
            default:
                QCOMPARE(table.find(id), it == want.end() ? AuditIdTable::kAbsent : it->second);
            }
            QCOMPARE(table.size(), want.size());
        }
        for (const AuditId& id : ids) {
            const auto it = want.find(id);
            QCOMPARE(table.find(id), it == want.end() ? AuditIdTable::kAbsent : it->second);
        }
    }

    void stagesJoinedGivenUpOldest() {
        QStringList log;
        auto name = [](const AuditRequest& r) {
            return QStringLiteral("%1 %2 rv=%3").arg(r.client(), r.resource()).arg(r.requestedRv);
        };
        AuditRequestTracker tracker(
            {QStringLiteral("apiserver-a")},
            {[&](const AuditRequest& r) { log << QStringLiteral("started ") + name(r); },
             [&](const AuditRequest& r) {
                 log << QStringLiteral("opened at %1 ").arg(r.started) + name(r);
             },
             [&](const AuditRequest& r) {
                 log << QStringLiteral("completed %1 %2 in %3")
                            .arg(r.code)
                            .arg(QString::fromUtf8(r.reason.data(), qsizetype(r.reason.size())))
                            .arg(r.duration());
             }},
            2);
        QString error;
        const char* w1 = "11111111-2222-4333-8444-555555555555";
        const char* w2 = "W2"; // not a UUID: keyed by its string
        const char* w3 = "11111111-2222-4333-8444-555555555556";
        // Two watches open, a third gives up the oldest (w1): its end is then a new request.
        QVERIFY(tracker.add(stage(w1, AuditStage::RequestReceived, true, 10), &error));
        QVERIFY(tracker.add(stage(w1, AuditStage::ResponseStarted, true, 11), &error));
        QVERIFY(tracker.add(stage(w2, AuditStage::ResponseStarted, true, 20), &error));
        QCOMPARE(tracker.open(), std::size_t(2));
        QVERIFY(tracker.add(stage(w3, AuditStage::RequestReceived, true, 30), &error));
        QCOMPARE(tracker.open(), std::size_t(2));
        QCOMPARE(tracker.givenUp(), 1);
        AuditEvent end = stage(w2, AuditStage::ResponseComplete, true, 50);
        end.code = 410;
        end.reason = "Expired";
        QVERIFY(tracker.add(end, &error));
        QVERIFY(tracker.add(stage(w1, AuditStage::Panic, true, 60), &error));
        QCOMPARE(tracker.requests(), 4);
        QCOMPARE(tracker.open(), std::size_t(1)); // w3
        QCOMPARE(tracker.callers(), std::size_t(1));
        const QString who = QStringLiteral("alice (kubectl/v1.30.2) configmaps rv=42");
        QCOMPARE(log, QStringList({
                          QStringLiteral("started ") + who,
                          QStringLiteral("opened at 11 ") + who,
                          QStringLiteral("started ") + who,
                          QStringLiteral("opened at 20 ") + who,
                          QStringLiteral("started ") + who,
                          QStringLiteral("completed 410 Expired in 30"),
                          QStringLiteral("started ") + who, // w1 again, after it was given up
                          QStringLiteral("opened at 60 ") + who,
                          QStringLiteral("completed 500 Panic in 0"),
                      }));
        // A requestURI that is not a resource URL is refused with one line.
        AuditEvent bad = stage("x", AuditStage::ResponseComplete, false, 70);
        bad.requestUri = "/healthz";
        QVERIFY(!tracker.add(bad, &error));
        QCOMPARE(error, QStringLiteral("requestURI /healthz is not a resource URL"));
    }
};

QTEST_GUILESS_MAIN(TstAuditTracker)
#include "tst_audittracker.moc"

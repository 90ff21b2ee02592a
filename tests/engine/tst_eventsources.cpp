// The event journal fed by the sources through a whole session: the simulator (its etcd's
// commits), a replay of a recorded etcd capture (the etcd decoders again), and nothing at all
// for a session made without journal limits (the CLI, serve, What If do not pay for it).
#include "engine/EventJournal.h"
#include "engine/Session.h"
#include "sources/SourceFactory.h"

#include <QFile>
#include <QTest>

using namespace ws;

namespace {

struct Run {
    std::shared_ptr<const EventJournal> journal;
    AnomalyList anomalies;
};

bool run(const SourceSpec& spec, EventJournalLimits limits, Run* out, QString* error) {
    auto session = Session::prepared(SourceFactory::create(spec, error), spec, {}, error, limits);
    if (!session)
        return false;
    out->journal = session->journal();
    if (!session->runHere(
            [&](const EngineUpdate& u) {
                for (const Anomaly& a : u.anomalies)
                    out->anomalies.push_back(a);
            },
            error))
        return false;
    return true;
}

SourceSpec scenario(const QString& name) {
    SourceSpec spec;
    spec.scenario.scenario = name;
    spec.scenario.speed = 0;
    return spec;
}

// Every held entry's previous link names an older event of the same key.
bool linksHold(const EventJournal& j, QString* why) {
    const JournalStats s = j.stats();
    for (qint64 from = s.first; from < s.total; from += 4096)
        for (const JournalEntry& e : j.entries(from, 4096)) {
            if (e.previous < 0)
                continue;
            const JournalEntry p = j.entry(e.previous);
            if (e.previous >= e.index || (p.valid() && p.key != e.key)) {
                *why = QStringLiteral("#%1 (%2) links to #%3 (%4)")
                           .arg(e.index)
                           .arg(e.key)
                           .arg(e.previous)
                           .arg(p.key);
                return false;
            }
        }
    return true;
}

} // namespace

class TestEventSources : public QObject {
    Q_OBJECT
private slots:
    void simulatorRecordsItsEtcdCommits() {
        Run r;
        QString error;
        QVERIFY2(run(scenario(QStringLiteral("cacher-retry-stale-object")),
                     EventJournalLimits::window(), &r, &error),
                 qPrintable(error));
        const EventJournal& j = *r.journal;
        const JournalStats s = j.stats();
        QVERIFY2(s.total > 1000, qPrintable(QString::number(s.total)));
        QCOMPARE(s.droppedEntries(), qint64(0));
        int added = 0, modified = 0, deleted = 0, withPrevious = 0;
        ResourceVersion lastRv = 0;
        bool ascending = true;
        for (const JournalEntry& e : j.entries(0, 5000)) {
            added += e.type == WatchEventType::Added;
            modified += e.type == WatchEventType::Modified;
            deleted += e.type == WatchEventType::Deleted;
            withPrevious += e.previous >= 0;
            ascending = ascending && e.rv > lastRv; // one etcd: every commit a new revision
            lastRv = e.rv;
            QVERIFY(!e.resource.isEmpty());
            QVERIFY(!e.name.isEmpty());
            QCOMPARE(e.content == JournalContent::None, e.type == WatchEventType::Deleted);
        }
        QVERIFY(ascending);
        QVERIFY(added > 0);
        QVERIFY(modified > 0);
        QVERIFY(deleted > 0);
        QVERIFY(withPrevious > 0);
        QString why;
        QVERIFY2(linksHold(j, &why), qPrintable(why));
        // The anomalies the engine raised name events the journal holds (their key at their RV).
        int named = 0, found = 0;
        for (const Anomaly& a : r.anomalies) {
            if (a.key.isEmpty() || a.rv <= 0)
                continue;
            ++named;
            found += !j.find(a.key, a.rv, s.total).empty();
        }
        QVERIFY(named > 0);
        QVERIFY2(found > 0, qPrintable(QStringLiteral("%1 of %2").arg(found).arg(named)));
    }

    void etcdCaptureReplayGoesThroughTheDecoders() {
        const QString fixture = qEnvironmentVariable("WS_SOURCE_DIR") +
                                QStringLiteral("/tests/fixtures/etcd/pods-burst.wscap");
        QVERIFY2(QFile::exists(fixture), "run by ctest, or set WS_SOURCE_DIR");
        SourceSpec spec;
        spec.kind = SourceSpec::Kind::Capture;
        spec.capture = fixture;
        Run r;
        QString error;
        QVERIFY2(run(spec, EventJournalLimits::window(), &r, &error), qPrintable(error));
        const EventJournal& j = *r.journal;
        const JournalStats s = j.stats();
        // 300 pods listed (a range, not events), then 950 writes (10/s for 5 s, 40/s for 20 s,
        // 10/s for 10 s): every PUT and DELETE the watch received.
        QCOMPARE(s.total, qint64(950));
        int pods = 0, deletes = 0, kept = 0;
        for (const JournalEntry& e : j.entries(0, int(s.total))) {
            pods += e.resource == QLatin1String("pods");
            deletes += e.type == WatchEventType::Deleted;
            kept += e.content == JournalContent::Kept;
        }
        QCOMPARE(pods, 950);
        QVERIFY(deletes > 0);
        QCOMPARE(kept, 950 - deletes); // a DELETE carries no object

        QString why;
        QVERIFY2(linksHold(j, &why), qPrintable(why));
    }

    void recordsNothingUnlessAsked() {
        Run r;
        QString error;
        QVERIFY2(run(scenario(QStringLiteral("healthy")), {}, &r, &error), qPrintable(error));
        QVERIFY(!r.journal->enabled());
        QCOMPARE(r.journal->stats().total, qint64(0));
        QCOMPARE(r.journal->stats().keys, qint64(0));
    }
};

QTEST_GUILESS_MAIN(TestEventSources)
#include "tst_eventsources.moc"

// Faults between WatchScope's cluster source and `watchscope-cli serve` (issue 14, "Faults, with
// nothing lost"), each ending in a revision account compared with what serve wrote: serve's
// --state-dir journal holds every revision its store wrote, so every revision of a watched
// resource must be either a watch event the source received or inside a revision-gap it
// reported. The source reaches serve through a StallProxy (the network made to misbehave).
// The scenario writes configmaps (watch cache) and events (no watch cache in any version: the
// apiserver serves their watches from etcd, whose history survives a restart but not a
// compaction).
//   - serve killed (SIGKILL) and started again on the same state dir: a fresh watch cache, whose
//     429s with Retry-After client-go's REST layer retries;
//   - the network stalled for longer than the watch timeout;
//   - a compaction past the watcher while the network is stalled.

#include "detect/RevisionAccount.h"
#include "engine/Session.h"
#include "sources/SourceFactory.h"
#include "support/ServeProcess.h"
#include "support/StallProxy.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <map>

using namespace ws;
using ws::test::ServeProcess;
using ws::test::StallProxy;

namespace {

const QString kConfigMaps = QStringLiteral("informer/configmaps");
const QString kEvents = QStringLiteral("informer/events");

// What serve's store wrote, from its journal: per resource the revisions, and the compactions.
struct Written {
    std::map<QString, std::vector<ResourceVersion>> revisions; // by resource, ascending
    ResourceVersion compacted = 0;
    ResourceVersion head() const {
        ResourceVersion h = 0;
        for (const auto& [resource, revs] : revisions)
            h = std::max(h, revs.empty() ? 0 : revs.back());
        return h;
    }
    ResourceVersion last(const QString& resource) const {
        auto it = revisions.find(resource);
        return it == revisions.end() || it->second.empty() ? 0 : it->second.back();
    }
};

Written readJournal(const QString& dir) {
    Written w;
    QFile f(QDir(dir).filePath(QStringLiteral("store.jsonl")));
    if (!f.open(QIODevice::ReadOnly))
        return w;
    while (!f.atEnd()) {
        const QByteArray line = f.readLine();
        if (!line.endsWith('\n'))
            break; // being written
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        const auto rev = static_cast<ResourceVersion>(o.value(QLatin1String("rev")).toDouble());
        const QString op = o.value(QLatin1String("op")).toString();
        if (op == QLatin1String("compact"))
            w.compacted = rev;
        else
            w.revisions[o.value(QLatin1String("resource")).toString()].push_back(rev);
    }
    return w;
}

} // namespace

class TestServeFaults : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_runs = 0;

    // A scenario with the two resources; the knobs the faults need.
    QString scenario(TimeUs compactionInterval, TimeUs cacheListDuration) {
        const QString path = m_dir.filePath(QStringLiteral("faults-%1.yaml").arg(++m_runs));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(QStringLiteral("name: serve-faults\n"
                               "description: configmaps through the watch cache, events from etcd\n"
                               "explanation: written by tst_servefaults\n"
                               "duration: 10m\n"
                               "seed: 7\n"
                               "etcd:\n"
                               "  version: 3.5.13\n"
                               "  progressNotifyInterval: 1s\n"
                               "  compactionInterval: %1ms\n"
                               "server:\n"
                               "  version: \"1.31\"\n"
                               "resources:\n"
                               "  - name: configmaps\n"
                               "    objects: 30\n"
                               "    writesPerSecond: 25\n"
                               "    valueBytes: 300\n"
                               "    cacherListDuration: %2ms\n"
                               "  - name: events\n"
                               "    objects: 30\n"
                               "    writesPerSecond: 25\n"
                               "    valueBytes: 300\n")
                    .arg(compactionInterval / 1000)
                    .arg(cacheListDuration / 1000)
                    .toUtf8());
        return path;
    }

    struct Rig {
        QString stateDir;
        QString scenario;
        quint16 port = 0;
        ServeProcess serve;
        std::unique_ptr<StallProxy> proxy;
        std::unique_ptr<Session> session;
    };

    bool startServe(Rig& rig, QString* error) {
        QStringList args{QStringLiteral("--scenario"), rig.scenario, QStringLiteral("--state-dir"),
                         rig.stateDir};
        if (rig.port)
            args << QStringLiteral("--listen") << QStringLiteral("127.0.0.1:%1").arg(rig.port);
        if (!rig.serve.start(args, error))
            return false;
        rig.port = rig.serve.port();
        return true;
    }

    // serve, a proxy in front of it, and a session of the cluster source through the proxy,
    // synced on both resources.
    void setUp(Rig& rig, TimeUs compactionInterval, TimeUs cacheListDuration) {
        rig.stateDir = m_dir.filePath(QStringLiteral("state-%1").arg(m_runs + 1));
        rig.scenario = scenario(compactionInterval, cacheListDuration);
        QString error;
        QVERIFY2(startServe(rig, &error), qPrintable(error));
        rig.proxy = std::make_unique<StallProxy>(rig.port);
        QVERIFY2(rig.proxy->start(&error), qPrintable(error));
        SourceSpec spec;
        spec.kind = SourceSpec::Kind::Server;
        spec.servers = {rig.proxy->url()};
        spec.resources = {QStringLiteral("configmaps"), QStringLiteral("events")};
        // Watches ask for 2-4 s: a stall "longer than the watch timeout" fits in a test.
        spec.minWatchTimeout = seconds(2);
        rig.session = Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error);
        QVERIFY2(rig.session, qPrintable(error));
        rig.session->start();
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return account(rig, kConfigMaps).begun() && account(rig, kEvents).begun(); },
                30000),
            "the source did not sync both resources within 30 s");
    }

    static RevisionAccount account(const Rig& rig, const QString& name) {
        for (const SourceRevisionAccount& a : rig.session->source(0)->revisionAccounts())
            if (a.name == name)
                return a.account;
        return {};
    }

    // Waits until the source accounted for everything serve wrote of both resources by now.
    static bool caughtUp(const Rig& rig, int timeoutMs) {
        const Written w = readJournal(rig.stateDir);
        const ResourceVersion cm = w.last(QStringLiteral("configmaps"));
        const ResourceVersion ev = w.last(QStringLiteral("events"));
        return QTest::qWaitFor(
            [&] {
                return account(rig, kConfigMaps).accountedTo() >= cm &&
                       account(rig, kEvents).accountedTo() >= ev;
            },
            timeoutMs);
    }

    static QList<Anomaly> anomalies(const Rig& rig, AnomalyKind kind, const QString& resource) {
        QList<Anomaly> out;
        for (const Anomaly& a : rig.session->anomalies())
            if (a.kind == kind && a.resource == resource)
                out << a;
        return out;
    }

    // Stops the session and compares each account with serve's journal: balanced; every revision
    // of the resource from the account's start to its head a received event or inside a reported
    // gap; as many watch events received as revisions of it in the seen ranges.
    void settle(Rig& rig) {
        rig.session->stop();
        QVector<CacheSnapshot> caches;
        QVector<WatcherSnapshot> watchers;
        rig.session->source(0)->snapshot(caches, watchers);
        // serve journals a revision before it serves it, but it is still writing: a read that
        // meets a line being written stops there, short of what the source has seen.
        Written w;
        (void)QTest::qWaitFor( // what is still missing then, the checks below name
            [&] {
                w = readJournal(rig.stateDir);
                for (const SourceRevisionAccount& a : rig.session->source(0)->revisionAccounts()) {
                    const ResourceVersion last = w.last(a.name.section(u'/', 1));
                    if (last != 0 && last < a.account.head())
                        return false;
                }
                return true;
            },
            10000);
        for (const SourceRevisionAccount& a : rig.session->source(0)->revisionAccounts()) {
            const QString resource = a.name.section(u'/', 1);
            const RevisionAccount& acc = a.account;
            qInfo("%s: %s", qPrintable(a.name), qPrintable(acc.summary()));
            QVERIFY2(acc.balanced(), qPrintable(a.name + u':' + u' ' + acc.summary()));
            RevisionRangeSet lost;
            for (const RevisionRange& g : acc.gaps())
                lost.add(g);
            std::int64_t inSeen = 0;
            const auto revs = w.revisions.find(resource);
            QVERIFY2(revs != w.revisions.end(), qPrintable(resource));
            for (ResourceVersion rev : revs->second) {
                if (rev < acc.start() || rev > acc.head())
                    continue;
                const bool seen = acc.seenRanges().contains(rev);
                QVERIFY2(seen || lost.contains(rev),
                         qPrintable(QStringLiteral("%1: revision %2 written, neither seen nor lost")
                                        .arg(a.name)
                                        .arg(rev)));
                inSeen += seen ? 1 : 0;
            }
            // Revisions serve wrote up to the head, none missing from the journal.
            QVERIFY(w.last(resource) >= acc.head() || w.last(resource) == 0);
            qint64 events = -1;
            for (const WatcherSnapshot& ws : watchers)
                if (ws.id == a.name)
                    events = ws.eventsReceived;
            QCOMPARE(events, inSeen);
        }
    }

private slots:
    void initTestCase() {
        if (qEnvironmentVariableIsEmpty("WS_CLI"))
            QSKIP("WS_CLI is not set (run through ctest)");
        QVERIFY(m_dir.isValid());
    }

    // serve killed and started again on its state dir while the source watches: its watch cache
    // starts empty. The configmaps watch was behind (the network stalled just before the kill,
    // serve kept writing): the fresh cache answers 429 with Retry-After while it initializes (the
    // REST layer retries those), then 410 for the old RV, the source relists and reports the
    // revisions it did not see. The events watch is
    // served from etcd, whose history survived: it resumes with nothing lost.
    void restartWithFreshCache() {
        QElapsedTimer clock;
        clock.start();
        Rig rig;
        setUp(rig, seconds(300), seconds(4));
        if (QTest::currentTestFailed())
            return;
        QVERIFY(caughtUp(rig, 20000));
        rig.proxy->stall();
        const ResourceVersion before = account(rig, kConfigMaps).accountedTo();
        // serve writes on while the source hears nothing: it falls behind by 40 configmaps.
        QVERIFY(QTest::qWaitFor(
            [&] {
                // A copy: the journal read is a temporary.
                const auto revs = readJournal(rig.stateDir).revisions[QStringLiteral("configmaps")];
                return std::count_if(revs.begin(), revs.end(),
                                     [&](ResourceVersion r) { return r > before; }) >= 40;
            },
            10000));
        rig.serve.process()->kill();
        rig.serve.process()->waitForFinished(5000);
        const ResourceVersion written =
            readJournal(rig.stateDir).last(QStringLiteral("configmaps"));
        QString error;
        QVERIFY2(startServe(rig, &error), qPrintable(error));
        rig.proxy->resume();
        QVERIFY2(QTest::qWaitFor([&] { return account(rig, kConfigMaps).accountedTo() > written; },
                                 30000),
                 "the source did not resume on configmaps after the restart");
        QVERIFY(caughtUp(rig, 20000));
        settle(rig);
        if (QTest::currentTestFailed())
            return;

        const RevisionAccount cm = account(rig, kConfigMaps);
        QCOMPARE(cm.gaps().size(), std::size_t(1));
        const RevisionRange gap = cm.gaps().front();
        QVERIFY2(gap.first > before && gap.last >= written,
                 qPrintable(QStringLiteral("gap %1 does not cover %2..%3")
                                .arg(gap.text())
                                .arg(before)
                                .arg(written)));
        const auto gaps = anomalies(rig, AnomalyKind::RevisionGap, QStringLiteral("configmaps"));
        QCOMPARE(gaps.size(), 1);
        qInfo("%s", qPrintable(gaps.front().message));
        // The range as RVs, without a count: RVs count every resource's writes.
        QVERIFY2(gaps.front().message.contains(
                     QStringLiteral("at RVs %1..%2 (if any").arg(gap.first).arg(gap.last)),
                 qPrintable(gaps.front().message));
        QVERIFY2(!gaps.front().message.contains(QStringLiteral("(%1)").arg(gap.count())),
                 qPrintable(gaps.front().message));
        // What the fresh cache answered: its 429s carry Retry-After, so client-go's REST layer
        // sent those requests again and the reflector never saw them (the watcher counts them);
        // the 410 for the old RV is what made it relist.
        // (As "429 TooManyRequests": a port in the message, 127.0.0.1:42909, is no 429.)
        QVERIFY2(!gaps.front().message.contains(QRegularExpression(QStringLiteral("\\b429 \\w"))),
                 qPrintable(gaps.front().message));
        QVERIFY2(gaps.front().message.contains(QLatin1String("410 Expired")),
                 qPrintable(gaps.front().message));
        QVector<CacheSnapshot> caches;
        QVector<WatcherSnapshot> watchers;
        rig.session->source(0)->snapshot(caches, watchers);
        const auto cmWatcher = std::find_if(watchers.begin(), watchers.end(), [](const auto& w) {
            return w.id.startsWith(kConfigMaps);
        });
        QVERIFY(cmWatcher != watchers.end());
        QVERIFY2(cmWatcher->httpRetries > 0, "the 429s were not retried below the reflector");
        QVERIFY(!anomalies(rig, AnomalyKind::TooOldRv, QStringLiteral("configmaps")).isEmpty());
        QVERIFY(account(rig, kEvents).gaps().empty());
        QVERIFY(anomalies(rig, AnomalyKind::RevisionGap, QStringLiteral("events")).isEmpty());
        qInfo("restartWithFreshCache: %lld ms", clock.elapsed());
    }

    // The network stalls (a proxy that forwards nothing and closes nothing) for longer than the
    // watch timeout: the source cuts its silent watches off and tries again, and once the
    // network is back it re-watches from where it was. Both histories are still there (the
    // watch cache's ring, etcd uncompacted): nothing lost, no gap.
    void stallLongerThanWatchTimeout() {
        QElapsedTimer clock;
        clock.start();
        Rig rig;
        setUp(rig, seconds(300), 0);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(caughtUp(rig, 20000));
        rig.proxy->stall();
        // Each reflector's watch (2-4 s, cut off 5 s after) ends in silence, its connection
        // closed, and a new one is sent (held by the stalled proxy, over a new connection or a
        // kept-alive one): the stall outlasted the watch timeout.
        QVERIFY2(QTest::qWaitFor([&] { return rig.proxy->closedWhileStalled() >= 2; }, 20000),
                 "the source did not notice the stalled watches");
        const ResourceVersion written = readJournal(rig.stateDir).last(QStringLiteral("events"));
        rig.proxy->resume();
        QVERIFY2(
            QTest::qWaitFor([&] { return account(rig, kEvents).accountedTo() > written; }, 20000),
            "the source did not resume after the stall");
        QVERIFY(caughtUp(rig, 20000));
        settle(rig);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(account(rig, kConfigMaps).gaps().empty());
        QVERIFY(account(rig, kEvents).gaps().empty());
        for (const QString& r : {QStringLiteral("configmaps"), QStringLiteral("events")}) {
            QVERIFY(anomalies(rig, AnomalyKind::RevisionGap, r).isEmpty());
            QVERIFY(anomalies(rig, AnomalyKind::TooOldRv, r).isEmpty());
        }
        qInfo("stallLongerThanWatchTimeout: %lld ms", clock.elapsed());
    }

    // While the network is stalled, serve's compactor (every 2 s, to the revision of 2 s before)
    // compacts etcd past the events watcher's RV. Once the network is back its watch gets 410
    // Expired from etcd, it relists, and the revisions between its RV and the list's are reported
    // as one revision-gap. The configmaps watch resumes from the watch cache's ring: no gap.
    void compactionPastTheWatcher() {
        QElapsedTimer clock;
        clock.start();
        Rig rig;
        setUp(rig, seconds(2), 0);
        if (QTest::currentTestFailed())
            return;
        QVERIFY(caughtUp(rig, 20000));
        rig.proxy->stall();
        // No watcher can be past what serve had written when the network stalled.
        const ResourceVersion head = readJournal(rig.stateDir).head();
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return rig.proxy->closedWhileStalled() >= 2 &&
                                readJournal(rig.stateDir).compacted > head + 1;
                     },
                     20000),
                 "no compaction past the watcher while stalled");
        const ResourceVersion compacted = readJournal(rig.stateDir).compacted;
        rig.proxy->resume();
        QVERIFY2(QTest::qWaitFor([&] { return !account(rig, kEvents).gaps().empty(); }, 20000),
                 "the source reported no gap after the compaction");
        QVERIFY(caughtUp(rig, 20000));
        settle(rig);
        if (QTest::currentTestFailed())
            return;
        const RevisionAccount ev = account(rig, kEvents);
        QCOMPARE(ev.gaps().size(), std::size_t(1));
        const RevisionRange gap = ev.gaps().front();
        QVERIFY2(gap.first <= head + 1 && gap.last >= compacted,
                 qPrintable(QStringLiteral("gap %1, written to %2 at the stall, compacted to %3")
                                .arg(gap.text())
                                .arg(head)
                                .arg(compacted)));
        const auto gaps = anomalies(rig, AnomalyKind::RevisionGap, QStringLiteral("events"));
        QCOMPARE(gaps.size(), 1);
        qInfo("%s", qPrintable(gaps.front().message));
        // The range as RVs, without a count: RVs count every resource's writes.
        QVERIFY2(gaps.front().message.contains(
                     QStringLiteral("at RVs %1..%2 (if any").arg(gap.first).arg(gap.last)),
                 qPrintable(gaps.front().message));
        QVERIFY2(!gaps.front().message.contains(QStringLiteral("(%1)").arg(gap.count())),
                 qPrintable(gaps.front().message));
        QVERIFY2(gaps.front().message.contains(QLatin1String("410 Expired")),
                 qPrintable(gaps.front().message));
        QVERIFY(!anomalies(rig, AnomalyKind::TooOldRv, QStringLiteral("events")).isEmpty());
        QVERIFY(account(rig, kConfigMaps).gaps().empty());
        QVERIFY(anomalies(rig, AnomalyKind::RevisionGap, QStringLiteral("configmaps")).isEmpty());
        qInfo("compactionPastTheWatcher: %lld ms", clock.elapsed());
    }
};

QTEST_GUILESS_MAIN(TestServeFaults)
#include "tst_servefaults.moc"

// Faults on a real etcd with nothing lost (issue 14): etcd killed and restarted mid-watch, the
// member of three the watch is on killed, the network stalled longer than the keepalive (a
// StallProxy between the source and etcd), and a compaction past the watcher while it is cut
// off. A writer thread keeps writing through each and records the revision of every write it
// made (the ground truth); afterwards the source's revision account must cover etcd's whole
// history since the source started, exactly: every written revision seen, or inside the one
// revision-gap the compaction explains. The anomalies and the watcher's states say what
// happened. Skipped only when /usr/bin/etcd is absent.

#include "EtcdTestCluster.h"
#include "engine/Session.h"
#include "model/AnomalyKind.h"
#include "model/WatcherState.h"
#include "sources/etcd/EtcdClient.h"
#include "sources/etcd/EtcdLoadGenerator.h"
#include "sources/etcd/EtcdSource.h"
#include "sources/etcd/EtcdWatchStream.h"
#include "support/AnomalyLines.h"
#include "support/StallProxy.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>
#include <atomic>
#include <mutex>
#include <thread>

using namespace ws;
using namespace ws::test;

namespace {

AnomalyList ofKind(const AnomalyList& list, AnomalyKind kind) {
    AnomalyList out;
    for (const Anomaly& a : list)
        if (a.kind == kind)
            out << a;
    return out;
}

// Writes ConfigMaps as fast as etcd takes them (every seventh write a delete) on a thread of its
// own, straight to etcd, and keeps the revision of every write that succeeded: what the source
// of truth was sent. A write that fails (etcd down, no leader) is retried with another value; a
// delete of an absent key writes no revision and is not kept.
class Writer {
public:
    explicit Writer(EtcdConnectOptions options) : m_client(std::move(options)) {}
    ~Writer() { stop(); }

    void start() {
        m_stopping = false;
        m_thread = std::thread([this] { run(); });
    }
    void stop() {
        m_stopping = true;
        if (m_thread.joinable())
            m_thread.join();
    }
    qint64 count() const {
        std::lock_guard lock(m_mutex);
        return static_cast<qint64>(m_revisions.size());
    }
    std::vector<ResourceVersion> revisions() const {
        std::lock_guard lock(m_mutex);
        return m_revisions;
    }
    // Waits (the caller's event loop running) until n more writes succeeded.
    bool waitForMore(qint64 n, int timeoutMs) {
        const qint64 target = count() + n;
        QElapsedTimer t;
        t.start();
        while (count() < target && t.elapsed() < timeoutMs)
            QTest::qWait(20);
        return count() >= target;
    }

private:
    void run() {
        QString error;
        while (!m_stopping) {
            ++m_i;
            const std::string name = "obj-" + std::to_string(m_i % 20);
            const std::string key = EtcdLoadGenerator::configMapKey("/registry/", "faults", name);
            ResourceVersion rev = 0;
            if (m_i % 7 == 0) {
                std::int64_t deleted = 0;
                rev = m_client.remove(key, &error, &deleted);
                if (rev > 0 && deleted == 0)
                    continue;
            } else {
                rev = m_client.put(
                    key, EtcdLoadGenerator::configMapValue(name, "faults", "uid", m_i, 200),
                    &error);
            }
            if (rev > 0) {
                std::lock_guard lock(m_mutex);
                m_revisions.push_back(rev);
            } else {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }

    EtcdClient m_client;
    std::thread m_thread;
    std::atomic_bool m_stopping{false};
    std::int64_t m_i = 0;
    mutable std::mutex m_mutex;
    std::vector<ResourceVersion> m_revisions;
};

ResourceVersion headOf(const EtcdConnectOptions& o) {
    EtcdClient c(o);
    QString error;
    for (int i = 0; i < 100; ++i) {
        if (const auto st = c.status(&error))
            return st->revision;
        QThread::msleep(100);
    }
    return 0;
}

// A live etcd session, the watcher states it went through (each change once) and its account.
struct LiveSession {
    std::unique_ptr<Session> session;
    EtcdSource* source = nullptr;
    QStringList states;

    EtcdProcessorStats stats() const { return source->stats(); }
    // For failure messages: where the watch is and what it last said.
    QString where() const {
        const EtcdProcessorStats st = stats();
        return QStringLiteral("state %1 at %2, %3 broken streams, %4 compacted cancels, %5 lists; "
                              "last error: %6; states %7")
            .arg(st.state)
            .arg(st.position)
            .arg(st.brokenStreams)
            .arg(st.compactedCancels)
            .arg(st.lists)
            .arg(st.lastError, states.join(QLatin1Char(',')));
    }
    RevisionAccount account() const { return source->revisionAccounts().value(0).account; }
    // The watcher was live, something else, and live again.
    bool wentDownAndBack() const {
        const qsizetype first = states.indexOf(QStringLiteral("live"));
        return first >= 0 && states.lastIndexOf(QStringLiteral("live")) > first &&
               states.constLast() == QLatin1String("live");
    }
};

std::unique_ptr<LiveSession> startSession(QObject* context, const QStringList& endpoints) {
    EtcdSourceSpec spec;
    spec.endpoints = endpoints;
    auto live = std::make_unique<LiveSession>();
    auto source = std::make_unique<EtcdSource>(spec, std::nullopt);
    live->source = source.get();
    std::vector<std::unique_ptr<Source>> sources;
    sources.push_back(std::move(source));
    live->session = std::make_unique<Session>(std::move(sources), PipelineOptions{});
    LiveSession* l = live.get();
    QObject::connect(live->session.get(), &Session::updated, context, [l](const EngineUpdate& u) {
        for (const WatcherSnapshot& w : u.watchers) {
            if (w.resource != QLatin1String("configmaps"))
                continue;
            const QString s = watcherStateName(w.state);
            if (l->states.isEmpty() || l->states.constLast() != s)
                l->states << s;
        }
    });
    live->session->start();
    return live;
}

// Said when a test fails: where the watch was, whether etcd answers through the proxy and
// directly, and the end of etcd's log.
struct Diagnose {
    const LiveSession* live = nullptr;
    const StallProxy* proxy = nullptr;
    EtcdTestCluster* cluster = nullptr;
    ~Diagnose() {
        if (!QTest::currentTestFailed() || !live)
            return;
        qWarning("watch: %s", qPrintable(live->where()));
        QString viaProxy, direct;
        if (proxy) {
            EtcdClient c(cluster->connectOptions({proxy->url()}));
            if (c.status(&viaProxy))
                viaProxy = QStringLiteral("answers");
            qWarning("proxy: %d open, %lld accepted; etcd through it: %s", proxy->openConnections(),
                     static_cast<long long>(proxy->accepted()), qPrintable(viaProxy));
        }
        EtcdClient c(cluster->connectOptions());
        if (c.status(&direct))
            direct = QStringLiteral("answers");
        qWarning("etcd directly: %s", qPrintable(direct));
        QFile log(cluster->logFile(0));
        if (log.open(QIODevice::ReadOnly))
            qWarning("etcd log, last lines:\n%s", log.readAll().right(4000).constData());
    }
};

// The account against what was written: [start, head] is etcd's whole history since the source
// listed (head = etcd's final revision), seen ∪ lost covers it exactly, every revision the
// writer made in it is there, and what was lost is exactly `lost` (empty: nothing).
void checkAccount(const LiveSession& live, const std::vector<ResourceVersion>& written,
                  ResourceVersion listRevision, ResourceVersion finalHead,
                  const std::vector<RevisionRange>& lost) {
    const RevisionAccount a = live.account();
    const EtcdProcessorStats st = live.stats();
    qInfo("account: %s", qPrintable(a.summary()));
    QCOMPARE(a.start(), listRevision + 1);
    QCOMPARE(a.head(), finalHead);
    QVERIFY2(a.balanced(), qPrintable(a.summary()));
    QCOMPARE(a.gaps(), lost);
    std::int64_t lostCount = 0;
    for (const RevisionRange& r : lost)
        lostCount += r.count();
    QCOMPARE(a.lostCount(), lostCount);
    QCOMPARE(a.seenCount() + a.lostCount(), finalHead - a.start() + 1);
    // The whole keyspace has an event at every revision: what was seen came as events.
    QCOMPARE(a.seenCount(), st.revisions);
    qint64 inRange = 0;
    for (ResourceVersion rev : written) {
        if (rev < a.start())
            continue;
        ++inRange;
        bool isLost = false;
        for (const RevisionRange& r : lost)
            isLost = isLost || (rev >= r.first && rev <= r.last);
        QVERIFY2(isLost != a.seenRanges().contains(rev),
                 qPrintable(QStringLiteral("written revision %1 is %2")
                                .arg(rev)
                                .arg(isLost ? "both lost and seen" : "neither seen nor lost")));
    }
    QVERIFY2(inRange >= 100, qPrintable(QString::number(inRange)));
}

// Every anomaly is a broken stream said as information, and there is at least one.
void checkOnlyBreaks(const AnomalyList& anomalies) {
    const AnomalyList breaks = ofKind(anomalies, AnomalyKind::StreamError);
    QVERIFY2(!breaks.isEmpty(), qPrintable(describe(anomalies)));
    QVERIFY2(breaks.size() == anomalies.size(), qPrintable(describe(anomalies)));
    for (const Anomaly& a : breaks) {
        QCOMPARE(a.severity, Severity::Info);
        QVERIFY2(a.message.startsWith(QLatin1String("watch stream broken after revision ")),
                 qPrintable(a.message));
        QVERIFY2(a.message.contains(QStringLiteral("resuming from revision %1").arg(a.rv + 1)),
                 qPrintable(a.message));
    }
}

constexpr int kWaitMs = 30000;

} // namespace

class TestEtcdFaults : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void killAndRestart();
    void memberOfThreeLost();
    void networkStalled();
    void compactionPastTheWatcher();
    void cliRecordPrintsTheAccount();
};

void TestEtcdFaults::initTestCase() {
    qRegisterMetaType<ws::EngineUpdate>();
    REQUIRE_ETCD(); // the whole executable counts as skipped, not passed
}

// etcd SIGKILLed and started again on the same data while the writer goes on: the watch
// resumes from its last revision + 1 on the restarted member, and etcd kept that history.
void TestEtcdFaults::killAndRestart() {
    REQUIRE_ETCD();
    EtcdTestCluster cluster(1);
    START_CLUSTER(cluster);
    auto live = startSession(this, cluster.clientUrls());
    const Diagnose diagnose{live.get(), nullptr, &cluster};
    QTRY_VERIFY_WITH_TIMEOUT(live->stats().state == QLatin1String("watching"), kWaitMs);
    const ResourceVersion listRevision = live->stats().listRevision;
    Writer writer(cluster.connectOptions());
    writer.start();
    QVERIFY(writer.waitForMore(200, kWaitMs));

    cluster.kill(0);
    QTRY_VERIFY_WITH_TIMEOUT(live->stats().brokenStreams >= 1, kWaitMs);
    QString error;
    QVERIFY2(cluster.start(0, &error), qPrintable(error));
    QVERIFY2(cluster.waitReady(kWaitMs, &error), qPrintable(error));
    QVERIFY(writer.waitForMore(200, kWaitMs));
    writer.stop();
    const ResourceVersion head = headOf(cluster.connectOptions());
    QTRY_VERIFY_WITH_TIMEOUT(live->account().head() >= head && live->account().balanced(), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(live->wentDownAndBack(), kWaitMs);
    live->session->stop();

    checkAccount(*live, writer.revisions(), listRevision, head, {});
    QCOMPARE(live->stats().lists, 1); // resumed, not relisted
    checkOnlyBreaks(live->session->anomalies());
}

// Three members; the one the watch is connected to is killed: the watch fails over to another
// member and resumes there, the writer's leader moves on, nothing is lost.
void TestEtcdFaults::memberOfThreeLost() {
    REQUIRE_ETCD();
    EtcdTestCluster cluster(3);
    START_CLUSTER(cluster);
    auto live = startSession(this, cluster.clientUrls());
    const Diagnose diagnose{live.get(), nullptr, &cluster};
    QTRY_VERIFY_WITH_TIMEOUT(live->stats().state == QLatin1String("watching"), kWaitMs);
    const ResourceVersion listRevision = live->stats().listRevision;
    Writer writer(cluster.connectOptions());
    writer.start();
    QVERIFY(writer.waitForMore(200, kWaitMs));

    const QString endpoint = live->stats().endpoint;
    const int victim = int(cluster.clientUrls().indexOf(endpoint));
    QVERIFY2(victim >= 0, qPrintable(endpoint));
    cluster.kill(victim);
    QTRY_VERIFY_WITH_TIMEOUT(live->stats().brokenStreams >= 1, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(live->stats().state == QLatin1String("watching") &&
                                 live->stats().endpoint != endpoint,
                             kWaitMs);
    QVERIFY(writer.waitForMore(200, kWaitMs));
    writer.stop();
    QStringList rest = cluster.clientUrls();
    rest.removeAt(victim);
    const ResourceVersion head = headOf(cluster.connectOptions(rest));
    QTRY_VERIFY_WITH_TIMEOUT(live->account().head() >= head && live->account().balanced(), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(live->wentDownAndBack(), kWaitMs);
    live->session->stop();

    checkAccount(*live, writer.revisions(), listRevision, head, {});
    QCOMPARE(live->stats().lists, 1);
    checkOnlyBreaks(live->session->anomalies());
}

// The network between the source and etcd stops forwarding, connections open, for longer than
// the keepalive: the source notices by itself (no FIN, no RST arrives), and once the network
// is back it resumes where it was, the writes of the stall included.
void TestEtcdFaults::networkStalled() {
    REQUIRE_ETCD();
    EtcdTestCluster cluster(1);
    START_CLUSTER(cluster);
    StallProxy proxy(cluster.member(0).clientPort);
    QString error;
    QVERIFY2(proxy.start(&error), qPrintable(error));
    auto live = startSession(this, {proxy.url()});
    const Diagnose diagnose{live.get(), &proxy, &cluster};
    QTRY_VERIFY_WITH_TIMEOUT(live->stats().state == QLatin1String("watching"), kWaitMs);
    const ResourceVersion listRevision = live->stats().listRevision;
    Writer writer(cluster.connectOptions());
    writer.start();
    QVERIFY(writer.waitForMore(100, kWaitMs));

    proxy.stall();
    QElapsedTimer stalled;
    stalled.start();
    QTRY_VERIFY_WITH_TIMEOUT(live->stats().brokenStreams >= 1, kWaitMs);
    qInfo("stall noticed after %lld ms: %s", stalled.elapsed(),
          qPrintable(live->stats().lastError));
    proxy.resume();
    QVERIFY(writer.waitForMore(100, kWaitMs));
    writer.stop();
    const ResourceVersion head = headOf(cluster.connectOptions());
    QTRY_VERIFY_WITH_TIMEOUT(live->account().head() >= head && live->account().balanced(), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(live->wentDownAndBack(), kWaitMs);
    live->session->stop();

    checkAccount(*live, writer.revisions(), listRevision, head, {});
    QCOMPARE(live->stats().lists, 1);
    checkOnlyBreaks(live->session->anomalies());
}

// Cut off (stalled, noticed), the watcher falls behind a compaction: when the network is back
// its resume is canceled as compacted, it relists and watches on. Exactly the revisions between
// its last one and the relist are reported lost, as one revision-gap, and nothing else.
void TestEtcdFaults::compactionPastTheWatcher() {
    REQUIRE_ETCD();
    EtcdTestCluster cluster(1);
    START_CLUSTER(cluster);
    StallProxy proxy(cluster.member(0).clientPort);
    QString error;
    QVERIFY2(proxy.start(&error), qPrintable(error));
    auto live = startSession(this, {proxy.url()});
    const Diagnose diagnose{live.get(), &proxy, &cluster};
    QTRY_VERIFY_WITH_TIMEOUT(live->stats().state == QLatin1String("watching"), kWaitMs);
    const ResourceVersion listRevision = live->stats().listRevision;
    Writer writer(cluster.connectOptions());
    writer.start();
    QVERIFY(writer.waitForMore(100, kWaitMs));

    proxy.stall();
    QTRY_VERIFY_WITH_TIMEOUT(live->stats().brokenStreams >= 1, kWaitMs);
    QVERIFY(writer.waitForMore(100, kWaitMs));
    writer.stop();
    const ResourceVersion seenLast = live->account().accountedTo();
    const ResourceVersion compactAt = headOf(cluster.connectOptions());
    QVERIFY(compactAt > seenLast + 1);
    EtcdClient admin(cluster.connectOptions());
    QVERIFY2(admin.compact(compactAt, true, &error), qPrintable(error));
    proxy.resume();
    QTRY_VERIFY_WITH_TIMEOUT(live->stats().compactedCancels == 1, kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(
        live->stats().lists == 2 && live->stats().state == QLatin1String("watching"), kWaitMs);
    // Nothing was written between the compaction and the relist: the relist is at compactAt.
    QCOMPARE(live->stats().listRevision, compactAt);
    writer.start();
    QVERIFY(writer.waitForMore(100, kWaitMs));
    writer.stop();
    const ResourceVersion head = headOf(cluster.connectOptions());
    QTRY_VERIFY_WITH_TIMEOUT(live->account().head() >= head && live->account().balanced(), kWaitMs);
    QTRY_VERIFY_WITH_TIMEOUT(live->wentDownAndBack(), kWaitMs);
    live->session->stop();

    const RevisionRange gap{seenLast + 1, compactAt};
    checkAccount(*live, writer.revisions(), listRevision, head, {gap});
    const AnomalyList anomalies = live->session->anomalies();
    const AnomalyList gaps = ofKind(anomalies, AnomalyKind::RevisionGap);
    QVERIFY2(gaps.size() == 1, qPrintable(describe(anomalies)));
    QVERIFY2(gaps.first().message.startsWith(gap.text() + QStringLiteral(" lost: ")),
             qPrintable(gaps.first().message));
    QVERIFY2(gaps.first().message.contains(QStringLiteral("compact revision %1").arg(compactAt)),
             qPrintable(gaps.first().message));
    QCOMPARE(gaps.first().rv, compactAt);
    QCOMPARE(ofKind(anomalies, AnomalyKind::TooOldRv).size(), 1);
    QVERIFY2(anomalies.size() - 2 == ofKind(anomalies, AnomalyKind::StreamError).size(),
             qPrintable(describe(anomalies)));
}

// `watchscope-cli record --etcd` ends with the account, written on while it records: every
// revision since its list seen, or still in flight when the duration ran out; none lost.
void TestEtcdFaults::cliRecordPrintsTheAccount() {
    REQUIRE_ETCD();
    const QString cli = qEnvironmentVariable("WS_CLI");
    if (cli.isEmpty())
        QSKIP("WS_CLI is not set (ctest sets it)");
    EtcdTestCluster cluster(1);
    START_CLUSTER(cluster);
    Writer writer(cluster.connectOptions());
    writer.start();
    QProcess record;
    record.start(cli, {QStringLiteral("record"), QStringLiteral("--etcd"), cluster.clientUrl(0),
                       QStringLiteral("--duration"), QStringLiteral("3s")});
    QVERIFY(record.waitForFinished(kWaitMs));
    writer.stop();
    const QString out = QString::fromUtf8(record.readAllStandardOutput());
    const QString err = QString::fromUtf8(record.readAllStandardError());
    QVERIFY2(record.exitCode() == 0, qPrintable(err));
    static const QRegularExpression line(
        QStringLiteral("^revision account of the etcd watch: revisions (\\d+)\\.\\.(\\d+) "
                       "\\((\\d+)\\): (\\d+) seen(, (\\d+) not received yet \\(.*\\)|, balanced)$"),
        QRegularExpression::MultilineOption);
    qInfo("%s", qPrintable(out.trimmed()));
    const auto m = line.match(out);
    QVERIFY2(m.hasMatch(), qPrintable(out));
    const qint64 total = m.captured(3).toLongLong();
    QCOMPARE(total, m.captured(2).toLongLong() - m.captured(1).toLongLong() + 1);
    QCOMPARE(m.captured(4).toLongLong() + m.captured(6).toLongLong(), total);
    QVERIFY2(m.captured(4).toLongLong() > 0, qPrintable(out));
}

QTEST_GUILESS_MAIN(TestEtcdFaults)
#include "tst_etcdfaults.moc"

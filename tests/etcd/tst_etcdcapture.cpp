// The capture seam of the etcd source: a FrameTap on the pipeline sees the connection and
// every frame a live session received (list pages and watch responses as raw bytes), and the
// same frames fed again, in order, through a fresh decoder give the same statistics and the
// same anomalies: what a capture replay will do.
#include "EtcdTestCluster.h"
#include "capture/CaptureReader.h"
#include "engine/Session.h"
#include "model/AnomalyKind.h"
#include "sources/SourceFactory.h"
#include "sources/etcd/EtcdFrameDecoder.h"
#include "sources/etcd/EtcdFrameKind.h"
#include "sources/etcd/EtcdLoadGenerator.h"
#include "sources/etcd/EtcdSource.h"

#include <QFile>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace ws;
using namespace ws::test;

namespace {

class RecordingTap : public FrameTap {
public:
    void connectionOpened(const ConnectionInfo& c) override { connections.push_back(c); }
    void frameReceived(const Frame& f) override { frames.push_back(f); }
    std::vector<ConnectionInfo> connections;
    std::vector<Frame> frames;
};

QStringList describe(const AnomalyList& list) {
    QStringList out;
    for (const Anomaly& a : list)
        out << QStringLiteral("%1 %2 %3 %4").arg(kindName(a.kind), a.key).arg(a.rv).arg(a.message);
    return out;
}

} // namespace

class TestEtcdCapture : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        // Skipped here, the whole executable counts as skipped (not passed) in the closing line.
        if (etcdBinary().isEmpty())
            QSKIP("etcd binary not found (/usr/bin/etcd from Debian's etcd-server)");
    }

    void framesReplayToTheSameResult() {
        EtcdTestCluster cluster(1);
        QString error;
        QVERIFY2(cluster.startAll(&error), qPrintable(error));
        QVERIFY2(cluster.waitReady(90000, &error), qPrintable(error));
        EtcdClient client(cluster.connectOptions());
        auto put = [&](const std::string& name, int gen) {
            return client.put("/registry/configmaps/ns/" + name,
                              EtcdLoadGenerator::configMapValue(name, "ns", "u-" + name, gen, 300),
                              &error);
        };
        // Objects before the session (they come in the list) ...
        for (int i = 0; i < 30; ++i)
            QVERIFY(put("before" + std::to_string(i), 1) > 0);

        EtcdSourceSpec spec;
        spec.endpoints = cluster.connectOptions().endpoints;
        auto source = std::make_unique<EtcdSource>(spec, std::nullopt);
        EtcdSource* etcd = source.get();
        std::vector<std::unique_ptr<Source>> sources;
        sources.push_back(std::move(source));
        // The live session writes a capture and its own exports ...
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        PipelineOptions options;
        options.outputs.capturePath = dir.filePath(QStringLiteral("live.wscap"));
        options.outputs.anomaliesPath = dir.filePath(QStringLiteral("live.jsonl"));
        options.outputs.timelinePath = dir.filePath(QStringLiteral("live.csv"));
        Session session(std::move(sources), options);
        RecordingTap tap;
        session.pipeline().addTap(&tap);
        session.start();
        QTRY_VERIFY_WITH_TIMEOUT(etcd->stats().state == QLatin1String("watching"), 20000);
        // ... and changes during it (they come on the watch), a compaction included.
        ResourceVersion last = 0;
        for (int i = 0; i < 30; ++i)
            last = put("before" + std::to_string(i), 2);
        QVERIFY(client.remove("/registry/configmaps/ns/before0", &error) > 0);
        QTRY_VERIFY_WITH_TIMEOUT(etcd->stats().lastRevision >= last + 1, 20000);
        // The stream breaks and etcd compacts past where it resumes: a compacted cancel (an
        // anomaly the replay must find too), a relist, and the watch again.
        etcd->stream()->setHold(true);
        etcd->stream()->interrupt();
        QTRY_VERIFY_WITH_TIMEOUT(etcd->stats().brokenStreams >= 1, 10000);
        for (int i = 1; i < 10; ++i)
            last = put("before" + std::to_string(i), 3);
        QVERIFY2(client.compact(last, false, &error), qPrintable(error));
        etcd->stream()->setHold(false);
        QTRY_VERIFY_WITH_TIMEOUT(etcd->stats().compactedCancels == 1, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(
            etcd->stats().lists == 2 && etcd->stats().state == QLatin1String("watching"), 20000);
        last = put("after", 1);
        QTRY_VERIFY_WITH_TIMEOUT(etcd->stats().lastRevision >= last, 20000);
        session.stop();
        const EtcdProcessorStats live = etcd->stats();
        const AnomalyList liveAnomalies = session.anomalies();
        QCOMPARE(live.compactRevision, last - 1); // the revision the test compacted to
        // The break (information), the compacted cancel, and the revisions the relist replaced.
        QCOMPARE(liveAnomalies.size(), 3);
        QStringList liveKinds;
        for (const Anomaly& a : liveAnomalies)
            liveKinds << kindName(a.kind);
        liveKinds.sort();
        QCOMPARE(liveKinds, (QStringList{"revision-gap", "stream-error", "too-old-rv"}));

        // The tap saw one connection, with the etcd version and never credentials, and every
        // kind of frame.
        QCOMPARE(int(tap.connections.size()), 1);
        QCOMPARE(tap.connections.front().endpoint, spec.endpoints.join(QLatin1Char(',')));
        QVERIFY2(tap.connections.front().versions.startsWith(QLatin1String("etcd 3.")),
                 qPrintable(tap.connections.front().versions));
        QSet<int> kinds;
        for (const Frame& f : tap.frames)
            kinds.insert(f.kind);
        for (EtcdFrameKind k :
             {EtcdFrameKind::WatchResponse, EtcdFrameKind::RangeResponse,
              EtcdFrameKind::WatchCreateSent, EtcdFrameKind::ListStarted,
              EtcdFrameKind::ListCompleted, EtcdFrameKind::WatchBroken, EtcdFrameKind::Status})
            QVERIFY2(kinds.contains(int(k)), qPrintable(QString::number(int(k))));
        QCOMPARE(session.pipeline().framesReceived(), qint64(tap.frames.size()));
        TimeUs previous = 0;
        for (const Frame& f : tap.frames) {
            QVERIFY(f.received >= previous); // in arrival order
            previous = f.received;
        }

        // Replayed through a fresh pipeline and decoder: the same result.
        Pipeline replay;
        TimeUs t = 0;
        EtcdEventProcessor processor(EtcdSource::processorOptions(spec), replay, [&] { return t; });
        EtcdFrameDecoder decoder(processor);
        for (const Frame& f : tap.frames) {
            t = f.received;
            QVERIFY2(decoder.decode(f, &error), qPrintable(error));
        }
        const EtcdProcessorStats again = processor.stats();
        QCOMPARE(again.events, live.events);
        QCOMPARE(again.revisions, live.revisions);
        QCOMPARE(again.responses, live.responses);
        QCOMPARE(again.lists, live.lists);
        QCOMPARE(again.listRevision, live.listRevision);
        QCOMPARE(again.lastRevision, live.lastRevision);
        QCOMPARE(again.position, live.position);
        QCOMPARE(again.protobufValues, live.protobufValues);
        QCOMPARE(again.progressNotifications, live.progressNotifications);
        QCOMPARE(again.compactedCancels, live.compactedCancels);
        QCOMPARE(again.compactRevision, live.compactRevision);
        QCOMPARE(again.brokenStreams, live.brokenStreams);
        QCOMPARE(again.revisionsByList, live.revisionsByList);
        QCOMPARE(processor.resources(), QStringList{QStringLiteral("configmaps")});
        QCOMPARE(describe(replay.anomalies()), describe(liveAnomalies));
        // The revision account too: kept from the frames, the replay's is the live one.
        const RevisionAccount liveAccount = etcd->revisionAccounts().value(0).account;
        QVERIFY2(liveAccount.balanced(), qPrintable(liveAccount.summary()));
        QCOMPARE(liveAccount.gaps().size(), std::size_t(1));
        QCOMPARE(processor.revisionAccount().summary(), liveAccount.summary());
        QVERIFY(live.events >= 31);
        QVERIFY(live.bytes > 0);

        // A frame that is not what its kind says is refused with a reason, not a crash.
        Frame broken;
        broken.kind = std::uint16_t(EtcdFrameKind::WatchResponse);
        broken.bytes = QByteArray("\x0a\xff\xff\xff", 4);
        QVERIFY(!decoder.decode(broken, &error));
        QVERIFY2(error.contains(QLatin1String("malformed")), qPrintable(error));
        broken.kind = 999;
        QVERIFY(!decoder.decode(broken, &error));

        // ... and the capture, exported as `watchscope-cli export` does, writes them again:
        // byte for byte the same anomalies (wall-clock times included) and timeline.
        SourceSpec exported;
        exported.kind = SourceSpec::Kind::Capture;
        exported.capture = options.outputs.capturePath;
        SessionOutputs again2;
        again2.anomaliesPath = dir.filePath(QStringLiteral("export.jsonl"));
        again2.timelinePath = dir.filePath(QStringLiteral("export.csv"));
        auto replaySession =
            Session::prepared(SourceFactory::create(exported, &error), exported, again2, &error);
        QVERIFY2(replaySession, qPrintable(error));
        QVERIFY2(replaySession->runHere({}, &error), qPrintable(error));
        QVERIFY(replaySession->source(0)->warning().isEmpty());
        auto read = [](const QString& path) {
            QFile f(path);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("unreadable");
        };
        const QByteArray liveJsonl = read(options.outputs.anomaliesPath);
        QVERIFY(liveJsonl.contains("\"kind\":\"too-old-rv\""));
        QCOMPARE(read(again2.anomaliesPath), liveJsonl);
        const QByteArray liveCsv = read(options.outputs.timelinePath);
        QVERIFY(liveCsv.count('\n') > 20);
        QCOMPARE(read(again2.timelinePath), liveCsv);
        QCOMPARE(describe(replaySession->anomalies()), describe(liveAnomalies));
    }
    // Secrets' values never reach a capture (or the decoders) unless --keep-secrets: a Secret
    // listed and one changed on the watch both arrive as digests; kept, they arrive as written.
    void secretsAreRedacted_data() {
        QTest::addColumn<bool>("keep");
        QTest::newRow("redacted (default)") << false;
        QTest::newRow("--keep-secrets") << true;
    }
    void secretsAreRedacted() {
        QFETCH(bool, keep);
        EtcdTestCluster cluster(1);
        QString error;
        QVERIFY2(cluster.startAll(&error), qPrintable(error));
        QVERIFY2(cluster.waitReady(90000, &error), qPrintable(error));
        EtcdClient client(cluster.connectOptions());
        auto secret = [](const char* password) {
            return std::string("{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"metadata\":{"
                               "\"name\":\"db\",\"namespace\":\"ns\",\"uid\":\"u-db\"},"
                               "\"data\":{\"password\":\"") +
                   password + "\"}}";
        };
        const std::string key = "/registry/secrets/ns/db";
        QVERIFY(client.put(key, secret("aHVudGVyMg=="), &error) > 0); // listed

        EtcdSourceSpec spec;
        spec.endpoints = cluster.connectOptions().endpoints;
        spec.keepSecrets = keep;
        auto source = std::make_unique<EtcdSource>(spec, std::nullopt);
        EtcdSource* etcd = source.get();
        std::vector<std::unique_ptr<Source>> sources;
        sources.push_back(std::move(source));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        PipelineOptions options;
        options.outputs.capturePath = dir.filePath(QStringLiteral("secrets.wscap"));
        Session session(std::move(sources), options);
        session.start();
        QTRY_VERIFY_WITH_TIMEOUT(etcd->stats().state == QLatin1String("watching"), 20000);
        const ResourceVersion last = client.put(key, secret("c2VjcmV0Mg=="), &error); // watched
        QVERIFY(last > 0);
        QTRY_VERIFY_WITH_TIMEOUT(etcd->stats().lastRevision >= last, 20000);
        session.stop();
        // Still a Secret the decoder understands: nothing undecodable, nothing contradicts its key.
        QVERIFY2(session.anomalies().isEmpty(),
                 qPrintable(describe(session.anomalies()).join(QStringLiteral("; "))));

        CaptureReader reader;
        QVERIFY2(reader.open(options.outputs.capturePath, &error), qPrintable(error));
        QCOMPARE(reader.header().secretsRedacted, !keep);
        QByteArray frames;
        CaptureRecord record;
        while (reader.next(&record))
            if (record.type == CaptureRecord::Type::Frame)
                frames += record.frame.bytes;
        QVERIFY2(reader.complete(), qPrintable(reader.warning()));
        QVERIFY(frames.contains("/registry/secrets/ns/db"));
        QCOMPARE(frames.contains("aHVudGVyMg=="), keep);
        QCOMPARE(frames.contains("c2VjcmV0Mg=="), keep);
        // The list, the watched change and its prev_kv (the listed value again).
        QCOMPARE(frames.count("redacted:"), keep ? 0 : 3);
    }
};

QTEST_GUILESS_MAIN(TestEtcdCapture)
#include "tst_etcdcapture.moc"

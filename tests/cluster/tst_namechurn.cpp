// A session watching `watchscope-cli serve` while its objects are deleted and recreated under
// new names, thousands a second: the session forgets the deleted names (their KeyIds are
// reused) once no journal row shows them, every row still reads as the object it recorded, and
// the reuse raises nothing.
#include "engine/EventJournal.h"
#include "engine/Session.h"
#include "sources/SourceFactory.h"
#include "support/ServeProcess.h"

#include <QFile>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace ws;
using ws::test::ServeProcess;

class TestNameChurn : public QObject {
    Q_OBJECT
private slots:
    void deletedNamesAreForgotten() {
        QTemporaryDir dir;
        const QString scenario = dir.filePath(QStringLiteral("churn.yaml"));
        {
            QFile f(scenario);
            QVERIFY(f.open(QIODevice::WriteOnly));
            // 100 objects; 30 % of the writes delete one, 30 % create one (half of them under a
            // new name): ~750 new names a second.
            f.write("name: churn\ndescription: names churn\nduration: 10m\nseed: 3\n"
                    "explanation: objects deleted and created under new names\n"
                    "server:\n  version: \"1.30\"\n"
                    "resources:\n  - name: configmaps\n    objects: 100\n"
                    "    writesPerSecond: 5000\n    valueBytes: 200\n    deleteShare: 0.3\n");
        }
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), scenario}, &error), qPrintable(error));

        SourceSpec spec;
        spec.kind = SourceSpec::Kind::Server;
        spec.servers = {serve.url()};
        spec.duration = seconds(8);
        // JSON, so that each row shows its name as text (client-go 0.32+ would ask for protobuf).
        spec.protobufWire = false;
        constexpr qint64 kCap = 1000;
        auto session = Session::prepared(SourceFactory::create(spec, &error), spec, {}, &error,
                                         EventJournalLimits{kCap, 16 << 20});
        QVERIFY2(session, qPrintable(error));
        const std::shared_ptr<const EventJournal> journal = session->journal();

        // Read as the session goes: the names of every event, the highest KeyId the journal
        // was given, whether each row reads as the object it holds.
        QSet<QString> names;
        KeyId highest = 0;
        qint64 scanned = 0, checked = 0, mismatched = 0;
        QString firstMismatch;
        AnomalyList anomalies;
        std::vector<JournalRecord> records;
        const auto scan = [&] {
            const JournalStats s = journal->stats();
            const qint64 from = std::max<qint64>(scanned, s.first);
            for (const JournalEntry& listed : journal->entries(from, int(s.total - from))) {
                names.insert(listed.key);
                if (listed.content != JournalContent::Kept)
                    continue;
                const JournalEntry e = journal->entry(listed.index);
                checked += e.valid();
                const QByteArray wanted = "\"name\":\"" + e.name.toUtf8() + '"';
                if (e.valid() && !e.object.contains(wanted) && mismatched++ == 0)
                    firstMismatch =
                        e.name + QStringLiteral(" holds ") + QString::fromUtf8(e.object);
            }
            journal->copyRecords(from, qint64(s.total), &records);
            for (const JournalRecord& r : records)
                highest = std::max(highest, r.key);
            scanned = s.total;
        };
        QVERIFY2(session->runHere(
                     [&](const EngineUpdate& u) {
                         for (const Anomaly& a : u.anomalies)
                             anomalies.push_back(a);
                         scan();
                     },
                     &error),
                 qPrintable(error));
        scan();

        const JournalStats s = journal->stats();
        qInfo("%lld events, %lld names, highest KeyId %u, %lld keys described at the end",
              qint64(s.total), qint64(names.size()), highest, qint64(s.keys));
        QVERIFY2(s.total > 5000, qPrintable(QString::number(s.total)));
        // Without forgetting, every name would keep its id: thousands.
        QVERIFY2(names.size() > 3 * (kCap + 200), qPrintable(QString::number(names.size())));
        // Alive (100) plus those the held rows name (at most kCap), plus a few on their way.
        QVERIFY2(highest < kCap + 200, qPrintable(QString::number(highest)));
        QVERIFY2(s.keys <= kCap + 200, qPrintable(QString::number(s.keys)));
        QVERIFY2(
            mismatched == 0,
            qPrintable(QStringLiteral("%1 rows, first: %2").arg(mismatched).arg(firstMismatch)));
        for (const Anomaly& a : anomalies)
            QVERIFY2(a.kind != AnomalyKind::DuplicateEvent && a.kind != AnomalyKind::StreamError &&
                         a.kind != AnomalyKind::StaleObject,
                     qPrintable(a.message));
    }
};

QTEST_GUILESS_MAIN(TestNameChurn)
#include "tst_namechurn.moc"

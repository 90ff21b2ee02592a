// The events table's display filter: each criterion alone and together (types, resource,
// namespace, name regex, RV range with inclusive bounds, anomaly-only by key and RV), a bad
// filter matching nothing, and the matcher's per-key verdicts over a journal agreeing with
// the plain per-entry semantics.
#include "engine/EventFilter.h"
#include "engine/EventJournal.h"
#include "engine/EventMatcher.h"

#include <QTest>

using namespace ws;

namespace {

struct Ev {
    WatchEventType type;
    const char* resource;
    const char* ns;
    const char* name;
    ResourceVersion rv;
};

// Journal indices 0..7.
const Ev kEvents[] = {
    {WatchEventType::Added, "pods", "default", "web-0", 100},
    {WatchEventType::Modified, "pods", "default", "web-0", 105},
    {WatchEventType::Added, "pods", "kube-system", "coredns-1", 110},
    {WatchEventType::Deleted, "pods", "default", "web-0", 120},
    {WatchEventType::Added, "configmaps", "default", "web-config", 130},
    {WatchEventType::Modified, "configmaps", "default", "web-config", 140},
    {WatchEventType::Deleted, "configmaps", "default", "web-12", 150},
    {WatchEventType::Added, "nodes", "", "node-1", 160},
};

QString keyOf(const Ev& e) {
    return QStringLiteral("/registry/%1/%2%3")
        .arg(QLatin1String(e.resource), *e.ns ? QLatin1String(e.ns) + QLatin1Char('/') : QString(),
             QLatin1String(e.name));
}

// The journal of kEvents, one key per distinct resource/namespace/name.
std::unique_ptr<EventJournal> journalOfEvents() {
    auto j = std::make_unique<EventJournal>(EventJournalLimits::window());
    QHash<QString, KeyId> ids;
    for (const Ev& e : kEvents) {
        const QString key = keyOf(e);
        if (!ids.contains(key)) {
            const auto id = KeyId(ids.size());
            ids.insert(key, id);
            j->describeKey(id, key.toStdString(), QLatin1String(e.resource), QLatin1String(e.ns),
                           QLatin1String(e.name));
        }
        EventJournal::Event je;
        je.type = e.type;
        je.key = ids.value(key);
        je.rv = e.rv;
        j->append(je);
    }
    return j;
}

QList<qint64> matching(const EventFilter& f,
                       const QVector<QPair<QString, ResourceVersion>>& named) {
    EventMatcher m(f);
    for (const auto& [key, rv] : named)
        m.addAnomaly(key, rv);
    const auto journal = journalOfEvents();
    QList<qint64> out;
    for (const JournalEntry& e : journal->entries(0, 100))
        if (m.matches(e))
            out << e.index;
    return out;
}

} // namespace

class TestEventFilter : public QObject {
    Q_OBJECT
private slots:
    void matches_data() {
        QTest::addColumn<EventFilter>("filter");
        QTest::addColumn<QList<qint64>>("expected");
        const auto types = [](std::initializer_list<WatchEventType> ts) {
            std::uint8_t bits = 0;
            for (const WatchEventType t : ts)
                bits |= EventFilter::typeBit(t);
            return bits;
        };
        EventFilter f;
        QTest::newRow("empty: everything") << f << QList<qint64>{0, 1, 2, 3, 4, 5, 6, 7};
        f = {};
        f.types = types({WatchEventType::Deleted});
        QTest::newRow("DELETED") << f << QList<qint64>{3, 6};
        f.types = types({WatchEventType::Added, WatchEventType::Deleted});
        QTest::newRow("ADDED or DELETED") << f << QList<qint64>{0, 2, 3, 4, 6, 7};
        f = {};
        f.resource = QStringLiteral("configmaps");
        QTest::newRow("resource") << f << QList<qint64>{4, 5, 6};
        f.resource = QStringLiteral("config");
        QTest::newRow("resource is exact") << f << QList<qint64>{};
        f = {};
        f.ns = QStringLiteral("kube-system");
        QTest::newRow("namespace") << f << QList<qint64>{2};
        f = {};
        f.nameRegex = QStringLiteral("^web-[0-9]+$");
        QTest::newRow("name regex, anchored") << f << QList<qint64>{0, 1, 3, 6};
        f.nameRegex = QStringLiteral("config");
        QTest::newRow("name regex, found anywhere") << f << QList<qint64>{4, 5};
        f.nameRegex = QStringLiteral("WEB");
        QTest::newRow("name regex, case-sensitive") << f << QList<qint64>{};
        f = {};
        f.minRv = 105;
        f.maxRv = 130;
        QTest::newRow("RV range, both bounds included") << f << QList<qint64>{1, 2, 3, 4};
        f.maxRv = 0;
        f.minRv = 150;
        QTest::newRow("RV from") << f << QList<qint64>{6, 7};
        f.minRv = 0;
        f.maxRv = 100;
        QTest::newRow("RV to") << f << QList<qint64>{0};
        f = {};
        f.types = types({WatchEventType::Deleted});
        f.nameRegex = QStringLiteral("^web-");
        f.ns = QStringLiteral("default");
        QTest::newRow("together") << f << QList<qint64>{3, 6};
        f.resource = QStringLiteral("pods");
        QTest::newRow("together, one resource") << f << QList<qint64>{3};
        f = {};
        f.anomalyOnly = true;
        QTest::newRow("anomaly-only") << f << QList<qint64>{1, 6};
        f.types = types({WatchEventType::Deleted});
        QTest::newRow("anomaly-only DELETED") << f << QList<qint64>{6};
        f = {};
        f.nameRegex = QStringLiteral("web-(");
        QTest::newRow("bad regex: nothing") << f << QList<qint64>{};
        f = {};
        f.minRv = 200;
        f.maxRv = 100;
        QTest::newRow("empty RV range: nothing") << f << QList<qint64>{};
    }
    void matches() {
        QFETCH(EventFilter, filter);
        QFETCH(QList<qint64>, expected);
        // Anomalies name web-0 at 105 and web-12 at 150; one names a key at an RV it never had,
        // and one has no key.
        const QVector<QPair<QString, ResourceVersion>> named = {
            {QStringLiteral("/registry/pods/default/web-0"), 105},
            {QStringLiteral("/registry/configmaps/default/web-12"), 150},
            {QStringLiteral("/registry/pods/default/web-0"), 107},
            {QString(), 120},
        };
        QCOMPARE(matching(filter, named), expected);
        // The scan's path (per-key verdicts, records) agrees with the per-entry one.
        EventMatcher m(filter);
        for (const auto& [key, rv] : named)
            m.addAnomaly(key, rv);
        const auto journal = journalOfEvents();
        std::vector<JournalRecord> records;
        const qint64 first = journal->copyRecords(0, 100, &records);
        QList<qint64> scanned;
        for (std::size_t i = 0; i < records.size(); ++i)
            if (m.matches(records[i], *journal))
                scanned << first + qint64(i);
        QCOMPARE(scanned, expected);
    }

    void saysWhatIsWrongAndWhatItIs() {
        EventFilter f;
        QVERIFY(f.isEmpty());
        QVERIFY(f.error().isEmpty());
        QCOMPARE(f.describe(), QString());
        f.nameRegex = QStringLiteral("a(");
        QVERIFY(!f.isEmpty());
        QVERIFY(f.error().startsWith(QStringLiteral("name: ")));
        QVERIFY(!EventMatcher(f).valid());
        f = {};
        f.minRv = 5;
        f.maxRv = 4;
        QCOMPARE(f.error(), QStringLiteral("RV range 5..4 is empty"));
        f = {};
        f.types = EventFilter::typeBit(WatchEventType::Deleted);
        f.ns = QStringLiteral("default");
        f.nameRegex = QStringLiteral("^web-");
        f.minRv = 100;
        f.anomalyOnly = true;
        QCOMPARE(f.describe(),
                 QStringLiteral("type DELETED, namespace default, name ~ ^web-, RV 100.., "
                                "anomalies only"));
    }
};

QTEST_GUILESS_MAIN(TestEventFilter)
#include "tst_eventfilter.moc"

// ScriptedWriter: a recorded etcd stream written into the simulated etcd keeps the recording's
// revisions (gaps filled by writes nobody watches), its keys as recorded, deletes, transactions
// (one revision per key here) and compactions at their times.
#include "model/KeyTable.h"
#include "sources/sim/ScriptedWriter.h"
#include "sources/sim/etcd/SimEtcd.h"
#include "sources/sim/etcd/SimKeyspace.h"

#include <QTest>

using namespace ws;

class TestScriptedWriter : public QObject {
    Q_OBJECT
private slots:
    void resourcesInFirstSeenOrder() {
        RecordedEtcdStream s;
        s.initial = {{"/registry/services/specs/default/kubernetes", "{}"},
                     {"/registry/pods/a/p1", "{}"},
                     {"/registry/pods/a/p2", "{}"}};
        s.writes = {{1, 11, "/registry/stable.example.com/crontabs/a/c", "{}", false},
                    {2, 12, "/something/else", "x", false},
                    {3, 13, "/registry/minions/node-1", "{}", false}};
        QCOMPARE(ScriptedWriter::resources(s),
                 (QStringList{"services", "pods", "crontabs.stable.example.com", "nodes"}));
    }

    void revisionsKeysAndCompactions() {
        auto s = std::make_shared<RecordedEtcdStream>();
        s->startRevision = 100;
        s->initial = {{"/registry/pods/a/p1", "{\"spec\":{\"nodeName\":\"node-7\"}}"},
                      {"/registry/pods/a/p2", "{}"},
                      {"/registry/services/specs/default/kubernetes", "{}"}};
        using W = RecordedEtcdStream::Write;
        s->writes = {
            W{seconds(1), 105, "/registry/pods/a/p1", "{\"v\":2}", false}, // 101..104 elsewhere
            W{seconds(2), 106, "/registry/pods/a/p2", {}, true},
            W{seconds(2), 107, "/registry/pods/a/p3", "{}", false}, // one transaction:
            W{seconds(2), 107, "/registry/pods/a/p4", "{}", false}, // p4 moves to 108
            W{seconds(3), 108, "/outside/kubernetes", "x", false},  // not an object: filled
            W{seconds(3), 110, "/registry/pods/a/p2", {}, true},    // already gone: skipped
            W{seconds(4), 112, "/registry/pods/a/p3", "{}", false},
        };
        s->compactions = {{milliseconds(3500), 107}};
        s->duration = seconds(5);

        KeyTable table;
        SimKeyspace keyspace(table);
        for (const QString& r : ScriptedWriter::resources(*s))
            keyspace.addResource(r);
        SimEtcd etcd(keyspace);
        ScriptedWriter writer(keyspace, etcd, s);
        writer.populate();
        QCOMPARE(etcd.currentRevision(), ResourceVersion(100));
        QCOMPARE(etcd.compactRevision(), ResourceVersion(97)); // before the capture: unknown
        const int pods = keyspace.resourceIndex(QStringLiteral("pods"));
        QCOMPARE(int(etcd.objectCount(pods)), 2);
        const KeyId p1 = table.find("/registry/pods/a/p1");
        QVERIFY(p1 != kNoKey);
        QCOMPARE(keyspace.selectorGroupOf(p1), 7); // spec.nodeName node-7
        QCOMPARE(keyspace.namespaceOf(p1), QStringLiteral("a"));
        QCOMPARE(keyspace.nameOf(p1), QStringLiteral("p1"));
        QVERIFY(table.find("/registry/services/specs/default/kubernetes") != kNoKey);

        writer.tick(milliseconds(500));
        QCOMPARE(etcd.currentRevision(), ResourceVersion(100)); // nothing due yet
        writer.tick(seconds(1));
        QCOMPARE(etcd.currentRevision(), ResourceVersion(105));
        QCOMPARE(etcd.eventAt(105)->key, p1);
        QVERIFY(keyspace.resourceOf(etcd.eventAt(101)->key) != pods); // a filler
        writer.tick(seconds(2));
        QCOMPARE(etcd.currentRevision(), ResourceVersion(108));
        QCOMPARE(etcd.eventAt(106)->type, MvccEventType::Delete);
        QCOMPARE(etcd.eventAt(108)->key, table.find("/registry/pods/a/p4"));
        writer.tick(seconds(3));
        // The outside key writes nothing; the repeated delete fills up to its revision (109
        // was some other key's) and writes nothing either.
        QCOMPARE(etcd.currentRevision(), ResourceVersion(109));
        QCOMPARE(etcd.compactRevision(), ResourceVersion(97));
        writer.tick(milliseconds(3500));
        QCOMPARE(etcd.compactRevision(), ResourceVersion(107));
        writer.tick(seconds(5));
        QCOMPARE(etcd.currentRevision(), ResourceVersion(112));
        QCOMPARE(etcd.get(table.find("/registry/pods/a/p3"))->modRev, ResourceVersion(112));
        QCOMPARE(int(etcd.objectCount(pods)), 3); // p1, p3, p4
        QCOMPARE(writer.writes(), qint64(5));
    }
};

QTEST_GUILESS_MAIN(TestScriptedWriter)
#include "tst_scriptedwriter.moc"

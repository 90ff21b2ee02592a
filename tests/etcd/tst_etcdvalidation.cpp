// The etcd stream validator on synthetic watch responses: what WatchScope adds to the detector
// hub (IsCreate, PrevKV content) and what the hub raises from the observations it is fed.

#include "engine/Pipeline.h"
#include "model/AnomalyKind.h"
#include "rpc.pb.h"
#include "sources/etcd/EtcdEventProcessor.h"
#include "sources/etcd/EtcdLoadGenerator.h"
#include "sources/etcd/EtcdWireWatchResponse.h"

#include <QTest>

using namespace ws;

namespace {

struct Ev {
    bool del = false;
    std::string key;
    std::int64_t create = 0;
    std::int64_t mod = 0;
    std::string value;
    bool hasPrev = false;
    std::int64_t prevMod = 0;
    std::string prevValue;
};

WireWatchResponse response(const std::vector<Ev>& events) {
    etcdserverpb::WatchResponse pb;
    pb.mutable_header()->set_revision(events.empty() ? 0 : events.back().mod);
    for (const Ev& e : events) {
        mvccpb::Event* pe = pb.add_events();
        pe->set_type(e.del ? mvccpb::Event::DELETE : mvccpb::Event::PUT);
        pe->mutable_kv()->set_key(e.key);
        pe->mutable_kv()->set_mod_revision(e.mod);
        if (!e.del) {
            pe->mutable_kv()->set_create_revision(e.create);
            pe->mutable_kv()->set_value(e.value);
        }
        if (e.hasPrev) {
            pe->mutable_prev_kv()->set_key(e.key);
            pe->mutable_prev_kv()->set_mod_revision(e.prevMod);
            pe->mutable_prev_kv()->set_value(e.prevValue);
        }
    }
    WireWatchResponse w;
    w.parse(pb.SerializeAsString());
    return w;
}

Ev put(std::int64_t create, std::int64_t mod, std::string value) {
    Ev e;
    e.key = "/registry/configmaps/ns/a";
    e.create = create;
    e.mod = mod;
    e.value = std::move(value);
    return e;
}

Ev del(std::int64_t mod) {
    Ev e;
    e.del = true;
    e.key = "/registry/configmaps/ns/a";
    e.mod = mod;
    return e;
}

Ev withPrev(Ev e, std::int64_t prevMod, std::string prevValue) {
    e.hasPrev = true;
    e.prevMod = prevMod;
    e.prevValue = std::move(prevValue);
    return e;
}

std::string cm(const std::string& name, int gen) {
    return EtcdLoadGenerator::configMapValue(name, "ns", "uid-" + name, gen, 200);
}

const std::string kA = "/registry/configmaps/ns/a";

} // namespace

Q_DECLARE_METATYPE(Ev)

class TestEtcdValidation : public QObject {
    Q_OBJECT
private slots:
    void stream_data();
    void stream();
};

void TestEtcdValidation::stream_data() {
    QTest::addColumn<std::vector<std::vector<Ev>>>("responses");
    QTest::addColumn<QStringList>("expected"); // anomaly kinds, in order
    QTest::addColumn<QString>("evidence");     // in the first anomaly's message

    using R = std::vector<std::vector<Ev>>;
    const Ev create = put(2, 2, cm("a", 1));
    const Ev update = withPrev(put(2, 3, cm("a", 2)), 2, cm("a", 1));
    const Ev remove = withPrev(del(4), 3, cm("a", 2));
    QTest::newRow("clean create/update/delete")
        << R{{create}, {update}, {remove}} << QStringList{} << "";
    QTest::newRow("prev_kv with other content")
        << R{{create}, {withPrev(put(2, 3, cm("a", 2)), 2, cm("a", 9))}}
        << QStringList{"stream-error"} << "same revision, other content";
    QTest::newRow("prev_kv from the wrong revision")
        << R{{create}, {update}, {withPrev(del(4), 2, cm("a", 1))}} << QStringList{"stream-error"}
        << "mod_revision 2";
    QTest::newRow("create of an existing key")
        << R{{create}, {put(3, 3, cm("a", 1))}} << QStringList{"stream-error"} << "IsCreate";
    QTest::newRow("update of a deleted key")
        << R{{create}, {withPrev(del(3), 2, cm("a", 1))}, {put(2, 4, cm("a", 2))}}
        << QStringList{"stream-error", "prevkv-nil"} << "IsCreate";
    QTest::newRow("delete without prev_kv")
        << R{{create}, {del(3)}} << QStringList{"prevkv-nil"} << "without prev_kv";
    QTest::newRow("skipped revisions")
        << R{{create}, {withPrev(put(2, 6, cm("a", 2)), 2, cm("a", 1))}}
        << QStringList{"revision-gap"} << "3..5";
    QTest::newRow("undecodable value")
        << R{{put(2, 2, "\x01\x02garbage")}} << QStringList{"stream-error"} << "01 02";
}

void TestEtcdValidation::stream() {
    QFETCH(std::vector<std::vector<Ev>>, responses);
    QFETCH(QStringList, expected);
    QFETCH(QString, evidence);
    Pipeline pipeline;
    EtcdEventProcessor p({}, pipeline);
    p.listStarted(false);
    p.listCompleted(1, 0); // an empty keyspace at revision 1
    p.watchOpened(2, QStringLiteral("http://test"));
    for (const auto& r : responses)
        p.watchResponse(response(r));
    const AnomalyList anomalies = pipeline.anomalies();
    QStringList kinds;
    for (const Anomaly& a : anomalies)
        kinds << kindName(a.kind);
    QCOMPARE(kinds, expected);
    if (!anomalies.isEmpty()) {
        QVERIFY2(anomalies.first().message.contains(evidence),
                 qPrintable(anomalies.first().message));
        QCOMPARE(anomalies.first().resource, QStringLiteral("configmaps"));
        QCOMPARE(anomalies.first().key, QString::fromStdString(kA));
    }
}

QTEST_GUILESS_MAIN(TestEtcdValidation)
#include "tst_etcdvalidation.moc"

// Decoding of Kubernetes keys and stored values (no etcd needed).

#include "kube/KubernetesKeyDecoder.h"
#include "rpc.pb.h"
#include "sources/etcd/EtcdLoadGenerator.h"
#include "sources/etcd/EtcdWireWatchResponse.h"
#include "support/FuzzReproducer.h"

#include <QTest>

using namespace ws;

class TestEtcdDecoder : public QObject {
    Q_OBJECT
private slots:
    void decodeKey_data();
    void decodeKey();
    void decodeValue_data();
    void decodeValue();
    void undecodable_data();
    void undecodable();
    void wireWatchResponse_data();
    void wireWatchResponse();
    void wireWatchResponseMalformed();
};

void TestEtcdDecoder::decodeKey_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("resource");
    QTest::addColumn<QString>("ns");
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("kubernetes");
    QTest::newRow("pod") << "/registry/pods/default/web-0"
                         << "pods"
                         << "default"
                         << "web-0" << true;
    QTest::newRow("namespace") << "/registry/namespaces/kube-system"
                               << "namespaces"
                               << ""
                               << "kube-system" << true;
    QTest::newRow("rc") << "/registry/controllers/ns/rc1"
                        << "replicationcontrollers"
                        << "ns"
                        << "rc1" << true;
    QTest::newRow("endpoints") << "/registry/services/endpoints/default/kubernetes"
                               << "endpoints"
                               << "default"
                               << "kubernetes" << true;
    QTest::newRow("services") << "/registry/services/specs/default/kubernetes"
                              << "services"
                              << "default"
                              << "kubernetes" << true;
    QTest::newRow("nodes") << "/registry/minions/node-1"
                           << "nodes"
                           << ""
                           << "node-1" << true;
    QTest::newRow("ingress") << "/registry/ingress/ns/i"
                             << "ingresses"
                             << "ns"
                             << "i" << true;
    QTest::newRow("events") << "/registry/events/default/x.123"
                            << "events"
                            << "default"
                            << "x.123" << true;
    QTest::newRow("crd") << "/registry/apiextensions.k8s.io/customresourcedefinitions/"
                            "crontabs.stable.example.com"
                         << "customresourcedefinitions.apiextensions.k8s.io"
                         << ""
                         << "crontabs.stable.example.com" << true;
    QTest::newRow("apiservice") << "/registry/apiregistration.k8s.io/apiservices/v1.apps"
                                << "apiservices.apiregistration.k8s.io"
                                << ""
                                << "v1.apps" << true;
    QTest::newRow("custom resource") << "/registry/stable.example.com/crontabs/default/ct"
                                     << "crontabs.stable.example.com"
                                     << "default"
                                     << "ct" << true;
    QTest::newRow("compact_rev_key") << "compact_rev_key"
                                     << ""
                                     << ""
                                     << "" << false;
    QTest::newRow("too deep") << "/registry/pods/a/b/c"
                              << "pods"
                              << ""
                              << "" << false;
    QTest::newRow("resource only") << "/registry/pods"
                                   << "pods"
                                   << ""
                                   << "" << false;
}

void TestEtcdDecoder::decodeKey() {
    QFETCH(QString, key);
    QFETCH(QString, resource);
    QFETCH(QString, ns);
    QFETCH(QString, name);
    QFETCH(bool, kubernetes);
    KubernetesKeyDecoder decoder;
    const DecodedKey k = decoder.decodeKey(key.toStdString());
    QCOMPARE(k.kubernetes, kubernetes);
    QCOMPARE(QString::fromStdString(k.resource), resource);
    if (kubernetes) {
        QCOMPARE(QString::fromStdString(k.namespace_), ns);
        QCOMPARE(QString::fromStdString(k.name), name);
    }
}

void TestEtcdDecoder::decodeValue_data() {
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<int>("encoding");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("apiVersion");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("ns");
    QTest::addColumn<QString>("uid");
    auto bytes = [](const std::string& s) { return QByteArray(s.data(), qsizetype(s.size())); };
    QTest::newRow("configmap protobuf")
        << bytes(EtcdLoadGenerator::configMapValue("cm", "ns1", "u-1", 3, 500))
        << int(ValueEncoding::Protobuf) << "ConfigMap"
        << "v1"
        << "cm"
        << "ns1"
        << "u-1";
    QTest::newRow("crontab json") << bytes(EtcdLoadGenerator::cronTabValue("ct", "ns2", "u-2", 1,
                                                                           500))
                                  << int(ValueEncoding::Json) << "CronTab"
                                  << "stable.example.com/v1"
                                  << "ct"
                                  << "ns2"
                                  << "u-2";
    QTest::newRow("cluster-scoped json")
        << QByteArray(R"({"kind":"Namespace","apiVersion":"v1","metadata":{"name":"x","uid":"u"}})")
        << int(ValueEncoding::Json) << "Namespace"
        << "v1"
        << "x"
        << ""
        << "u";
    QTest::newRow("encrypted") << QByteArray("k8s:enc:aescbc:v1:key1:\x01\x02\xff")
                               << int(ValueEncoding::Encrypted) << ""
                               << ""
                               << ""
                               << ""
                               << "";
    QTest::newRow("empty") << QByteArray() << int(ValueEncoding::Empty) << ""
                           << ""
                           << ""
                           << ""
                           << "";
}

void TestEtcdDecoder::decodeValue() {
    QFETCH(QByteArray, value);
    QFETCH(int, encoding);
    QFETCH(QString, kind);
    QFETCH(QString, apiVersion);
    QFETCH(QString, name);
    QFETCH(QString, ns);
    QFETCH(QString, uid);
    KubernetesKeyDecoder decoder;
    DecodedValue v;
    QVERIFY2(decoder.decodeValue(std::string_view(value.constData(), value.size()), &v),
             v.error.c_str());
    QCOMPARE(int(v.encoding), encoding);
    QCOMPARE(QString::fromStdString(v.kind), kind);
    QCOMPARE(QString::fromStdString(v.apiVersion), apiVersion);
    QCOMPARE(QString::fromStdString(v.name), name);
    QCOMPARE(QString::fromStdString(v.namespace_), ns);
    QCOMPARE(QString::fromStdString(v.uid), uid);
    if (encoding == int(ValueEncoding::Encrypted))
        QCOMPARE(QString::fromStdString(v.provider), QStringLiteral("aescbc"));
}

void TestEtcdDecoder::undecodable_data() {
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("evidence");
    const std::string good = EtcdLoadGenerator::configMapValue("cm", "ns", "u", 1, 300);
    QTest::newRow("truncated protobuf") << QByteArray(good.data(), 40) << "6b 38 73 00";
    QTest::newRow("garbage") << QByteArray("\x01\x02\x03 hello") << "01 02 03";
    QTest::newRow("bad json") << QByteArray(R"({"kind":"X","metadata":{"name":)") << "JSON";
    QTest::newRow("protobuf without kind") << QByteArray("k8s\0\x12\x00", 6) << "kind";
    // fuzz_kube_value: a JSON value with a raw newline in its first 48 bytes; the evidence used to
    // carry it raw, breaking the message in two.
    QTest::newRow("fuzz: newline in the evidence")
        << test::fuzzReproducer("kube_value", "regress-json-evidence-newline")
        << R"(bytes: {"apiVers\nion":"v1","kind":"Pod","metadata":{"na...)";
}

void TestEtcdDecoder::undecodable() {
    QFETCH(QByteArray, value);
    QFETCH(QString, evidence);
    KubernetesKeyDecoder decoder;
    DecodedValue v;
    QVERIFY(!decoder.decodeValue(std::string_view(value.constData(), value.size()), &v));
    QCOMPARE(int(v.encoding), int(ValueEncoding::Undecodable));
    QVERIFY2(QString::fromStdString(v.error).contains(evidence), v.error.c_str());
    QVERIFY2(v.error.find('\n') == std::string::npos, v.error.c_str()); // one line
}

void TestEtcdDecoder::wireWatchResponse_data() {
    QTest::addColumn<int>("events");
    QTest::addColumn<bool>("prevKv");
    QTest::newRow("progress") << 0 << false;
    QTest::newRow("one create") << 1 << false;
    QTest::newRow("batch with prev_kv") << 1000 << true;
}

// The hand decoder reads exactly what protobuf's generated code writes.
void TestEtcdDecoder::wireWatchResponse() {
    QFETCH(int, events);
    QFETCH(bool, prevKv);
    etcdserverpb::WatchResponse pb;
    pb.mutable_header()->set_revision(123456789012LL);
    pb.mutable_header()->set_cluster_id(7);
    pb.set_watch_id(3);
    pb.set_fragment(false);
    for (int i = 0; i < events; ++i) {
        mvccpb::Event* e = pb.add_events();
        e->set_type(i % 3 == 2 ? mvccpb::Event::DELETE : mvccpb::Event::PUT);
        e->mutable_kv()->set_key("/registry/configmaps/ns/k" + std::to_string(i));
        e->mutable_kv()->set_value(std::string(std::size_t(i % 50), char('a' + i % 26)));
        e->mutable_kv()->set_create_revision(100 + i);
        e->mutable_kv()->set_mod_revision(1000 + i);
        e->mutable_kv()->set_version(i + 1);
        if (prevKv) {
            e->mutable_prev_kv()->set_key(e->kv().key());
            e->mutable_prev_kv()->set_value("previous");
            e->mutable_prev_kv()->set_mod_revision(999 + i);
        }
    }
    WireWatchResponse w;
    QVERIFY2(w.parse(pb.SerializeAsString()), w.error().c_str());
    QCOMPARE(w.headerRevision, 123456789012LL);
    QCOMPARE(w.watchId, 3);
    QCOMPARE(int(w.events.size()), events);
    for (int i = 0; i < events; ++i) {
        const WireEvent& e = w.events[std::size_t(i)];
        QCOMPARE(e.isDelete, i % 3 == 2);
        QCOMPARE(std::string(e.kv.key), pb.events(i).kv().key());
        QCOMPARE(std::string(e.kv.value), pb.events(i).kv().value());
        QCOMPARE(e.kv.createRevision, 100 + i);
        QCOMPARE(e.kv.modRevision, 1000 + i);
        QCOMPARE(e.kv.version, i + 1);
        QCOMPARE(e.hasPrevKv, prevKv);
        if (prevKv) {
            QCOMPARE(std::string(e.prevKv.value), std::string("previous"));
            QCOMPARE(e.prevKv.modRevision, 999 + i);
        }
    }
    // Fragments merge: a second piece's events follow and its views stay valid.
    WireWatchResponse second;
    QVERIFY(second.parse(pb.SerializeAsString()));
    w.append(std::move(second));
    QCOMPARE(int(w.events.size()), 2 * events);
    if (events > 0)
        QCOMPARE(std::string(w.events.back().kv.key), pb.events(events - 1).kv().key());
}

void TestEtcdDecoder::wireWatchResponseMalformed() {
    etcdserverpb::WatchResponse pb;
    pb.add_events()->mutable_kv()->set_key("/registry/pods/a/b");
    std::string bytes = pb.SerializeAsString();
    bytes.resize(bytes.size() - 3); // cut inside the event
    WireWatchResponse w;
    QVERIFY(!w.parse(bytes));
    QVERIFY2(QString::fromStdString(w.error()).contains(QLatin1String("malformed")),
             w.error().c_str());
}

QTEST_GUILESS_MAIN(TestEtcdDecoder)
#include "tst_etcddecoder.moc"

// sources/etcd/EtcdSecretRedactor.h: Secrets in etcd Watch and Range responses redacted before
// they are recorded; everything else byte for byte, and the result still decodes as before.
#include "kube/KubernetesKeyDecoder.h"
#include "kube/SecretDigest.h"
#include "rpc.pb.h"
#include "sources/etcd/EtcdSecretRedactor.h"
#include "sources/etcd/EtcdWireRangeResponse.h"
#include "sources/etcd/EtcdWireWatchResponse.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <QTest>

#include <functional>

using namespace ws;

namespace {

const QByteArray kSalt("0123456789abcdef");
const std::string kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

std::string digest(std::string_view value) {
    const QByteArray d = SecretDigest(kSalt).digest(value);
    return std::string(d.constData(), std::size_t(d.size()));
}

// Protobuf wire format written by protobuf's own CodedOutputStream.
std::string bytesField(std::uint32_t field, const std::string& value) {
    std::string out;
    {
        google::protobuf::io::StringOutputStream stream(&out);
        google::protobuf::io::CodedOutputStream coded(&stream);
        coded.WriteTag((field << 3) | 2);
        coded.WriteVarint32(std::uint32_t(value.size()));
        coded.WriteString(value);
    }
    return out;
}
std::string varintField(std::uint32_t field, std::uint64_t value) {
    std::string out;
    {
        google::protobuf::io::StringOutputStream stream(&out);
        google::protobuf::io::CodedOutputStream coded(&stream);
        coded.WriteTag(field << 3);
        coded.WriteVarint64(value);
    }
    return out;
}
std::string entry(const std::string& key, const std::string& value) {
    return bytesField(1, key) + bytesField(2, value);
}

struct SecretParts {
    std::string name = "db-creds";
    std::string namespace_ = "prod";
    std::string uid = "0b7f3c1e-1d2a-4c55-9a1e-2f1b6f7d8e90";
    std::string password = std::string("p\0ss\xff\x01word", 10); // binary
    std::string username = "admin";
    std::string token = "ghp_0123456789";
    std::string lastApplied = "{\"apiVersion\":\"v1\",\"data\":{\"password\":\"cFwwc3M=\"},"
                              "\"kind\":\"Secret\",\"metadata\":{\"name\":\"db-creds\"}}\n";
};

// A v1.Secret in the k8s protobuf envelope, as kube-apiserver stores it.
std::string protobufSecret(const SecretParts& s, const std::function<std::string(std::string)>& v) {
    const std::string fieldsV1 = bytesField(
        1, "{\"f:data\":{\".\":{},\"f:password\":{}},\"f:metadata\":{\"f:annotations\":{\".\":{},"
           "\"f:kubectl.kubernetes.io/last-applied-configuration\":{}}},\"f:type\":{}}");
    const std::string managed = bytesField(1, "kubectl-client-side-apply") +
                                bytesField(2, "Update") + bytesField(3, "v1") +
                                bytesField(6, "FieldsV1") + bytesField(7, fieldsV1);
    const std::string meta = bytesField(1, s.name) + bytesField(3, s.namespace_) +
                             bytesField(5, s.uid) + bytesField(6, "12001") +
                             bytesField(11, entry("app", "db")) +
                             bytesField(12, entry(kLastApplied, v(s.lastApplied))) +
                             bytesField(12, entry("team", "payments")) + bytesField(17, managed);
    const std::string secret =
        bytesField(1, meta) + bytesField(2, entry("password", v(s.password))) +
        bytesField(2, entry("username", v(s.username))) + bytesField(3, "Opaque") +
        bytesField(4, entry("token", v(s.token))) + varintField(5, 1);
    const std::string unknown = bytesField(1, bytesField(1, "v1") + bytesField(2, "Secret")) +
                                bytesField(2, secret) + bytesField(3, "") + bytesField(4, "");
    return std::string("k8s\0", 4) + unknown;
}

std::string clear(std::string v) {
    return v;
}
std::string digested(std::string v) {
    return digest(v);
}

// A Secret stored as JSON (--storage-media-type=application/json).
std::string jsonSecret(const std::string& name, const std::string& password, bool redacted) {
    const auto v = [&](const std::string& s) { return redacted ? digest(s) : s; };
    return "{\"kind\":\"Secret\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" + name +
           "\",\"namespace\":\"prod\",\"uid\":\"u-" + name + "\",\"annotations\":{\"" +
           kLastApplied + "\":\"" +
           v("{\\\"data\\\":{\\\"password\\\":\\\"" + password + "\\\"}}\\n") +
           "\",\"team\":\"payments\"},\"managedFields\":[{\"fieldsV1\":{\"f:data\":{"
           "\"f:password\":{}}}}]},\"data\":{\"password\":\"" +
           v(password) + "\"},\"type\":\"Opaque\"}\n";
}

std::string configMap(const std::string& name) {
    // Mentions "secrets/" in its value: passes the cheap check, but its key is no Secret's.
    const std::string meta = bytesField(1, name) + bytesField(3, "prod") + bytesField(5, "cm-uid");
    const std::string cm = bytesField(1, meta) + bytesField(2, entry("path", "/etc/secrets/x"));
    return std::string("k8s\0", 4) +
           bytesField(1, bytesField(1, "v1") + bytesField(2, "ConfigMap")) + bytesField(2, cm);
}

void fillKv(mvccpb::KeyValue* kv, const std::string& key, const std::string& value, int rev) {
    kv->set_key(key);
    kv->set_value(value);
    kv->set_create_revision(100);
    kv->set_mod_revision(rev);
    kv->set_version(rev - 99);
    kv->set_lease(rev % 2 ? 0 : 7587);
}

QByteArray qbytes(const std::string& s) {
    return QByteArray(s.data(), qsizetype(s.size()));
}

void checkDecodes(const std::string& original, const std::string& redacted) {
    KubernetesKeyDecoder decoder;
    DecodedValue a, b;
    const bool okA = decoder.decodeValue(original, &a);
    const bool okB = decoder.decodeValue(redacted, &b);
    QCOMPARE(okB, okA);
    QCOMPARE(int(b.encoding), int(a.encoding));
    if (!okA)
        return; // undecodable before and after: what was read before failing differs
    QCOMPARE(b.kind, a.kind);
    QCOMPARE(b.apiVersion, a.apiVersion);
    QCOMPARE(b.name, a.name);
    QCOMPARE(b.namespace_, a.namespace_);
    QCOMPARE(b.uid, a.uid);
    // A provider name is what precedes the next colon; 32 bytes without one are no name.
    if (a.provider.size() < 32)
        QCOMPARE(b.provider, a.provider);
}

} // namespace

class TestEtcdSecretRedactor : public QObject {
    Q_OBJECT
private slots:
    void protobufValue() {
        EtcdSecretRedactor r(kSalt);
        const SecretParts s;
        const std::string value = protobufSecret(s, clear);
        const std::string out = r.redactValue(value);
        // Exactly the same Secret with digests in place of the values (lengths re-encoded).
        QCOMPARE(out, protobufSecret(s, digested));
        QVERIFY(out.find(s.token) == std::string::npos);
        QVERIFY(out.find("cFwwc3M=") == std::string::npos);
        QVERIFY(out.find(s.username) == std::string::npos);
        checkDecodes(value, out);
        KubernetesKeyDecoder decoder;
        DecodedValue d;
        QVERIFY(decoder.decodeValue(out, &d));
        QCOMPARE(d.kind, std::string("Secret"));
        QCOMPARE(d.name, s.name);
        QCOMPARE(d.uid, s.uid);
    }

    void jsonValue() {
        EtcdSecretRedactor r(kSalt);
        const std::string value = jsonSecret("a", "czNjcjN0", false);
        const std::string out = r.redactValue(value);
        QCOMPARE(out, jsonSecret("a", "czNjcjN0", true));
        checkDecodes(value, out);
    }

    void otherValues_data() {
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QByteArray>("expected");
        const auto d = [](const QByteArray& v) {
            return qbytes(digest(std::string_view(v.constData(), std::size_t(v.size()))));
        };
        const QByteArray aescbc("k8s:enc:aescbc:v1:key1:\x8f\x01\x00\x7f secret-ish ciphertext",
                                48);
        QTest::newRow("aescbc") << aescbc << "k8s:enc:aescbc:" + d(aescbc);
        const QByteArray kms("k8s:enc:kms:v2:my-kms:\x0a\x20\x01\x02");
        QTest::newRow("kms v2") << kms << "k8s:enc:kms:" + d(kms);
        const QByteArray noColon("k8s:enc:ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVWXYZ:x");
        QTest::newRow("provider too long") << noColon << "k8s:enc:" + d(noColon);
        QTest::newRow("garbage") << QByteArray("not a kubernetes value")
                                 << d("not a kubernetes value");
        const QByteArray badProto("k8s\0\x0a\xff\xff", 7);
        QTest::newRow("broken envelope") << badProto << d(badProto);
        const QByteArray noRaw = qbytes(
            std::string("k8s\0", 4) + bytesField(1, bytesField(1, "v1") + bytesField(2, "Secret")));
        QTest::newRow("envelope without raw") << noRaw << d(noRaw);
        QTest::newRow("broken JSON")
            << QByteArray("{\"data\":{\"a\":\"x\"}") << d("{\"data\":{\"a\":\"x\"}");
        QTest::newRow("JSON then junk")
            << QByteArray("{\"data\":{\"a\":\"x\"}} ]") << d("{\"data\":{\"a\":\"x\"}} ]");
    }
    void otherValues() {
        QFETCH(QByteArray, value);
        QFETCH(QByteArray, expected);
        EtcdSecretRedactor r(kSalt);
        const std::string v(value.constData(), std::size_t(value.size()));
        const std::string out = r.redactValue(v);
        QCOMPARE(qbytes(out), expected);
        checkDecodes(v, out);
    }

    void watchResponse() {
        const SecretParts s;
        SecretParts other;
        other.name = "other";
        other.password = "different";
        etcdserverpb::WatchResponse pb;
        pb.mutable_header()->set_revision(123456789012LL);
        pb.mutable_header()->set_cluster_id(7);
        pb.mutable_header()->set_member_id(9);
        pb.set_watch_id(3);
        // 0: a protobuf Secret created; 1: updated, with prev_kv; 2: a ConfigMap; 3: a JSON
        // Secret deleted (empty kv value, prev_kv); 4: another Secret; 5: an encrypted one.
        auto add = [&](bool del, const std::string& key, const std::string& value,
                       const std::string* prev, int rev) {
            mvccpb::Event* e = pb.add_events();
            e->set_type(del ? mvccpb::Event::DELETE : mvccpb::Event::PUT);
            fillKv(e->mutable_kv(), key, del ? std::string() : value, rev);
            if (prev)
                fillKv(e->mutable_prev_kv(), key, *prev, rev - 1);
        };
        const std::string secretKey = "/registry/secrets/prod/db-creds";
        const std::string v0 = protobufSecret(s, clear);
        const std::string json = jsonSecret("j", "czNjcjN0", false);
        const std::string enc = "k8s:enc:aescbc:v1:key1:0123456789abcdef";
        add(false, secretKey, v0, nullptr, 200);
        add(false, secretKey, v0, &v0, 201);
        add(false, "/registry/configmaps/prod/cm", configMap("cm"), nullptr, 202);
        add(true, "/registry/secrets/prod/j", json, &json, 203);
        add(false, "/registry/secrets/prod/other", protobufSecret(other, clear), nullptr, 204);
        add(false, "/registry/secrets/prod/enc", enc, nullptr, 205);
        const std::string bytes = pb.SerializeAsString();

        EtcdSecretRedactor r(kSalt);
        const QByteArray out = r.redact(EtcdFrameKind::WatchResponse, qbytes(bytes));
        const std::string redacted(out.constData(), std::size_t(out.size()));
        QVERIFY(redacted != bytes);
        QCOMPARE(r.malformedMessages(), std::uint64_t(0));
        QCOMPARE(r.redactedValues(), std::uint64_t(6)); // kv 0, 1, 4, 5; prev_kv 1, 3
        // Protobuf's own parser reads it; everything but the secret values is as it was.
        etcdserverpb::WatchResponse back;
        QVERIFY(back.ParseFromString(redacted));
        QCOMPARE(back.header().SerializeAsString(), pb.header().SerializeAsString());
        QCOMPARE(back.watch_id(), pb.watch_id());
        QCOMPARE(back.events_size(), pb.events_size());
        QCOMPARE(back.events(2).SerializeAsString(), pb.events(2).SerializeAsString());
        QCOMPARE(back.events(0).kv().value(), protobufSecret(s, digested));
        QCOMPARE(back.events(1).kv().value(), protobufSecret(s, digested));
        QCOMPARE(back.events(1).prev_kv().value(), protobufSecret(s, digested));
        QCOMPARE(back.events(3).kv().value(), std::string());
        QCOMPARE(back.events(3).prev_kv().value(), jsonSecret("j", "czNjcjN0", true));
        QCOMPARE(back.events(4).kv().value(), protobufSecret(other, digested));
        QCOMPARE(back.events(5).kv().value(), "k8s:enc:aescbc:" + digest(enc));
        // Equal values equal digests, different different.
        QVERIFY(back.events(4).kv().value() != back.events(0).kv().value());

        // The hand reader sees the same stream.
        WireWatchResponse a, b;
        QVERIFY(a.parse(bytes));
        QVERIFY2(b.parse(redacted), b.error().c_str());
        QCOMPARE(b.headerRevision, a.headerRevision);
        QCOMPARE(b.watchId, a.watchId);
        QCOMPARE(b.events.size(), a.events.size());
        KubernetesKeyDecoder decoder;
        for (std::size_t i = 0; i < a.events.size(); ++i) {
            const WireEvent& x = a.events[i];
            const WireEvent& y = b.events[i];
            QCOMPARE(y.isDelete, x.isDelete);
            QCOMPARE(y.hasPrevKv, x.hasPrevKv);
            for (const auto& [kx, ky] :
                 {std::pair{&x.kv, &y.kv}, std::pair{&x.prevKv, &y.prevKv}}) {
                QCOMPARE(ky->key, kx->key);
                QCOMPARE(ky->createRevision, kx->createRevision);
                QCOMPARE(ky->modRevision, kx->modRevision);
                QCOMPARE(ky->version, kx->version);
                QCOMPARE(ky->lease, kx->lease);
                const DecodedKey dk = decoder.decodeKey(ky->key);
                if (dk.resource != "secrets")
                    QCOMPARE(ky->value, kx->value);
                checkDecodes(std::string(kx->value), std::string(ky->value));
            }
        }

        // The std::string overload does the same.
        std::string inPlace = bytes;
        QVERIFY(r.redact(EtcdFrameKind::WatchResponse, &inPlace));
        QCOMPARE(inPlace, redacted);
    }

    void rangeResponse() {
        etcdserverpb::RangeResponse pb;
        pb.mutable_header()->set_revision(5000);
        const SecretParts s;
        fillKv(pb.add_kvs(), "/registry/configmaps/kube-system/secrets/x", configMap("x"), 300);
        fillKv(pb.add_kvs(), "/registry/secrets/prod/db-creds", protobufSecret(s, clear), 301);
        fillKv(pb.add_kvs(), "/registry/secrets/prod/j", jsonSecret("j", "YQ==", false), 302);
        fillKv(pb.add_kvs(), "/registry/secrets-store.csi.x-k8s.io/secretproviderclasses/a/b",
               "{\"data\":\"not a Secret\"}", 303);
        pb.set_more(true);
        pb.set_count(4242);
        const std::string bytes = pb.SerializeAsString();
        EtcdSecretRedactor r(kSalt);
        const QByteArray out = r.redact(EtcdFrameKind::RangeResponse, qbytes(bytes));
        etcdserverpb::RangeResponse back;
        QVERIFY(back.ParseFromString(std::string(out.constData(), std::size_t(out.size()))));
        QCOMPARE(back.kvs(0).SerializeAsString(), pb.kvs(0).SerializeAsString());
        QCOMPARE(back.kvs(1).value(), protobufSecret(s, digested));
        QCOMPARE(back.kvs(2).value(), jsonSecret("j", "YQ==", true));
        QCOMPARE(back.kvs(3).SerializeAsString(), pb.kvs(3).SerializeAsString());
        QCOMPARE(back.more(), true);
        QCOMPARE(back.count(), 4242);
        WireRangeResponse w;
        QVERIFY2(w.parse(std::string(out.constData(), std::size_t(out.size()))), w.error().c_str());
        QCOMPARE(w.headerRevision, 5000);
        QCOMPARE(w.kvs.size(), std::size_t(4));
        QCOMPARE(w.more, true);
        QCOMPARE(w.count, 4242);
        QCOMPARE(w.kvs[1].modRevision, 301);
        QCOMPARE(w.kvs[1].version, 202);
    }

    // Without a Secret the very bytes come back: shared, not copied.
    void noSecretsSameBytes_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QByteArray>("bytes");
        etcdserverpb::WatchResponse w;
        w.mutable_header()->set_revision(10);
        fillKv(w.add_events()->mutable_kv(), "/registry/pods/a/b", "k8s\0", 10);
        QTest::newRow("no secrets/ anywhere")
            << int(EtcdFrameKind::WatchResponse) << qbytes(w.SerializeAsString());
        fillKv(w.add_events()->mutable_kv(), "/registry/configmaps/a/secrets/x", "secrets/", 11);
        QTest::newRow("secrets/ but no Secret key")
            << int(EtcdFrameKind::WatchResponse) << qbytes(w.SerializeAsString());
        etcdserverpb::WatchResponse created;
        created.set_created(true);
        created.set_watch_id(1);
        QTest::newRow("created") << int(EtcdFrameKind::WatchResponse)
                                 << qbytes(created.SerializeAsString());
        etcdserverpb::WatchResponse deleted;
        deleted.add_events()->set_type(mvccpb::Event::DELETE);
        deleted.mutable_events(0)->mutable_kv()->set_key("/registry/secrets/a/b");
        deleted.mutable_events(0)->mutable_kv()->set_mod_revision(12);
        QTest::newRow("secret deleted without prev_kv")
            << int(EtcdFrameKind::WatchResponse) << qbytes(deleted.SerializeAsString());
        etcdserverpb::RangeResponse empty;
        empty.set_count(0);
        QTest::newRow("empty range")
            << int(EtcdFrameKind::RangeResponse) << qbytes(empty.SerializeAsString());
        QTest::newRow("control frame")
            << int(EtcdFrameKind::ListStarted) << QByteArray("/registry/secrets/a/b");
        QTest::newRow("other prefix") << int(EtcdFrameKind::RangeResponse) << [] {
            etcdserverpb::RangeResponse pb;
            fillKv(pb.add_kvs(), "/registry/secrets/a/b", "{\"data\":{\"a\":\"x\"}}", 1);
            return qbytes(pb.SerializeAsString());
        }();
    }
    void noSecretsSameBytes() {
        QFETCH(int, kind);
        QFETCH(QByteArray, bytes);
        EtcdSecretRedactor r(kSalt, QTest::currentDataTag() == QLatin1String("other prefix")
                                        ? "/custom/"
                                        : "/registry/");
        const QByteArray out = r.redact(EtcdFrameKind(kind), bytes);
        QCOMPARE(out, bytes);
        QCOMPARE(out.constData(), bytes.constData());
        std::string s(bytes.constData(), std::size_t(bytes.size()));
        QVERIFY(!r.redact(EtcdFrameKind(kind), &s));
        QCOMPARE(qbytes(s), bytes);
        QCOMPARE(r.redactedValues(), std::uint64_t(0));
    }

    void customPrefix() {
        etcdserverpb::RangeResponse pb;
        fillKv(pb.add_kvs(), "/custom/secrets/a/b", "{\"data\":{\"a\":\"x\"}}", 1);
        EtcdSecretRedactor r(kSalt, "/custom/");
        const QByteArray out =
            r.redact(EtcdFrameKind::RangeResponse, qbytes(pb.SerializeAsString()));
        etcdserverpb::RangeResponse back;
        QVERIFY(back.ParseFromString(std::string(out.constData(), std::size_t(out.size()))));
        QCOMPARE(back.kvs(0).value(), "{\"data\":{\"a\":\"" + digest("x") + "\"}}");
    }

    // A message that does not parse comes back unchanged (it would not decode either).
    void malformedMessage() {
        etcdserverpb::WatchResponse pb;
        fillKv(pb.add_events()->mutable_kv(), "/registry/secrets/a/b", "{\"data\":\"x\"}", 1);
        std::string bytes = pb.SerializeAsString();
        bytes.resize(bytes.size() - 3);
        EtcdSecretRedactor r(kSalt);
        const QByteArray out = r.redact(EtcdFrameKind::WatchResponse, qbytes(bytes));
        QCOMPARE(out, qbytes(bytes));
        QCOMPARE(r.malformedMessages(), std::uint64_t(1));
        // Cut anywhere: never a crash.
        const std::string whole = pb.SerializeAsString();
        for (std::size_t n = 0; n < whole.size(); ++n)
            r.redact(EtcdFrameKind::WatchResponse, qbytes(whole.substr(0, n)));
    }

    void saltsDiffer() {
        const std::string value = protobufSecret(SecretParts(), clear);
        EtcdSecretRedactor a = EtcdSecretRedactor::withRandomSalt();
        EtcdSecretRedactor b = EtcdSecretRedactor::withRandomSalt();
        QVERIFY(a.salt() != b.salt());
        QCOMPARE(a.salt().size(), qsizetype(SecretDigest::kSaltSize));
        QVERIFY(a.redactValue(value) != b.redactValue(value));
        QCOMPARE(a.redactValue(value), a.redactValue(value));
        QCOMPARE(a.prefix(), std::string("/registry/"));
    }
};

QTEST_GUILESS_MAIN(TestEtcdSecretRedactor)
#include "tst_etcdsecretredactor.moc"

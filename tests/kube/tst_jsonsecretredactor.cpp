// kube/JsonSecretRedactor.h: Secret bodies (lists, watch streams) with their secret values
// replaced by salted digests, the same output however the body is split into chunks.
#include "kube/JsonSecretRedactor.h"
#include "kube/SecretDigest.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QTest>

#include <algorithm>
#include <tuple>
#include <vector>

using namespace ws;

namespace {

const QByteArray kSalt("0123456789abcdef");

// JSON written with ' for " (no apostrophes in these bodies; \' becomes \").
QByteArray j(const char* text) {
    QByteArray b(text);
    b.replace('\'', '"');
    return b;
}

// A template's `N markers (N: a digit or letter) are where secret values go: the body has the
// values themselves, the expected output their digests.
QByteArray fill(const QByteArray& tmpl, const std::vector<QByteArray>& values, bool digests) {
    SecretDigest digest(kSalt);
    QByteArray out;
    for (qsizetype i = 0; i < tmpl.size(); ++i) {
        if (tmpl[i] != '`') {
            out += tmpl[i];
            continue;
        }
        const char m = tmpl[++i];
        const auto n = std::size_t(m >= 'a' ? 10 + (m - 'a') : m - '0');
        const QByteArray& v = values.at(n);
        out += digests ? digest.digest(std::string_view(v.constData(), std::size_t(v.size()))) : v;
    }
    return out;
}

QByteArray redactWhole(const QByteArray& body, bool* failed = nullptr) {
    JsonSecretRedactor r(kSalt);
    QByteArray out = r.feed(body.constData(), std::size_t(body.size()));
    if (failed)
        *failed = r.failed();
    return out;
}

QByteArray redactPieces(const QByteArray& body, const std::vector<qsizetype>& cuts,
                        bool* failed = nullptr) {
    JsonSecretRedactor r(kSalt);
    QByteArray out;
    qsizetype at = 0;
    for (const qsizetype cut : cuts) {
        out += r.feed(body.constData() + at, std::size_t(cut - at));
        at = cut;
    }
    out += r.feed(body.constData() + at, std::size_t(body.size() - at));
    if (failed)
        *failed = r.failed();
    return out;
}

// What kubectl apply leaves in etcd and what the apiserver serves: the last-applied annotation
// holds the data in clear, managedFields names the keys ("f:data" is not "data").
const char* kKubectlSecret =
    "{'metadata':{'name':'db-creds','namespace':'prod',"
    "'uid':'0b7f3c1e-1d2a-4c55-9a1e-2f1b6f7d8e90','resourceVersion':'12001',"
    "'creationTimestamp':'2024-05-01T10:00:00Z','annotations':{"
    "'kubectl.kubernetes.io/last-applied-configuration':'`0',"
    "'team':'payments'},"
    "'managedFields':[{'manager':'kubectl-client-side-apply','operation':'Update',"
    "'apiVersion':'v1','time':'2024-05-01T10:00:00Z','fieldsType':'FieldsV1',"
    "'fieldsV1':{'f:data':{'.':{},'f:password':{},'f:username':{}},"
    "'f:metadata':{'f:annotations':{'.':{},"
    "'f:kubectl.kubernetes.io/last-applied-configuration':{}}},'f:type':{}}}]},"
    "'data':{'password':'`1','username':'`2'},'type':'Opaque'}";

std::vector<QByteArray> kubectlValues() {
    return {j("{\\'apiVersion\\':\\'v1\\',\\'data\\':{\\'password\\':\\'czNjcjN0\\',"
              "\\'username\\':\\'YWRtaW4=\\'},\\'kind\\':\\'Secret\\',\\'metadata\\':{"
              "\\'annotations\\':{},\\'name\\':\\'db-creds\\',\\'namespace\\':\\'prod\\'},"
              "\\'type\\':\\'Opaque\\'}\\n"),
            "czNjcjN0", "YWRtaW4="};
}

struct Body {
    QByteArray tmpl;
    std::vector<QByteArray> values;
    QByteArray input() const { return fill(tmpl, values, false); }
    QByteArray expected() const { return fill(tmpl, values, true); }
};

Body kubectlSecret() {
    return {j(kKubectlSecret), kubectlValues()};
}

// A SecretList: the kubectl Secret, one from stringData, binary data (a PNG header, base64),
// empty data, a service-account token and escaped and Unicode values; pretty-printed in part.
Body secretList() {
    QByteArray t = j("{'kind':'SecretList','apiVersion':'v1','metadata':{'resourceVersion':'"
                     "12345'},'items':[\n  {'kind':'Secret','apiVersion':'v1',");
    QByteArray secret = j(kKubectlSecret);
    t += secret.mid(1); // without its opening brace
    t += j(",\n  {'metadata':{'name':'from-string-data','namespace':'prod','uid':'u-2',"
           "'resourceVersion':'12002'},'stringData':{'token':'`3','empty':'`4'},"
           "'type':'Opaque'},\n"
           "  {'metadata':{'name':'png','namespace':'media','uid':'u-3',"
           "'resourceVersion':'12003'},'data':{'logo.png':'`5'},'immutable':true,"
           "'type':'Opaque'},\n"
           "  {'metadata':{'name':'nothing','namespace':'default','uid':'u-4',"
           "'resourceVersion':'12004','labels':{'data':'`6'}},'data':{},"
           "'type':'Opaque'},\n"
           "  {\n    'metadata' : {\n      'name' : 'sa-token',\n      'namespace' : 'kube-system',"
           "\n      'uid' : 'u-5',\n      'resourceVersion' : '12005'\n    },\n    'data' : {\n"
           "      'ca.crt' : '`7',\n      'token' : '`8',\n      'namespace' : '`9'\n    },\n"
           "    'type' : 'kubernetes.io/service-account-token'\n  },\n"
           "  {'metadata':{'name':'unicode','namespace':'i18n','uid':'u-6',"
           "'resourceVersion':'12006'},'stringData':{'gr\xc3\xbc\xc3\x9f':'`a',"
           "'esc':'`b','same-as-password':'`1'},'type':'Opaque'}\n"
           "]}\n");
    std::vector<QByteArray> v = kubectlValues();
    v.push_back("ghp_0123456789abcdefABCDEF");
    v.push_back("");
    v.push_back(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJ"
        "RU5ErkJggg==");
    v.push_back("labels are maps of strings too"); // "data" as a label key: its value is redacted
    v.push_back("LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=");
    v.push_back("ZXlKaGJHY2lPaUpTVXpJMU5pSXNJbXRwWkNJNklp");
    v.push_back("a3ViZS1zeXN0ZW0=");
    v.push_back("\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80 caf\xc3\xa9");
    v.push_back("\\u00fc\\ud83d\\ude00 \\\"quoted\\\" back\\\\slash \\/ \\b\\f\\n\\r\\t");
    return {t, v};
}

// A watch stream: newline-separated events, then events written back to back.
Body watchStream() {
    QByteArray t = j("{'type':'ADDED','object':{'kind':'Secret','apiVersion':'v1',");
    t += j(kKubectlSecret).mid(1);
    t += j("}\n{'type':'MODIFIED','object':{'kind':'Secret','apiVersion':'v1','metadata':{"
           "'name':'db-creds','namespace':'prod','uid':'0b7f3c1e-1d2a-4c55-9a1e-2f1b6f7d8e90',"
           "'resourceVersion':'12010'},'data':{'password':'`3','username':'`2'},"
           "'type':'Opaque'}}\n"
           "{'type':'BOOKMARK','object':{'kind':'Secret','apiVersion':'v1','metadata':{"
           "'resourceVersion':'12011','annotations':{'k8s.io/initial-events-end':'true'}}}}\n"
           "{'type':'DELETED','object':{'kind':'Secret','apiVersion':'v1','metadata':{"
           "'name':'db-creds','namespace':'prod','uid':'0b7f3c1e-1d2a-4c55-9a1e-2f1b6f7d8e90',"
           "'resourceVersion':'12012'},'data':{'password':'`3'},'type':'Opaque'}}"
           "{'type':'ADDED','object':{'kind':'Secret','apiVersion':'v1','metadata':{"
           "'name':'n','namespace':'prod','uid':'u-9','resourceVersion':'12013'},"
           "'data':{'a':'`4','nested':[ '`5', {'deep':'`6'}, 42, -1.5e3, true, null ]},"
           "'type':'Opaque'}}\r\n"
           "{'type':'ERROR','object':{'kind':'Status','apiVersion':'v1','metadata':{},"
           "'status':'Failure','message':'too old resource version: 1 (12000)',"
           "'reason':'Expired','code':410}}\n");
    std::vector<QByteArray> v = kubectlValues();
    v.push_back("bmV3LXBhc3N3b3Jk");
    v.push_back("");
    v.push_back("YXJyYXk=");
    v.push_back("ZGVlcA==");
    return {t, v};
}

// One object per event of a stream, or the one object of a body.
std::vector<QJsonObject> parseObjects(const QByteArray& out, bool stream) {
    std::vector<QJsonObject> objects;
    if (!stream) {
        objects.push_back(QJsonDocument::fromJson(out).object());
        return objects;
    }
    // The stream's events are separated by newlines or follow each other: split at "}{" too.
    QByteArray s = out;
    s.replace("}{'type'", "}\n{'type'");
    s.replace("}{\"type\"", "}\n{\"type\"");
    for (const QByteArray& line : s.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError)
            qWarning() << error.errorString() << line;
        objects.push_back(doc.object());
    }
    return objects;
}

bool isDigest(const QJsonValue& v) {
    const QString s = v.toString();
    if (s.size() != 25 || !s.startsWith(QLatin1String("redacted:")))
        return false;
    for (const QChar c : s.mid(9))
        if (!((c >= QLatin1Char('0') && c <= QLatin1Char('9')) ||
              (c >= QLatin1Char('a') && c <= QLatin1Char('f'))))
            return false;
    return true;
}

} // namespace

class TestJsonSecretRedactor : public QObject {
    Q_OBJECT
private slots:
    void digestFormat() {
        SecretDigest d(kSalt);
        const QByteArray a = d.digest("czNjcjN0");
        QVERIFY(isDigest(QString::fromLatin1(a)));
        // SHA-256(salt || value), first 8 bytes in hex.
        const QByteArray sha =
            QCryptographicHash::hash(kSalt + QByteArray("czNjcjN0"), QCryptographicHash::Sha256);
        QCOMPARE(a, QByteArray("redacted:") + sha.left(8).toHex());
        // Incremental hashing gives the same digest.
        char text[SecretDigest::kTextSize];
        d.begin();
        d.add("czNj", 4);
        d.add("cjN0", 4);
        d.finish(text);
        QCOMPARE(QByteArray(text, sizeof(text)), a);
        QVERIFY(d.digest("czNjcjN1") != a);
        QVERIFY(SecretDigest(QByteArray("fedcba9876543210")).digest("czNjcjN0") != a);
        const QByteArray r1 = SecretDigest::randomSalt();
        const QByteArray r2 = SecretDigest::randomSalt();
        QCOMPARE(r1.size(), qsizetype(SecretDigest::kSaltSize));
        QVERIFY(r1 != r2);
        QVERIFY(JsonSecretRedactor::withRandomSalt().salt() !=
                JsonSecretRedactor::withRandomSalt().salt());
    }

    void exactOutput_data() {
        QTest::addColumn<QByteArray>("tmpl");
        QTest::addColumn<QByteArray>("value");
        QTest::newRow("data") << j("{'data':{'k':'`0'}}") << QByteArray("eHl6");
        QTest::newRow("stringData") << j("{'stringData':{'k':'`0'}}") << QByteArray("xyz");
        QTest::newRow("data is a string") << j("{'data':'`0','next':'clear'}") << QByteArray("abc");
        QTest::newRow("escapes hashed as received")
            << j("{'data':{'k':'`0'}}") << QByteArray("a\\\"b\\\\c\\u00e9\\n");
        QTest::newRow("empty value") << j("{'data':{'k':'`0'}}") << QByteArray();
        QTest::newRow("last-applied")
            << j("{'metadata':{'annotations':{'kubectl.kubernetes.io/last-applied-configuration'"
                 ":'`0','other':'clear'}}}")
            << j("{\\'data\\':{\\'k\\':\\'eHl6\\'}}");
        QTest::newRow("whitespace kept")
            << j(" {\n\t'data' :\r\n { 'k' : '`0' , 'n' : 1 } , 'x' : [ ] }\n") << QByteArray("v");
        QTest::newRow("f:data is not data")
            << j("{'f:data':{'k':'clear'},'dat':'clear','datas':'clear','Data':'clear',"
                 "'data':{'k':'`0'},'after':{'k':'clear'}}")
            << QByteArray("s");
        QTest::newRow("numbers and literals pass")
            << j("{'data':{'a':1,'b':-2.5e-3,'c':true,'d':false,'e':null,'s':'`0'},'n':7}")
            << QByteArray("s");
        QTest::newRow("keys of data are kept")
            << j("{'data':{'data':'`0','stringData':{'x':'`0'}},'y':'clear'}") << QByteArray("q");
        QTest::newRow("last-applied not a string")
            << j("{'kubectl.kubernetes.io/last-applied-configuration':{'x':'clear'},"
                 "'data':'`0'}")
            << QByteArray("q");
        QTest::newRow("no secrets at all")
            << j("{'kind':'ConfigMapList','items':[{'metadata':{'name':'a'}}]}") << QByteArray();
        QTest::newRow("top-level values") << j("'data' 1 [] {'data':'`0'} null") << QByteArray("z");
    }
    void exactOutput() {
        QFETCH(QByteArray, tmpl);
        QFETCH(QByteArray, value);
        const Body body{tmpl, {value}};
        bool failed = true;
        QCOMPARE(redactWhole(body.input(), &failed), body.expected());
        QVERIFY(!failed);
        // Byte by byte too.
        std::vector<qsizetype> cuts;
        for (qsizetype i = 1; i < body.input().size(); ++i)
            cuts.push_back(i);
        QCOMPARE(redactPieces(body.input(), cuts), body.expected());
    }

    void realBodies_data() {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("expected");
        QTest::addColumn<bool>("stream");
        for (const auto& [name, body, stream] :
             {std::tuple{"kubectl secret", kubectlSecret(), false},
              std::tuple{"secret list", secretList(), false},
              std::tuple{"watch stream", watchStream(), true}})
            QTest::newRow(name) << body.input() << body.expected() << stream;
    }
    void realBodies() {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, expected);
        QFETCH(bool, stream);
        bool failed = true;
        const QByteArray out = redactWhole(input, &failed);
        QVERIFY(!failed);
        QCOMPARE(out, expected);
        // No secret survives.
        for (const char* secret : {"czNjcjN0", "YWRtaW4=", "ghp_", "iVBORw0K", "bmV3LXBh",
                                   "ZXlKaGJHY2lP", "\\u00fc\\ud83d", "caf\xc3\xa9", "YXJyYXk="})
            QVERIFY2(!out.contains(secret), secret);

        // It parses, and all but the secret values is as it was.
        const std::vector<QJsonObject> before = parseObjects(input, stream);
        const std::vector<QJsonObject> after = parseObjects(out, stream);
        QCOMPARE(after.size(), before.size());
        QVERIFY(!after.empty());
        std::vector<QJsonObject> secrets;
        for (std::size_t i = 0; i < after.size(); ++i) {
            QVERIFY(!after[i].isEmpty());
            QCOMPARE(after[i].keys(), before[i].keys());
            if (stream) {
                QCOMPARE(after[i]["type"], before[i]["type"]);
                secrets.push_back(after[i]["object"].toObject());
                secrets.push_back(before[i]["object"].toObject());
            } else if (after[i].contains("items")) {
                QCOMPARE(after[i]["metadata"], before[i]["metadata"]);
                const QJsonArray a = after[i]["items"].toArray();
                const QJsonArray b = before[i]["items"].toArray();
                QCOMPARE(a.size(), b.size());
                for (qsizetype k = 0; k < a.size(); ++k) {
                    secrets.push_back(a[k].toObject());
                    secrets.push_back(b[k].toObject());
                }
            } else {
                secrets.push_back(after[i]);
                secrets.push_back(before[i]);
            }
        }
        for (std::size_t i = 0; i < secrets.size(); i += 2) {
            const QJsonObject& a = secrets[i];
            const QJsonObject& b = secrets[i + 1];
            QCOMPARE(a.keys(), b.keys());
            const QJsonObject ma = a["metadata"].toObject();
            const QJsonObject mb = b["metadata"].toObject();
            for (const char* field :
                 {"name", "namespace", "resourceVersion", "uid", "managedFields", "labels"}) {
                if (QLatin1String(field) == QLatin1String("labels") && ma.contains("labels"))
                    continue; // a label named "data" is redacted
                QCOMPARE(ma[field], mb[field]);
            }
            for (const char* field : {"type", "kind", "apiVersion", "immutable"})
                QCOMPARE(a[field], b[field]);
            const QJsonObject annotations = ma["annotations"].toObject();
            for (auto it = annotations.begin(); it != annotations.end(); ++it) {
                if (it.key() == QLatin1String("kubectl.kubernetes.io/last-applied-configuration"))
                    QVERIFY(isDigest(it.value()));
                else
                    QCOMPARE(it.value(), mb["annotations"].toObject()[it.key()]);
            }
            for (const char* map : {"data", "stringData"}) {
                const QJsonObject da = a[map].toObject();
                QCOMPARE(da.keys(), b[map].toObject().keys());
                for (auto it = da.begin(); it != da.end(); ++it)
                    if (!it.value().isArray())
                        QVERIFY2(isDigest(it.value()), qPrintable(it.value().toString()));
            }
        }
    }

    // The output over all chunks is the output of the whole body, wherever it is cut.
    void everySplitPoint_data() { realBodies_data(); }
    void everySplitPoint() {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, expected);
        for (qsizetype cut = 0; cut <= input.size(); ++cut) {
            const QByteArray out = redactPieces(input, {cut});
            if (out != expected)
                QFAIL(qPrintable(QStringLiteral("differs when cut at %1").arg(cut)));
        }
        for (qsizetype a = 0; a < input.size(); a += 7) {
            for (qsizetype b = a; b <= input.size(); b += 13) {
                if (redactPieces(input, {a, b}) != expected)
                    QFAIL(qPrintable(QStringLiteral("differs when cut at %1, %2").arg(a).arg(b)));
            }
        }
    }

    void randomSplits_data() { realBodies_data(); }
    void randomSplits() {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, expected);
        QRandomGenerator rng(20241122);
        for (int round = 0; round < 300; ++round) {
            std::vector<qsizetype> cuts;
            const int pieces = rng.bounded(1, 64);
            for (int i = 0; i < pieces; ++i)
                cuts.push_back(rng.bounded(qsizetype(0), input.size() + 1));
            std::sort(cuts.begin(), cuts.end());
            QCOMPARE(redactPieces(input, cuts), expected);
        }
        std::vector<qsizetype> everyByte;
        for (qsizetype i = 1; i < input.size(); ++i)
            everyByte.push_back(i);
        QCOMPARE(redactPieces(input, everyByte), expected);
    }

    void equalValuesEqualDigests() {
        const QByteArray out = redactWhole(secretList().input());
        const QJsonArray items = QJsonDocument::fromJson(out)["items"].toArray();
        const QJsonObject kubectl = items[0].toObject();
        const QJsonObject unicode = items[5].toObject();
        // The same password in data and in stringData of another Secret.
        QCOMPARE(unicode["stringData"]["same-as-password"], kubectl["data"]["password"]);
        QVERIFY(kubectl["data"]["password"] != kubectl["data"]["username"]);
        // Every distinct value has its own digest.
        QSet<QString> digests;
        const QJsonObject sa = items[4].toObject()["data"].toObject();
        for (auto it = sa.begin(); it != sa.end(); ++it)
            digests.insert(it.value().toString());
        QCOMPARE(digests.size(), 3);
        // Another redactor with the same salt agrees; another salt does not.
        JsonSecretRedactor again(kSalt);
        const QByteArray body = secretList().input();
        QCOMPARE(again.feed(body.constData(), std::size_t(body.size())), out);
        JsonSecretRedactor other(QByteArray(16, 'x'));
        QVERIFY(other.feed(body.constData(), std::size_t(body.size())) != out);
        QCOMPARE(again.redactedValues(), std::uint64_t(13));
    }

    // From the first syntax error on, the rest passes unchanged; nothing crashes or loops.
    void malformed_data() {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("expected");
        const QByteArray d = SecretDigest(kSalt).digest("x");
        QTest::newRow("wrong bracket") << j("{'data':{'a':'x'}]{'data':'x'}")
                                       << j("{'data':{'a':'") + d + j("'}]{'data':'x'}");
        QTest::newRow("missing colon") << j("{'a' 1,'data':'x'}") << j("{'a' 1,'data':'x'}");
        QTest::newRow("extra closing")
            << j("{'data':'x'}}{'data':'x'}") << j("{'data':'") + d + j("'}}{'data':'x'}");
        QTest::newRow("html") << QByteArray("<html><body>502 Bad Gateway</body></html>")
                              << QByteArray("<html><body>502 Bad Gateway</body></html>");
        QTest::newRow("key not a string") << j("{data:'x'}") << j("{data:'x'}");
        QTest::newRow("bad value byte")
            << j("{'data':{'a':+1},'data':'x'}") << j("{'data':{'a':+1},'data':'x'}");
        QTest::newRow("trailing comma")
            << j("{'data':{'a':'x',}}") << j("{'data':{'a':'") + d + j("',}}");
        QByteArray deep(int(JsonSecretRedactor::kMaxDepth) + 10, '[');
        QTest::newRow("too deep") << deep << deep;
        QByteArray nul("{\"data\":\"x\"}\0\"data\"", 19);
        QTest::newRow("NUL between values")
            << nul << j("{'data':'") + d + QByteArray("\"}\0\"data\"", 9);
    }
    void malformed() {
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, expected);
        bool failed = false;
        QCOMPARE(redactWhole(input, &failed), expected);
        QVERIFY(failed);
        for (qsizetype cut = 0; cut <= input.size(); ++cut)
            QCOMPARE(redactPieces(input, {cut}), expected);
    }

    // Random bytes and mutated bodies: no crash, output independent of the split.
    void garbage() {
        QRandomGenerator rng(7);
        const QByteArray base = secretList().input();
        for (int round = 0; round < 400; ++round) {
            QByteArray input;
            if (round % 2 == 0) {
                static const char alphabet[] = "{}[]:,\"\\ datu0123456789-eE.tfn\n";
                input.resize(rng.bounded(0, 300));
                for (char& c : input)
                    c = alphabet[rng.bounded(int(sizeof alphabet) - 1)];
            } else {
                input = base;
                for (int m = 0; m < 3; ++m)
                    input[rng.bounded(input.size())] = char(rng.bounded(256));
            }
            const QByteArray whole = redactWhole(input);
            std::vector<qsizetype> cuts;
            for (int i = 0; i < 5; ++i)
                cuts.push_back(rng.bounded(qsizetype(0), input.size() + 1));
            std::sort(cuts.begin(), cuts.end());
            QCOMPARE(redactPieces(input, cuts), whole);
        }
    }

    void resetStartsANewBody() {
        JsonSecretRedactor r(kSalt);
        const QByteArray bad = j("{'data':}");
        r.feed(bad.constData(), std::size_t(bad.size()));
        QVERIFY(r.failed());
        r.reset();
        QVERIFY(!r.failed());
        QVERIFY(r.atTopLevel());
        const QByteArray good = j("{'data':{'a':'x'}}");
        QCOMPARE(r.feed(good.constData(), std::size_t(good.size())),
                 j("{'data':{'a':'") + SecretDigest(kSalt).digest("x") + j("'}}"));
        QVERIFY(r.atTopLevel());
        // Half a body is not at the top level.
        r.feed(good.constData(), 10);
        QVERIFY(!r.atTopLevel());
    }

    // A long secret value is hashed as it streams: nothing of it is held or written back.
    void longValueIsNotBuffered() {
        JsonSecretRedactor r(kSalt);
        const QByteArray head = j("{'data':{'big':'");
        QCOMPARE(r.feed(head.constData(), std::size_t(head.size())), head);
        const QByteArray chunk(64 * 1024, 'A');
        SecretDigest d(kSalt);
        d.begin();
        for (int i = 0; i < 128; ++i) { // 8 MiB
            QVERIFY(r.feed(chunk.constData(), std::size_t(chunk.size())).isEmpty());
            d.add(chunk.constData(), std::size_t(chunk.size()));
        }
        char text[SecretDigest::kTextSize];
        d.finish(text);
        const QByteArray tail = j("'}}");
        QCOMPARE(r.feed(tail.constData(), std::size_t(tail.size())),
                 QByteArray(text, sizeof(text)) + tail);
    }
};

QTEST_GUILESS_MAIN(TestJsonSecretRedactor)
#include "tst_jsonsecretredactor.moc"

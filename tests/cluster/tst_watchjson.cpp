// Incremental decoding of Kubernetes watch and list bodies (sources/cluster/json): framing of
// concatenated event objects split anywhere, event and Status decoding, streamed lists.
#include "kube/ApiStatus.h"
#include "kube/ServerProfile.h"
#include "sources/cluster/json/JsonObjectSplitter.h"
#include "sources/cluster/json/JsonValueScanner.h"
#include "sources/cluster/json/ListStreamDecoder.h"
#include "sources/cluster/json/StatusJson.h"
#include "sources/cluster/json/WatchEventDecoder.h"
#include "support/FuzzReproducer.h"

#include <QElapsedTimer>
#include <QTest>

#include <random>
#include <string>
#include <vector>

using namespace ws;

namespace {

// Every value a test expects of one decoded event.
struct Expected {
    WatchEventType type;
    std::string name;
    std::string ns;
    ResourceVersion rv;
};

std::string configMap(const std::string& name, const std::string& ns, ResourceVersion rv,
                      const std::string& data) {
    return "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"" + name +
           "\",\"namespace\":\"" + ns + "\",\"uid\":\"uid-" + name + "\",\"resourceVersion\":\"" +
           std::to_string(rv) +
           "\",\"creationTimestamp\":\"2024-05-01T10:00:00Z\"},\"data\":" + data + "}";
}

std::string watchEvent(const char* type, const std::string& object) {
    return std::string("{\"type\":\"") + type + "\",\"object\":" + object + "}";
}

// A string whose escapes fall at every alignment of a 16-byte block (and across blocks).
std::string escapeRun() {
    std::string s = "\"";
    for (int i = 0; i < 40; ++i) {
        s += std::string(static_cast<std::size_t>(i % 17), 'x');
        s += (i % 3 == 0) ? "\\\"" : (i % 3 == 1 ? "\\\\" : "\\u007d");
    }
    return s + "\\\\\"";
}

// Events whose strings hold braces, brackets, quotes, escaped quotes and backslashes, unicode
// escapes and raw UTF-8, with nested arrays; `separators` go between them (some empty).
struct TrickyStream {
    std::vector<std::string> objects;
    std::vector<Expected> expected;
    std::string bytes;
};

TrickyStream trickyStream() {
    TrickyStream s;
    const auto add = [&](const std::string& object, Expected e) {
        s.objects.push_back(object);
        s.expected.push_back(std::move(e));
    };
    add(watchEvent("ADDED", configMap("a", "default", 101, "{\"k\":\"}{ ][ \\\"} {\"}")),
        {WatchEventType::Added, "a", "default", 101});
    add(watchEvent(
            "MODIFIED",
            configMap("b\\\"q", "ns-1", 102,
                      "{\"tail\":\"ends with a backslash \\\\\",\"u\":\"\\u007b\\u0022\\u005c\"}")),
        {WatchEventType::Modified, "b\"q", "ns-1", 102});
    add(watchEvent("MODIFIED", configMap("c", "ns-2", 103,
                                         "{\"n\":\"x\"},\"spec\":{\"a\":[[1,[2,{\"x\":\"]\"}]],[],["
                                         "{\"y\":\"[\"}]],\"e\":{}}")),
        {WatchEventType::Modified, "c", "ns-2", 103});
    add(watchEvent("DELETED", configMap("d-\u00fc\u20ac", "ns-3", 104, "{\"z\":\"😀 ü €\"}")),
        {WatchEventType::Deleted, "d-\u00fc\u20ac", "ns-3", 104});
    add(watchEvent("MODIFIED", configMap("e", "ns-4", 105, "{\"run\":" + escapeRun() + "}")),
        {WatchEventType::Modified, "e", "ns-4", 105});
    // Members in another order: "object" before "type".
    add("{\"object\":" + configMap("f", "ns-5", 106, "{}") + ",\"type\":\"ADDED\"}",
        {WatchEventType::Added, "f", "ns-5", 106});
    add("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
        "\"metadata\":{\"resourceVersion\":\"107\",\"creationTimestamp\":null}}}",
        {WatchEventType::Bookmark, "", "", 107});
    add("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"too old resource version: 5 "
        "(99)\",\"reason\":\"Expired\",\"code\":410}}",
        {WatchEventType::Error, "", "", 0});
    const std::vector<std::string> separators = {"\n", "", "\r\n", " \t\n ", "", "\n\n", ""};
    for (std::size_t i = 0; i < s.objects.size(); ++i) {
        s.bytes += s.objects[i];
        if (i + 1 < s.objects.size())
            s.bytes += separators[i % separators.size()];
    }
    s.bytes += "\n";
    return s;
}

// A Pod-shaped object of about `size` bytes, for the list and throughput tests.
std::string podLike(int i, std::size_t size) {
    std::string o =
        "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"pod-" +
        std::to_string(i) + "\",\"namespace\":\"ns-" + std::to_string(i % 7) +
        "\",\"uid\":\"0b9c6f3e-7d1a-4c2b-9e5f-" + std::to_string(100000 + i) +
        "\",\"resourceVersion\":\"" + std::to_string(1000 + i) +
        "\",\"labels\":{\"app\":\"web\",\"tier\":\"front\"},\"annotations\":{\"note\":\"a "
        "\\\"quoted\\\" {brace} "
        "[x]\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx:1.25\",\"ports\":[{"
        "\"containerPort\":80}],\"args\":[\"--a\",\"--b={\\\"x\\\":1}\"]}]},\"status\":{\"phase\":"
        "\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],\"pad\":\"";
    while (o.size() + 4 < size)
        o += "abcdefghij\\n";
    return o + "\"}}";
}

std::string listBody(int items, bool metadataFirst, std::vector<std::uint64_t>* itemEnds) {
    const std::string head =
        "\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"987654\","
        "\"continue\":\"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTg3NjU0LCJzdGFydCI6InBvZC0xIn0\","
        "\"remainingItemCount\":5}";
    std::string body = "{";
    if (metadataFirst)
        body += head + ",";
    body += "\"items\":[";
    for (int i = 0; i < items; ++i) {
        if (i > 0)
            body += (i % 3 == 0) ? ",\n  " : ",";
        body += podLike(i, 150 + static_cast<std::size_t>(i % 5) * 40);
        if (itemEnds)
            itemEnds->push_back(body.size());
    }
    body += "]";
    if (!metadataFirst)
        body += "," + head;
    return body + "}\n";
}

// A random JSON value: nested objects and arrays, strings full of escaped quotes and
// backslashes, braces and brackets, dense enough that a 16-byte block holds several of each.
constexpr int kKey = -1; // randomValue depth for an object key: always a string

void randomValue(std::mt19937& rng, int depth, std::string* out) {
    const unsigned pick = depth == kKey ? 2 : depth > 4 ? 2 + rng() % 2 : rng() % 4;
    if (pick == 0 || pick == 1) {
        const bool object = pick == 0;
        *out += object ? '{' : '[';
        const unsigned n = rng() % 5;
        for (unsigned i = 0; i < n; ++i) {
            if (i > 0)
                *out += ',';
            if (object) {
                randomValue(rng, kKey, out);
                *out += ':';
            }
            randomValue(rng, depth + 1, out);
        }
        *out += object ? '}' : ']';
    } else if (pick == 2) {
        static const char* const pieces[] = {"\\\"",    "\\\\", "{", "}", "[",   "]",       "a",
                                             "\\u007b", ",",    ":", " ", "\\n", "\xc3\xbc"};
        *out += '"';
        const unsigned n = rng() % 40;
        for (unsigned i = 0; i < n; ++i)
            *out += pieces[rng() % std::size(pieces)];
        *out += '"';
    } else {
        *out += std::to_string(int(rng() % 2000) - 1000);
    }
}

std::vector<std::string> splitAll(const std::string& bytes, const std::vector<std::size_t>& cuts,
                                  bool* ok, QString* error) {
    std::vector<std::string> out;
    JsonObjectSplitter splitter;
    std::size_t from = 0;
    *ok = true;
    for (std::size_t cut : cuts) {
        *ok = *ok && splitter.feed(bytes.data() + from, cut - from,
                                   [&](std::string_view o) { out.emplace_back(o); });
        from = cut;
    }
    *ok = *ok && splitter.feed(bytes.data() + from, bytes.size() - from,
                               [&](std::string_view o) { out.emplace_back(o); });
    *ok = *ok && splitter.finish();
    *error = splitter.error();
    return out;
}

QString status504(int shape) {
    // reference/kubernetes-watch.md §1: modern, 1.17 (cause with only a message), 1.16 (none).
    switch (shape) {
    case 0:
        return QStringLiteral(
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"Timeout: Too large resource version: 200, current: "
            "150\",\"reason\":\"Timeout\",\"details\":{\"causes\":[{\"reason\":"
            "\"ResourceVersionTooLarge\",\"message\":\"Too large resource "
            "version\"}],\"retryAfterSeconds\":1},\"code\":504}");
    case 1:
        return QStringLiteral(
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"Timeout: Too large resource version: 200, current: "
            "150\",\"reason\":\"Timeout\",\"details\":{\"causes\":[{\"message\":\"Too large "
            "resource version\"}],\"retryAfterSeconds\":1},\"code\":504}");
    default:
        return QStringLiteral(
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            "\"message\":\"Timeout: Too large resource version: 200, current: "
            "150\",\"reason\":\"Timeout\",\"details\":{\"retryAfterSeconds\":1},\"code\":504}");
    }
}

ServerProfile profile(int minor, int patch) {
    ServerProfile p;
    p.minor = minor;
    p.patch = patch;
    p.version = QStringLiteral("1.%1.%2").arg(minor).arg(patch);
    return p;
}

} // namespace

class TestWatchJson : public QObject {
    Q_OBJECT
private slots:
    // --- JsonObjectSplitter -------------------------------------------------------------

    void splitsAtEveryOffset() {
        const TrickyStream s = trickyStream();
        for (std::size_t cut = 0; cut <= s.bytes.size(); ++cut) {
            bool ok = false;
            QString error;
            const auto got = splitAll(s.bytes, {cut}, &ok, &error);
            QVERIFY2(ok, qPrintable(QStringLiteral("cut %1: %2").arg(cut).arg(error)));
            QVERIFY2(got == s.objects, qPrintable(QStringLiteral("cut %1").arg(cut)));
        }
    }

    void splitsByteByByteAndRandomly() {
        const TrickyStream s = trickyStream();
        std::vector<std::size_t> everyByte;
        for (std::size_t i = 1; i < s.bytes.size(); ++i)
            everyByte.push_back(i);
        bool ok = false;
        QString error;
        QVERIFY(splitAll(s.bytes, everyByte, &ok, &error) == s.objects);
        QVERIFY2(ok, qPrintable(error));

        std::mt19937 rng(7);
        for (int round = 0; round < 300; ++round) {
            std::vector<std::size_t> cuts;
            std::size_t at = 0;
            for (;;) {
                at += 1 + rng() % 40;
                if (at >= s.bytes.size())
                    break;
                cuts.push_back(at);
            }
            QVERIFY(splitAll(s.bytes, cuts, &ok, &error) == s.objects);
            QVERIFY2(ok, qPrintable(error));
        }
    }

    void splitsRandomStreams() {
        // Random objects, random separators, random chunking: the objects come back intact.
        std::mt19937 rng(2024);
        const char* const separators[] = {"", "\n", " ", "\r\n", "\t\n  "};
        for (int round = 0; round < 200; ++round) {
            std::vector<std::string> objects;
            std::string bytes;
            for (int i = 0; i < 20; ++i) {
                std::string o = "{\"k\":";
                randomValue(rng, 0, &o);
                o += '}';
                bytes += o + separators[rng() % std::size(separators)];
                objects.push_back(std::move(o));
            }
            std::vector<std::size_t> cuts;
            for (std::size_t at = 1 + rng() % 64; at < bytes.size(); at += 1 + rng() % 64)
                cuts.push_back(at);
            bool ok = false;
            QString error;
            const auto got = splitAll(bytes, cuts, &ok, &error);
            QVERIFY2(ok, qPrintable(error));
            QVERIFY(got == objects);
        }
    }

    void decodesEveryEventOfTheSplitStream() {
        const TrickyStream s = trickyStream();
        WatchEventDecoder decoder;
        for (std::size_t cut = 0; cut <= s.bytes.size(); cut += 7) {
            JsonObjectSplitter splitter;
            std::vector<Expected> got;
            WatchEventJson ev;
            QString error;
            const auto onObject = [&](std::string_view o) {
                if (!decoder.decode(o, &ev, &error))
                    QFAIL(qPrintable(error));
                got.push_back({ev.type, ev.name, ev.ns, ev.resourceVersion});
            };
            QVERIFY(splitter.feed(s.bytes.data(), cut, onObject));
            QVERIFY(splitter.feed(s.bytes.data() + cut, s.bytes.size() - cut, onObject));
            QVERIFY(splitter.finish());
            QCOMPARE(got.size(), s.expected.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                QCOMPARE(int(got[i].type), int(s.expected[i].type));
                QCOMPARE(got[i].name, s.expected[i].name);
                QCOMPARE(got[i].ns, s.expected[i].ns);
                QCOMPARE(got[i].rv, s.expected[i].rv);
            }
        }
    }

    void wholeObjectsInAChunkAreNotCopied() {
        const std::string two = watchEvent("ADDED", configMap("a", "n", 1, "{}")) +
                                watchEvent("ADDED", configMap("b", "n", 2, "{}"));
        JsonObjectSplitter splitter;
        std::vector<const char*> starts;
        QVERIFY(splitter.feed(two, [&](std::string_view o) { starts.push_back(o.data()); }));
        QCOMPARE(starts.size(), std::size_t(2));
        QCOMPARE(starts[0], two.data());
        QCOMPARE(starts[1], two.data() + two.size() / 2);
        QCOMPARE(splitter.peakBufferedBytes(), std::size_t(0));
        QCOMPARE(splitter.objectCount(), std::uint64_t(2));
    }

    void garbageBetweenObjects_data() {
        QTest::addColumn<QByteArray>("stream");
        QTest::addColumn<qulonglong>("offset");
        QTest::newRow("text after an event") << QByteArray("{\"a\":1}\nHTTP/1.1 200") << 8ull;
        QTest::newRow("comma between events") << QByteArray("{\"a\":1},{\"b\":2}") << 7ull;
        QTest::newRow("array at top level") << QByteArray("[{\"a\":1}]") << 0ull;
        QTest::newRow("stray close") << QByteArray("{\"a\":{}}}") << 8ull;
        QTest::newRow("NUL byte") << QByteArray("{}\n\0{}", 6) << 3ull;
        QTest::newRow("scalar") << QByteArray("  42") << 2ull;
    }
    void garbageBetweenObjects() {
        QFETCH(QByteArray, stream);
        QFETCH(qulonglong, offset);
        // Whole, and one byte at a time: the offset is that of the stream either way.
        for (const bool byteByByte : {false, true}) {
            JsonObjectSplitter splitter;
            bool ok = true;
            if (byteByByte) {
                for (qsizetype i = 0; i < stream.size() && ok; ++i)
                    ok = splitter.feed(stream.constData() + i, 1, [](std::string_view) {});
            } else {
                ok = splitter.feed(stream.constData(), std::size_t(stream.size()),
                                   [](std::string_view) {});
            }
            QVERIFY(!ok);
            QVERIFY(splitter.hasError());
            QCOMPARE(qulonglong(splitter.errorOffset()), offset);
            QVERIFY2(splitter.error().contains(QString::number(offset)),
                     qPrintable(splitter.error()));
            // Sticky.
            QVERIFY(!splitter.feed("{}", 2, [](std::string_view) { QFAIL("after an error"); }));
            QVERIFY(!splitter.finish());
        }
    }

    void truncatedStream() {
        const TrickyStream s = trickyStream();
        // Cut inside the third event, inside a string.
        const std::size_t cut = s.objects[0].size() + 1 + s.objects[1].size() + 30;
        JsonObjectSplitter splitter;
        int objects = 0;
        QVERIFY(splitter.feed(s.bytes.data(), cut, [&](std::string_view) { ++objects; }));
        QCOMPARE(objects, 2);
        QVERIFY(splitter.inObject());
        QCOMPARE(splitter.bufferedBytes(), std::size_t(30));
        QVERIFY(!splitter.finish());
        QVERIFY2(splitter.error().contains(QStringLiteral("ended inside")),
                 qPrintable(splitter.error()));
        QCOMPARE(qulonglong(splitter.errorOffset()), qulonglong(cut));

        JsonObjectSplitter clean;
        QVERIFY(clean.feed(s.bytes, [](std::string_view) {}));
        QVERIFY(clean.finish());
        QCOMPARE(clean.bufferedBytes(), std::size_t(0));
        QVERIFY(clean.finish());
    }

    void objectSizeLimit() {
        const std::string big = watchEvent(
            "ADDED", configMap("big", "n", 1, "{\"x\":\"" + std::string(5000, 'y') + "\"}"));
        const std::string small = watchEvent("ADDED", configMap("s", "n", 2, "{}"));
        for (const std::size_t chunk : {std::size_t(100), big.size() + small.size() + 1}) {
            JsonObjectSplitter splitter(4096);
            const std::string stream = small + "\n" + big + "\n" + small;
            bool ok = true;
            int objects = 0;
            for (std::size_t at = 0; at < stream.size() && ok; at += chunk) {
                ok = splitter.feed(stream.data() + at, std::min(chunk, stream.size() - at),
                                   [&](std::string_view) { ++objects; });
            }
            QVERIFY(!ok);
            QCOMPARE(objects, 1);
            QVERIFY2(splitter.error().contains(QStringLiteral("limit")),
                     qPrintable(splitter.error()));
            QCOMPARE(qulonglong(splitter.errorOffset()), qulonglong(small.size() + 1));
            QVERIFY(splitter.peakBufferedBytes() <= 4096);
        }
    }

    void scannerFindsValueEnds_data() {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<int>("end"); // bytes of the value; -1: incomplete
        QTest::newRow("object") << QByteArray("{\"a\":\"}\"} tail") << 9;
        QTest::newRow("array") << QByteArray("[1,[2,\"]\"]],") << 11;
        QTest::newRow("string") << QByteArray("\"a\\\"b\\\\\" x") << 8;
        QTest::newRow("number") << QByteArray("-12.5e3,") << 7;
        QTest::newRow("literal") << QByteArray("true}") << 4;
        QTest::newRow("open string") << QByteArray("{\"a\":\"\\\"") << -1;
        QTest::newRow("long") << QByteArray("{\"k\":\"0123456789abcdef\\\"0123456789abcdef\"}]")
                              << 42;
    }
    void scannerFindsValueEnds() {
        QFETCH(QByteArray, input);
        QFETCH(int, end);
        // Whole, and split at every offset: the same end.
        for (qsizetype cut = 0; cut <= input.size(); ++cut) {
            JsonValueScanner scanner;
            QVERIFY(scanner.begin(input.at(0)));
            std::size_t used = scanner.scan(input.constData(), std::size_t(cut));
            if (!scanner.complete())
                used += scanner.scan(input.constData() + used, std::size_t(input.size()) - used);
            if (end < 0) {
                QVERIFY(!scanner.complete());
                QCOMPARE(used, std::size_t(input.size()));
            } else {
                QVERIFY2(scanner.complete(), qPrintable(QStringLiteral("cut %1").arg(cut)));
                QCOMPARE(int(used), end);
            }
        }
        JsonValueScanner scanner;
        QVERIFY(!scanner.begin('x'));
        QVERIFY(!scanner.begin('}'));
    }

    // --- WatchEventDecoder --------------------------------------------------------------

    void decodesEvents_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<int>("type");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("ns");
        QTest::addColumn<QString>("uid");
        QTest::addColumn<qlonglong>("rv");
        QTest::addColumn<bool>("initialEventsEnd");

        QTest::newRow("added") << QString::fromStdString(
                                      watchEvent("ADDED", configMap("cm", "default", 42, "{}")))
                               << int(WatchEventType::Added) << "ConfigMap"
                               << "cm"
                               << "default"
                               << "uid-cm" << 42ll << false;
        QTest::newRow("deleted") << QString::fromStdString(watchEvent(
                                        "DELETED", configMap("cm", "kube-system", 43, "{}")))
                                 << int(WatchEventType::Deleted) << "ConfigMap"
                                 << "cm"
                                 << "kube-system"
                                 << "uid-cm" << 43ll << false;
        QTest::newRow("cluster-scoped, escaped name")
            << "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Node\",\"metadata\":{\"name\":"
               "\"n\\u00fcde-\\\"1\\\"\",\"uid\":\"u\",\"resourceVersion\":\"9223372036854775807\"}"
               "}}"
            << int(WatchEventType::Modified) << "Node" << QString::fromUtf8("n\u00fcde-\"1\"") << ""
            << "u" << 9223372036854775807ll << false;
        QTest::newRow("bookmark")
            << "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\","
               "\"metadata\":{\"resourceVersion\":\"12746\",\"creationTimestamp\":null},\"spec\":{"
               "\"containers\":null},\"status\":{}}}"
            << int(WatchEventType::Bookmark) << "Pod"
            << ""
            << ""
            << "" << 12746ll << false;
        QTest::newRow("bookmark, initial events end")
            << "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\","
               "\"metadata\":{\"resourceVersion\":\"12747\",\"creationTimestamp\":null,"
               "\"annotations\":{\"k8s.io/"
               "initial-events-end\":\"true\"}},\"spec\":{\"containers\":null},\"status\":{}}}"
            << int(WatchEventType::Bookmark) << "Pod"
            << ""
            << ""
            << "" << 12747ll << true;
        QTest::newRow("bookmark, escaped annotation key")
            << "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"annotations\":{\"other\":\"x\","
               "\"k8s.io\\/initial-events-end\":\"true\"},\"resourceVersion\":\"5\"}}}"
            << int(WatchEventType::Bookmark) << ""
            << ""
            << ""
            << "" << 5ll << true;
        QTest::newRow("bookmark, annotation false")
            << "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"6\","
               "\"annotations\":{\"k8s.io/initial-events-end\":\"false\"}}}}"
            << int(WatchEventType::Bookmark) << ""
            << ""
            << ""
            << "" << 6ll << false;
        QTest::newRow("annotation on a non-bookmark is not read")
            << "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":\"7\","
               "\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}"
            << int(WatchEventType::Added) << ""
            << ""
            << ""
            << "" << 7ll << false;
        QTest::newRow("object before type, whitespace")
            << " {\n  \"object\": {\"metadata\": {\"name\": \"x\", \"resourceVersion\": \"8\"}},\n"
               "  \"type\": \"DELETED\"\n}\n"
            << int(WatchEventType::Deleted) << ""
            << "x"
            << ""
            << "" << 8ll << false;
        QTest::newRow("null namespace, empty RV")
            << "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"x\",\"namespace\":null,"
               "\"resourceVersion\":\"\"}}}"
            << int(WatchEventType::Added) << ""
            << "x"
            << ""
            << "" << 0ll << false;
    }
    void decodesEvents() {
        QFETCH(QString, json);
        QFETCH(int, type);
        QFETCH(QString, kind);
        QFETCH(QString, name);
        QFETCH(QString, ns);
        QFETCH(QString, uid);
        QFETCH(qlonglong, rv);
        QFETCH(bool, initialEventsEnd);
        WatchEventDecoder decoder;
        WatchEventJson ev;
        QString error;
        const std::string bytes = json.toStdString();
        QVERIFY2(decoder.decode(bytes, &ev, &error), qPrintable(error));
        QCOMPARE(int(ev.type), type);
        QCOMPARE(QString::fromStdString(ev.kind), kind);
        QCOMPARE(QString::fromStdString(ev.name), name);
        QCOMPARE(QString::fromStdString(ev.ns), ns);
        QCOMPARE(QString::fromStdString(ev.uid), uid);
        QCOMPARE(qlonglong(ev.resourceVersion), rv);
        QCOMPARE(ev.initialEventsEnd, initialEventsEnd);
        QCOMPARE(ev.status.code, 0);
        // The raw object is the bytes of "object" in the event.
        QVERIFY(ev.object.starts_with('{') && ev.object.ends_with('}'));
        QVERIFY(bytes.find(ev.object) != std::string::npos);
    }

    void decodesErrors_data() {
        QTest::addColumn<QString>("object");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QString>("message");
        QTest::addColumn<bool>("hasCause");
        QTest::addColumn<QString>("causeReason");
        QTest::addColumn<QString>("causeMessage");
        QTest::addColumn<int>("retryAfter");

        const QString tooOld = QStringLiteral("too old resource version: 100 (250)");
        QTest::newRow("410 Expired (cache, 1.17+)")
            << "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
               "\"message\":\"too old resource version: 100 "
               "(250)\",\"reason\":\"Expired\",\"code\":410}"
            << 410 << "Expired" << tooOld << false << ""
            << "" << 0;
        QTest::newRow("410 Gone (cache, 1.16)")
            << "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
               "\"message\":\"too old resource version: 100 "
               "(250)\",\"reason\":\"Gone\",\"code\":410}"
            << 410 << "Gone" << tooOld << false << ""
            << "" << 0;
        QTest::newRow("410 Expired (etcd)")
            << "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
               "\"message\":\"The resourceVersion for the provided watch is too "
               "old.\",\"reason\":\"Expired\",\"code\":410}"
            << 410 << "Expired"
            << "The resourceVersion for the provided watch is too old." << false << ""
            << "" << 0;
        const QString tooLarge =
            QStringLiteral("Timeout: Too large resource version: 200, current: 150");
        QTest::newRow("504 modern")
            << status504(0) << 504 << "Timeout" << tooLarge << true << "ResourceVersionTooLarge"
            << "Too large resource version" << 1;
        QTest::newRow("504 1.17") << status504(1) << 504 << "Timeout" << tooLarge << true << ""
                                  << "Too large resource version" << 1;
        QTest::newRow("504 1.16") << status504(2) << 504 << "Timeout" << tooLarge << false << ""
                                  << "" << 1;
        const QString prevKv =
            QStringLiteral("etcd event received with PrevKv=nil (key=\"/registry/pods/default/p\", "
                           "modRevision=77, type=DELETE)");
        QTest::newRow("500 PrevKv=nil")
            << "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
               "\"message\":\"Internal error occurred: etcd event received with PrevKv=nil "
               "(key=\\\"/registry/pods/default/p\\\", modRevision=77, "
               "type=DELETE)\",\"reason\":\"InternalError\",\"details\":{\"causes\":[{\"message\":"
               "\"etcd event received with PrevKv=nil (key=\\\"/registry/pods/default/p\\\", "
               "modRevision=77, type=DELETE)\"}]},\"code\":500}"
            << 500 << "InternalError" << QStringLiteral("Internal error occurred: ") + prevKv
            << true << "" << prevKv << 0;
        QTest::newRow("members reordered, extra cause fields, two causes")
            << "{\"code\":504,\"details\":{\"retryAfterSeconds\":3,\"causes\":[{\"field\":\"f\","
               "\"message\":\"first\",\"reason\":\"R1\"},{\"reason\":\"R2\",\"message\":\"second\"}"
               "],\"kind\":\"pods\"},\"reason\":\"Timeout\",\"message\":\"m\",\"kind\":\"Status\"}"
            << 504 << "Timeout"
            << "m" << true << "R1"
            << "first" << 3;
    }
    void decodesErrors() {
        QFETCH(QString, object);
        QFETCH(int, code);
        QFETCH(QString, reason);
        QFETCH(QString, message);
        QFETCH(bool, hasCause);
        QFETCH(QString, causeReason);
        QFETCH(QString, causeMessage);
        QFETCH(int, retryAfter);
        const auto check = [&](const ApiStatus& s) {
            QCOMPARE(s.code, code);
            QCOMPARE(s.reason, reason);
            QCOMPARE(s.message, message);
            QCOMPARE(s.hasCause, hasCause);
            QCOMPARE(s.causeReason, causeReason);
            QCOMPARE(s.causeMessage, causeMessage);
            QCOMPARE(s.retryAfterSeconds, retryAfter);
        };
        // As a watch ERROR event, with "type" first and last.
        WatchEventDecoder decoder;
        WatchEventJson ev;
        QString error;
        const std::string obj = object.toStdString();
        for (const std::string& json : {"{\"type\":\"ERROR\",\"object\":" + obj + "}",
                                        "{\"object\":" + obj + ",\"type\":\"ERROR\"}"}) {
            QVERIFY2(decoder.decode(json, &ev, &error), qPrintable(error));
            QCOMPARE(int(ev.type), int(WatchEventType::Error));
            QCOMPARE(QString::fromStdString(ev.kind), QStringLiteral("Status"));
            check(ev.status);
        }
        // As the body of a failed list.
        const auto status = parseStatusJson(obj, &error);
        QVERIFY2(status.has_value(), qPrintable(error));
        check(*status);
    }

    void statusRoundTripsWithApiStatusToJson() {
        // The repo's own encoder (the simulator's served bodies) and this decoder agree.
        const std::vector<ApiStatus> statuses = {
            ApiStatus::tooLarge(profile(16, 0), 200, 150),
            ApiStatus::tooLarge(profile(17, 0), 200, 150),
            ApiStatus::tooLarge(profile(20, 0), 200, 150),
            ApiStatus::tooOld(profile(16, 0), 100, 250),
            ApiStatus::tooOld(profile(30, 0), 100, 250),
            ApiStatus::prevKvNil(QStringLiteral("/registry/pods/a/<b>&\"c\""), 77, true),
            ApiStatus::etcdUnavailable(),
        };
        for (const ApiStatus& in : statuses) {
            QString error;
            const auto out = parseStatusJson(in.toJson().toStdString(), &error);
            QVERIFY2(out.has_value(), qPrintable(error));
            QCOMPARE(out->code, in.code);
            QCOMPARE(out->reason, in.reason);
            QCOMPARE(out->message, in.message);
            QCOMPARE(out->hasCause, in.hasCause);
            QCOMPARE(out->causeReason, in.causeReason);
            QCOMPARE(out->causeMessage, in.causeMessage);
            QCOMPARE(out->retryAfterSeconds, in.retryAfterSeconds);
        }
    }

    void rejectsStatusBodies_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("why");
        QTest::newRow("html") << QByteArray("<html><body>502 Bad Gateway</body></html>")
                              << "invalid JSON";
        QTest::newRow("empty") << QByteArray("") << "invalid JSON";
        QTest::newRow("not a Status")
            << QByteArray("{\"kind\":\"Pod\",\"code\":1}") << "not a metav1.Status";
        QTest::newRow("no kind") << QByteArray("{\"code\":500,\"message\":\"x\"}")
                                 << "not a metav1.Status";
        QTest::newRow("code is a string")
            << QByteArray("{\"kind\":\"Status\",\"code\":\"504\"}") << "code";
        QTest::newRow("code out of range")
            << QByteArray("{\"kind\":\"Status\",\"code\":99999999999}") << "out of range";
        QTest::newRow("causes not an array")
            << QByteArray("{\"kind\":\"Status\",\"details\":{\"causes\":{}},\"code\":504}")
            << "details.causes";
        QTest::newRow("trailing") << QByteArray("{\"kind\":\"Status\",\"code\":504} {}")
                                  << "unexpected bytes";
        QTest::newRow("truncated")
            << QByteArray("{\"kind\":\"Status\",\"code\":50") << "invalid JSON";
    }
    void rejectsStatusBodies() {
        QFETCH(QByteArray, body);
        QFETCH(QString, why);
        QString error;
        QVERIFY(
            !parseStatusJson(std::string_view(body.constData(), std::size_t(body.size())), &error)
                 .has_value());
        QVERIFY2(error.contains(why), qPrintable(error));
        QVERIFY(!parseStatusJson("nope", nullptr).has_value()); // a null error is allowed
    }

    void rejectsBadEvents_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("why");
        QTest::newRow("unknown type")
            << QByteArray("{\"type\":\"UPSERTED\",\"object\":{\"metadata\":{}}}") << "UPSERTED";
        QTest::newRow("lower-case type")
            << QByteArray("{\"type\":\"added\",\"object\":{\"metadata\":{}}}") << "unknown";
        QTest::newRow("type not a string")
            << QByteArray("{\"type\":1,\"object\":{\"metadata\":{}}}") << "type";
        QTest::newRow("no type") << QByteArray("{\"object\":{\"metadata\":{}}}") << "no \"type\"";
        QTest::newRow("no object") << QByteArray("{\"type\":\"ADDED\"}") << "no \"object\"";
        QTest::newRow("object not an object")
            << QByteArray("{\"type\":\"ADDED\",\"object\":[1]}") << "not a JSON object";
        QTest::newRow("metadata not an object")
            << QByteArray("{\"type\":\"ADDED\",\"object\":{\"metadata\":\"x\"}}") << "metadata";
        QTest::newRow("rv letters")
            << QByteArray(
                   "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":\"abc\"}}}")
            << "\"abc\" is not a decimal number";
        QTest::newRow("rv negative")
            << QByteArray(
                   "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":\"-1\"}}}")
            << "not a decimal number";
        QTest::newRow("rv suffix")
            << QByteArray(
                   "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":\"12a\"}}}")
            << "not a decimal number";
        QTest::newRow("rv overflow") << QByteArray("{\"type\":\"ADDED\",\"object\":{\"metadata\":{"
                                                   "\"resourceVersion\":\"9223372036854775808\"}}}")
                                     << "not a decimal number";
        QTest::newRow("rv a number")
            << QByteArray("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":12}}}")
            << "resourceVersion is not a string";
        QTest::newRow("name a number")
            << QByteArray("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":12}}}")
            << "metadata.name is not a string";
        QTest::newRow("error code a string")
            << QByteArray("{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":\"410\"}}")
            << "code";
        QTest::newRow("truncated")
            << QByteArray("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"x\"")
            << "invalid";
        QTest::newRow("truncated in string")
            << QByteArray("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"x")
            << "invalid";
        QTest::newRow("two events glued")
            << QByteArray("{\"type\":\"ADDED\",\"object\":{}}{\"type\":\"ADDED\",\"object\":{}}")
            << "unexpected bytes";
        QTest::newRow("trailing garbage")
            << QByteArray("{\"type\":\"ADDED\",\"object\":{}} x") << "";
        QTest::newRow("bad literal")
            << QByteArray("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":nul}}}") << "";
        QTest::newRow("invalid UTF-8")
            << QByteArray("{\"type\":\"ADDED\",\"object\":{\"a\":\"\xff\"}}") << "UTF-8";
        QTest::newRow("array") << QByteArray("[]") << "not a JSON object";
        QTest::newRow("empty") << QByteArray("") << "invalid JSON";
        QTest::newRow("whitespace") << QByteArray(" \n") << "invalid JSON";
        QTest::newRow("binary") << QByteArray("\x00\x01\x02{}", 5) << "";
        // fuzz_watch_event: the unknown type was quoted as decoded, newline and all.
        QTest::newRow("fuzz: newline in the type")
            << test::fuzzReproducer(QStringLiteral("watch_event"),
                                    QStringLiteral("regress-type-newline"))
            << "unknown watch event type \"\\names:{paceK\"";
        QTest::newRow("newline in the resourceVersion")
            << QByteArray(
                   "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"resourceVersion\":\"1\\n2\"}}}")
            << "metadata.resourceVersion \"1\\n2\" is not a decimal number";
    }
    void rejectsBadEvents() {
        QFETCH(QByteArray, json);
        QFETCH(QString, why);
        WatchEventDecoder decoder;
        WatchEventJson ev;
        ev.name = "stale";
        QString error;
        QVERIFY(!decoder.decode(std::string_view(json.constData(), std::size_t(json.size())), &ev,
                                &error));
        QVERIFY(!error.isEmpty());
        QVERIFY2(error.contains(why), qPrintable(error));
        QVERIFY2(!error.contains(u'\n'), qPrintable(error)); // one line
        QVERIFY(ev.object.empty());
        // The decoder is still good for the next event.
        const std::string good = watchEvent("MODIFIED", configMap("ok", "n", 3, "{}"));
        QVERIFY2(decoder.decode(good, &ev, &error), qPrintable(error));
        QCOMPARE(ev.name, std::string("ok"));
        QCOMPARE(ev.resourceVersion, ResourceVersion(3));
    }

    void survivesMutatedInput() {
        // Random damage to real events: every result is a clean true or false with a reason,
        // never a crash (run under the asan preset to make that mean something).
        const std::vector<std::string> seeds = {
            trickyStream().objects[1], trickyStream().objects[4],
            "{\"type\":\"ERROR\",\"object\":" + status504(0).toStdString() + "}",
            "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"1\","
            "\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}"};
        const std::string interesting = "{}[]\":,\\u0 \n-1enulltrue";
        std::mt19937 rng(42);
        WatchEventDecoder decoder;
        WatchEventJson ev;
        int accepted = 0;
        int rejected = 0;
        for (int round = 0; round < 20000; ++round) {
            std::string s = seeds[rng() % seeds.size()];
            const int edits = 1 + int(rng() % 4);
            for (int e = 0; e < edits && !s.empty(); ++e) {
                const std::size_t at = rng() % s.size();
                switch (rng() % 4) {
                case 0:
                    s[at] = interesting[rng() % interesting.size()];
                    break;
                case 1:
                    s[at] = char(rng() % 256);
                    break;
                case 2:
                    s.erase(at, 1 + rng() % 8);
                    break;
                default:
                    s.resize(at);
                    break;
                }
            }
            QString error;
            if (decoder.decode(s, &ev, &error)) {
                ++accepted;
            } else {
                ++rejected;
                QVERIFY(!error.isEmpty());
            }
            // The same bytes through the splitter and as a list: no crash, sane state.
            JsonObjectSplitter splitter;
            std::size_t total = 0;
            const bool ok = splitter.feed(s, [&](std::string_view o) { total += o.size(); }) &&
                            splitter.finish();
            QVERIFY(ok || !splitter.error().isEmpty());
            QVERIFY(total <= s.size());
            ListStreamDecoder list(nullptr);
            const bool listOk = list.feed(s) && list.finish();
            QVERIFY(listOk || !list.error().isEmpty());
        }
        QVERIFY(rejected > 0);
        qDebug("mutated events: %d accepted, %d rejected", accepted, rejected);
    }

    // --- ListStreamDecoder --------------------------------------------------------------

    void listInSevenByteChunks_data() {
        QTest::addColumn<bool>("metadataFirst");
        QTest::newRow("metadata before items") << true;
        QTest::newRow("metadata after items") << false;
    }
    void listInSevenByteChunks() {
        QFETCH(bool, metadataFirst);
        constexpr int kItems = 5000;
        std::vector<std::uint64_t> itemEnds;
        const std::string body = listBody(kItems, metadataFirst, &itemEnds);
        std::size_t largestItem = 0;
        for (int i = 0; i < kItems; ++i)
            largestItem = std::max(largestItem, podLike(i, 150 + std::size_t(i % 5) * 40).size());

        int seen = 0;
        bool orderOk = true;
        bool metaOk = true;
        std::size_t itemBytes = 0;
        ListStreamDecoder decoder([&](std::string_view item, const ListItemMeta& meta) {
            orderOk = orderOk && meta.name == "pod-" + std::to_string(seen);
            metaOk = metaOk && meta.ns == "ns-" + std::to_string(seen % 7) &&
                     meta.uid == "0b9c6f3e-7d1a-4c2b-9e5f-" + std::to_string(100000 + seen) &&
                     meta.resourceVersion == 1000 + seen && item.starts_with("{\"kind\":\"Pod\"") &&
                     item.ends_with("\"}}");
            itemBytes += item.size();
            ++seen;
        });
        std::size_t next = 0; // items whose last byte has been fed
        for (std::size_t at = 0; at < body.size(); at += 7) {
            const std::size_t n = std::min<std::size_t>(7, body.size() - at);
            QVERIFY2(decoder.feed(body.data() + at, n), qPrintable(decoder.error()));
            // Each item is out as soon as its last byte is in, not later.
            while (next < itemEnds.size() && itemEnds[next] <= at + n)
                ++next;
            QCOMPARE(std::size_t(seen), next);
            QCOMPARE(decoder.summary().itemCount, std::uint64_t(seen));
        }
        QVERIFY2(decoder.finish(), qPrintable(decoder.error()));
        QCOMPARE(seen, kItems);
        QVERIFY(orderOk);
        QVERIFY(metaOk);
        QCOMPARE(decoder.bytesConsumed(), std::uint64_t(body.size()));
        QVERIFY(itemBytes > 1000000);
        // Only the current item (and the list's small members) was ever held.
        QVERIFY2(decoder.peakBufferedBytes() <= largestItem + 400,
                 qPrintable(QStringLiteral("peak %1, largest item %2")
                                .arg(decoder.peakBufferedBytes())
                                .arg(largestItem)));
        const ListSummary& s = decoder.summary();
        QCOMPARE(s.kind, std::string("PodList"));
        QCOMPARE(s.apiVersion, std::string("v1"));
        QCOMPARE(s.resourceVersion, ResourceVersion(987654));
        QCOMPARE(
            s.continueToken,
            std::string("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTg3NjU0LCJzdGFydCI6InBvZC0xIn0"));
        QVERIFY(s.remainingItemCount.has_value());
        QCOMPARE(*s.remainingItemCount, std::int64_t(5));
        QCOMPARE(s.itemCount, std::uint64_t(kItems));
    }

    void listSplitAtEveryOffset() {
        for (const bool metadataFirst : {true, false}) {
            const std::string body = listBody(4, metadataFirst, nullptr);
            for (std::size_t cut = 0; cut <= body.size(); ++cut) {
                std::vector<std::string> names;
                ListStreamDecoder decoder([&](std::string_view, const ListItemMeta& meta) {
                    names.push_back(meta.name);
                });
                QVERIFY(decoder.feed(body.data(), cut));
                QVERIFY(decoder.feed(body.data() + cut, body.size() - cut));
                QVERIFY2(decoder.finish(), qPrintable(decoder.error()));
                QCOMPARE(names, (std::vector<std::string>{"pod-0", "pod-1", "pod-2", "pod-3"}));
                QCOMPARE(decoder.summary().resourceVersion, ResourceVersion(987654));
                QCOMPARE(decoder.summary().kind, std::string("PodList"));
            }
        }
    }

    void listShapes_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("items");
        QTest::addColumn<qlonglong>("rv");
        QTest::addColumn<qlonglong>("remaining"); // -1: absent
        QTest::newRow("empty items")
            << QByteArray("{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{"
                          "\"resourceVersion\":\"5\"},\"items\":[]}")
            << 0 << 5ll << -1ll;
        QTest::newRow("null items")
            << QByteArray("{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{"
                          "\"resourceVersion\":\"6\"},\"items\":null}")
            << 0 << 6ll << -1ll;
        QTest::newRow("pretty-printed")
            << QByteArray("{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    {\"metadata\": "
                          "{\"name\": \"a\", \"resourceVersion\": \"3\"}}\n  ,\n    "
                          "{\"metadata\": {\"name\": \"b\"}}\n  ],\n  \"kind\": \"List\",\n  "
                          "\"metadata\": {\"resourceVersion\": \"7\", \"remainingItemCount\": 0, "
                          "\"x\": [1, {\"y\": null}]}\n}\n")
            << 2 << 7ll << 0ll;
        QTest::newRow("scalars and unknown members")
            << QByteArray("{\"kind\":\"PodList\",\"n\":-1.5e3,\"b\":true,\"z\":null,\"items\":[{}],"
                          "\"metadata\":{\"resourceVersion\":\"8\",\"remainingItemCount\":null}}")
            << 1 << 8ll << -1ll;
    }
    void listShapes() {
        QFETCH(QByteArray, body);
        QFETCH(int, items);
        QFETCH(qlonglong, rv);
        QFETCH(qlonglong, remaining);
        for (qsizetype chunk : {qsizetype(1), qsizetype(3), body.size()}) {
            int seen = 0;
            ListStreamDecoder decoder([&](std::string_view, const ListItemMeta&) { ++seen; });
            for (qsizetype at = 0; at < body.size(); at += chunk) {
                QVERIFY2(decoder.feed(body.constData() + at,
                                      std::size_t(std::min(chunk, body.size() - at))),
                         qPrintable(decoder.error()));
            }
            QVERIFY2(decoder.finish(), qPrintable(decoder.error()));
            QCOMPARE(seen, items);
            QCOMPARE(decoder.summary().itemCount, std::uint64_t(items));
            QCOMPARE(qlonglong(decoder.summary().resourceVersion), rv);
            QCOMPARE(qlonglong(decoder.summary().remainingItemCount.value_or(-1)), remaining);
        }
    }

    void listErrors_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("itemsBefore"); // items handed out before the error
        QTest::addColumn<QString>("why");
        QTest::newRow("empty") << QByteArray("") << 0 << "empty";
        QTest::newRow("not an object") << QByteArray("[{}]") << 0 << "'['";
        QTest::newRow("truncated in an item")
            << QByteArray("{\"kind\":\"PodList\",\"items\":[{\"metadata\":{\"name\":\"a\"}},{"
                          "\"metadata\":{\"na")
            << 1 << "inside item 1";
        QTest::newRow("truncated after items")
            << QByteArray("{\"kind\":\"PodList\",\"items\":[{}]") << 1 << "before its closing";
        QTest::newRow("truncated in a key")
            << QByteArray("{\"kind\":\"PodList\",\"ite") << 0 << "before its closing";
        QTest::newRow("garbage after the list")
            << QByteArray("{\"kind\":\"PodList\",\"items\":[]} {\"kind\":\"PodList\"}") << 0
            << "nothing after";
        QTest::newRow("item not an object")
            << QByteArray("{\"kind\":\"PodList\",\"items\":[{},\"x\"]}") << 1 << "an item object";
        QTest::newRow("missing comma between items")
            << QByteArray("{\"kind\":\"PodList\",\"items\":[{} {}]}") << 1 << "after an item";
        QTest::newRow("item rv not a number")
            << QByteArray("{\"kind\":\"PodList\",\"items\":[{\"metadata\":{\"name\":\"a\","
                          "\"resourceVersion\":\"x1\"}}]}")
            << 0 << "item 0";
        QTest::newRow("malformed item")
            << QByteArray("{\"kind\":\"PodList\",\"items\":[{\"metadata\":{\"name\" \"a\"}}]}") << 0
            << "item 0";
        QTest::newRow("list rv not a number")
            << QByteArray(
                   "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"v7\"},\"items\":[]}")
            << 0 << "not a decimal number";
        QTest::newRow("no items")
            << QByteArray("{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"7\"}}") << 0
            << "no \"items\"";
        QTest::newRow("two items members")
            << QByteArray("{\"items\":[],\"items\":[]}") << 0 << "second \"items\"";
        QTest::newRow("items a string")
            << QByteArray("{\"kind\":\"PodList\",\"items\":\"x\"}") << 0 << "neither an array";
        QTest::newRow("a Status body") << QByteArray(status504(0).toUtf8()) << 0 << "metav1.Status";
        QTest::newRow("bad scalar member")
            << QByteArray("{\"kind\":\"PodList\",\"n\":12x,\"items\":[]}") << 0 << "invalid JSON";
        QTest::newRow("missing colon") << QByteArray("{\"kind\" \"PodList\"}") << 0 << "':'";
    }
    void listErrors() {
        QFETCH(QByteArray, body);
        QFETCH(int, itemsBefore);
        QFETCH(QString, why);
        for (const bool byteByByte : {false, true}) {
            int seen = 0;
            ListStreamDecoder decoder([&](std::string_view, const ListItemMeta&) { ++seen; });
            bool ok = true;
            if (byteByByte) {
                for (qsizetype i = 0; i < body.size() && ok; ++i)
                    ok = decoder.feed(body.constData() + i, 1);
            } else {
                ok = decoder.feed(body.constData(), std::size_t(body.size()));
            }
            ok = ok && decoder.finish();
            QVERIFY(!ok);
            QVERIFY2(decoder.error().contains(why), qPrintable(decoder.error()));
            QCOMPARE(seen, itemsBefore);
            QVERIFY(!decoder.feed("{}", 2)); // sticky
            QVERIFY(!decoder.finish());
        }
    }

    void listItemSizeLimit() {
        const std::string body =
            "{\"items\":[{\"a\":1},{\"big\":\"" + std::string(3000, 'x') + "\"},{\"a\":2}]}";
        int seen = 0;
        ListStreamDecoder decoder([&](std::string_view, const ListItemMeta&) { ++seen; }, 1024);
        bool ok = true;
        for (std::size_t at = 0; at < body.size() && ok; at += 100)
            ok = decoder.feed(body.data() + at, std::min<std::size_t>(100, body.size() - at));
        QVERIFY(!ok);
        QCOMPARE(seen, 1);
        QVERIFY2(decoder.error().contains(QStringLiteral("limit")), qPrintable(decoder.error()));
        QCOMPARE(qulonglong(decoder.errorOffset()), qulonglong(body.find("{\"big\"")));
        QVERIFY(decoder.peakBufferedBytes() <= 1024 + 100);

        decoder.reset();
        QVERIFY(!decoder.hasError());
        QVERIFY(decoder.feed("{\"items\":[{\"a\":1}]}"));
        QVERIFY(decoder.finish());
        QCOMPARE(seen, 2);
    }

    // --- Not a test: throughput, printed for information -----------------------------------

    void throughputForInformation() {
        // 200,000 events of about 1 KB, streamed in 16 KiB chunks; nothing is asserted on time.
        constexpr int kDistinct = 2000;
        constexpr int kRepeats = 100;
        std::string stream;
        for (int i = 0; i < kDistinct; ++i)
            stream += watchEvent(i % 10 == 0 ? "ADDED" : "MODIFIED", podLike(i, 1000)) + "\n";
        std::uint64_t events = 0;
        ResourceVersion rvSum = 0;
        WatchEventDecoder decoder;
        WatchEventJson ev;
        QString error;
        JsonObjectSplitter splitOnly;
        QElapsedTimer timer;
        timer.start();
        for (int r = 0; r < kRepeats; ++r) {
            for (std::size_t at = 0; at < stream.size(); at += 16384) {
                splitOnly.feed(stream.data() + at, std::min<std::size_t>(16384, stream.size() - at),
                               [&](std::string_view) { ++events; });
            }
        }
        const double splitSeconds = double(timer.nsecsElapsed()) / 1e9;
        QCOMPARE(events, std::uint64_t(kDistinct) * kRepeats);

        JsonObjectSplitter splitter;
        events = 0;
        timer.restart();
        for (int r = 0; r < kRepeats; ++r) {
            for (std::size_t at = 0; at < stream.size(); at += 16384) {
                splitter.feed(stream.data() + at, std::min<std::size_t>(16384, stream.size() - at),
                              [&](std::string_view o) {
                                  if (decoder.decode(o, &ev, &error)) {
                                      ++events;
                                      rvSum += ev.resourceVersion;
                                  }
                              });
            }
        }
        const double decodeSeconds = double(timer.nsecsElapsed()) / 1e9;
        QCOMPARE(events, std::uint64_t(kDistinct) * kRepeats);
        QVERIFY(rvSum > 0);
        const double mb = double(stream.size()) * kRepeats / 1e6;
        qDebug("%llu events, %.0f MB: split %.0f MB/s (%.3f s), split+decode %.0f MB/s (%.3f s)",
               static_cast<unsigned long long>(events), mb, mb / splitSeconds, splitSeconds,
               mb / decodeSeconds, decodeSeconds);
    }
};

QTEST_GUILESS_MAIN(TestWatchJson)
#include "tst_watchjson.moc"

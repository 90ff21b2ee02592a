// The protobuf watch stream as the cluster source reads it with --wire protobuf:
// LengthDelimitedSplitter (4-byte big-endian length frames, whatever the chunking) and
// ProtoWatchEventDecoder (metav1.WatchEvent, the "k8s\0" runtime.Unknown envelope, ObjectMeta,
// Status), on frames built here field by field with ProtoWireWriter.

#include "sources/cluster/proto/LengthDelimitedSplitter.h"
#include "sources/cluster/proto/ProtoListDecoder.h"
#include "sources/cluster/proto/ProtoWatchEventDecoder.h"
#include "support/FuzzReproducer.h"
#include "util/ProtoWireWriter.h"

#include <QTest>
#include <string>
#include <vector>

using namespace ws;

namespace {

std::string message(const std::function<void(ProtoWireWriter&)>& fill) {
    std::string out;
    ProtoWireWriter w{&out};
    fill(w);
    return out;
}

// An unknown field of every wire type a reader must skip.
void unknownFields(ProtoWireWriter& w) {
    w.tag(90, 0);
    w.varint(123456789);
    w.bytes(91, "skip me");
    w.tag(92, 1);
    w.raw(std::string_view("12345678", 8));
    w.tag(93, 5);
    w.raw(std::string_view("1234", 4));
}

struct Meta {
    std::string name, ns, uid, rv;
    bool initialEventsEnd = false;
    bool unknown = false;
};

std::string objectMeta(const Meta& m) {
    return message([&](ProtoWireWriter& w) {
        if (m.unknown)
            unknownFields(w);
        if (!m.name.empty())
            w.bytes(1, m.name);
        w.bytes(2, "gen-"); // generateName: read past
        if (!m.ns.empty())
            w.bytes(3, m.ns);
        if (!m.uid.empty())
            w.bytes(5, m.uid);
        w.bytes(6, m.rv);
        w.tag(7, 0); // generation
        w.varint(3);
        w.bytes(11, message([](ProtoWireWriter& e) { // labels: not the annotation
                    e.bytes(1, "k8s.io/initial-events-end");
                    e.bytes(2, "true");
                }));
        if (m.initialEventsEnd)
            w.bytes(12, message([](ProtoWireWriter& e) {
                        e.bytes(1, "k8s.io/initial-events-end");
                        e.bytes(2, "true");
                    }));
    });
}

std::string envelope(std::string_view kind, const std::string& typed, bool unknown = false) {
    std::string out("k8s\0", 4);
    out += message([&](ProtoWireWriter& w) {
        if (unknown)
            unknownFields(w);
        w.bytes(1, message([&](ProtoWireWriter& t) {
                    t.bytes(1, "v1");
                    t.bytes(2, kind);
                }));
        w.bytes(2, typed);
        w.bytes(3, "");
        w.bytes(4, "");
    });
    return out;
}

std::string configMap(const Meta& m) {
    return envelope("ConfigMap", message([&](ProtoWireWriter& w) {
                        if (m.unknown)
                            unknownFields(w);
                        w.bytes(1, objectMeta(m));
                        w.bytes(2, message([](ProtoWireWriter& e) {
                                    e.bytes(1, "key");
                                    e.bytes(2, "value");
                                }));
                    }),
                    m.unknown);
}

std::string watchEvent(std::string_view type, const std::string& object, bool unknown = false) {
    return message([&](ProtoWireWriter& w) {
        if (unknown)
            unknownFields(w);
        w.bytes(1, type);
        w.bytes(2, message([&](ProtoWireWriter& r) {
                    if (unknown)
                        unknownFields(r);
                    r.bytes(1, object);
                }));
    });
}

std::string frame(const std::string& event) {
    const auto n = static_cast<std::uint32_t>(event.size());
    std::string out;
    out += static_cast<char>(n >> 24);
    out += static_cast<char>(n >> 16);
    out += static_cast<char>(n >> 8);
    out += static_cast<char>(n);
    return out + event;
}

std::string status410() {
    return envelope(
        "Status", message([](ProtoWireWriter& w) {
            w.bytes(1, message([](ProtoWireWriter& l) { l.bytes(3, "next-token"); }));
            w.bytes(2, "Failure");
            w.bytes(3, "too old resource version: 5 (90)");
            w.bytes(4, "Expired");
            w.bytes(5, message([](ProtoWireWriter& d) {
                        d.bytes(4, message([](ProtoWireWriter& c) {
                                    c.bytes(1, "ResourceVersionTooLarge");
                                    c.bytes(2, "Too large resource version");
                                }));
                        d.bytes(4, message([](ProtoWireWriter& c) { c.bytes(2, "second"); }));
                        d.tag(5, 0);
                        d.varint(3);
                    }));
            w.tag(6, 0);
            w.varint(410);
        }));
}

// A <Kind>List page in the envelope: ListMeta, the items (each a typed object with its
// ObjectMeta in field 1), unknown fields around them.
std::string listBody(std::string_view kind, const std::vector<Meta>& items, std::string rv,
                     std::string continueToken, std::uint64_t remaining) {
    const std::string list = message([&](ProtoWireWriter& w) {
        unknownFields(w);
        w.bytes(1, message([&](ProtoWireWriter& l) {
                    l.bytes(2, rv);
                    l.bytes(3, continueToken);
                    l.tag(4, 0);
                    l.varint(remaining);
                }));
        for (const Meta& m : items)
            w.bytes(2, message([&](ProtoWireWriter& o) {
                        o.bytes(1, objectMeta(m));
                        o.bytes(2, std::string(300, 'd')); // data: to read past
                    }));
        unknownFields(w);
    });
    return envelope(kind, list, true);
}

bool oneLine(const QString& s) {
    return !s.isEmpty() && !s.contains(u'\n') && !s.contains(u'\r');
}

} // namespace

class TestProtoWatch : public QObject {
    Q_OBJECT

private slots:
    void splitsWhateverTheChunking() {
        std::vector<std::string> events = {
            watchEvent("ADDED", configMap({"a", "ns", "u1", "10"})),
            watchEvent("BOOKMARK", configMap({"", "", "", "11", true})),
            watchEvent("DELETED", configMap({"b", "ns", "u2", "12"})), std::string()};
        std::string body;
        for (const auto& e : events)
            body += frame(e); // the last is an empty frame: legal, handed out as such
        // Every split into two chunks, then one byte at a time.
        for (std::size_t cut = 0; cut <= body.size() + 1; ++cut) {
            LengthDelimitedSplitter s;
            std::vector<std::string> got;
            const auto on = [&](std::string_view f) { got.emplace_back(f); };
            if (cut <= body.size()) {
                QVERIFY(s.feed(std::string_view(body).substr(0, cut), on));
                QVERIFY(s.feed(std::string_view(body).substr(cut), on));
            } else {
                for (const char c : body)
                    QVERIFY(s.feed(std::string_view(&c, 1), on));
            }
            QVERIFY(s.finish());
            QCOMPARE(got, events);
            QCOMPARE(s.frameCount(), std::uint64_t(events.size()));
            QCOMPARE(s.bytesConsumed(), std::uint64_t(body.size()));
            QCOMPARE(s.bufferedBytes(), std::size_t(0));
        }
    }

    void refusesOversizeFrames() {
        LengthDelimitedSplitter s(16);
        int frames = 0;
        const auto on = [&](std::string_view) { ++frames; };
        QVERIFY(s.feed(frame(std::string(16, 'x')), on)); // at the limit: fine
        const std::string big = frame(std::string(17, 'x'));
        QVERIFY(s.feed(big.substr(0, 2), on)); // the length is not known yet
        QVERIFY(!s.feed(big.substr(2), on));
        QCOMPARE(frames, 1);
        QVERIFY2(oneLine(s.error()), qPrintable(s.error()));
        QVERIFY2(s.error().contains(QLatin1String("offset 20")), qPrintable(s.error()));
        QCOMPARE(s.errorOffset(), std::uint64_t(20));
        // Sticky, also for good bytes, and finish() too.
        QVERIFY(!s.feed(frame("ok"), on));
        QVERIFY(!s.finish());
        QCOMPARE(frames, 1);
        s.reset();
        QVERIFY(s.feed(frame("ok"), on));
        QCOMPARE(frames, 2);
        // A length near 4 GiB is refused from its prefix, before anything is buffered.
        LengthDelimitedSplitter huge;
        QVERIFY(!huge.feed(std::string_view("\xff\xff\xff\xff", 4), on));
        QCOMPARE(huge.bufferedBytes(), std::size_t(0));
    }

    void refusesTruncatedStreams() {
        const std::string f = frame(watchEvent("ADDED", configMap({"a", "ns", "u", "7"})));
        for (std::size_t cut : {std::size_t(1), std::size_t(3), std::size_t(4), f.size() - 1}) {
            LengthDelimitedSplitter s;
            QVERIFY(s.feed(std::string_view(f).substr(0, cut), [](std::string_view) {}));
            QVERIFY(s.inFrame());
            QVERIFY(!s.finish());
            QVERIFY2(oneLine(s.error()), qPrintable(s.error()));
            QVERIFY2(s.error().contains(QLatin1String("stream ended inside")),
                     qPrintable(s.error()));
        }
    }

    void decodesObjects() {
        ProtoWatchEventDecoder d;
        WatchEventJson e;
        QString error;
        const std::string object = configMap({"cm-1", "team-a", "uid-1", "4711"});
        const std::string event = watchEvent("MODIFIED", object);
        QVERIFY2(d.decode(event, &e, &error), qPrintable(error));
        QCOMPARE(e.type, WatchEventType::Modified);
        QCOMPARE(e.kind, std::string("ConfigMap"));
        QCOMPARE(e.name, std::string("cm-1"));
        QCOMPARE(e.ns, std::string("team-a"));
        QCOMPARE(e.uid, std::string("uid-1"));
        QCOMPARE(e.resourceVersion, ResourceVersion(4711));
        QVERIFY(!e.initialEventsEnd); // a label of that name is no annotation
        // The object as received, in the envelope, pointing into the frame.
        QCOMPARE(std::string(e.object), object);
        QVERIFY(e.object.data() >= event.data() &&
                e.object.data() + e.object.size() <= event.data() + event.size());
    }

    void skipsUnknownFields() {
        Meta m{"cm-2", "team-b", "uid-2", "99"};
        m.unknown = true;
        ProtoWatchEventDecoder d;
        WatchEventJson e;
        QString error;
        QVERIFY2(d.decode(watchEvent("ADDED", configMap(m), true), &e, &error), qPrintable(error));
        QCOMPARE(e.type, WatchEventType::Added);
        QCOMPARE(e.name, std::string("cm-2"));
        QCOMPARE(e.ns, std::string("team-b"));
        QCOMPARE(e.resourceVersion, ResourceVersion(99));
    }

    void decodesBookmarks() {
        ProtoWatchEventDecoder d;
        WatchEventJson e;
        QString error;
        QVERIFY2(
            d.decode(watchEvent("BOOKMARK", configMap({"", "", "", "1200", true})), &e, &error),
            qPrintable(error));
        QCOMPARE(e.type, WatchEventType::Bookmark);
        QCOMPARE(e.resourceVersion, ResourceVersion(1200));
        QVERIFY(e.initialEventsEnd);
        QVERIFY(e.name.empty());
        QVERIFY2(d.decode(watchEvent("BOOKMARK", configMap({"", "", "", "1300"})), &e, &error),
                 qPrintable(error));
        QVERIFY(!e.initialEventsEnd);
        QCOMPARE(e.resourceVersion, ResourceVersion(1300));
    }

    void decodesErrorStatus() {
        ProtoWatchEventDecoder d;
        WatchEventJson e;
        QString error;
        QVERIFY2(d.decode(watchEvent("ERROR", status410()), &e, &error), qPrintable(error));
        QCOMPARE(e.type, WatchEventType::Error);
        QCOMPARE(e.kind, std::string("Status"));
        QCOMPARE(e.status.code, 410);
        QCOMPARE(e.status.reason, QStringLiteral("Expired"));
        QCOMPARE(e.status.message, QStringLiteral("too old resource version: 5 (90)"));
        QVERIFY(e.status.hasCause); // the first cause, as the JSON reader keeps it
        QCOMPARE(e.status.causeReason, QStringLiteral("ResourceVersionTooLarge"));
        QCOMPARE(e.status.causeMessage, QStringLiteral("Too large resource version"));
        QCOMPARE(e.status.retryAfterSeconds, 3);
        // The same Status as a whole error body.
        const auto s = ProtoWatchEventDecoder::decodeStatus(status410(), &error);
        QVERIFY2(s.has_value(), qPrintable(error));
        QCOMPARE(s->code, 410);
        QCOMPARE(s->reason, QStringLiteral("Expired"));
        // A Status in a non-ERROR event fills no status (as the JSON decoder).
        QVERIFY(d.decode(watchEvent("MODIFIED", status410()), &e, &error));
        QCOMPARE(e.status.code, 0);
        // A body that is a ConfigMap is no Status.
        QVERIFY(!ProtoWatchEventDecoder::decodeStatus(configMap({"a", "b", "c", "1"}), &error));
        QVERIFY2(oneLine(error) && error.contains(QLatin1String("not a Status")),
                 qPrintable(error));
    }

    void refusesBadEvents_data() {
        QTest::addColumn<QByteArray>("event");
        QTest::addColumn<QString>("expected");
        const std::string good = configMap({"a", "ns", "u", "5"});
        auto row = [](const char* name, const std::string& bytes, const char* expected) {
            QTest::newRow(name) << QByteArray::fromStdString(bytes) << QString::fromUtf8(expected);
        };
        std::string badMagic = good;
        badMagic[3] = '\x01';
        row("bad magic", watchEvent("ADDED", badMagic), "k8s\\0 protobuf prefix");
        row("json object", watchEvent("ADDED", R"({"kind":"ConfigMap"})"),
            "k8s\\0 protobuf prefix");
        const std::string event = watchEvent("ADDED", good);
        row("truncated", event.substr(0, event.size() - 3), "truncated or malformed");
        row("no type", message([&](ProtoWireWriter& w) {
                w.bytes(2, message([&](ProtoWireWriter& r) { r.bytes(1, good); }));
            }),
            "has no type");
        row("unknown type", watchEvent("RENAMED\nX", good), "unknown type \"RENAMED\\nX\"");
        row("no object", message([](ProtoWireWriter& w) { w.bytes(1, "ADDED"); }), "has no object");
        row("type as varint", message([](ProtoWireWriter& w) {
                w.tag(1, 0);
                w.varint(1);
            }),
            "wire type 0, not 2");
        row("bad rv", watchEvent("ADDED", configMap({"a", "ns", "u", "12a"})),
            "resourceVersion \"12a\" is not a decimal number");
        row("rv overflow", watchEvent("ADDED", configMap({"a", "ns", "u", "99999999999999999999"})),
            "is not a decimal number");
        row("group wire type",
            watchEvent("ADDED", good) + message([](ProtoWireWriter& w) { w.tag(7, 3); }),
            "truncated or malformed");
        row("field zero", std::string("\x00\x01", 2), "bad field tag 0");
        row("content encoding",
            watchEvent("ADDED", std::string("k8s\0", 4) + message([](ProtoWireWriter& w) {
                                    w.bytes(2, "");
                                    w.bytes(3, "gzip");
                                })),
            "contentEncoding \"gzip\"");
        row("no raw", watchEvent("ADDED", std::string("k8s\0", 4)), "has no raw object");
        row("empty", std::string(), "has no type");
    }

    void refusesBadEvents() {
        QFETCH(QByteArray, event);
        QFETCH(QString, expected);
        ProtoWatchEventDecoder d;
        WatchEventJson e;
        QString error;
        QVERIFY(
            !d.decode(std::string_view(event.constData(), std::size_t(event.size())), &e, &error));
        QVERIFY2(oneLine(error), qPrintable(error));
        QVERIFY2(error.startsWith(QLatin1String("protobuf watch event: ")), qPrintable(error));
        QVERIFY2(error.contains(expected), qPrintable(error));
        QVERIFY(e.object.empty() && e.name.empty());
    }

    void decodesListsWhateverTheChunking() {
        const std::vector<Meta> items = {
            {"a", "ns-1", "u-a", "17"}, {"b", "ns-2", "u-b", "18"}, {"c", "", "u-c", "19"}};
        const std::string body = listBody("ConfigMapList", items, "500", "next", 7);
        for (std::size_t cut = 0; cut <= body.size() + 1; ++cut) {
            std::vector<ListItemMeta> got;
            ProtoListDecoder d([&](std::string_view item, const ListItemMeta& meta) {
                QVERIFY(item.size() > 300);
                got.push_back(meta);
            });
            if (cut <= body.size()) {
                QVERIFY2(d.feed(std::string_view(body).substr(0, cut)), qPrintable(d.error()));
                QVERIFY2(d.feed(std::string_view(body).substr(cut)), qPrintable(d.error()));
            } else {
                for (const char c : body)
                    QVERIFY2(d.feed(std::string_view(&c, 1)), qPrintable(d.error()));
            }
            QVERIFY2(d.finish(), qPrintable(d.error()));
            QCOMPARE(got.size(), items.size());
            for (std::size_t i = 0; i < items.size(); ++i) {
                QCOMPARE(got[i].name, items[i].name);
                QCOMPARE(got[i].ns, items[i].ns);
                QCOMPARE(got[i].uid, items[i].uid);
                QCOMPARE(got[i].resourceVersion, ResourceVersion(17 + i));
            }
            const ListSummary& s = d.summary();
            QCOMPARE(s.kind, std::string("ConfigMapList"));
            QCOMPARE(s.apiVersion, std::string("v1"));
            QCOMPARE(s.resourceVersion, ResourceVersion(500));
            QCOMPARE(s.continueToken, std::string("next"));
            QCOMPARE(s.remainingItemCount.value_or(-1), std::int64_t(7));
            QCOMPARE(s.itemCount, std::uint64_t(3));
            QCOMPARE(d.bytesConsumed(), std::uint64_t(body.size()));
            // At most one item (and a header) is ever held.
            QVERIFY(d.bufferedBytes() == 0);
        }
        // An empty last page.
        ProtoListDecoder empty([](std::string_view, const ListItemMeta&) { QFAIL("no items"); });
        QVERIFY(empty.feed(listBody("PodList", {}, "9", "", 0)));
        QVERIFY2(empty.finish(), qPrintable(empty.error()));
        QCOMPARE(empty.summary().resourceVersion, ResourceVersion(9));
        QVERIFY(empty.summary().continueToken.empty());
    }

    void refusesBadLists_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("maxItem");
        QTest::addColumn<QString>("expected");
        const std::string good = listBody("ConfigMapList", {{"a", "n", "u", "5"}}, "6", "", 0);
        auto row = [](const char* name, const std::string& bytes, int maxItem,
                      const char* expected) {
            QTest::newRow(name) << QByteArray::fromStdString(bytes) << maxItem
                                << QString::fromUtf8(expected);
        };
        row("status", status410(), 0, "the body is a Status, not a list");
        row("empty", std::string(), 0, "the body is empty");
        row("json", R"({"kind":"ConfigMapList","items":[]})", 0, "k8s\\0 protobuf prefix");
        for (std::size_t cut : {std::size_t(2), std::size_t(9), good.size() / 2, good.size() - 1})
            QTest::newRow(qPrintable(QStringLiteral("truncated at %1").arg(cut)))
                << QByteArray::fromStdString(good.substr(0, cut)) << 0
                << (cut < 4 ? QStringLiteral("inside the k8s\\0 prefix")
                            : QStringLiteral("the body ended inside a field"));
        row("oversize item", good, 64, "an item of ");
        row("bad item rv", listBody("ConfigMapList", {{"a", "n", "u", "5x"}}, "6", "", 0), 0,
            "an item's resourceVersion \"5x\" is not a decimal number");
        row("bad list rv", listBody("ConfigMapList", {}, "-1", "", 0), 0,
            "the list's resourceVersion \"-1\" is not a decimal number");
        row("no list", std::string("k8s\0", 4) + message([](ProtoWireWriter& w) {
                           w.bytes(1, message([](ProtoWireWriter& t) { t.bytes(2, "PodList"); }));
                       }),
            0, "runtime.Unknown holds no object");
        row("group field", std::string("k8s\0", 4) + "\x0b", 0, "malformed field header");
        row("field past the end", std::string("k8s\0", 4) + message([&](ProtoWireWriter& w) {
                                      w.bytes(2, message([](ProtoWireWriter& l) {
                                                     l.tag(2, 2);
                                                     l.varint(50); // an item of 50 bytes in 2
                                                 }) + "xx");
                                  }),
            0, "runs past its end");
    }

    void refusesBadLists() {
        QFETCH(QByteArray, body);
        QFETCH(int, maxItem);
        QFETCH(QString, expected);
        ProtoListDecoder d([](std::string_view, const ListItemMeta&) {},
                           maxItem > 0 ? std::size_t(maxItem)
                                       : ProtoListDecoder::kDefaultMaxItemBytes);
        const bool fed = d.feed(body.constData(), std::size_t(body.size()));
        QVERIFY(!(fed && d.finish()));
        QVERIFY2(oneLine(d.error()), qPrintable(d.error()));
        QVERIFY2(d.error().startsWith(QLatin1String("protobuf list: ")), qPrintable(d.error()));
        QVERIFY2(d.error().contains(expected), qPrintable(d.error()));
        // Sticky.
        QVERIFY(!d.feed(std::string_view("k8s\0", 4)));
        QVERIFY(!d.finish());
    }

    // Inputs fuzz_proto_watch_stream found trouble with (tests/fuzz/corpus/proto_watch_stream):
    // a Status-like object whose kind holds a NUL and control bytes, with a truncated field
    // after it; the kind went into the error line.
    void fuzzedInputsAreOneLine() {
        const QByteArray input = test::fuzzReproducer(QStringLiteral("proto_watch_stream"),
                                                      QStringLiteral("regress-kind-control-bytes"));
        QVERIFY(!input.isEmpty());
        // FuzzChunker's layout: a first byte of 0 is "no chunk sizes", the body follows.
        QCOMPARE(input.at(0), '\0');
        LengthDelimitedSplitter s;
        ProtoWatchEventDecoder d;
        QStringList errors;
        // What follows the frame is a length over the limit: the splitter's own one-line error.
        s.feed(std::string_view(input.constData() + 1, std::size_t(input.size() - 1)),
               [&](std::string_view frame) {
                   WatchEventJson e;
                   QString error;
                   if (!d.decode(frame, &e, &error))
                       errors << error;
               });
        QCOMPARE(errors.size(), 1);
        QVERIFY2(oneLine(errors[0]), qPrintable(errors[0]));
        QVERIFY2(!errors[0].contains(QChar(0)), qPrintable(errors[0]));
    }
};

QTEST_GUILESS_MAIN(TestProtoWatch)
#include "tst_protowatch.moc"

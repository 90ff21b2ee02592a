// `watchscope-cli serve` answering protobuf (issue 14): content negotiation, the ConfigMap
// encoder (ObjectProto) read back field by field, and over real sockets the same watch served
// as JSON and as protobuf frames side by side, decoded by the cluster source's own decoders
// (WatchEventDecoder, ProtoWatchEventDecoder): the same events, RVs, names, initial-events-end
// bookmark and 410 ERROR. Then `record --wire protobuf` against it, next to a JSON recorder.

#include "serve/AcceptNegotiation.h"
#include "serve/ObjectProto.h"
#include "sources/cluster/json/JsonObjectSplitter.h"
#include "sources/cluster/json/WatchEventDecoder.h"
#include "sources/cluster/proto/LengthDelimitedSplitter.h"
#include "sources/cluster/proto/ProtoWatchEventDecoder.h"
#include "support/ServeProcess.h"
#include "util/ProtoWireReader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <memory>

using namespace ws;
using ws::test::ServeProcess;

namespace {

// Every field of one message: number -> values as received (length-delimited as bytes,
// varints as their decimal text).
std::multimap<int, std::string> fieldsOf(std::string_view message, bool* ok) {
    std::multimap<int, std::string> out;
    ProtoWireReader r{message.data(), message.data() + message.size()};
    while (r.ok && !r.atEnd()) {
        const std::uint64_t tag = r.varint();
        const int n = static_cast<int>(tag >> 3);
        if ((tag & 7) == 2)
            out.emplace(n, std::string(r.bytes()));
        else if ((tag & 7) == 0)
            out.emplace(n, std::to_string(r.varint()));
        else
            r.skip(static_cast<std::uint32_t>(tag & 7));
    }
    *ok = r.ok;
    return out;
}

std::string field(const std::multimap<int, std::string>& m, int n) {
    const auto it = m.find(n);
    return it == m.end() ? std::string() : it->second;
}

// One watch over HTTP, decoded as the cluster source decodes it, by its Content-Type.
struct Watch {
    std::unique_ptr<QNetworkReply> reply;
    QByteArray contentType;
    JsonObjectSplitter json;
    WatchEventDecoder jsonDecoder;
    LengthDelimitedSplitter frames;
    ProtoWatchEventDecoder protoDecoder;
    QStringList events; // "ADDED ns-0/configmap-3 17", "BOOKMARK 40 end", "ERROR 410 Expired ..."
    QStringList errors;
    int endBookmarkAt = -1;

    void onEvent(std::string_view bytes, bool proto) {
        WatchEventJson e;
        QString error;
        if (!(proto ? protoDecoder.decode(bytes, &e, &error)
                    : jsonDecoder.decode(bytes, &e, &error))) {
            errors << error;
            return;
        }
        QString line = watchEventTypeName(e.type);
        if (e.type == WatchEventType::Error)
            line += QStringLiteral(" %1 %2 %3")
                        .arg(e.status.code)
                        .arg(e.status.reason, e.status.message);
        else if (e.type == WatchEventType::Bookmark)
            line += QStringLiteral(" %1%2")
                        .arg(e.resourceVersion)
                        .arg(e.initialEventsEnd ? QStringLiteral(" end") : QString());
        else
            line += QStringLiteral(" %1/%2 %3 %4")
                        .arg(QString::fromStdString(e.ns), QString::fromStdString(e.name))
                        .arg(e.resourceVersion)
                        .arg(QString::fromStdString(e.kind));
        if (e.type == WatchEventType::Bookmark && e.initialEventsEnd && endBookmarkAt < 0)
            endBookmarkAt = static_cast<int>(events.size());
        events << line;
    }

    void start(QNetworkAccessManager& net, const QString& url, const QByteArray& accept) {
        QNetworkRequest request{QUrl(url)};
        request.setRawHeader("Accept", accept);
        reply.reset(net.get(request));
        QObject::connect(reply.get(), &QNetworkReply::readyRead, reply.get(), [this] {
            if (contentType.isEmpty())
                contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
            const bool proto = contentType.startsWith("application/vnd.kubernetes.protobuf");
            const QByteArray bytes = reply->readAll();
            const auto on = [this, proto](std::string_view e) { onEvent(e, proto); };
            const bool ok = proto ? frames.feed(bytes.constData(), std::size_t(bytes.size()), on)
                                  : json.feed(bytes.constData(), std::size_t(bytes.size()), on);
            if (!ok)
                errors << (proto ? frames.error() : json.error());
        });
    }
};

} // namespace

class TestServeProto : public QObject {
    Q_OBJECT

    QNetworkAccessManager m_net;

    bool firstEventIs410(const QString& url) {
        Watch probe;
        probe.start(m_net, url, "application/json");
        const bool answered = QTest::qWaitFor(
            [&] { return !probe.events.isEmpty() || probe.reply->isFinished(); }, 10000);
        probe.reply->abort();
        if (!answered)
            return false;
        return probe.events.value(0).startsWith(QLatin1String("ERROR 410"));
    }

private slots:
    void negotiatesTheEncoding() {
        const auto pb = "application/vnd.kubernetes.protobuf";
        QCOMPARE(negotiateEncoding("", true), ServedEncoding::Json);
        QCOMPARE(negotiateEncoding("application/json", true), ServedEncoding::Json);
        // client-go's typed clients with ContentType protobuf.
        QCOMPARE(negotiateEncoding("application/vnd.kubernetes.protobuf, application/json", true),
                 ServedEncoding::Protobuf);
        QCOMPARE(negotiateEncoding("application/vnd.kubernetes.protobuf, application/json", false),
                 ServedEncoding::Json);
        QCOMPARE(negotiateEncoding("application/json, application/vnd.kubernetes.protobuf", true),
                 ServedEncoding::Json); // the first listed wins a tie
        QCOMPARE(
            negotiateEncoding("application/json;q=0.5, application/vnd.kubernetes.protobuf", true),
            ServedEncoding::Protobuf);
        QCOMPARE(negotiateEncoding("Application/Vnd.Kubernetes.Protobuf;stream=watch", true),
                 ServedEncoding::Protobuf);
        QCOMPARE(negotiateEncoding(pb, false), ServedEncoding::NotAcceptable);
        QCOMPARE(negotiateEncoding("text/html", true), ServedEncoding::Json);
        QCOMPARE(negotiateEncoding("application/vnd.kubernetes.protobuf, application/yaml", false),
                 ServedEncoding::NotAcceptable);
        QCOMPARE(negotiateEncoding("*/*", true), ServedEncoding::Json);
        QCOMPARE(negotiateEncoding("application/vnd.kubernetes.protobuf;q=0, */*", true),
                 ServedEncoding::Json);
    }

    void encodesConfigMaps() {
        ResourceInfo cm = ResourceCatalog::lookup(QStringLiteral("configmaps"));
        QVERIFY(ObjectProto::encodes(cm));
        QVERIFY(!ObjectProto::encodes(ResourceCatalog::lookup(QStringLiteral("pods"))));
        const std::string stored =
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"ns",)"
            R"("uid":"u-1","resourceVersion":"","generation":2,)"
            R"("creationTimestamp":"2024-05-06T07:08:09Z","labels":{"b":"2","a":"1"},)"
            R"("annotations":{"k":"v"},"finalizers":["f1"],"ownerReferences":[{"apiVersion":"v1",)"
            R"("kind":"Pod","name":"p","uid":"pu","controller":true}]},"spec":{"nodeName":"n"},)"
            R"("data":{"x":"y"},"binaryData":{"bin":"AAEC/w=="},"immutable":true})";
        const auto kv = KeyValue::make(1, 5, 7, 1, stored);
        std::string out, error;
        QVERIFY2(ObjectProto::appendEvent(out, WatchEventType::Added, cm, *kv, 7, &error),
                 error.c_str());
        // One frame: its length, then a WatchEvent the cluster source decodes.
        QVERIFY(out.size() > 4);
        const std::uint32_t n = std::uint32_t(std::uint8_t(out[0])) << 24 |
                                std::uint32_t(std::uint8_t(out[1])) << 16 |
                                std::uint32_t(std::uint8_t(out[2])) << 8 | std::uint8_t(out[3]);
        QCOMPARE(std::size_t(n), out.size() - 4);
        ProtoWatchEventDecoder d;
        WatchEventJson e;
        QString why;
        QVERIFY2(d.decode(std::string_view(out).substr(4), &e, &why), qPrintable(why));
        QCOMPARE(e.type, WatchEventType::Added);
        QCOMPARE(e.kind, std::string("ConfigMap"));
        QCOMPARE(e.name, std::string("cm"));
        QCOMPARE(e.ns, std::string("ns"));
        QCOMPARE(e.uid, std::string("u-1"));
        QCOMPARE(e.resourceVersion, ResourceVersion(7)); // the served RV, not the stored ""
        // The rest, field by field: runtime.Unknown.raw is the ConfigMap.
        bool ok = false;
        const auto unknown = fieldsOf(e.object.substr(4), &ok);
        QVERIFY(ok);
        const auto typed = fieldsOf(field(unknown, 2), &ok);
        QVERIFY(ok);
        QCOMPARE(typed.count(1), std::size_t(1));
        QCOMPARE(typed.count(5), std::size_t(0));    // spec: no such ConfigMap field
        QCOMPARE(field(typed, 4), std::string("1")); // immutable
        const auto data = fieldsOf(field(typed, 2), &ok);
        QCOMPARE(field(data, 1), std::string("x"));
        QCOMPARE(field(data, 2), std::string("y"));
        const auto bin = fieldsOf(field(typed, 3), &ok);
        QCOMPARE(field(bin, 1), std::string("bin"));
        QCOMPARE(field(bin, 2), std::string("\x00\x01\x02\xff", 4)); // base64 decoded
        const auto meta = fieldsOf(field(typed, 1), &ok);
        QCOMPARE(field(meta, 7), std::string("2"));
        QCOMPARE(field(fieldsOf(field(meta, 8), &ok), 1), std::string("1714979289"));
        QCOMPARE(field(meta, 14), std::string("f1"));
        QCOMPARE(meta.count(11), std::size_t(2));
        // Map entries in key order, as Go writes them.
        QCOMPARE(field(fieldsOf(meta.lower_bound(11)->second, &ok), 1), std::string("a"));
        const auto owner = fieldsOf(field(meta, 13), &ok);
        QCOMPARE(field(owner, 1), std::string("Pod"));
        QCOMPARE(field(owner, 4), std::string("pu"));
        QCOMPARE(field(owner, 6), std::string("1"));

        // What cannot be a ConfigMap is refused with one line.
        for (const char* bad : {R"([1,2])", R"({"metadata":{"name":5}})",
                                R"({"metadata":{},"binaryData":{"b":"not base64!"}})",
                                R"({"metadata":{"creationTimestamp":"yesterday"}})", "{"}) {
            const auto v = KeyValue::make(1, 5, 7, 1, bad);
            std::string o, err;
            QVERIFY2(!ObjectProto::appendEvent(o, WatchEventType::Added, cm, *v, 7, &err), bad);
            QVERIFY2(!err.empty() && err.find('\n') == std::string::npos, err.c_str());
        }
    }

    // The same watch-list of a 1.34 apiserver, once as JSON and once as protobuf, opened
    // together: the same initial events, the same initial-events-end bookmark, the same live
    // events after it (over etcd 3.5.13: a 1.34 cacher refuses watch-lists over healthy's
    // 3.4.23).
    void servesTheSameEventsAsJson() {
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                              QStringLiteral("--server-version"), QStringLiteral("1.34"),
                              QStringLiteral("--etcd-version"), QStringLiteral("3.5.13")},
                             &error),
                 qPrintable(error));
        const QString url =
            serve.url() + QStringLiteral("/api/v1/configmaps?watch=true&sendInitialEvents="
                                         "true&resourceVersionMatch=NotOlderThan&"
                                         "allowWatchBookmarks=true&timeoutSeconds=60");
        Watch json, proto;
        json.start(m_net, url, "application/json");
        proto.start(m_net, url, "application/vnd.kubernetes.protobuf, application/json");
        constexpr int kLive = 40;
        QTRY_VERIFY_WITH_TIMEOUT(json.endBookmarkAt >= 0 && proto.endBookmarkAt >= 0 &&
                                     json.events.size() > json.endBookmarkAt + kLive &&
                                     proto.events.size() > proto.endBookmarkAt + kLive,
                                 45000);
        json.reply->abort();
        proto.reply->abort();
        QCOMPARE(json.contentType, QByteArray("application/json"));
        QCOMPARE(proto.contentType, QByteArray("application/vnd.kubernetes.protobuf;stream=watch"));
        QVERIFY2(json.errors.isEmpty(), qPrintable(json.errors.join(u'\n')));
        QVERIFY2(proto.errors.isEmpty(), qPrintable(proto.errors.join(u'\n')));
        QVERIFY(json.endBookmarkAt > 0); // initial ADDED events, then the bookmark
        QCOMPARE(proto.endBookmarkAt, json.endBookmarkAt);
        const int n = int(std::min(json.events.size(), proto.events.size()));
        QCOMPARE(proto.events.mid(0, n), json.events.mid(0, n));
        QVERIFY(json.events.at(json.endBookmarkAt + 1).contains(QLatin1String("ConfigMap")));
        qInfo("%d events compared (%d initial, the initial-events-end bookmark, %d live)", n,
              json.endBookmarkAt, n - json.endBookmarkAt - 1);
    }

    // A watch from a compacted RV: the ERROR event, 410 Expired, the same in both encodings.
    void servesTheSameExpiredError() {
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy")}, &error),
                 qPrintable(error));
        Watch json, proto;
        const QString url =
            serve.url() + QStringLiteral("/api/v1/configmaps?watch=true&resourceVersion=1");
        // Once the ring buffer has moved past RV 1.
        QTRY_VERIFY_WITH_TIMEOUT(firstEventIs410(url), 30000);

        json.start(m_net, url, "application/json");
        proto.start(m_net, url, "application/vnd.kubernetes.protobuf, application/json");
        QTRY_VERIFY_WITH_TIMEOUT(json.reply->isFinished() && proto.reply->isFinished(), 15000);
        QVERIFY2(proto.errors.isEmpty(), qPrintable(proto.errors.join(u'\n')));
        QCOMPARE(proto.contentType, QByteArray("application/vnd.kubernetes.protobuf;stream=watch"));
        QCOMPARE(json.events.size(), 1);
        QVERIFY2(json.events[0].startsWith(QLatin1String("ERROR 410 Expired too old resource "
                                                         "version: 1 (")),
                 qPrintable(json.events[0]));
        QCOMPARE(proto.events, json.events);
    }

    // A page of ConfigMaps at one revision, as JSON and as protobuf: the same items, RV and
    // continue token; pods (no protobuf here) to a protobuf-only client: 406.
    void servesTheSameListPage() {
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy")}, &error),
                 qPrintable(error));
        const auto get = [&](const QString& path, const QByteArray& accept) {
            QNetworkRequest request{QUrl(serve.url() + path)};
            request.setRawHeader("Accept", accept);
            std::unique_ptr<QNetworkReply> reply(m_net.get(request));
            const bool done = QTest::qWaitFor([&] { return reply->isFinished(); }, 15000);
            return std::tuple{
                done ? reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() : 0,
                reply->header(QNetworkRequest::ContentTypeHeader).toByteArray(), reply->readAll()};
        };
        const auto [status0, type0, first] =
            get(QStringLiteral("/api/v1/configmaps?limit=1"), "application/json");
        QCOMPARE(status0, 200);
        const QString rv = QJsonDocument::fromJson(first)
                               .object()
                               .value(QLatin1String("metadata"))
                               .toObject()
                               .value(QLatin1String("resourceVersion"))
                               .toString();
        QVERIFY(!rv.isEmpty());
        const QString page =
            QStringLiteral("/api/v1/configmaps?limit=5&resourceVersion=%1&resourceVersionMatch="
                           "Exact")
                .arg(rv);
        const auto [jsonStatus, jsonType, jsonBody] = get(page, "application/json");
        const auto [protoStatus, protoType, protoBody] =
            get(page, "application/vnd.kubernetes.protobuf, application/json");
        QCOMPARE(jsonStatus, 200);
        QCOMPARE(protoStatus, 200);
        QCOMPARE(protoType, QByteArray("application/vnd.kubernetes.protobuf"));
        const QJsonObject json = QJsonDocument::fromJson(jsonBody).object();
        QStringList expected;
        for (const QJsonValue& item : json.value(QLatin1String("items")).toArray()) {
            const QJsonObject meta = item.toObject().value(QLatin1String("metadata")).toObject();
            expected << meta.value(QLatin1String("namespace")).toString() + u'/' +
                            meta.value(QLatin1String("name")).toString() + u' ' +
                            meta.value(QLatin1String("resourceVersion")).toString();
        }
        QCOMPARE(expected.size(), 5);
        QVERIFY(protoBody.startsWith(QByteArray("k8s\0", 4)));
        bool ok = false;
        const auto unknown = fieldsOf(
            std::string_view(protoBody.constData() + 4, std::size_t(protoBody.size() - 4)), &ok);
        QVERIFY(ok);
        QCOMPARE(field(fieldsOf(field(unknown, 1), &ok), 2), std::string("ConfigMapList"));
        const auto list = fieldsOf(field(unknown, 2), &ok);
        const auto listMeta = fieldsOf(field(list, 1), &ok);
        const QJsonObject jsonMeta = json.value(QLatin1String("metadata")).toObject();
        QCOMPARE(QString::fromStdString(field(listMeta, 2)), rv);
        QCOMPARE(QString::fromStdString(field(listMeta, 3)),
                 jsonMeta.value(QLatin1String("continue")).toString());
        QCOMPARE(QString::fromStdString(field(listMeta, 4)),
                 QString::number(jsonMeta.value(QLatin1String("remainingItemCount")).toInteger()));
        QStringList got;
        for (auto [it, end] = list.equal_range(2); it != end; ++it) {
            const auto meta = fieldsOf(field(fieldsOf(it->second, &ok), 1), &ok);
            got << QString::fromStdString(field(meta, 3) + '/' + field(meta, 1) + ' ' +
                                          field(meta, 6));
        }
        QCOMPARE(got, expected);

        const auto [podStatus, podType, podBody] =
            get(QStringLiteral("/api/v1/pods?limit=1"), "application/vnd.kubernetes.protobuf");
        QCOMPARE(podStatus, 406);
        QVERIFY2(podBody.contains("NotAcceptable"), podBody.constData());
        const auto [podJson, podJsonType, podJsonBody] =
            get(QStringLiteral("/api/v1/pods?limit=1"),
                "application/vnd.kubernetes.protobuf, application/json");
        QCOMPARE(podJson, 200);
        QCOMPARE(podJsonType, QByteArray("application/json"));
    }

    // A stored object that is no ConfigMap, as etcd can hold one written past the apiserver
    // (serve's create refuses it, as kube-apiserver does): a store with a number in a
    // ConfigMap's data, restored from --state-dir. A protobuf watch says so in a 500 ERROR and
    // ends, a JSON watch serves it as stored.
    void saysWhatItCannotEncode() {
        QTemporaryDir state;
        QVERIFY(state.isValid());
        const QStringList args{QStringLiteral("--scenario"), QStringLiteral("healthy"),
                               QStringLiteral("--state-dir"), state.path()};
        QString error;
        {
            ServeProcess first; // writes the scenario's store, stopped when it is ready
            QVERIFY2(first.start(args, &error), qPrintable(error));
            first.stop();
        }
        QFile store(state.filePath(QStringLiteral("store.jsonl")));
        QVERIFY(store.open(QIODevice::ReadWrite));
        const QList<QByteArray> lines = store.readAll().trimmed().split('\n');
        QVERIFY(!lines.isEmpty());
        const qint64 last =
            QJsonDocument::fromJson(lines.last()).object().value(QLatin1String("rev")).toInteger();
        QVERIFY(last > 0);
        const QByteArray odd = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"odd",)"
                               R"("namespace":"ns-0","resourceVersion":""},"data":{"n":5}})";
        store.seek(store.size());
        store.write(
            QJsonDocument(QJsonObject{{QStringLiteral("rev"), last + 1},
                                      {QStringLiteral("op"), QStringLiteral("put")},
                                      {QStringLiteral("resource"), QStringLiteral("configmaps")},
                                      {QStringLiteral("namespace"), QStringLiteral("ns-0")},
                                      {QStringLiteral("name"), QStringLiteral("odd")},
                                      {QStringLiteral("group"), 0},
                                      {QStringLiteral("external"), true},
                                      {QStringLiteral("value"), QString::fromUtf8(odd)}})
                .toJson(QJsonDocument::Compact) +
            '\n');
        store.close();
        ServeProcess serve;
        QVERIFY2(serve.start(args, &error), qPrintable(error));
        const QString url = serve.url() + QStringLiteral("/api/v1/namespaces/ns-0/configmaps?"
                                                         "watch=true&resourceVersion=0&"
                                                         "fieldSelector=metadata.name%3Dodd");
        Watch json, proto;
        json.start(m_net, url, "application/json");
        proto.start(m_net, url, "application/vnd.kubernetes.protobuf, application/json");
        QTRY_VERIFY_WITH_TIMEOUT(!json.events.isEmpty() && proto.reply->isFinished(), 15000);
        json.reply->abort();
        QVERIFY2(json.events[0].startsWith(QLatin1String("ADDED ns-0/odd ")),
                 qPrintable(json.events[0]));
        QCOMPARE(proto.events.size(), 1);
        QVERIFY2(proto.events[0].startsWith(
                     QLatin1String("ERROR 500 InternalError Internal error occurred: cannot "
                                   "encode ConfigMap ns-0/odd at resourceVersion ")),
                 qPrintable(proto.events[0]));
        QVERIFY2(proto.events[0].endsWith(QLatin1String("as protobuf: data is not a string")),
                 qPrintable(proto.events[0]));
    }

    // The cluster source with --wire protobuf next to one with JSON, against the same serve:
    // both balanced accounts of every revision, without an anomaly; bad --wire is one line.
    void recordsWithProtobufWatches() {
        ServeProcess serve;
        QString error;
        QVERIFY2(serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy")}, &error),
                 qPrintable(error));
        const QStringList common{QStringLiteral("record"),
                                 QStringLiteral("--server"),
                                 serve.url(),
                                 QStringLiteral("--resources"),
                                 QStringLiteral("configmaps,pods"),
                                 QStringLiteral("--duration"),
                                 QStringLiteral("6s")};
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString capture = dir.filePath(QStringLiteral("proto.wscap"));
        const QString timeline = dir.filePath(QStringLiteral("proto.csv"));
        QProcess json, proto;
        json.start(qEnvironmentVariable("WS_CLI"),
                   common + QStringList{QStringLiteral("--wire"), QStringLiteral("json")});
        proto.start(qEnvironmentVariable("WS_CLI"),
                    common + QStringList{QStringLiteral("--wire"), QStringLiteral("protobuf"),
                                         QStringLiteral("--out"), capture,
                                         QStringLiteral("--timeline"), timeline});
        QVERIFY(json.waitForFinished(60000) && proto.waitForFinished(60000));
        const QString jsonOut = QString::fromUtf8(json.readAllStandardOutput()) +
                                QString::fromUtf8(json.readAllStandardError());
        const QString protoOut = QString::fromUtf8(proto.readAllStandardOutput()) +
                                 QString::fromUtf8(proto.readAllStandardError());
        QVERIFY2(json.exitCode() == 0, qPrintable(jsonOut));
        QVERIFY2(proto.exitCode() == 0, qPrintable(protoOut));
        QVERIFY2(protoOut.contains(QLatin1String("protobuf lists and watches")),
                 qPrintable(protoOut));
        QVERIFY2(!jsonOut.contains(QLatin1String("protobuf")), qPrintable(jsonOut));
        static const QRegularExpression summary(QStringLiteral(": (\\d+) events, (\\d+) anomal"));
        for (const QString& out : {jsonOut, protoOut}) {
            const auto m = summary.match(out);
            QVERIFY2(m.hasMatch(), qPrintable(out));
            QVERIFY2(m.captured(1).toLongLong() > 100, qPrintable(out));
            QCOMPARE(m.captured(2), QStringLiteral("0"));
            QCOMPARE(out.count(QLatin1String("seen, balanced")), 2); // configmaps and pods
        }

        // The capture replays through the same decoders, picked by the recorded Content-Type:
        // the live run's timeline again, byte for byte.
        QProcess replay;
        replay.start(qEnvironmentVariable("WS_CLI"),
                     {QStringLiteral("export"), capture, QStringLiteral("--timeline"),
                      timeline + QStringLiteral(".replayed.csv")});
        QVERIFY(replay.waitForFinished(60000));
        QVERIFY2(replay.exitCode() == 0, replay.readAllStandardError().constData());
        QFile live(timeline), replayed(timeline + QStringLiteral(".replayed.csv"));
        QVERIFY(live.open(QIODevice::ReadOnly) && replayed.open(QIODevice::ReadOnly));
        const QByteArray liveSeries = live.readAll();
        QVERIFY(liveSeries.count('\n') > 10);
        QVERIFY(liveSeries == replayed.readAll());

        QProcess bad;
        bad.start(qEnvironmentVariable("WS_CLI"),
                  {QStringLiteral("record"), QStringLiteral("--server"), serve.url(),
                   QStringLiteral("--wire"), QStringLiteral("xml")});
        QVERIFY(bad.waitForFinished(30000));
        QVERIFY(bad.exitCode() != 0);
        QCOMPARE(QString::fromUtf8(bad.readAllStandardError()).trimmed(),
                 QStringLiteral("watchscope-cli: record: --wire: bad value 'xml': expected json "
                                "or protobuf"));
        bad.start(qEnvironmentVariable("WS_CLI"),
                  {QStringLiteral("record"), QStringLiteral("--scenario"),
                   QStringLiteral("healthy"), QStringLiteral("--wire"),
                   QStringLiteral("protobuf")});
        QVERIFY(bad.waitForFinished(30000));
        QVERIFY(bad.exitCode() != 0);
        QCOMPARE(QString::fromUtf8(bad.readAllStandardError()).trimmed(),
                 QStringLiteral("watchscope-cli: record: --wire only applies to --kubeconfig and "
                                "--server"));
    }
};

QTEST_GUILESS_MAIN(TestServeProto)
#include "tst_serveproto.moc"

// The cluster source's start-up on a cluster with many resources, frame by frame
// (sources/cluster/ClusterFrameConsumer): the informers' LISTs go out a few at a time
// (ListThrottle), each when a LIST in flight ends, so none waits in the transport's queue with its
// timeout running, and a LIST still waiting when its informer stops is never sent.

#include "engine/Pipeline.h"
#include "sources/cluster/ClusterFrameConsumer.h"
#include "sources/cluster/ListThrottle.h"
#include "sources/cluster/http/HttpFrameRecords.h"
#include "sources/cluster/http/HttpRequest.h"
#include "support/HttpFrames.h"

#include <QTest>
#include <QUrlQuery>

using namespace ws;

namespace {

constexpr int kResources = 40;

// Records what the consumer sends and cancels.
class RecordingSink : public ClusterRequestSink {
public:
    void send(int, HttpRequest request) override { sent.push_back(std::move(request)); }
    void cancel(int, int requestId) override { cancelled.push_back(requestId); }
    std::vector<HttpRequest> sent;
    std::vector<int> cancelled;
};

bool isList(const HttpRequest& r) {
    return !r.streaming && r.pathAndQuery.contains(QLatin1String("/api/v1/")) &&
           !r.pathAndQuery.contains(QLatin1String("watch=true"));
}

QByteArray coreResources() {
    QByteArray list;
    for (int i = 0; i < kResources; ++i) {
        if (!list.isEmpty())
            list += ',';
        list += "{\"name\":\"things" + QByteArray::number(i) +
                "s\",\"singularName\":\"\",\"namespaced\":true,\"kind\":\"Thing" +
                QByteArray::number(i) + "\",\"verbs\":[\"get\",\"list\",\"watch\"]}";
    }
    return "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\",\"resources\":[" + list + "]}";
}

class Rig {
public:
    Rig() {
        ClusterServerInfo server;
        server.name = QStringLiteral("apiserver");
        server.endpoint = QStringLiteral("https://127.0.0.1:6443");
        QString error;
        consumer = std::make_unique<ClusterFrameConsumer>(
            std::vector<ClusterServerInfo>{server}, QStringList{}, ClusterScope{},
            *ClientProfile::fromName(QStringLiteral("0.34"), &error), pipeline, &sink);
        consumer->start();
        // Discovery: /version, /api/v1 with the resources, /apis without groups.
        for (const HttpRequest& r : std::vector<HttpRequest>(sink.sent)) {
            if (r.pathAndQuery == QLatin1String("/version"))
                answer(r.id, "{\"major\":\"1\",\"minor\":\"34\",\"gitVersion\":\"v1.34.2\"}");
            else if (r.pathAndQuery == QLatin1String("/api/v1"))
                answer(r.id, coreResources());
            else
                answer(r.id, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[]}");
        }
        tick();
    }

    void answer(int id, const QByteArray& body) {
        HttpResponseHead head;
        head.status = 200;
        head.headers.append({QByteArray("Content-Type"), QByteArray("application/json")});
        frame(id, HttpFrameKind::ResponseHead, encodeHttpRecord(head));
        frame(id, HttpFrameKind::BodyChunk, body);
        frame(id, HttpFrameKind::ResponseEnd, encodeHttpRecord(HttpResponseEnd{}));
    }
    void tick(bool final = false) {
        now += milliseconds(100);
        consumer->consume(ClusterFrameConsumer::tick(now, final));
    }
    // The LISTs sent and not answered yet.
    std::vector<int> openLists() const {
        std::vector<int> out;
        for (const HttpRequest& r : sink.sent)
            if (isList(r) && !answered.contains(r.id))
                out.push_back(r.id);
        return out;
    }
    int listsSent() const {
        return static_cast<int>(std::count_if(sink.sent.begin(), sink.sent.end(), isList));
    }

    Pipeline pipeline;
    RecordingSink sink;
    std::unique_ptr<ClusterFrameConsumer> consumer;
    QSet<int> answered;
    TimeUs now = seconds(1);

private:
    void frame(int id, HttpFrameKind kind, const QByteArray& bytes) {
        consumer->consume(ws::test::httpFrame(id, kind, bytes, now));
        if (kind == HttpFrameKind::ResponseEnd)
            answered.insert(id);
    }
};

} // namespace

class TestClusterStartup : public QObject {
    Q_OBJECT

private slots:
    // 40 informers start: 5 LISTs go out, and one more each time one is answered (its informer
    // then watches), until every informer listed; never more than 5 in flight.
    void listsGoOutAFewAtATime() {
        Rig rig;
        QVERIFY(rig.consumer->failure().isEmpty());
        QVERIFY(rig.consumer->reflectorsStarted());
        QCOMPARE(rig.listsSent(), ListThrottle::kMaxInFlight);
        int watches = 0;
        while (!rig.openLists().empty()) {
            QVERIFY(static_cast<int>(rig.openLists().size()) <= ListThrottle::kMaxInFlight);
            const int id = rig.openLists().front();
            rig.answer(id, "{\"kind\":\"ThingList\",\"apiVersion\":\"v1\",\"metadata\":{"
                           "\"resourceVersion\":\"100\"},\"items\":[]}");
            rig.tick();
            ++watches;
            QCOMPARE(std::count_if(rig.sink.sent.begin(), rig.sink.sent.end(),
                                   [](const HttpRequest& r) { return r.streaming; }),
                     watches);
        }
        QCOMPARE(rig.listsSent(), kResources);
    }

    // Informers stopped while their LISTs wait: the waiting ones are never sent (nothing to
    // cancel on the wire), the ones in flight are cancelled.
    void waitingListsAreNeverSentAfterStop() {
        Rig rig;
        const std::vector<int> inFlight = rig.openLists();
        QCOMPARE(static_cast<int>(inFlight.size()), ListThrottle::kMaxInFlight);
        rig.tick(true);
        QVERIFY(rig.consumer->closed());
        QCOMPARE(rig.listsSent(), ListThrottle::kMaxInFlight);
        std::vector<int> cancelled = rig.sink.cancelled;
        std::sort(cancelled.begin(), cancelled.end());
        QCOMPARE(cancelled, inFlight);
    }
};

QTEST_GUILESS_MAIN(TestClusterStartup)
#include "tst_clusterstartup.moc"

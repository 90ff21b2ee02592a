// The cluster source's consumer (sources/cluster/ClusterFrameConsumer) over the HTTP/2
// connections its answers came over (HttpResponseHead::connection): every answer of one
// connection comes from one apiserver, and a later connection to the same URL may reach another
// apiserver behind a load balancer. Its /metrics then start new rows and a new baseline: the
// cache RV of two apiservers is never one line, and another apiserver's consistency-check
// failures are not a rise. Frames are answered by the test, as the transport would record them.

#include "engine/Pipeline.h"
#include "engine/SeriesNames.h"
#include "sources/cluster/ClusterFrameConsumer.h"
#include "sources/cluster/http/HttpFrameRecords.h"
#include "sources/cluster/http/HttpRequest.h"
#include "support/HttpFrames.h"
#include "timeline/TimelineStore.h"

#include <QTest>

using namespace ws;

namespace {

struct RecordingSink : ClusterRequestSink {
    std::vector<HttpRequest> sent;
    void send(int, HttpRequest request) override { sent.push_back(std::move(request)); }
    void cancel(int, int) override {}
};

// /metrics of a 1.35 apiserver: the configmaps cache at `cacheRv`, `failures` failed checks.
QByteArray metrics(int cacheRv, int failures) {
    return QStringLiteral(
               "# TYPE apiserver_storage_consistency_checks_total counter\n"
               "apiserver_storage_consistency_checks_total{group=\"\",resource=\"configmaps\","
               "status=\"failure\"} %1\n"
               "# TYPE apiserver_watch_cache_resource_version gauge\n"
               "apiserver_watch_cache_resource_version{group=\"\",resource=\"configmaps\"} %2\n"
               "# TYPE watch_cache_capacity gauge\n"
               "watch_cache_capacity{group=\"\",resource=\"configmaps\"} 100\n")
        .arg(failures)
        .arg(cacheRv)
        .toUtf8();
}

class Rig {
public:
    Rig()
        : m_consumer({ClusterServerInfo{QStringLiteral("apiserver"),
                                        QStringLiteral("https://lb.example:6443"),
                                        QStringLiteral("admin")}},
                     {QStringLiteral("configmaps")}, {}, profile(), m_pipeline, &m_sink) {
        m_consumer.start();
    }

    // Answers every request sent so far, each over `connection`: discovery, the LIST at 100,
    // its WATCH left open, and /metrics with `body`; then the clock moves on by `step`.
    void answerAll(qint32 connection, const QByteArray& metricsBody, TimeUs step) {
        while (m_answered < m_sink.sent.size()) {
            const HttpRequest r = m_sink.sent[m_answered++];
            const QString path = r.pathAndQuery.section(u'?', 0, 0);
            QByteArray body;
            bool open = false;
            if (path == QLatin1String("/version"))
                body = "{\"major\":\"1\",\"minor\":\"35\",\"gitVersion\":\"v1.35.4\"}";
            else if (path == QLatin1String("/api/v1"))
                body = "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\",\"resources\":[{"
                       "\"name\":\"configmaps\",\"singularName\":\"\",\"namespaced\":true,"
                       "\"kind\":\"ConfigMap\",\"verbs\":[\"get\",\"list\",\"watch\"]}]}";
            else if (path == QLatin1String("/apis"))
                body = "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[]}";
            else if (path == QLatin1String("/metrics"))
                body = metricsBody;
            else if (r.streaming)
                open = true;
            else
                body = "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{"
                       "\"resourceVersion\":\"100\"},\"items\":[]}";
            frame(r.id, HttpFrameKind::RequestSent,
                  encodeHttpRecord(HttpRequestSent{r.method, r.pathAndQuery, 1}));
            HttpResponseHead head;
            head.status = 200;
            head.headers.append({"Content-Type", path == QLatin1String("/metrics")
                                                     ? QByteArray("text/plain")
                                                     : QByteArray("application/json")});
            head.connection = connection;
            frame(r.id, HttpFrameKind::ResponseHead, encodeHttpRecord(head));
            if (!body.isEmpty())
                frame(r.id, HttpFrameKind::BodyChunk, body);
            if (!open)
                frame(r.id, HttpFrameKind::ResponseEnd, encodeHttpRecord(HttpResponseEnd{}));
        }
        m_now += step;
        m_consumer.consume(ClusterFrameConsumer::tick(m_now, false));
    }

    // Answers until a /metrics scrape was answered with `body` over `connection`.
    void scrape(qint32 connection, const QByteArray& body) {
        const auto scrapes = [this] {
            int n = 0;
            for (std::size_t i = 0; i < m_answered; ++i)
                n += m_sink.sent[i].pathAndQuery == QLatin1String("/metrics");
            return n;
        };
        const int before = scrapes();
        for (int i = 0; i < 400 && scrapes() == before; ++i)
            answerAll(connection, body, seconds(1));
        QVERIFY(scrapes() > before);
        answerAll(connection, body, seconds(1)); // sampled
    }

    std::vector<double> values(const QString& name) const {
        std::vector<double> out;
        const SeriesId id = m_pipeline.timeline().findSeries(QStringLiteral("configmaps"), name);
        if (id >= 0)
            for (const TimelinePoint& p : m_pipeline.timeline().points(id))
                out.push_back(p.value);
        return out;
    }
    QStringList consistencyMessages() const {
        QStringList out;
        for (const Anomaly& a : m_pipeline.anomalies())
            if (a.kind == AnomalyKind::CacheInconsistent)
                out << a.message;
        return out;
    }
    const ClusterFrameConsumer& consumer() const { return m_consumer; }

private:
    static ClientProfile profile() {
        QString error;
        return *ClientProfile::fromName(QStringLiteral("0.34"), &error);
    }
    void frame(int id, HttpFrameKind kind, const QByteArray& bytes) {
        m_consumer.consume(ws::test::httpFrame(id, kind, bytes, m_now));
    }

    mutable Pipeline m_pipeline;
    RecordingSink m_sink;
    ClusterFrameConsumer m_consumer;
    std::size_t m_answered = 0;
    TimeUs m_now = seconds(1);
};

bool allEqual(const std::vector<double>& values, double value) {
    return !values.empty() &&
           std::all_of(values.begin(), values.end(), [value](double v) { return v == value; });
}

} // namespace

class TestClusterConnections : public QObject {
    Q_OBJECT

private slots:
    // Two apiservers behind one URL: the first connection reaches one whose cache is at 500 with
    // one failed check, the next (after the connection was lost) one at 300 with three. Each gets
    // its own cache_rv row, and the three are that apiserver's, not a rise; a rise on the new
    // connection is one.
    void laterConnectionStartsNewRows() {
        Rig rig;
        rig.scrape(1, metrics(500, 1));
        rig.scrape(1, metrics(500, 1));
        QCOMPARE(rig.consistencyMessages().size(), 1); // "is 1 ... at the first scrape"
        rig.scrape(4, metrics(300, 3));
        rig.scrape(4, metrics(300, 3));
        QVERIFY2(allEqual(rig.values(series::cacheRv()), 500),
                 "the first connection's row holds only its apiserver's cache RV");
        QVERIFY(allEqual(rig.values(series::cacheRv(series::connectionSuffix(4))), 300));
        QCOMPARE(rig.consistencyMessages().size(), 1);
        rig.scrape(4, metrics(300, 4));
        const QStringList messages = rig.consistencyMessages();
        QCOMPARE(messages.size(), 2);
        QVERIFY2(messages.last().contains(QLatin1String("rose from 3 to 4")),
                 qPrintable(messages.last()));
    }

    // Over HTTP/1.1 (connection 0: Qt does not tell which connection answered) the scrapes
    // stay one row, as before.
    void http11StaysOneRow() {
        Rig rig;
        rig.scrape(0, metrics(500, 1));
        rig.scrape(0, metrics(510, 2));
        QVERIFY(!rig.values(series::cacheRv()).empty());
        QCOMPARE(rig.values(series::cacheRv()).back(), 510.0);
        QCOMPARE(rig.consistencyMessages().size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestClusterConnections)
#include "tst_clusterconnections.moc"

// 1,000 concurrent watchers on one `watchscope-cli serve`: each is an HTTP/1.1 watch of
// namespace "fan" from the version of a list, opened from this process's event loop; one POST
// creates ConfigMap fan-probe and every stream must carry its ADDED event within 20 s. The
// delivery delays (POST sent -> event read here) are printed, not asserted.

#include "support/ServeProcess.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <memory>
#include <sys/resource.h>
#include <vector>

using ws::test::ServeProcess;

namespace {

constexpr int kWatchers = 1000;
constexpr int kDeliveryBoundMs = 20000;

// One raw watch connection. Only what the assertions need is parsed: the status line, and the
// ADDED event of fan-probe somewhere in the chunked body.
struct Watcher {
    QByteArray buffer;
    bool headerDone = false;
    bool headerOk = false;
    bool disconnected = false;
    qint64 receivedNs = -1; // when the ADDED event of fan-probe was read
    QByteArray failure;
    // Last, so destroyed first: a socket still connected signals from its destructor into
    // the handlers, which touch the members above.
    std::unique_ptr<QTcpSocket> socket;
};

} // namespace

class TestServeFanout : public QObject {
    Q_OBJECT

private:
    ServeProcess m_serve;

    // One request through QNetworkAccessManager; the status code and the body.
    static int request(const QByteArray& method, const QUrl& url, const QByteArray& body,
                       QByteArray* reply) {
        QNetworkAccessManager nam;
        QNetworkRequest r(url);
        r.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        QNetworkReply* rep = nam.sendCustomRequest(r, method, body);
        QEventLoop loop;
        QObject::connect(rep, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(15000, &loop, &QEventLoop::quit);
        loop.exec();
        const int status = rep->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        *reply = rep->readAll();
        delete rep;
        return status;
    }

    static qint64 percentile(const std::vector<qint64>& sorted, double p) {
        const auto i = static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
        return sorted[std::min(i, sorted.size() - 1)];
    }

private slots:
    void initTestCase() {
        // 1,000 sockets here and as many in serve: more than the usual soft limit of 1024.
        // serve raises its own soft limit (ServeRunner); it also inherits this one.
        rlimit files{};
        QCOMPARE(getrlimit(RLIMIT_NOFILE, &files), 0);
        if (files.rlim_max != RLIM_INFINITY && files.rlim_max < kWatchers + 100)
            QSKIP(qPrintable(QStringLiteral("RLIMIT_NOFILE hard limit %1 < %2")
                                 .arg(files.rlim_max)
                                 .arg(kWatchers + 100)));
        files.rlim_cur = files.rlim_max;
        QCOMPARE(setrlimit(RLIMIT_NOFILE, &files), 0);
        QString error;
        QVERIFY2(m_serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy")}, &error),
                 qPrintable(error));
    }

    void thousandWatchersSeeOneCreate() {
        QElapsedTimer clock;
        clock.start();
        QByteArray body;
        QCOMPARE(request("GET",
                         QUrl(m_serve.url() + QStringLiteral("/api/v1/namespaces/fan/configmaps")),
                         {}, &body),
                 200);
        const QString rv = QJsonDocument::fromJson(body)
                               .object()
                               .value(QLatin1String("metadata"))
                               .toObject()
                               .value(QLatin1String("resourceVersion"))
                               .toString();
        QVERIFY2(rv.toLongLong() > 0, body.constData());

        const QByteArray get =
            QStringLiteral("GET /api/v1/namespaces/fan/configmaps?watch=1&resourceVersion=%1 "
                           "HTTP/1.1\r\nHost: 127.0.0.1:%2\r\nAccept: application/json\r\n"
                           "User-Agent: tst_servefanout\r\n\r\n")
                .arg(rv)
                .arg(m_serve.port())
                .toLatin1();
        std::vector<Watcher> watchers(kWatchers);
        int headers = 0;
        int received = 0;
        for (Watcher& w : watchers) {
            w.socket = std::make_unique<QTcpSocket>();
            QTcpSocket* s = w.socket.get();
            Watcher* wp = &w;
            connect(s, &QTcpSocket::connected, s, [s, get] { s->write(get); });
            connect(s, &QTcpSocket::disconnected, s, [wp] { wp->disconnected = true; });
            connect(s, &QTcpSocket::errorOccurred, s, [wp, s](QAbstractSocket::SocketError) {
                if (wp->failure.isEmpty())
                    wp->failure = s->errorString().toUtf8();
            });
            connect(s, &QTcpSocket::readyRead, s, [wp, s, &headers, &received, &clock] {
                wp->buffer += s->readAll();
                if (!wp->headerDone) {
                    const qsizetype end = wp->buffer.indexOf("\r\n\r\n");
                    if (end < 0)
                        return;
                    wp->headerDone = true;
                    const QByteArray head = wp->buffer.left(end).toLower();
                    wp->headerOk = head.startsWith("http/1.1 200 ") &&
                                   head.contains("\r\ntransfer-encoding: chunked") &&
                                   head.contains("\r\ncontent-type: application/json");
                    if (!wp->headerOk)
                        wp->failure = wp->buffer.left(end);
                    ++headers;
                    wp->buffer.remove(0, end + 4);
                }
                if (wp->receivedNs < 0 && wp->buffer.contains("\"type\":\"ADDED\"") &&
                    wp->buffer.contains("\"name\":\"fan-probe\"")) {
                    wp->receivedNs = clock.nsecsElapsed();
                    ++received;
                }
            });
            s->connectToHost(QStringLiteral("127.0.0.1"), m_serve.port());
        }
        // Every stream answered 200 and is open before the write.
        auto failed = [&] {
            return std::count_if(watchers.begin(), watchers.end(), [](const Watcher& w) {
                return w.disconnected || !w.failure.isEmpty() || (w.headerDone && !w.headerOk);
            });
        };
        QElapsedTimer opening;
        opening.start();
        while (headers < kWatchers && failed() == 0 && opening.elapsed() < 30000)
            QTest::qWait(10);
        QByteArray why = QByteArray::number(headers) + " of " + QByteArray::number(kWatchers) +
                         " streams answered; " + QByteArray::number(failed()) + " failed";
        for (const Watcher& w : watchers)
            if (!w.failure.isEmpty() || w.disconnected) {
                why += ", e.g. " + (w.failure.isEmpty() ? QByteArray("closed") : w.failure);
                break;
            }
        QVERIFY2(headers == kWatchers && failed() == 0, why.constData());
        const qint64 opened = clock.elapsed();

        const QByteArray probe = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":"
                                 "{\"name\":\"fan-probe\",\"namespace\":\"fan\"},"
                                 "\"data\":{\"k\":\"v\"}}";
        const qint64 postNs = clock.nsecsElapsed();
        QCOMPARE(request("POST",
                         QUrl(m_serve.url() + QStringLiteral("/api/v1/namespaces/fan/configmaps")),
                         probe, &body),
                 201);
        QElapsedTimer delivery;
        delivery.start();
        while (received < kWatchers && delivery.elapsed() < kDeliveryBoundMs && failed() == 0)
            QTest::qWait(10);
        QVERIFY2(failed() == 0, qPrintable(QStringLiteral("%1 streams closed").arg(failed())));
        QVERIFY2(received == kWatchers,
                 qPrintable(QStringLiteral("%1 of %2 watchers saw ADDED fan-probe within %3 ms")
                                .arg(received)
                                .arg(kWatchers)
                                .arg(kDeliveryBoundMs)));
        // A namespaced watch from before the create: fan-probe is the only object, once.
        for (const Watcher& w : watchers) {
            QCOMPARE(w.buffer.count("\"type\":"), 1);
            QVERIFY(!w.buffer.contains("\"type\":\"ERROR\""));
        }

        std::vector<qint64> delaysUs;
        delaysUs.reserve(watchers.size());
        for (const Watcher& w : watchers)
            delaysUs.push_back((w.receivedNs - postNs) / 1000);
        std::sort(delaysUs.begin(), delaysUs.end());
        qInfo("%d watch streams opened in %lld ms; POST -> ADDED read here: p50 %.1f ms, "
              "p99 %.1f ms, max %.1f ms",
              kWatchers, static_cast<long long>(opened), percentile(delaysUs, 0.5) / 1000.0,
              percentile(delaysUs, 0.99) / 1000.0, delaysUs.back() / 1000.0);

        for (Watcher& w : watchers)
            w.socket->abort();
    }

    void cleanupTestCase() { m_serve.stop(); }
};

QTEST_GUILESS_MAIN(TestServeFanout)
#include "tst_servefanout.moc"

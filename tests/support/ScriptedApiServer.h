#pragma once

// An HTTP/1.1 server for cluster-source tests that answers each request with bytes the test
// scripts, as a kube-apiserver would write them: Status bodies with Content-Length, watches with
// chunked transfer encoding (one chunk per event), left open or ended. For the answers `serve`
// does not give (an in-stream ERROR on a watch-list, Retry-After on a LIST). Runs on the test
// thread's event loop: wait with QTest::qWaitFor / QTRY_*.
//
//   ScriptedApiServer api;
//   QVERIFY2(api.listen(&error), qPrintable(error));
//   api.setHandler([](const ScriptedApiServer::Request& r) { ... return reply; });
//   source connects to api.url()
//
// Discovery (/version, /api, /api/v1 with the resources given, /apis with no groups) and /metrics
// (403) are answered unless the handler answers them itself; the handler returns nullopt to
// leave a request to those defaults, and anything else nobody answers gets a 404 Status.

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrlQuery>
#include <functional>
#include <optional>

namespace ws::test {

class ScriptedApiServer {
public:
    struct Request {
        QByteArray method;
        QString path; // without the query
        QUrlQuery query;
        QString pathAndQuery;
        bool isWatch() const { return query.queryItemValue(QStringLiteral("watch")) == "true"; }
        bool isWatchList() const {
            return isWatch() && query.queryItemValue(QStringLiteral("sendInitialEvents")) == "true";
        }
    };
    struct Reply {
        int status = 200;
        QByteArray contentType = "application/json";
        QList<QPair<QByteArray, QByteArray>> headers; // more headers (Retry-After, ...)
        QList<QByteArray> chunks;                     // the body
        bool chunked = false;  // Transfer-Encoding: chunked, a chunk per entry (watches)
        bool keepOpen = false; // chunked: the stream stays open after its chunks
        bool hangUp = false;   // no answer at all: the connection is closed (EOF)
    };
    static Reply hangUp() {
        Reply r;
        r.hangUp = true;
        return r;
    }
    using Handler = std::function<std::optional<Reply>(const Request&)>;

    // A Status body as the apiserver encodes it (field order of metav1.Status).
    static Reply status(int code, const QByteArray& reason, const QByteArray& message,
                        const QByteArray& details = {}) {
        Reply r;
        r.status = code;
        QByteArray body = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                          "\"status\":\"Failure\",\"message\":\"" +
                          message + "\",\"reason\":\"" + reason + "\"";
        if (!details.isEmpty())
            body += ",\"details\":" + details;
        body += ",\"code\":" + QByteArray::number(code) + "}";
        r.chunks << body;
        return r;
    }
    // A ConfigMapList body at RV 1042 with one object (kube-root-ca.crt in default, RV 317).
    static QByteArray configMapList() {
        return "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":{"
               "\"resourceVersion\":\"1042\"},\"items\":[{\"metadata\":{\"name\":"
               "\"kube-root-ca.crt\",\"namespace\":\"default\",\"uid\":\"0d9b1f0e-"
               "6c1a-4c59-9d0e-4a0b7b3f2c11\",\"resourceVersion\":\"317\","
               "\"creationTimestamp\":\"2026-11-28T05:00:00Z\"},\"data\":{\"ca.crt\":"
               "\"-----BEGIN CERTIFICATE-----\"}}]}";
    }
    // A watch: 200, one chunk per event, left open unless `end`.
    static Reply watch(const QList<QByteArray>& events, bool end = false) {
        Reply r;
        r.chunked = true;
        r.keepOpen = !end;
        r.chunks = events;
        return r;
    }

    explicit ScriptedApiServer(QStringList coreResources = {QStringLiteral("configmaps")})
        : m_resources(std::move(coreResources)) {
        QObject::connect(&m_server, &QTcpServer::newConnection, [this] { accept(); });
    }

    ~ScriptedApiServer() {
        // The sockets are the server's children: gone before the members their slots use.
        for (QTcpSocket* socket : m_server.findChildren<QTcpSocket*>()) {
            QObject::disconnect(socket, nullptr, nullptr, nullptr);
            delete socket;
        }
    }
    ScriptedApiServer(const ScriptedApiServer&) = delete;
    ScriptedApiServer& operator=(const ScriptedApiServer&) = delete;

    bool listen(QString* error) {
        if (m_server.listen(QHostAddress::LocalHost, 0))
            return true;
        *error = QStringLiteral("scripted apiserver: %1").arg(m_server.errorString());
        return false;
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }
    void setHandler(Handler handler) { m_handler = std::move(handler); }
    // The release /version reports ("1.20.15"; default 1.35.4).
    void setVersion(const QString& version) { m_version = version; }
    const QList<Request>& requests() const { return m_requests; }
    // The requests for `path` (a collection: "/api/v1/configmaps"), in order.
    QList<Request> requestsFor(const QString& path) const {
        QList<Request> out;
        for (const Request& r : m_requests)
            if (r.path == path)
                out << r;
        return out;
    }

private:
    void accept() {
        while (QTcpSocket* socket = m_server.nextPendingConnection()) {
            QObject::connect(socket, &QTcpSocket::readyRead, socket,
                             [this, socket] { read(socket); });
            QObject::connect(socket, &QTcpSocket::disconnected, socket, [this, socket] {
                m_buffers.remove(socket);
                socket->deleteLater();
            });
        }
    }

    void read(QTcpSocket* socket) {
        QByteArray& buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype endOfHead = buffer.indexOf("\r\n\r\n");
            if (endOfHead < 0)
                return;
            const QByteArray head = buffer.left(endOfHead);
            buffer.remove(0, endOfHead + 4); // GET only: no body
            const QList<QByteArray> requestLine = head.left(head.indexOf("\r\n")).split(' ');
            if (requestLine.size() < 2)
                return socket->abort();
            Request r;
            r.method = requestLine[0];
            r.pathAndQuery = QString::fromLatin1(requestLine[1]);
            r.path = r.pathAndQuery.section(u'?', 0, 0);
            r.query = QUrlQuery(r.pathAndQuery.section(u'?', 1));
            m_requests << r;
            std::optional<Reply> reply = m_handler ? m_handler(r) : std::nullopt;
            if (!reply)
                reply = defaultReply(r);
            if (reply->hangUp) {
                socket->disconnectFromHost();
                return;
            }
            write(socket, *reply);
            if (reply->chunked && reply->keepOpen)
                return; // the connection now carries the stream
        }
    }

    std::optional<Reply> defaultReply(const Request& r) const {
        Reply reply;
        if (r.path == QLatin1String("/version")) {
            const QByteArray minor = m_version.section(u'.', 1, 1).toLatin1();
            reply.chunks << "{\"major\":\"1\",\"minor\":\"" + minor +
                                "\",\"emulationMajor\":\"1\",\"emulationMinor\":\"" + minor +
                                "\",\"gitVersion\":\"v" + m_version.toLatin1() +
                                "\",\"platform\":\"linux/amd64\"}";
        } else if (r.path == QLatin1String("/api")) {
            reply.chunks << "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],"
                            "\"serverAddressByClientCIDRs\":[{\"clientCIDR\":\"0.0.0.0/0\","
                            "\"serverAddress\":\"127.0.0.1:" +
                                QByteArray::number(m_server.serverPort()) + "\"}]}";
        } else if (r.path == QLatin1String("/api/v1")) {
            QByteArray list;
            for (const QString& plural : m_resources) {
                if (!list.isEmpty())
                    list += ',';
                list += "{\"name\":\"" + plural.toUtf8() +
                        "\",\"singularName\":\"\",\"namespaced\":true,\"kind\":\"" +
                        kindOf(plural) +
                        "\",\"verbs\":[\"create\",\"delete\",\"deletecollection\",\"get\",\"list\","
                        "\"patch\",\"update\",\"watch\"]}";
            }
            reply.chunks << "{\"kind\":\"APIResourceList\",\"groupVersion\":\"v1\","
                            "\"resources\":[" +
                                list + "]}";
        } else if (r.path == QLatin1String("/apis")) {
            reply.chunks << "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[]}";
        } else if (r.path == QLatin1String("/metrics")) {
            return status(403, "Forbidden",
                          "forbidden: User \\\"system:anonymous\\\" cannot get path "
                          "\\\"/metrics\\\"",
                          "{}");
        } else {
            return status(404, "NotFound", "the server could not find the requested resource",
                          "{}");
        }
        return reply;
    }
    static QByteArray kindOf(const QString& plural) {
        QByteArray kind = plural.chopped(1).toUtf8(); // "configmaps" -> "configmap"
        if (kind == "configmap")
            return "ConfigMap";
        kind[0] = static_cast<char>(kind[0] - 'a' + 'A');
        return kind;
    }

    static QByteArray reasonPhrase(int status) {
        switch (status) {
        case 200:
            return "OK";
        case 403:
            return "Forbidden";
        case 404:
            return "Not Found";
        case 410:
            return "Gone";
        case 422:
            return "Unprocessable Entity";
        case 429:
            return "Too Many Requests";
        case 500:
            return "Internal Server Error";
        case 503:
            return "Service Unavailable";
        case 504:
            return "Gateway Timeout";
        }
        return "Status";
    }

    static void write(QTcpSocket* socket, const Reply& reply) {
        QByteArray out = "HTTP/1.1 " + QByteArray::number(reply.status) + ' ' +
                         reasonPhrase(reply.status) +
                         "\r\nAudit-Id: 5f1e6c2a-0000-4000-8000-000000000000"
                         "\r\nCache-Control: no-cache, private\r\nContent-Type: " +
                         reply.contentType + "\r\n";
        for (const auto& [name, value] : reply.headers)
            out += name + ": " + value + "\r\n";
        if (reply.chunked) {
            out += "Transfer-Encoding: chunked\r\n\r\n";
            for (const QByteArray& chunk : reply.chunks)
                out += QByteArray::number(chunk.size(), 16) + "\r\n" + chunk + "\r\n";
            if (!reply.keepOpen)
                out += "0\r\n\r\n";
        } else {
            const QByteArray body = reply.chunks.join();
            out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
        }
        socket->write(out);
    }

    QTcpServer m_server;
    QStringList m_resources;
    QString m_version = QStringLiteral("1.35.4");
    Handler m_handler;
    QList<Request> m_requests;
    QHash<QTcpSocket*, QByteArray> m_buffers;
};

} // namespace ws::test

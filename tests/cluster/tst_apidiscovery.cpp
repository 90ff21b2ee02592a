// ApiDiscovery fed the documents `watchscope-cli serve` answered (kept as the fuzz target's
// seeds, tests/fuzz/corpus/api_discovery): what it finds, and the one line it fails with when
// a document cannot be read, where it used to find nothing and say nothing.
#include "sources/cluster/discovery/ApiDiscovery.h"
#include "sources/cluster/http/HttpFrameRecords.h"
#include "sources/cluster/http/HttpRequest.h"
#include "support/FuzzReproducer.h"

#include <QTest>
#include <deque>

using namespace ws;

namespace {

Frame frame(int connection, HttpFrameKind kind, QByteArray bytes) {
    Frame f;
    f.connection = connection;
    f.kind = static_cast<std::uint16_t>(kind);
    f.bytes = std::move(bytes);
    return f;
}

// Answers discovery's requests in the order sent, with `answers` (status, body) in turn.
struct Conversation {
    std::deque<HttpRequest> pending;
    int nextId = 1;
    ApiDiscovery discovery{QStringLiteral("https://10.0.0.1:6443"), QStringLiteral("admin"),
                           [this] { return nextId++; },
                           [this](HttpRequest r) { pending.push_back(std::move(r)); }};
    QStringList paths;

    void run(const QList<QPair<int, QByteArray>>& answers, qsizetype chunk = 0) {
        discovery.start();
        for (const auto& [status, body] : answers) {
            if (pending.empty() || discovery.done())
                break;
            const HttpRequest r = pending.front();
            pending.pop_front();
            paths << r.pathAndQuery;
            HttpResponseHead head;
            head.status = status;
            discovery.onFrame(frame(r.id, HttpFrameKind::ResponseHead, encodeHttpRecord(head)));
            const qsizetype step = chunk > 0 ? chunk : qMax<qsizetype>(1, body.size());
            for (qsizetype at = 0; at < body.size(); at += step)
                discovery.onFrame(frame(r.id, HttpFrameKind::BodyChunk, body.mid(at, step)));
            discovery.onFrame(
                frame(r.id, HttpFrameKind::ResponseEnd, encodeHttpRecord(HttpResponseEnd())));
        }
    }
};

QList<QPair<int, QByteArray>> recorded(const QString& name) {
    QList<QPair<int, QByteArray>> out;
    for (const QByteArray& part :
         test::fuzzReproducer(QStringLiteral("api_discovery"), name).split('\0')) {
        const bool hasStatus = part.size() >= 3 && part.at(0) >= '1' && part.at(0) <= '5' &&
                               std::isdigit(static_cast<unsigned char>(part.at(1))) &&
                               std::isdigit(static_cast<unsigned char>(part.at(2)));
        out.append({hasStatus ? part.left(3).toInt() : 200, hasStatus ? part.mid(3) : part});
    }
    return out;
}

} // namespace

class TestApiDiscovery : public QObject {
    Q_OBJECT
private slots:
    void findsWhatServeServes() {
        const auto answers = recorded(QStringLiteral("serve-crd-conversion-stall"));
        QCOMPARE(answers.size(), 4);
        Conversation c;
        c.run(answers, 7); // in 7-byte chunks, as a slow link delivers them
        QVERIFY2(c.discovery.succeeded(), qPrintable(c.discovery.failure()));
        QCOMPARE(c.paths, (QStringList{QStringLiteral("/version"), QStringLiteral("/api/v1"),
                                       QStringLiteral("/apis"),
                                       QStringLiteral("/apis/stable.example.com/v1")}));
        QVERIFY(c.discovery.gitVersion().startsWith(u'v'));
        QStringList plurals;
        for (const ResourceInfo& r : c.discovery.resources())
            plurals << r.plural + u'.' + r.group;
        QVERIFY2(plurals.contains(QStringLiteral("crontabs.stable.example.com")),
                 qPrintable(plurals.join(u' ')));
    }

    void unavailableGroupIsSkipped() {
        Conversation c;
        c.run(recorded(QStringLiteral("serve-group-unavailable")));
        QVERIFY2(c.discovery.succeeded(), qPrintable(c.discovery.failure()));
        for (const ResourceInfo& r : c.discovery.resources())
            QVERIFY(r.group.isEmpty());
    }

    void unauthorizedNamesTheUser() {
        Conversation c;
        c.run(recorded(QStringLiteral("serve-unauthorized")));
        QVERIFY(c.discovery.done());
        QCOMPARE(c.discovery.failure(),
                 QStringLiteral("https://10.0.0.1:6443 rejected the credentials of user admin "
                                "(401 Unauthorized)"));
    }

    // A proxy's HTML error page with 200 used to leave discovery "successful" with no
    // resources at all: nothing would be watched and nothing said why.
    void unreadableDocumentFails() {
        Conversation c;
        c.run(recorded(QStringLiteral("regress-html-200")));
        QVERIFY(c.discovery.done());
        QVERIFY(!c.discovery.succeeded());
        const QString failure = c.discovery.failure();
        QVERIFY2(failure.startsWith(QStringLiteral("https://10.0.0.1:6443: /api/v1 answered 200 "
                                                   "with a body that is not a JSON object (")),
                 qPrintable(failure));
        QVERIFY(!failure.contains(u'\n'));
    }

    // A 403 Status whose message has a newline (fuzz_api_discovery, CI 2026-11-26) made the
    // failure two lines: the server's text is quoted escaped.
    void serverTextStaysOnOneLine() {
        Conversation c;
        c.run(recorded(QStringLiteral("regress-status-newline")));
        QVERIFY(c.discovery.done());
        QCOMPARE(c.discovery.failure(),
                 QStringLiteral("https://10.0.0.1:6443: 403 Forbidden: a\\nb"));
    }

    void oversizedDocumentFails() {
        Conversation c;
        const auto version = recorded(QStringLiteral("serve-crd-conversion-stall")).first();
        QByteArray huge = "{\"kind\":\"APIResourceList\",\"resources\":[";
        huge += QByteArray(33 * 1024 * 1024, ' ');
        huge += "]}";
        c.run({version, {200, huge}}, 1024 * 1024);
        QVERIFY(c.discovery.done());
        QCOMPARE(c.discovery.failure(),
                 QStringLiteral("https://10.0.0.1:6443: /api/v1 answered a discovery document "
                                "over 32 MiB"));
    }
};

QTEST_GUILESS_MAIN(TestApiDiscovery)
#include "tst_apidiscovery.moc"

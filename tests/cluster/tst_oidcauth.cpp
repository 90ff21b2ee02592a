// `auth-provider: oidc` as client-go 0.35's oidc plugin serves it (sources/cluster/http/
// OidcCredentialSource): the id-token used while it is valid, the refresh-token exchanged at the
// issuer's token endpoint (found through its discovery document) once it is not, the new tokens
// written back to the kubeconfig, and the transport sending the result. The issuer (and, for the
// last test, the apiserver) is a small HTTP server in this process.

#include "engine/FrameQueue.h"
#include "sources/cluster/ClusterTargets.h"
#include "sources/cluster/http/ClusterHttpTransport.h"
#include "sources/cluster/http/HttpFrameKind.h"
#include "sources/cluster/http/HttpFrameRecords.h"
#include "sources/cluster/http/OidcCredentialSource.h"
#include "sources/cluster/kubeconfig/Kubeconfig.h"

#include <QFile>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>
#include <mutex>

using namespace ws;

namespace {

// An unsigned JWT with this exp claim: client-go only reads the claim, it never verifies.
QString jwt(const QDateTime& exp, const QString& subject) {
    auto part = [](const QJsonObject& o) {
        return QString::fromLatin1(
            QJsonDocument(o)
                .toJson(QJsonDocument::Compact)
                .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    };
    return part({{QStringLiteral("alg"), QStringLiteral("none")}}) + u'.' +
           part({{QStringLiteral("sub"), subject},
                 {QStringLiteral("exp"), double(exp.toSecsSinceEpoch())}}) +
           QStringLiteral(".c2ln");
}

struct Received {
    QByteArray method, path, body;
    QHash<QByteArray, QByteArray> headers; // names in lower case
};

// An OIDC issuer: its discovery document and token endpoint, and, as an apiserver, /api/echo
// answering 200 to `acceptedToken` and 401 to anything else.
class Issuer : public QObject {
public:
    QString tokenReply; // the token endpoint's JSON
    int tokenStatus = 200;
    bool refuseBasicAuth = false; // 401 invalid_client to credentials in the header
    QString acceptedToken;
    QList<Received> received;

    bool listen() {
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = m_server.nextPendingConnection())
                connect(s, &QTcpSocket::readyRead, this, [this, s] { onData(s); });
        });
        return m_server.listen(QHostAddress::LocalHost);
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }
    int tokenRequests() const {
        int n = 0;
        for (const Received& r : received)
            n += r.path == "/token";
        return n;
    }

private:
    void onData(QTcpSocket* s) {
        QByteArray& buffer = m_buffers[s];
        buffer += s->readAll();
        const qsizetype end = buffer.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        Received r;
        const QList<QByteArray> lines = buffer.left(end).split('\n');
        const QList<QByteArray> first = lines.front().trimmed().split(' ');
        r.method = first.value(0);
        r.path = first.value(1);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            if (colon > 0)
                r.headers.insert(lines[i].left(colon).trimmed().toLower(),
                                 lines[i].mid(colon + 1).trimmed());
        }
        const int length = r.headers.value("content-length").toInt();
        if (buffer.size() < end + 4 + length)
            return;
        r.body = buffer.mid(end + 4, length);
        m_buffers.remove(s);
        received << r;
        int status = 200;
        QByteArray body;
        if (r.path == "/.well-known/openid-configuration") {
            body = QJsonDocument(QJsonObject{{QStringLiteral("issuer"), url()},
                                             {QStringLiteral("token_endpoint"),
                                              url() + QStringLiteral("/token")}})
                       .toJson(QJsonDocument::Compact);
        } else if (r.path == "/token") {
            if (refuseBasicAuth && r.headers.contains("authorization")) {
                status = 401;
                body = R"({"error":"invalid_client"})";
            } else {
                status = tokenStatus;
                body = tokenReply.toUtf8();
            }
        } else if (r.path == "/api/echo") {
            const bool ok = r.headers.value("authorization") == "Bearer " + acceptedToken.toUtf8();
            status = ok ? 200 : 401;
            body = ok ? R"({"ok":true})" : R"({"kind":"Status","code":401})";
        } else {
            status = 404;
        }
        s->write("HTTP/1.1 " + QByteArray::number(status) + " X\r\nContent-Type: " +
                 "application/json\r\nContent-Length: " + QByteArray::number(body.size()) +
                 "\r\nConnection: close\r\n\r\n" + body);
        s->disconnectFromHost();
    }

    QTcpServer m_server;
    QHash<QTcpSocket*, QByteArray> m_buffers;
};

// What fetch() answered, from whichever thread.
struct Answer {
    std::mutex mutex;
    bool done = false;
    std::optional<HttpCredentials> credentials;
    QString error;

    CredentialSource::Ready ready() {
        return [this](std::optional<HttpCredentials> c, QString e) {
            std::lock_guard lock(mutex);
            credentials = c;
            error = e;
            done = true;
        };
    }
    bool isDone() {
        std::lock_guard lock(mutex);
        return done;
    }
};

} // namespace

class TestOidcAuth : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_serial = 0;

    // A kubeconfig with an oidc user; returns its path. `config` is the provider's config map
    // (indented 8).
    QString kubeconfig(const QString& server, const QString& config) {
        const QString path = m_dir.filePath(QStringLiteral("config-%1").arg(++m_serial));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(QStringLiteral("apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                               "clusters:\n- name: c\n  cluster:\n    server: %1\n"
                               "contexts:\n- name: c\n  context:\n    cluster: c\n    user: dev\n"
                               "# the user's own comment, kept\n"
                               "users:\n- name: dev\n  user:\n    auth-provider:\n"
                               "      name: oidc\n      config:\n%2")
                    .arg(server, config)
                    .toUtf8());
        f.close();
        f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        return path;
    }
    static std::optional<ClusterTarget> target(const QString& path) {
        QString error;
        const auto k = Kubeconfig::load(path, &error);
        if (!k) {
            qWarning("%s", qPrintable(error));
            return std::nullopt;
        }
        auto t = k->target({}, &error);
        if (!t)
            qWarning("%s", qPrintable(error));
        return t;
    }
    static QString configFor(const QString& issuer, const QString& idToken,
                             const QString& refreshToken) {
        QString c = QStringLiteral("        idp-issuer-url: %1\n        client-id: kubectl\n"
                                   "        client-secret: s3cret/x\n")
                        .arg(issuer);
        if (!idToken.isEmpty())
            c += QStringLiteral("        id-token: %1\n").arg(idToken);
        if (!refreshToken.isEmpty())
            c += QStringLiteral("        refresh-token: \"%1\"\n").arg(refreshToken);
        return c;
    }
    static QByteArray readAll(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void kubeconfigFields() {
        const QString path =
            kubeconfig(QStringLiteral("https://k:6443"),
                       configFor(QStringLiteral("https://idp.example/realms/k"),
                                 QStringLiteral("a.b.c"), QStringLiteral("rt-1")) +
                           QStringLiteral("        idp-certificate-authority-data: %1\n")
                               .arg(QString::fromLatin1(QByteArray("PEM").toBase64())));
        const auto t = target(path);
        QVERIFY(t && t->oidc);
        QCOMPARE(t->oidc->issuerUrl, QStringLiteral("https://idp.example/realms/k"));
        QCOMPARE(t->oidc->clientId, QStringLiteral("kubectl"));
        QCOMPARE(t->oidc->clientSecret, QStringLiteral("s3cret/x"));
        QCOMPARE(t->oidc->idToken, QStringLiteral("a.b.c"));
        QCOMPARE(t->oidc->refreshToken, QStringLiteral("rt-1"));
        QCOMPARE(t->oidc->issuerCaPem, QByteArray("PEM"));
        QCOMPARE(t->oidc->kubeconfigFile, path);
        QVERIFY(credentialProviderFor(*t, nullptr)); // no exec runner needed
    }

    void validIdTokenIsUsedAsItIs() {
        Issuer issuer;
        QVERIFY(issuer.listen());
        const QString idToken = jwt(QDateTime::currentDateTimeUtc().addSecs(3600), "alice");
        const auto t = target(kubeconfig(QStringLiteral("https://k:6443"),
                                         configFor(issuer.url(), idToken, QStringLiteral("rt-1"))));
        QVERIFY(t && t->oidc);
        OidcCredentialSource source(*t->oidc);
        Answer a;
        source.fetch(a.ready());
        QVERIFY(a.isDone()); // at once: nothing to ask
        QVERIFY(a.credentials);
        QCOMPARE(a.credentials->bearerToken, idToken);
        QVERIFY(issuer.received.isEmpty());
    }

    void expiredIdTokenIsRefreshedAndWrittenBack() {
        Issuer issuer;
        QVERIFY(issuer.listen());
        const QString old = jwt(QDateTime::currentDateTimeUtc().addSecs(5), "alice"); // < 10 s
        const QString fresh = jwt(QDateTime::currentDateTimeUtc().addSecs(3600), "alice");
        issuer.tokenReply = QStringLiteral(R"({"access_token":"at","token_type":"Bearer",)"
                                           R"("expires_in":3600,"id_token":"%1",)"
                                           R"("refresh_token":"rt-2"})")
                                .arg(fresh);
        const QString path =
            kubeconfig(QStringLiteral("https://k:6443"),
                       configFor(issuer.url() + u'/', old, QStringLiteral("rt-1")));
        const QByteArray before = readAll(path);
        const QFileDevice::Permissions permissions = QFile::permissions(path); // owner only
        const auto t = target(path);
        QVERIFY(t && t->oidc);
        OidcCredentialSource source(*t->oidc);
        Answer a;
        source.fetch(a.ready());
        QTRY_VERIFY_WITH_TIMEOUT(a.isDone(), 15000);
        QVERIFY2(a.credentials, qPrintable(a.error));
        QCOMPARE(a.credentials->bearerToken, fresh);

        QCOMPARE(issuer.received.size(), 2);
        QCOMPARE(issuer.received[0].path, QByteArray("/.well-known/openid-configuration"));
        const Received& token = issuer.received[1];
        QCOMPARE(token.method, QByteArray("POST"));
        QCOMPARE(token.headers.value("content-type"),
                 QByteArray("application/x-www-form-urlencoded"));
        const QUrlQuery form(QString::fromUtf8(token.body));
        QCOMPARE(form.queryItemValue(QStringLiteral("grant_type")),
                 QStringLiteral("refresh_token"));
        QCOMPARE(form.queryItemValue(QStringLiteral("refresh_token")), QStringLiteral("rt-1"));
        // oauth2 sends the client credentials form-encoded in basic auth first.
        QCOMPARE(token.headers.value("authorization"),
                 "Basic " + QByteArray("kubectl:s3cret%2Fx").toBase64());

        // Written back in place: the new tokens, the rest of the file as it was.
        const QByteArray after = readAll(path);
        QVERIFY(after.contains(fresh.toUtf8()) && after.contains("refresh-token: \"rt-2\""));
        QVERIFY(!after.contains(old.toUtf8()) && !after.contains("rt-1"));
        QCOMPARE(QByteArray(after).replace(fresh.toUtf8(), old.toUtf8()).replace("rt-2", "rt-1"),
                 before);
        QCOMPARE(QFile::permissions(path), permissions);
        const auto reread = target(path);
        QVERIFY(reread && reread->oidc);
        QCOMPARE(reread->oidc->refreshToken, QStringLiteral("rt-2"));

        // The new id-token is valid: the next fetch asks nobody.
        Answer again;
        source.fetch(again.ready());
        QVERIFY(again.isDone() && again.credentials);
        QCOMPARE(again.credentials->bearerToken, fresh);
        QCOMPARE(issuer.received.size(), 2);
    }

    void clientCredentialsAsFormFieldsWhenBasicAuthIsRefused() {
        Issuer issuer;
        QVERIFY(issuer.listen());
        issuer.refuseBasicAuth = true;
        const QString fresh = jwt(QDateTime::currentDateTimeUtc().addSecs(3600), "bob");
        issuer.tokenReply = QStringLiteral(R"({"access_token":"at","id_token":"%1"})").arg(fresh);
        const auto t = target(kubeconfig(QStringLiteral("https://k:6443"),
                                         configFor(issuer.url(), {}, QStringLiteral("rt-1"))));
        QVERIFY(t && t->oidc);
        OidcCredentialSource source(*t->oidc);
        Answer a;
        source.fetch(a.ready());
        QTRY_VERIFY_WITH_TIMEOUT(a.isDone(), 15000);
        QVERIFY2(a.credentials, qPrintable(a.error));
        QCOMPARE(a.credentials->bearerToken, fresh);
        QCOMPARE(issuer.tokenRequests(), 2);
        const QUrlQuery form(QString::fromUtf8(issuer.received.back().body));
        QCOMPARE(form.queryItemValue(QStringLiteral("client_id")), QStringLiteral("kubectl"));
        QCOMPARE(form.queryItemValue(QStringLiteral("client_secret"), QUrl::FullyDecoded),
                 QStringLiteral("s3cret/x"));
        QVERIFY(!issuer.received.back().headers.contains("authorization"));
    }

    void failures_data() {
        QTest::addColumn<QString>("idToken");
        QTest::addColumn<QString>("refreshToken");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("reply");
        QTest::addColumn<QString>("expected");
        const QString expired = jwt(QDateTime::currentDateTimeUtc().addSecs(-60), "x");
        QTest::newRow("expired, no refresh-token")
            << expired << QString() << 200 << QString()
            << QStringLiteral("oidc auth-provider of user 'dev': no valid id-token, and cannot "
                              "refresh without refresh-token");
        QTest::newRow("not a JWT") << QStringLiteral("opaque-token") << QStringLiteral("rt") << 200
                                   << QString() << QStringLiteral("ID Token is not a valid JWT");
        QTest::newRow("refresh refused")
            << expired << QStringLiteral("rt") << 400
            << QStringLiteral(
                   R"({"error":"invalid_grant","error_description":"Token is not active"})")
            << QStringLiteral("failed to refresh token: oauth2: \"invalid_grant\" \"Token is not "
                              "active\"");
        QTest::newRow("no id_token in the answer")
            << expired << QStringLiteral("rt") << 200 << QStringLiteral(R"({"access_token":"at"})")
            << QStringLiteral("token response did not contain an id_token");
        QTest::newRow("no access_token in the answer")
            << expired << QStringLiteral("rt") << 200 << QStringLiteral(R"({"id_token":"a.b.c"})")
            << QStringLiteral("server response missing access_token");
    }
    void failures() {
        QFETCH(QString, idToken);
        QFETCH(QString, refreshToken);
        QFETCH(int, status);
        QFETCH(QString, reply);
        QFETCH(QString, expected);
        Issuer issuer;
        QVERIFY(issuer.listen());
        issuer.tokenStatus = status;
        issuer.tokenReply = reply;
        const QString path = kubeconfig(QStringLiteral("https://k:6443"),
                                        configFor(issuer.url(), idToken, refreshToken));
        const QByteArray before = readAll(path);
        const auto t = target(path);
        QVERIFY(t && t->oidc);
        OidcCredentialSource source(*t->oidc);
        Answer a;
        source.fetch(a.ready());
        QTRY_VERIFY_WITH_TIMEOUT(a.isDone(), 15000);
        QVERIFY(!a.credentials);
        QVERIFY2(a.error.contains(expected), qPrintable(a.error));
        QVERIFY(!a.error.contains(u'\n'));
        QVERIFY(!a.error.contains(QStringLiteral("s3cret")));
        QCOMPARE(readAll(path), before); // nothing written
    }

    void transportSendsTheRefreshedIdToken() {
        // The issuer doubles as the apiserver: it accepts only the refreshed id-token.
        Issuer issuer;
        QVERIFY(issuer.listen());
        const QString fresh = jwt(QDateTime::currentDateTimeUtc().addSecs(3600), "carol");
        issuer.acceptedToken = fresh;
        issuer.tokenReply = QStringLiteral(R"({"access_token":"at","id_token":"%1"})").arg(fresh);
        const auto t = target(kubeconfig(
            issuer.url(),
            configFor(issuer.url(), jwt(QDateTime::currentDateTimeUtc().addSecs(-5), "carol"),
                      QStringLiteral("rt-1"))));
        QVERIFY(t && t->oidc);
        FrameQueue queue;
        ClusterHttpTransport transport(
            *t, queue, [] { return TimeUs(0); }, credentialProviderFor(*t, nullptr));
        QString error;
        QVERIFY2(transport.start(&error), qPrintable(error));
        HttpRequest r;
        r.id = 1;
        r.pathAndQuery = QStringLiteral("/api/echo");
        transport.submit(r);
        std::optional<int> status;
        bool ended = false;
        std::vector<Frame> frames;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                queue.drain(frames);
                for (const Frame& f : frames) {
                    HttpResponseHead head;
                    if (f.kind == std::uint16_t(HttpFrameKind::ResponseHead) &&
                        decodeHttpRecord(f.bytes, &head))
                        status = head.status;
                    ended = ended || f.kind == std::uint16_t(HttpFrameKind::ResponseEnd);
                }
                frames.clear();
                return ended;
            }(),
            15000);
        transport.stop();
        QCOMPARE(status, std::optional<int>(200));
        QCOMPARE(issuer.tokenRequests(), 1);
    }
};

QTEST_GUILESS_MAIN(TestOidcAuth)
#include "tst_oidcauth.moc"

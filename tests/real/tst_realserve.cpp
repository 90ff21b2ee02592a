// `serve --server-version V` against the real kube-apiserver V (tests/peers): the same request
// script to both, the answers compared after normalising what differs by nature (numbers in
// messages: RVs, the current revision). The script is the requests whose answer does not depend
// on the objects a server holds: a missing object and an unknown resource, the list and watch
// options each version refuses (422, 400), a list at a future RV (504 Too large resource
// version), a watch from an RV the cache no longer has (its first event). Compared: the status,
// Content-Type, Retry-After and the Status body (kind, status, reason, code, details, message).
// A difference either is a bug to fix in serve or is written in kKnownDifferences with its
// reason. With WS_CONFORMANCE_DIR set, each row is appended to server.jsonl there
// (scripts/conformance.sh writes docs/conformance.md from it).

#include "support/ConformanceRows.h"
#include "support/RealCluster.h"
#include "support/ServeProcess.h"

#include <QEventLoop>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QTest>
#include <QTimer>

using namespace ws;
using ws::test::RealCluster;
using ws::test::ServeProcess;

namespace {

struct Answer {
    int status = 0;
    QByteArray contentType;
    QByteArray retryAfter;
    QByteArray body; // a watch: its first event
    QString error;   // no answer
};

// One GET; a watch is read until its first event (a line) and then cut.
Answer get(QNetworkAccessManager& net, const QString& base, const QString& pathAndQuery,
           const QByteArray& token, const QSslConfiguration& tls) {
    QNetworkRequest request(QUrl(base + pathAndQuery));
    request.setRawHeader("Accept", "application/json");
    if (!token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + token);
    if (base.startsWith(QLatin1String("https")))
        request.setSslConfiguration(tls);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    QNetworkReply* reply = net.get(request);
    Answer a;
    QEventLoop loop;
    const bool watch = pathAndQuery.contains(QLatin1String("watch=true"));
    QObject::connect(reply, &QNetworkReply::readyRead, &loop, [&] {
        if (!watch)
            return;
        a.body += reply->readAll();
        if (a.body.contains('\n'))
            loop.quit();
    });
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    loop.exec();
    a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    a.contentType = reply->rawHeader("Content-Type");
    a.retryAfter = reply->rawHeader("Retry-After");
    a.body += reply->readAll();
    if (watch && a.status == 200 && a.body.contains('\n'))
        a.body = a.body.left(a.body.indexOf('\n')); // a stream: its first event
    if (a.status == 0)
        a.error = reply->errorString();
    reply->abort();
    reply->deleteLater();
    return a;
}

// What is compared of an answer, one "field: value" a line.
QStringList normalised(const Answer& a) {
    static const QRegularExpression numbers(QStringLiteral("\\d{3,}"));
    QStringList out;
    if (!a.error.isEmpty())
        return {QStringLiteral("no answer: ") + a.error};
    out << QStringLiteral("status: %1").arg(a.status)
        << QStringLiteral("content-type: ") + QString::fromLatin1(a.contentType)
        << QStringLiteral("retry-after: ") + QString::fromLatin1(a.retryAfter);
    QJsonObject status = QJsonDocument::fromJson(a.body).object();
    if (status.value(QStringLiteral("type")).isString()) { // a watch event
        out << QStringLiteral("event: ") + status.value(QStringLiteral("type")).toString();
        status = status.value(QStringLiteral("object")).toObject();
    }
    if (status.value(QStringLiteral("kind")).toString() != QLatin1String("Status"))
        return out << QStringLiteral("body kind: ") +
                          status.value(QStringLiteral("kind")).toString();
    for (const char* key : {"status", "reason", "code"})
        out << QLatin1String(key) + QStringLiteral(": ") +
                   status.value(QLatin1String(key)).toVariant().toString();
    out << QStringLiteral("message: ") + status.value(QStringLiteral("message"))
                                             .toString()
                                             .replace(numbers, QStringLiteral("N"));
    const QJsonObject details = status.value(QStringLiteral("details")).toObject();
    if (!details.isEmpty())
        out << QStringLiteral("details: ") +
                   QString::fromUtf8(QJsonDocument(details).toJson(QJsonDocument::Compact))
                       .replace(numbers, QStringLiteral("N"));
    return out;
}

struct ScriptedRequest {
    const char* name;
    const char* pathAndQuery;
};

// Answers that do not depend on which objects the server holds.
const ScriptedRequest kScript[] = {
    {"get-missing-object", "/api/v1/namespaces/default/configmaps/ws-missing"},
    {"unknown-resource", "/api/v1/nopes"},
    {"list-match-without-rv", "/api/v1/configmaps?resourceVersionMatch=Exact"},
    {"list-bad-continue", "/api/v1/configmaps?limit=1&continue=garbage"},
    {"list-bad-field-selector", "/api/v1/configmaps?fieldSelector=spec.bogus%3D1"},
    {"list-bad-label-selector", "/api/v1/configmaps?labelSelector=%21%21"},
    {"list-future-rv", "/api/v1/configmaps?resourceVersion=99999999999"},
    {"watch-match-without-initial-events",
     "/api/v1/configmaps?watch=true&resourceVersionMatch=NotOlderThan"},
    {"watch-initial-events-without-match", "/api/v1/configmaps?watch=true&sendInitialEvents=true"},
    {"list-initial-events", "/api/v1/configmaps?sendInitialEvents=true"},
    {"list-exact-at-zero", "/api/v1/configmaps?resourceVersion=0&resourceVersionMatch=Exact"},
};
// Not in the script: a watch from an old RV (resourceVersion=1). Whether it is too old depends on
// the history a server holds: a fresh real apiserver's configmaps cache starts at its first list,
// a few revisions into etcd, and serves RV 1 with the ADDED events since; serve's starts later.

const QString kGoDecoderText = QStringLiteral(
    "the text after \"continue key is not valid:\" is Go's base64 or JSON decoder error for the "
    "bytes given; serve says \"illegal value\"");
const QString kGoLabelParserText = QStringLiteral(
    "the text after \"unable to parse requirement:\" is the Go label parser's token error "
    "(\"found '!', expected: identifier\"); serve quotes the requirement");

// Differences between serve and the real apiserver that are understood: "version/request" ->
// the reason. A listed difference that is gone fails the test too (remove it from here).
const QHash<QString, QString> kKnownDifferences = {
    {QStringLiteral("1.33/list-bad-continue"), kGoDecoderText},
    {QStringLiteral("1.35/list-bad-continue"), kGoDecoderText},
    {QStringLiteral("1.33/list-bad-label-selector"), kGoLabelParserText},
    {QStringLiteral("1.35/list-bad-label-selector"), kGoLabelParserText},
};

} // namespace

class TestRealServe : public QObject {
    Q_OBJECT

    std::unique_ptr<RealCluster> m_cluster;
    ServeProcess m_serve;
    QString m_version;

private slots:
    void initTestCase() {
        m_cluster = std::make_unique<RealCluster>(ws::test::RealClusterOptions::fromEnvironment());
        START_REAL_CLUSTER(*m_cluster);
        QByteArray out;
        QString error;
        QVERIFY2(m_cluster->kubectl(
                     {QStringLiteral("version"), QStringLiteral("-o"), QStringLiteral("json")},
                     &out, &error),
                 qPrintable(error));
        m_version = QJsonDocument::fromJson(out)
                        .object()
                        .value(QStringLiteral("serverVersion"))
                        .toObject()
                        .value(QStringLiteral("gitVersion"))
                        .toString()
                        .mid(1);
        QVERIFY2(!m_version.isEmpty(), out.constData());
        QVERIFY2(m_serve.start({QStringLiteral("--scenario"), QStringLiteral("healthy"),
                                QStringLiteral("--server-version"), m_version},
                               &error),
                 qPrintable(error));
    }

    void sameAnswersAsKubeApiserver() {
        QNetworkAccessManager net;
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setCaCertificates(QSslCertificate::fromPath(m_cluster->caFile()));
        const QByteArray token = RealCluster::token(RealCluster::User::Admin).toUtf8();
        QStringList failures;
        for (const ScriptedRequest& r : kScript) {
            const QString path = QString::fromLatin1(r.pathAndQuery);
            const QStringList real = normalised(get(net, m_cluster->url(), path, token, tls));
            const QStringList served = normalised(get(net, m_serve.url(), path, {}, tls));
            const bool same = real == served;
            const QString key =
                m_version.section(u'.', 0, 1) + QLatin1Char('/') + QLatin1String(r.name);
            const QString known = kKnownDifferences.value(key);
            ws::test::appendConformanceRow(
                QStringLiteral("server"),
                {{QStringLiteral("version"), m_version},
                 {QStringLiteral("request"), QLatin1String(r.name)},
                 {QStringLiteral("path"), path},
                 {QStringLiteral("verdict"),
                  same ? QStringLiteral("same") : QStringLiteral("differs")},
                 {QStringLiteral("reason"), known},
                 {QStringLiteral("real"), QJsonArray::fromStringList(real)},
                 {QStringLiteral("serve"), QJsonArray::fromStringList(served)}});
            const QString detail = QStringLiteral("\n  kube-apiserver %1: %2\n  serve: %3")
                                       .arg(m_version, real.join(QStringLiteral(" | ")),
                                            served.join(QStringLiteral(" | ")));
            const QString failure = ws::test::conformanceFailure(
                key + QStringLiteral(" (GET ") + path + u')', same, known, detail);
            if (!failure.isEmpty())
                failures << failure;
        }
        for (const QString& f : failures)
            qWarning("%s", qPrintable(f)); // QTest cuts a long failure message
        QVERIFY2(failures.isEmpty(), qPrintable(QStringLiteral("%1 of %2 answers differ")
                                                    .arg(failures.size())
                                                    .arg(std::size(kScript))));
    }
};

QTEST_GUILESS_MAIN(TestRealServe)
#include "tst_realserve.moc"

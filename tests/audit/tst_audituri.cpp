// AuditUri reads a requestURI without QUrl; it must answer exactly as ApiRequest::parse (QUrl,
// QUrlQuery) does, on the URIs kube-apiserver logs and on what it hands to ApiRequest::parse
// itself. Each case is compared field by field with ApiRequest::parse("GET", uri).

#include "kube/ApiRequest.h"
#include "sources/audit/AuditUri.h"

#include <QRandomGenerator>
#include <QTest>

using namespace ws;

namespace {

// ApiRequest::parse's answer, in AuditUri's terms.
struct Expected {
    bool ok = false;
    QString error;
    AuditUri uri;
};

Expected viaQUrl(const QByteArray& uri) {
    Expected e;
    const auto r = ApiRequest::parse(QStringLiteral("GET"), QString::fromUtf8(uri), &e.error);
    e.ok = r.has_value();
    if (!r)
        return e;
    e.uri.group = r->group.toStdString();
    e.uri.resource = r->resource.toStdString();
    e.uri.labelSelector = r->labelSelector.toStdString();
    e.uri.fieldSelector = r->fieldSelector.toStdString();
    e.uri.resourceVersion = r->resourceVersion.toStdString();
    e.uri.continued = !r->continueToken.isEmpty();
    e.uri.limit = r->limit;
    e.uri.timeoutSeconds = r->timeoutSeconds;
    e.uri.allowWatchBookmarks = r->allowWatchBookmarks;
    e.uri.sendInitialEvents = r->sendInitialEvents;
    return e;
}

QString describe(const AuditUri& u) {
    auto text = [](const std::string& s) { return QString::fromStdString(s); };
    return QStringList{QStringLiteral("group=") + text(u.group),
                       QStringLiteral("resource=") + text(u.resource),
                       QStringLiteral("labels=") + text(u.labelSelector),
                       QStringLiteral("fields=") + text(u.fieldSelector),
                       QStringLiteral("rv=") + text(u.resourceVersion),
                       QStringLiteral("requested=") + QString::number(u.requestedRv()),
                       QStringLiteral("continued=") + QString::number(u.continued),
                       QStringLiteral("limit=") + QString::number(u.limit),
                       QStringLiteral("timeout=") + QString::number(u.timeoutSeconds),
                       QStringLiteral("bookmarks=") + QString::number(u.allowWatchBookmarks),
                       QStringLiteral("initial=") + (u.sendInitialEvents
                                                         ? QString::number(*u.sendInitialEvents)
                                                         : QStringLiteral("unset"))}
        .join(u' ');
}

// The same answer, or why not.
QString compare(const QByteArray& uri) {
    const Expected want = viaQUrl(uri);
    AuditUri got;
    QString error;
    const bool ok = got.parse(std::string_view(uri.constData(), std::size_t(uri.size())), &error);
    // One multi-argument arg(): a URI's %XX must not be taken for a placeholder.
    if (ok != want.ok || error != want.error)
        return QStringLiteral("%1: ok %2 error '%3', QUrl says ok %4 error '%5'")
            .arg(QString::fromUtf8(uri), QString::number(ok), error, QString::number(want.ok),
                 want.error);
    if (!ok)
        return {};
    bool qtOk = false;
    const qint64 qtRv = QString::fromStdString(want.uri.resourceVersion).toLongLong(&qtOk);
    const ResourceVersion wantRv = qtOk && qtRv > 0 ? qtRv : 0;
    const QString a = describe(got), b = describe(want.uri);
    if (a != b || got.requestedRv() != wantRv)
        return QStringLiteral("%1:\n  got  %2\n  want %3 (requested RV %4)")
            .arg(QString::fromUtf8(uri), a, b, QString::number(wantRv));
    return {};
}

} // namespace

class TstAuditUri : public QObject {
    Q_OBJECT

private slots:
    void asApiRequest_data() {
        QTest::addColumn<QByteArray>("uri");
        const char* uris[] = {
            // What kube-apiserver logs of informers, kubectl and controllers.
            "/api/v1/pods",
            "/api/v1/namespaces/default/pods?limit=500&resourceVersion=0",
            "/apis/apps/v1/deployments?allowWatchBookmarks=true&resourceVersion=1000042"
            "&timeout=7m41s&timeoutSeconds=461&watch=true",
            "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dnode-1&limit=500",
            "/api/v1/configmaps?labelSelector=app%3Dweb%2Ctier%21%3Dcache&limit=500",
            "/api/v1/configmaps?labelSelector=app+in+%28a%2Cb%29",
            "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1",
            "/api/v1/pods?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan"
            "&sendInitialEvents=true&watch=true",
            "/api/v1/pods?sendInitialEvents=false&watch=1",
            "/api/v1/pods?continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTB9&limit=500",
            "/api/v1/pods?continue=&limit=500",
            "/api/v1/namespaces",
            "/api/v1/namespaces/kube-system",
            "/api/v1/namespaces/kube-system/pods",
            "/api/v1/watch/pods",
            "/api/v1/watch/namespaces/default/pods",
            "/api/v1/namespaces/default/pods/web-0/log",
            "/api/v1/namespaces/default/pods/web-0/log/extra",
            "/apis/apps/v1",
            "/api/v1",
            "/api",
            "/healthz",
            "/version?timeout=32s",
            "",
            "/",
            "api/v1/pods",
            "//apiserver/api/v1/pods",
            "/api//v1///pods",
            "/api/v1/pods/",
            // Query values: repeats, empties, numbers QString reads its own way, bad ones.
            "/api/v1/pods?resourceVersion=5&resourceVersion=7",
            "/api/v1/pods?resourceVersion",
            "/api/v1/pods?resourceVersion=",
            "/api/v1/pods?resourceVersion=-5",
            "/api/v1/pods?resourceVersion=%2B5",
            "/api/v1/pods?resourceVersion=+5",
            "/api/v1/pods?resourceVersion=%205%20",
            "/api/v1/pods?resourceVersion=007",
            "/api/v1/pods?resourceVersion=99999999999999999999",
            "/api/v1/pods?resourceVersion=abc",
            "/api/v1/pods?limit=-1",
            "/api/v1/pods?limit=abc",
            "/api/v1/pods?limit=",
            "/api/v1/pods?limit=5&limit=x",
            "/api/v1/pods?limit=%35",
            "/api/v1/pods?limit=1e3",
            "/api/v1/pods?timeoutSeconds=99999999999999999999",
            "/api/v1/pods?timeoutSeconds=12&limit=x",
            "/api/v1/pods?limit=x&timeoutSeconds=y",
            "/api/v1/pods?allowWatchBookmarks=TRUE",
            "/api/v1/pods?allowWatchBookmarks=True&allowWatchBookmarks=false",
            "/api/v1/pods?allowWatchBookmarks=yes",
            "/api/v1/pods?allowWatchBookmarks",
            "/api/v1/pods?sendInitialEvents",
            "/api/v1/pods?sendInitialEvents=1",
            "/api/v1/pods?labelSelector=a%3Db%26c%3Dd",
            "/api/v1/pods?labelSelector=a=b=c",
            "/api/v1/pods?labelSelector=%zz",
            "/api/v1/pods?labelSelector=%4",
            "/api/v1/pods?labelSelector=%",
            "/api/v1/pods?labelSelector=a%20b",
            "/api/v1/pods?labelSelector=%C3%A9t%C3%A9",
            "/api/v1/pods?labelSelector=%FF",
            "/api/v1/pods?labelSelector=%00",
            "/api/v1/pods?labelSelector=a b",
            "/api/v1/pods?labelSelector=\xc3\xa9",
            "/api/v1/pods?labelSelector=x#frag",
            "/api/v1/pods#frag",
            "/api/v1/pods?&&limit=5&",
            "/api/v1/pods?=5&limit=6",
            "/api/v1/pods?limit=5?resourceVersion=6",
            "/api/v1/pods?resource%56ersion=9",
            "/api/v1/pods?fieldSelector=metadata.name%3Dx&fieldSelector=y",
            "/api/v1/pods?labelSelector=a!=b;c:d@e/f?g$h'i(j)k*l,m",
            "/api/v1/p%6Fds?limit=5",
            "/api/v1/namespaces/a%2Fb/pods",
            "/api/v1/pods:x",
            "/api/v1/../pods",
            "/api/v1/./pods",
            "/apis/metrics.k8s.io/v1beta1/"
            "nodes?labelSelector=%21node-role.kubernetes.io%2Fcontrol-plane",
        };
        for (const char* u : uris)
            QTest::newRow(u) << QByteArray(u);
    }

    void asApiRequest() {
        QFETCH(QByteArray, uri);
        const QString diff = compare(uri);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // Random URIs over the bytes that matter (delimiters, escapes, signs, non-ASCII).
    void asApiRequestRandom() {
        QRandomGenerator rng(13);
        const QByteArray paths[] = {"/api/v1/pods", "/apis/apps/v1/namespaces/x/deployments",
                                    "/api/v1/namespaces/kube-system/configmaps/a", "/api/v1"};
        const QByteArray keys[] = {"resourceVersion",
                                   "limit",
                                   "timeoutSeconds",
                                   "continue",
                                   "labelSelector",
                                   "fieldSelector",
                                   "allowWatchBookmarks",
                                   "sendInitialEvents",
                                   "watch",
                                   "x",
                                   ""};
        const QByteArray bits[] = {"1",
                                   "0",
                                   "true",
                                   "TRUE",
                                   "-",
                                   "+",
                                   "%",
                                   "%3D",
                                   "%26",
                                   "%2",
                                   "%20",
                                   "%C3%A9",
                                   "=",
                                   "&",
                                   "a",
                                   "12",
                                   "99999999999999999999",
                                   " ",
                                   "#",
                                   "\xc3\xa9",
                                   "%25",
                                   "?",
                                   ",",
                                   "!"};
        int failures = 0;
        for (int i = 0; i < 20000 && failures < 5; ++i) {
            QByteArray uri = paths[rng.bounded(int(std::size(paths)))];
            const int items = int(rng.bounded(5));
            for (int k = 0; k < items; ++k) {
                uri += k == 0 ? '?' : '&';
                uri += keys[rng.bounded(int(std::size(keys)))];
                if (rng.bounded(4) != 0)
                    uri += '=';
                const int parts = int(rng.bounded(4));
                for (int p = 0; p < parts; ++p)
                    uri += bits[rng.bounded(int(std::size(bits)))];
            }
            const QString diff = compare(uri);
            if (!diff.isEmpty()) {
                qWarning("%s", qPrintable(diff));
                ++failures;
            }
        }
        QCOMPARE(failures, 0);
    }
};

QTEST_GUILESS_MAIN(TstAuditUri)
#include "tst_audituri.moc"

#include "AuditLines.h"
#include "sources/audit/AuditLineParser.h"
#include "sources/audit/AuditLogFiles.h"
#include "sources/audit/AuditTimestamp.h"

#include <QTemporaryDir>
#include <QTest>

using namespace ws;
using namespace ws::test;

// One audit line as kube-apiserver 1.30 writes it at Metadata level: a client-go informer's
// watch as its response starts.
static const char kWatchStarted[] =
    R"({"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"0b2d3c4e-8f1a-4b6c-9d2e-7f3a1b5c6d7e","stage":"ResponseStarted","requestURI":"/api/v1/namespaces/default/pods?allowWatchBookmarks=true\u0026fieldSelector=spec.nodeName%3Dnode-1\u0026resourceVersion=48213\u0026timeout=7m41s\u0026timeoutSeconds=461\u0026watch=true","verb":"watch","user":{"username":"system:node:node-1","groups":["system:nodes","system:authenticated"]},"sourceIPs":["10.0.0.21"],"userAgent":"kubelet/v1.30.2 (linux/amd64) kubernetes/3968350","objectRef":{"resource":"pods","namespace":"default","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},"requestReceivedTimestamp":"2026-11-26T10:00:01.104857Z","stageTimestamp":"2026-11-26T10:00:01.105311Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}})";

class TstAuditParser : public QObject {
    Q_OBJECT

    // The parser may read 64 bytes past a line: give it a buffer that has them.
    static AuditLineParser::Result parse(AuditLineParser& p, const QByteArray& line,
                                         AuditEvent* out) {
        QByteArray padded = line;
        if (padded.endsWith('\n'))
            padded.chop(1);
        const qsizetype size = padded.size();
        padded.append(QByteArray(64, 'x'));
        return p.parse(std::string_view(padded.constData(), std::size_t(size)), out);
    }

private slots:
    void timestamps() {
        QCOMPARE(parseAuditTimestamp("1970-01-01T00:00:00Z").value(), 0);
        QCOMPARE(parseAuditTimestamp("2026-11-26T10:00:01.104857Z").value(),
                 TimeUs(1795687201104857));
        // metav1.Time (v1beta1 `timestamp`) has whole seconds; an offset is honoured.
        QCOMPARE(parseAuditTimestamp("2026-11-26T11:00:01+01:00").value(),
                 TimeUs(1795687201000000));
        QCOMPARE(parseAuditTimestamp("2026-11-26T10:00:01.5Z").value(), TimeUs(1795687201500000));
        QVERIFY(!parseAuditTimestamp("2026-11-26 10:00:01Z"));
        QVERIFY(!parseAuditTimestamp("2026-13-26T10:00:01Z"));
        QVERIFY(!parseAuditTimestamp("2026-11-26T10:00:01"));
        QVERIFY(!parseAuditTimestamp(""));
    }

    void realWatchLine() {
        AuditLineParser p;
        AuditEvent e;
        QCOMPARE(parse(p, kWatchStarted, &e), AuditLineParser::Result::Event);
        QCOMPARE(e.stage, AuditStage::ResponseStarted);
        QVERIFY(e.watch);
        QCOMPARE(e.auditId, std::string("0b2d3c4e-8f1a-4b6c-9d2e-7f3a1b5c6d7e"));
        // The \u0026 escapes of Go's encoder are undone.
        QCOMPARE(e.requestUri,
                 std::string("/api/v1/namespaces/default/pods?allowWatchBookmarks=true&"
                             "fieldSelector=spec.nodeName%3Dnode-1&resourceVersion=48213&"
                             "timeout=7m41s&timeoutSeconds=461&watch=true"));
        QCOMPARE(e.username, std::string("system:node:node-1"));
        QCOMPARE(e.userAgent, std::string("kubelet/v1.30.2 (linux/amd64) kubernetes/3968350"));
        QCOMPARE(e.resource, std::string("pods"));
        QCOMPARE(e.apiGroup, std::string());
        QCOMPARE(e.code, 200);
        QCOMPARE(e.received, TimeUs(1795687201104857));
        QCOMPARE(e.stageTime, TimeUs(1795687201105311));
    }

    void errorStatus() {
        AuditLine l;
        l.auditId = QStringLiteral("a1");
        l.uri = QStringLiteral("/apis/apps/v1/deployments?resourceVersion=5000");
        l.resource = QStringLiteral("deployments");
        l.group = QStringLiteral("apps");
        l.code = 504;
        l.status = QStringLiteral("Failure");
        l.reason = QStringLiteral("Timeout");
        l.message = QStringLiteral("Timeout: Too large resource version: 5000, current: 4000");
        l.received = 1;
        l.at = 4;
        AuditLineParser p;
        AuditEvent e;
        QCOMPARE(parse(p, auditLine(l), &e), AuditLineParser::Result::Event);
        QVERIFY(!e.watch);
        QCOMPARE(e.code, 504);
        QCOMPARE(e.reason, std::string("Timeout"));
        QCOMPARE(e.message, l.message.toStdString());
        QCOMPARE(e.apiGroup, std::string("apps"));
        QCOMPARE(e.stageTime - e.received, TimeUs(3000000));
    }

    void v1beta1() {
        // audit.k8s.io/v1beta1 (v1beta1/types.go): ObjectMeta and `timestamp` besides v1's
        // fields; a 1.8/1.9 writer has no requestReceivedTimestamp/stageTimestamp at all.
        const QByteArray line =
            R"({"kind":"Event","apiVersion":"audit.k8s.io/v1beta1","metadata":{"creationTimestamp":"2026-11-26T10:00:02Z"},"level":"Metadata","timestamp":"2026-11-26T10:00:02Z","auditID":"b1","stage":"ResponseComplete","requestURI":"/api/v1/nodes?resourceVersion=0","verb":"list","user":{"username":"admin","groups":["system:masters"]},"sourceIPs":["10.0.0.1"],"objectRef":{"resource":"nodes","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200}})";
        AuditLineParser p;
        AuditEvent e;
        QCOMPARE(parse(p, line, &e), AuditLineParser::Result::Event);
        QCOMPARE(e.received, TimeUs(1795687202000000));
        QCOMPARE(e.stageTime, e.received);
        QCOMPARE(e.resource, std::string("nodes"));
        QCOMPARE(e.userAgent, std::string());
    }

    void rejected_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<int>("result");
        QTest::addColumn<QString>("error");
        AuditLine l;
        l.auditId = QStringLiteral("c1");
        const QByteArray good = auditLine(l).trimmed();
        QTest::newRow("cut short")
            << good.left(good.size() / 2) << int(AuditLineParser::Result::Broken)
            << QStringLiteral("not a JSON audit event");
        QTest::newRow("trailing") << good + " {}" << int(AuditLineParser::Result::Broken)
                                  << QStringLiteral("not a JSON audit event");
        QTest::newRow("not json") << QByteArray("I1126 10:00:00.000 audit.go:42] hello")
                                  << int(AuditLineParser::Result::Broken)
                                  << QStringLiteral("not a JSON audit event");
        AuditLine v2 = l;
        v2.apiVersion = QStringLiteral("audit.k8s.io/v2");
        QTest::newRow("v2") << auditLine(v2) << int(AuditLineParser::Result::UnknownApiVersion)
                            << QStringLiteral(
                                   "apiVersion \"audit.k8s.io/v2\" is not audit.k8s.io/v1 or "
                                   "v1beta1");
        QByteArray list = good;
        list.replace("\"kind\":\"Event\"", "\"kind\":\"EventList\"");
        QTest::newRow("EventList") << list << int(AuditLineParser::Result::UnknownKind)
                                   << QStringLiteral("kind \"EventList\" is not an audit Event");
        QByteArray noId = good;
        noId.replace("\"auditID\":\"c1\",", "");
        QTest::newRow("no auditID") << noId << int(AuditLineParser::Result::Broken)
                                    << QStringLiteral("a list event with no auditID");
        QByteArray badTime = good;
        badTime.replace("\"stageTimestamp\":\"2026-11-26T", "\"stageTimestamp\":\"yesterday ");
        QTest::newRow("bad time") << badTime << int(AuditLineParser::Result::Broken)
                                  << QStringLiteral(
                                         "a list event with a timestamp that is not RFC 3339");
        AuditLine get = l;
        get.verb = QStringLiteral("get");
        QTest::newRow("get") << auditLine(get) << int(AuditLineParser::Result::Ignored)
                             << QString();
    }
    void rejected() {
        QFETCH(QByteArray, line);
        QFETCH(int, result);
        QFETCH(QString, error);
        AuditLineParser p;
        AuditEvent e;
        QCOMPARE(int(parse(p, line, &e)), result);
        QVERIFY2(p.error().startsWith(error), qPrintable(p.error()));
        // The parser is reused: the next good line parses.
        AuditLine l;
        l.auditId = QStringLiteral("d1");
        QCOMPARE(parse(p, auditLine(l), &e), AuditLineParser::Result::Event);
        QCOMPARE(e.auditId, std::string("d1"));
    }

    void rotatedOrder() {
        QTemporaryDir dir;
        const QString d = dir.path() + QStringLiteral("/master-1");
        for (const char* name : {"audit.log", "audit-2026-11-26T11-00-00.000.log",
                                 "audit-2026-11-26T09-30-00.000.log.gz",
                                 "audit-2026-11-25T23-59-59.999.log.gz", "other.log"})
            QVERIFY(writeFile(d + u'/' + QLatin1String(name), "\n"));
        QString error;
        const auto groups = AuditLogFiles::expand({d}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(int(groups.size()), 2);
        QCOMPARE(groups[0].apiserver, QStringLiteral("audit.log"));
        QCOMPARE(groups[0].files,
                 QStringList({d + "/audit-2026-11-25T23-59-59.999.log.gz",
                              d + "/audit-2026-11-26T09-30-00.000.log.gz",
                              d + "/audit-2026-11-26T11-00-00.000.log", d + "/audit.log"}));
        QCOMPARE(groups[1].apiserver, QStringLiteral("other.log"));
        // Two apiservers' logs of one name are told apart by their folder.
        const QString d2 = dir.path() + QStringLiteral("/master-2");
        QVERIFY(writeFile(d2 + QStringLiteral("/audit.log"), "\n"));
        const auto two = AuditLogFiles::expand({d + "/audit.log", d2 + "/audit.log"}, &error);
        QCOMPARE(int(two.size()), 2);
        QCOMPARE(two[0].apiserver, QStringLiteral("master-1/audit.log"));
        QCOMPARE(two[1].apiserver, QStringLiteral("master-2/audit.log"));
        QVERIFY(AuditLogFiles::expand({dir.path() + "/nope.log"}, &error).empty());
        QCOMPARE(
            error,
            QStringLiteral("--audit-log: %1/nope.log: no such file or directory").arg(dir.path()));
    }
};

QTEST_GUILESS_MAIN(TstAuditParser)
#include "tst_auditparser.moc"

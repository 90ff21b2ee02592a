// The 422 Invalid a kube-apiserver answers a watch (or list) request with, per version and
// WatchList gate (apimachinery ValidateListOptions + errors.NewInvalid at the v0.19-v0.36 tags):
// the exact Status body a watch-list gets from 1.19-1.26 (resourceVersionMatch) and from 1.27+ with
// the gate off (sendInitialEvents), and none where the gate is on or before 1.19.
#include "kube/ApiStatus.h"
#include "kube/ListOptionsValidation.h"
#include "kube/ServerProfile.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ws;

namespace {

const char* const kGateOffBody =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
    "\"message\":\"ListOptions.meta.k8s.io \\\"\\\" is invalid: sendInitialEvents: Forbidden: "
    "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled\","
    "\"reason\":\"Invalid\",\"details\":{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\","
    "\"causes\":[{\"reason\":\"FieldValueForbidden\",\"message\":\"Forbidden: sendInitialEvents "
    "is forbidden for watch unless the WatchList feature gate is enabled\",\"field\":"
    "\"sendInitialEvents\"}]},\"code\":422}";

// 1.19-1.26, a first watch-list (resourceVersion ""): two errors on resourceVersionMatch.
const char* const kBefore127Body =
    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
    "\"message\":\"ListOptions.meta.k8s.io \\\"\\\" is invalid: [resourceVersionMatch: Forbidden: "
    "resourceVersionMatch is forbidden for watch, resourceVersionMatch: Forbidden: "
    "resourceVersionMatch is forbidden unless resourceVersion is provided]\",\"reason\":"
    "\"Invalid\",\"details\":{\"group\":\"meta.k8s.io\",\"kind\":\"ListOptions\",\"causes\":["
    "{\"reason\":\"FieldValueForbidden\",\"message\":\"Forbidden: resourceVersionMatch is "
    "forbidden for watch\",\"field\":\"resourceVersionMatch\"},{\"reason\":"
    "\"FieldValueForbidden\",\"message\":\"Forbidden: resourceVersionMatch is forbidden unless "
    "resourceVersion is provided\",\"field\":\"resourceVersionMatch\"}]},\"code\":422}";

const QString kGateOffMessage = QStringLiteral(
    "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is "
    "forbidden for watch unless the WatchList feature gate is enabled");

ServerProfile profile(const QString& version, int gate = -1) {
    auto p = ServerProfile::fromVersion(version, nullptr);
    if (!p)
        qFatal("bad version %s", qPrintable(version));
    if (gate >= 0)
        p->watchList = gate == 1;
    return *p;
}

} // namespace

class TestListOptionsValidation : public QObject {
    Q_OBJECT

private slots:
    void watchListPerVersion_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<int>("gate"); // -1: the version's default
        QTest::addColumn<QString>("rv");
        QTest::addColumn<QString>("message"); // empty: accepted
        const QString rvMatchForWatch = QStringLiteral(
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
            "resourceVersionMatch is forbidden for watch");
        // 1.16-1.18 know neither parameter: a plain watch, no 422.
        QTest::newRow("1.16") << "1.16" << -1 << ""
                              << "";
        QTest::newRow("1.18") << "1.18" << -1 << ""
                              << "";
        QTest::newRow("1.19 from RV") << "1.19" << -1 << "1200" << rvMatchForWatch;
        QTest::newRow("1.26 from RV") << "1.26" << -1 << "1200" << rvMatchForWatch;
        // A gate set on a server that has none changes nothing.
        QTest::newRow("1.26 WatchList=true") << "1.26" << 1 << "1200" << rvMatchForWatch;
        QTest::newRow("1.27") << "1.27" << -1 << "" << kGateOffMessage;
        QTest::newRow("1.27 WatchList=true") << "1.27" << 1 << ""
                                             << "";
        QTest::newRow("1.31 off") << "1.31" << -1 << "" << kGateOffMessage;
        QTest::newRow("1.32 on") << "1.32" << -1 << ""
                                 << "";
        QTest::newRow("1.32 WatchList=false") << "1.32" << 0 << "" << kGateOffMessage;
        QTest::newRow("1.33 off") << "1.33" << -1 << "" << kGateOffMessage;
        QTest::newRow("1.33 off from RV") << "1.33" << -1 << "1200" << kGateOffMessage;
        QTest::newRow("1.34 on") << "1.34" << -1 << ""
                                 << "";
        QTest::newRow("1.36 on") << "1.36" << -1 << ""
                                 << "";
    }
    void watchListPerVersion() {
        QFETCH(QString, version);
        QFETCH(int, gate);
        QFETCH(QString, rv);
        QFETCH(QString, message);
        const ServerProfile p = profile(version, gate);
        const auto invalid = invalidWatchOptions(p, WatchQuery::watchList(rv));
        QCOMPARE(invalid.has_value(), !message.isEmpty());
        QCOMPARE(p.servesWatchList(), message.isEmpty() && p.minor >= 27);
        if (!invalid)
            return;
        QCOMPARE(invalid->code, 422);
        QCOMPARE(invalid->reason, QStringLiteral("Invalid"));
        QCOMPARE(invalid->message, message);
        // The body parses as a metav1.Status with one cause per field error.
        const QJsonObject o = QJsonDocument::fromJson(invalid->toJson()).object();
        QCOMPARE(o.value(QLatin1String("kind")).toString(), QStringLiteral("Status"));
        QCOMPARE(o.value(QLatin1String("code")).toInt(), 422);
        const QJsonObject details = o.value(QLatin1String("details")).toObject();
        QCOMPARE(details.value(QLatin1String("kind")).toString(), QStringLiteral("ListOptions"));
        QCOMPARE(details.value(QLatin1String("group")).toString(), QStringLiteral("meta.k8s.io"));
        const QJsonObject cause = details.value(QLatin1String("causes")).toArray().at(0).toObject();
        QCOMPARE(cause.value(QLatin1String("reason")).toString(),
                 QStringLiteral("FieldValueForbidden"));
        QCOMPARE(cause.value(QLatin1String("field")).toString(),
                 p.minor >= 27 ? QStringLiteral("sendInitialEvents")
                               : QStringLiteral("resourceVersionMatch"));
        QVERIFY(message.endsWith(cause.value(QLatin1String("message")).toString()));
    }

    // The exact bytes: 1.26 (first watch-list, RV "") and 1.27+ with the gate off.
    void exactBodies() {
        const auto v126 =
            invalidWatchOptions(profile(QStringLiteral("1.26")), WatchQuery::watchList(QString()));
        QVERIFY(v126);
        QCOMPARE(v126->toJson(), QByteArray(kBefore127Body));
        for (const char* version : {"1.27", "1.31", "1.33"}) {
            const auto off = invalidWatchOptions(profile(QLatin1String(version)),
                                                 WatchQuery::watchList(QString()));
            QVERIFY(off);
            QCOMPARE(off->toJson(), QByteArray(kGateOffBody));
        }
    }

    // Other watch requests: plain watches pass everywhere; 1.27+ checks the pair of parameters
    // whatever the gate.
    void otherWatchRequests() {
        WatchQuery plain;
        plain.resourceVersion = QStringLiteral("100");
        for (const char* v : {"1.16", "1.19", "1.26", "1.27", "1.33", "1.34", "1.36"})
            QVERIFY2(!invalidWatchOptions(profile(QLatin1String(v)), plain), v);

        // sendInitialEvents=false is a set *bool: forbidden with the gate off.
        WatchQuery explicitFalse = WatchQuery::watchList(QString());
        explicitFalse.sendInitialEvents = false;
        QVERIFY(invalidWatchOptions(profile(QStringLiteral("1.33")), explicitFalse));
        QVERIFY(!invalidWatchOptions(profile(QStringLiteral("1.34")), explicitFalse));

        // resourceVersionMatch alone.
        WatchQuery matchOnly;
        matchOnly.resourceVersionMatch = QStringLiteral("NotOlderThan");
        const auto m = invalidWatchOptions(profile(QStringLiteral("1.34")), matchOnly);
        QVERIFY(m);
        QCOMPARE(m->message, QStringLiteral("ListOptions.meta.k8s.io \"\" is invalid: "
                                            "resourceVersionMatch: Forbidden: resourceVersionMatch "
                                            "is forbidden for watch unless sendInitialEvents is "
                                            "provided"));

        // sendInitialEvents without resourceVersionMatch, gate off: both errors, in order.
        WatchQuery initialOnly;
        initialOnly.sendInitialEvents = true;
        const auto both = invalidWatchOptions(profile(QStringLiteral("1.33")), initialOnly);
        QVERIFY(both);
        QCOMPARE(both->fieldCauses.size(), std::size_t(2));
        QCOMPARE(both->message,
                 QStringLiteral("ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: "
                                "Forbidden: sendInitialEvents requires setting "
                                "resourceVersionMatch to NotOlderThan, sendInitialEvents: "
                                "Forbidden: sendInitialEvents is forbidden for watch unless the "
                                "WatchList feature gate is enabled]"));

        // An unsupported match: the value quoted, the supported ones listed.
        WatchQuery exact = WatchQuery::watchList(QStringLiteral("5"));
        exact.resourceVersionMatch = QStringLiteral("Exact");
        const auto e = invalidWatchOptions(profile(QStringLiteral("1.34")), exact);
        QVERIFY(e);
        QCOMPARE(e->fieldCauses.size(), std::size_t(2));
        QCOMPARE(e->fieldCauses[1].reason, QStringLiteral("FieldValueNotSupported"));
        QCOMPARE(
            e->fieldCauses[1].message,
            QStringLiteral("Unsupported value: \"Exact\": supported values: \"NotOlderThan\""));
        const auto e126 = invalidWatchOptions(profile(QStringLiteral("1.26")), exact);
        QVERIFY(e126);
        QCOMPARE(e126->message, QStringLiteral("ListOptions.meta.k8s.io \"\" is invalid: "
                                               "resourceVersionMatch: Forbidden: "
                                               "resourceVersionMatch is forbidden for watch"));
    }

    // LIST requests (ValidateListOptions without watch): a resourceVersionMatch needs a
    // resourceVersion and no continue, Exact not at "0"; sendInitialEvents forbidden from 1.27;
    // nothing checked before 1.19. What the real 1.33 and 1.35 answer (tests/real/tst_realserve).
    void listRequests() {
        WatchQuery matchOnly;
        matchOnly.resourceVersionMatch = QStringLiteral("Exact");
        QVERIFY(!invalidListOptions(profile(QStringLiteral("1.18")), matchOnly));
        const auto m = invalidListOptions(profile(QStringLiteral("1.35")), matchOnly);
        QVERIFY(m);
        QCOMPARE(m->code, 422);
        QCOMPARE(m->message, QStringLiteral("ListOptions.meta.k8s.io \"\" is invalid: "
                                            "resourceVersionMatch: Forbidden: resourceVersionMatch "
                                            "is forbidden unless resourceVersion is provided"));
        QCOMPARE(m->detailsKind, QStringLiteral("ListOptions"));

        WatchQuery exactAtZero = matchOnly;
        exactAtZero.resourceVersion = QStringLiteral("0");
        const auto z = invalidListOptions(profile(QStringLiteral("1.20")), exactAtZero);
        QVERIFY(z);
        QCOMPARE(z->fieldCauses.size(), std::size_t(1));
        QCOMPARE(z->fieldCauses[0].message,
                 QStringLiteral("Forbidden: resourceVersionMatch \"exact\" is forbidden for "
                                "resourceVersion \"0\""));

        WatchQuery served;
        served.resourceVersion = QStringLiteral("100");
        served.resourceVersionMatch = QStringLiteral("NotOlderThan");
        QVERIFY(!invalidListOptions(profile(QStringLiteral("1.35")), served));

        WatchQuery initial;
        initial.sendInitialEvents = true;
        QVERIFY(!invalidListOptions(profile(QStringLiteral("1.26")), initial));
        const auto i = invalidListOptions(profile(QStringLiteral("1.27")), initial);
        QVERIFY(i);
        QCOMPARE(i->message, QStringLiteral("ListOptions.meta.k8s.io \"\" is invalid: "
                                            "sendInitialEvents: Forbidden: sendInitialEvents is "
                                            "forbidden for list"));
    }

    // The older Status shapes are unchanged by the details fields.
    void otherStatusesUnchanged() {
        const ApiStatus tooLarge = ApiStatus::tooLarge(profile(QStringLiteral("1.30")), 10, 5);
        QCOMPARE(tooLarge.toJson(),
                 QByteArray("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                            "\"status\":\"Failure\",\"message\":\"Timeout: Too large resource "
                            "version: 10, current: 5\",\"reason\":\"Timeout\",\"details\":{"
                            "\"causes\":[{\"reason\":\"ResourceVersionTooLarge\",\"message\":"
                            "\"Too large resource version\"}],\"retryAfterSeconds\":1},"
                            "\"code\":504}"));
    }
};

QTEST_APPLESS_MAIN(TestListOptionsValidation)
#include "tst_listoptionsvalidation.moc"

// Server profiles and feature gates (kube/ServerProfile.h, kube/FeatureGates.h): each gate's
// default on both sides of the version where it changed (reference §2, §3, §5, §9), the one
// --feature-gates parser, and the 1.33 event-history window.
#include "kube/FeatureGates.h"
#include "kube/ServerProfile.h"

#include <QTest>

using namespace ws;

namespace {

ServerProfile profile(const char* version) {
    QString error;
    auto p = ServerProfile::fromVersion(QLatin1String(version), &error);
    if (!p)
        qFatal("%s", qPrintable(error));
    return *p;
}

bool gateOn(const ServerProfile& p, const char* gate) {
    const FeatureGate* g = FeatureGates::find(QLatin1String(gate));
    if (!g)
        qFatal("no gate %s", gate);
    return p.*(g->field);
}

} // namespace

class TestServerProfile : public QObject {
    Q_OBJECT
private slots:
    void gateDefaults_data() {
        QTest::addColumn<QString>("gate");
        QTest::addColumn<QString>("offAt");
        QTest::addColumn<QString>("onAt");
        const auto row = [](const char* name, const char* gate, const char* off, const char* on) {
            QTest::newRow(name) << QString::fromLatin1(gate) << QString::fromLatin1(off)
                                << QString::fromLatin1(on);
        };
        row("WatchList on in 1.32", "WatchList", "1.31", "1.32");
        row("WatchList off again in 1.33", "WatchList", "1.33", "1.34");
        row("SeparateCacheWatchRPC backported to 1.28.8", "SeparateCacheWatchRPC", "1.28.7",
            "1.28.8");
        row("SeparateCacheWatchRPC backported to 1.29.3", "SeparateCacheWatchRPC", "1.29.2",
            "1.29.3");
        row("SeparateCacheWatchRPC off from 1.33", "SeparateCacheWatchRPC", "1.33", "1.32");
        row("ConsistentListFromCache beta on 1.31", "ConsistentListFromCache", "1.30", "1.31");
        row("ResilientWatchCacheInitialization beta on 1.31", "ResilientWatchCacheInitialization",
            "1.30", "1.31");
        row("WatchCacheInitializationPostStartHook on 1.36",
            "WatchCacheInitializationPostStartHook", "1.35", "1.36");
        row("BtreeWatchCache beta on 1.32", "BtreeWatchCache", "1.31", "1.32");
        row("ListFromCacheSnapshot beta on 1.34", "ListFromCacheSnapshot", "1.33", "1.34");
        row("DetectCacheInconsistency beta on 1.34", "DetectCacheInconsistency", "1.33", "1.34");
        row("WatchFromStorageWithoutResourceVersion never on by default",
            "WatchFromStorageWithoutResourceVersion", "1.27.13", "");
        row("StreamingCollectionEncodingToJSON beta on 1.33", "StreamingCollectionEncodingToJSON",
            "1.32", "1.33");
        row("StreamingCollectionEncodingToProtobuf beta on 1.33",
            "StreamingCollectionEncodingToProtobuf", "1.32", "1.33");
    }
    void gateDefaults() {
        QFETCH(QString, gate);
        QFETCH(QString, offAt);
        QFETCH(QString, onAt);
        QVERIFY(!gateOn(profile(qPrintable(offAt)), qPrintable(gate)));
        if (!onAt.isEmpty())
            QVERIFY(gateOn(profile(qPrintable(onAt)), qPrintable(gate)));
    }

    void everyGateIsSettableAndListed() {
        for (const FeatureGate& g : FeatureGates::all()) {
            QVERIFY(FeatureGates::names().contains(QLatin1String(g.name)));
            QVERIFY2(g.firstMinor >= 16 && g.firstMinor <= g.lastMinor && g.lastMinor <= 36,
                     g.name);
            for (const bool value : {true, false}) {
                ServerProfile p = profile("1.34");
                FeatureGates::apply(p, {{QLatin1String(g.name), value}});
                QCOMPARE(p.*(g.field), value);
            }
        }
    }

    void parse_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("value");
        QTest::addColumn<QString>("error");
        QTest::newRow("name=true")
            << "BtreeWatchCache=true" << true << "BtreeWatchCache" << true << "";
        QTest::newRow("name=FALSE") << "DetectCacheInconsistency=FALSE" << true
                                    << "DetectCacheInconsistency" << false << "";
        QTest::newRow("bare name is true") << "WatchList" << true << "WatchList" << true << "";
        QTest::newRow("bad value") << "WatchList=yes" << false << "" << false
                                   << "'WatchList=yes': the value must be true or false";
        QTest::newRow("unknown gate") << "Bogus=true" << false << "" << false
                                      << "unknown gate 'Bogus' (modelled: WatchList, ";
    }
    void parse() {
        QFETCH(QString, spec);
        QFETCH(bool, ok);
        QFETCH(QString, name);
        QFETCH(bool, value);
        QFETCH(QString, error);
        QString gotName, gotError;
        bool gotValue = !value;
        QCOMPARE(FeatureGates::parse(spec, &gotName, &gotValue, &gotError), ok);
        if (ok) {
            QCOMPARE(gotName, name);
            QCOMPARE(gotValue, value);
        } else {
            QVERIFY2(gotError.startsWith(error), qPrintable(gotError));
        }
    }

    // 1.27.13+ keep the etcd path for RV="" watches only behind the gate (locked off from 1.33,
    // so only 1.27.13-1.32 can turn it on); 1.36 removed it.
    void watchFromStorageWithoutResourceVersion() {
        QVERIFY(profile("1.27.12").watchWithoutRvFromEtcd());
        QVERIFY(!profile("1.27.13").watchWithoutRvFromEtcd());
        for (const char* v : {"1.27.13", "1.30", "1.32", "1.35", "1.36"}) {
            ServerProfile p = profile(v);
            FeatureGates::apply(p,
                                {{QStringLiteral("WatchFromStorageWithoutResourceVersion"), true}});
            QCOMPARE(p.watchWithoutRvFromEtcd(), QLatin1String(v) != QLatin1String("1.36"));
        }
    }

    // What kube-apiserver of a release says to --feature-gates G=v (featuregate.Set): a gate it
    // does not have is "unrecognized" (backports exist from their patch release only), a gate
    // locked to its default (GA, or deprecated and locked) cannot be set against it.
    void gateAcceptedPerRelease_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("error"); // "" when accepted
        const auto row = [](const char* version, const char* spec, const char* error) {
            QTest::newRow(qPrintable(
                QStringLiteral("%1 %2").arg(QLatin1String(version), QLatin1String(spec))))
                << QString::fromLatin1(version) << QString::fromLatin1(spec)
                << QString::fromLatin1(error);
        };
        const char* sep = "unrecognized feature gate: SeparateCacheWatchRPC (kube-apiserver %1 "
                          "does not have it; it exists in 1.28.8+, 1.29.3+, 1.30-1.36)";
        row("1.27.0", "SeparateCacheWatchRPC=true", sep);
        row("1.28.7", "SeparateCacheWatchRPC=true", sep);
        row("1.28.8", "SeparateCacheWatchRPC=false", "");
        row("1.29.2", "SeparateCacheWatchRPC=true", sep);
        row("1.29.3", "SeparateCacheWatchRPC=false", "");
        row("1.30", "SeparateCacheWatchRPC=false", "");
        row("1.33", "SeparateCacheWatchRPC=true", "");
        // Deprecated from 1.33, locked off from 1.36 (kube_features.go@v0.36.0).
        row("1.36", "SeparateCacheWatchRPC=true",
            "cannot set feature gate SeparateCacheWatchRPC to true, feature is locked to false "
            "(kube-apiserver %1)");
        row("1.36", "SeparateCacheWatchRPC=false", "");
        const char* wfs = "unrecognized feature gate: WatchFromStorageWithoutResourceVersion "
                          "(kube-apiserver %1 does not have it; it exists in 1.27.13+, 1.28.9+, "
                          "1.29.4+, 1.30-1.35)";
        row("1.27.12", "WatchFromStorageWithoutResourceVersion=true", wfs);
        row("1.27.13", "WatchFromStorageWithoutResourceVersion=true", "");
        row("1.28.8", "WatchFromStorageWithoutResourceVersion=true", wfs);
        row("1.28.9", "WatchFromStorageWithoutResourceVersion=true", "");
        row("1.29.4", "WatchFromStorageWithoutResourceVersion=true", "");
        row("1.32", "WatchFromStorageWithoutResourceVersion=true", "");
        row("1.33", "WatchFromStorageWithoutResourceVersion=true",
            "cannot set feature gate WatchFromStorageWithoutResourceVersion to true, feature is "
            "locked to false (kube-apiserver %1)");
        row("1.35", "WatchFromStorageWithoutResourceVersion=false", "");
        row("1.36", "WatchFromStorageWithoutResourceVersion=true", wfs);
        row("1.26", "WatchList=true",
            "unrecognized feature gate: WatchList (kube-apiserver %1 does not have it; it exists "
            "in 1.27-1.36)");
        row("1.27", "WatchList=true", "");
        row("1.33", "ConsistentListFromCache=false", "");
        row("1.34", "ConsistentListFromCache=false",
            "cannot set feature gate ConsistentListFromCache to false, feature is locked to true "
            "(kube-apiserver %1)");
        row("1.34", "ConsistentListFromCache=true", "");
        row("1.33", "ResilientWatchCacheInitialization=false", "");
        row("1.34", "ResilientWatchCacheInitialization=false",
            "cannot set feature gate ResilientWatchCacheInitialization to false, feature is "
            "locked to true (kube-apiserver %1)");
        row("1.32", "BtreeWatchCache=false", "");
        row("1.33", "BtreeWatchCache=false",
            "cannot set feature gate BtreeWatchCache to false, feature is locked to true "
            "(kube-apiserver %1)");
        row("1.33", "StreamingCollectionEncodingToJSON=false", "");
        row("1.34", "StreamingCollectionEncodingToProtobuf=false",
            "cannot set feature gate StreamingCollectionEncodingToProtobuf to false, feature is "
            "locked to true (kube-apiserver %1)");
        row("1.32", "StreamingCollectionEncodingToJSON=true",
            "unrecognized feature gate: StreamingCollectionEncodingToJSON (kube-apiserver %1 "
            "does not have it; it exists in 1.33-1.36)");
        row("1.33", "DetectCacheInconsistency=true",
            "unrecognized feature gate: DetectCacheInconsistency (kube-apiserver %1 does not "
            "have it; it exists in 1.34-1.36)");
    }
    void gateAcceptedPerRelease() {
        QFETCH(QString, version);
        QFETCH(QString, spec);
        QFETCH(QString, error);
        QString name, why;
        bool value = false;
        QVERIFY2(FeatureGates::parse(spec, &name, &value, &why), qPrintable(why));
        const auto rejected = FeatureGates::rejection(profile(qPrintable(version)), name, value);
        QCOMPARE(rejected.value_or(QString()), error.isEmpty() ? QString() : error.arg(version));
    }

    // Streaming list encoding (KEP-5116) changes only the apiserver's memory: a flag for the
    // memory model, on from 1.33 (beta, default on) and locked on from 1.34.
    void streamingListEncoding_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<bool>("on");
        QTest::newRow("1.32") << "1.32" << false;
        QTest::newRow("1.33") << "1.33" << true;
        QTest::newRow("1.34") << "1.34" << true;
        QTest::newRow("1.36") << "1.36" << true;
    }
    void streamingListEncoding() {
        QFETCH(QString, version);
        QFETCH(bool, on);
        ServerProfile p = profile(qPrintable(version));
        QCOMPARE(p.streamingListEncoding(false), on);
        QCOMPARE(p.streamingListEncoding(true), on);
        if (on) { // 1.33 may turn one encoder off
            FeatureGates::apply(p, {{QStringLiteral("StreamingCollectionEncodingToJSON"), false}});
            QVERIFY(!p.streamingListEncoding(false));
            QVERIFY(p.streamingListEncoding(true));
        }
    }

    // PR #129205 / #130344: from 1.33 the ring keeps max(75 s, request-timeout + 15 s) and its
    // upper bound grows by the power of two that covers the longer window.
    void eventHistoryWindow_data() {
        QTest::addColumn<QString>("version");
        QTest::addColumn<int>("requestTimeoutS");
        QTest::addColumn<int>("windowS");
        QTest::addColumn<qulonglong>("upperBound");
        QTest::newRow("1.32 default") << "1.32" << 60 << 75 << 102400ull;
        QTest::newRow("1.32 long timeout ignored") << "1.32" << 300 << 75 << 102400ull;
        QTest::newRow("1.33 default") << "1.33" << 60 << 75 << 102400ull;
        QTest::newRow("1.33 90 s") << "1.33" << 90 << 105 << 204800ull;
        QTest::newRow("1.33 135 s: exactly 2x") << "1.33" << 135 << 150 << 204800ull;
        QTest::newRow("1.33 5 min") << "1.33" << 300 << 315 << 819200ull;
        QTest::newRow("1.36 short timeout keeps 75 s") << "1.36" << 30 << 75 << 102400ull;
    }
    void eventHistoryWindow() {
        QFETCH(QString, version);
        QFETCH(int, requestTimeoutS);
        QFETCH(int, windowS);
        QFETCH(qulonglong, upperBound);
        ServerProfile p = profile(qPrintable(version));
        p.requestTimeout = seconds(requestTimeoutS);
        QCOMPARE(p.eventHistoryWindow(), seconds(windowS));
        QCOMPARE(qulonglong(p.ringUpperBound()), upperBound);
    }
};

QTEST_GUILESS_MAIN(TestServerProfile)
#include "tst_serverprofile.moc"

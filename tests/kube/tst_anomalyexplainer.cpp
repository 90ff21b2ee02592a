// kube/AnomalyExplainer: each kind explained under several versions names the versions, ranges
// and fixes of reference/kubernetes-watch.md and etcd-watch.md; unknown versions give the
// conditional text. And the sessions' sources report the versions the explanations need.
#include "engine/Session.h"
#include "kube/AnomalyExplainer.h"
#include "kube/ClientGoFacts.h"
#include "kube/EtcdFacts.h"
#include "kube/ServerFacts.h"
#include "model/VersionContext.h"
#include "sources/capture/CaptureReplay.h"
#include "sources/sim/SimSource.h"

#include <QFile>
#include <QRegularExpression>
#include <QTest>

using namespace ws;

namespace {

VersionContext versions(const QString& server, const QString& clientGo, const QString& etcd,
                        const QMap<QString, bool>& gates = {}) {
    VersionContext v;
    v.kubeApiserver = server;
    v.clientGo = clientGo;
    v.etcd = etcd;
    v.featureGates = gates;
    return v;
}

Anomaly anomaly(AnomalyKind kind, AnomalySource source, const QString& watcher,
                const QString& message, ResourceVersion rv = 0, const QString& key = {},
                const QString& resource = QStringLiteral("pods")) {
    Anomaly a;
    a.kind = kind;
    a.source = source;
    a.watcher = watcher;
    a.message = message;
    a.rv = rv;
    a.key = key;
    a.resource = resource;
    return a;
}

// Messages as the detectors write them (the seed scenarios' own, see tests/fixtures).
Anomaly prevKvFromApiserver(const QString& watcher = QStringLiteral("node-agent-8")) {
    return anomaly(AnomalyKind::PrevKvNil, AnomalySource::Apiserver, watcher,
                   QStringLiteral("500 InternalError: Internal error occurred: etcd event "
                                  "received with PrevKv=nil (key=\"/registry/pods/ns-2/pod-167\", "
                                  "modRevision=514, type=DELETE)"),
                   514, QStringLiteral("/registry/pods/ns-2/pod-167"));
}

Anomaly prevKvFromEtcd() {
    return anomaly(AnomalyKind::PrevKvNil, AnomalySource::Etcd,
                   QStringLiteral("cacher/pods@apiserver-0"),
                   QStringLiteral("DELETE at 1234 without prev_kv; compact revision 1200"), 1234,
                   QStringLiteral("/registry/pods/default/a"));
}

Anomaly tooLarge() {
    return anomaly(AnomalyKind::TooLargeRv, AnomalySource::Apiserver,
                   QStringLiteral("agent-0-20-1"),
                   QStringLiteral("list from RV 904 failed: 504 Timeout: Timeout: Too large "
                                  "resource version: 904, current: 304"),
                   904, {}, QStringLiteral("runtimeclasses"));
}

Anomaly tooOld(const QString& reason, const QString& resource = QStringLiteral("pods")) {
    return anomaly(AnomalyKind::TooOldRv, AnomalySource::Apiserver,
                   QStringLiteral("kubelet-node-40"),
                   QStringLiteral("watch from RV 401 failed: 410 %1: too old resource version: "
                                  "401 (2157)")
                       .arg(reason),
                   401, {}, resource);
}

// One representative anomaly per kind, as its detector words it.
Anomaly sample(AnomalyKind kind) {
    switch (kind) {
    case AnomalyKind::PrevKvNil:
        return prevKvFromApiserver();
    case AnomalyKind::RevisionGap:
        return anomaly(kind, AnomalySource::Etcd, QStringLiteral("etcd"),
                       QStringLiteral("event at 120 after 100, expected 101: revisions 101..119 "
                                      "(19) missing"),
                       120, QStringLiteral("/registry/pods/default/a"));
    case AnomalyKind::RevisionRegression:
        return anomaly(kind, AnomalySource::Apiserver, QStringLiteral("controller"),
                       QStringLiteral("time travel: list returned RV 600, below RV 1200 already "
                                      "seen by this watcher (600 revisions back)"),
                       600);
    case AnomalyKind::DuplicateEvent:
        return anomaly(kind, AnomalySource::Etcd, QStringLiteral("etcd"),
                       QStringLiteral("PUT of /registry/pods/default/a at 7 delivered twice on "
                                      "the same watch"),
                       7, QStringLiteral("/registry/pods/default/a"));
    case AnomalyKind::SplitRevision:
        return anomaly(kind, AnomalySource::Etcd, QStringLiteral("etcd"),
                       QStringLiteral("revision 9 split across two watch responses: the previous "
                                      "response ended with revision 9 and this one starts with "
                                      "/registry/pods/default/b at 9"),
                       9, QStringLiteral("/registry/pods/default/b"));
    case AnomalyKind::BookmarkViolation:
        return anomaly(kind, AnomalySource::Etcd, QStringLiteral("etcd"),
                       QStringLiteral("PUT at 40 after a bookmark at 45 on the same watch"), 40);
    case AnomalyKind::TooOldRv:
        return tooOld(QStringLiteral("Expired"));
    case AnomalyKind::TooLargeRv:
        return tooLarge();
    case AnomalyKind::RetryLoop:
        return anomaly(kind, AnomalySource::Apiserver, QStringLiteral("agent-0-22-1"),
                       QStringLiteral("504 Timeout received 5 times in a row without progress "
                                      "(watcher stays at RV 904): Timeout: Too large resource "
                                      "version: 904, current: 304"),
                       904, {}, QStringLiteral("runtimeclasses"));
    case AnomalyKind::RelistStorm:
        return anomaly(kind, AnomalySource::Apiserver, {},
                       QStringLiteral("10 relists of pods in 10 s by 10 of 30 watchers "
                                      "(threshold: 10 relists, or 50% of at least 4 watchers)"));
    case AnomalyKind::WatcherLag:
        return anomaly(kind, AnomalySource::Apiserver, QStringLiteral("slow-controller"),
                       QStringLiteral("1510 revisions behind (head 5357, watcher at 3847), 10.1 s "
                                      "behind (threshold 10 s)"),
                       3847, {}, QStringLiteral("configmaps"));
    case AnomalyKind::StuckWatcher:
        return anomaly(kind, AnomalySource::Etcd,
                       QStringLiteral("cacher/runtimeclasses@apiserver-1"),
                       QStringLiteral("RV 304 unchanged for 90.0 s while the head moved 304 -> "
                                      "4804 (4500 revisions behind)"),
                       304, {}, QStringLiteral("runtimeclasses"));
    case AnomalyKind::WatcherTerminated:
        return anomaly(kind, AnomalySource::Apiserver, QStringLiteral("slow-controller"),
                       QStringLiteral("server closed the watch without an ERROR event at RV 3330 "
                                      "after 20.8 s"),
                       3330, {}, QStringLiteral("configmaps"));
    case AnomalyKind::StaleObject:
        return anomaly(kind, AnomalySource::Etcd, QStringLiteral("cacher/pods@apiserver-0"),
                       QStringLiteral("store at RV 1285 still holds /registry/pods/ns-0/pod-0 (RV "
                                      "449), deleted in etcd at 804"),
                       449, QStringLiteral("/registry/pods/ns-0/pod-0"));
    case AnomalyKind::InitialEventsStalled:
        return anomaly(kind, AnomalySource::Apiserver, QStringLiteral("watchlist-controller"),
                       QStringLiteral("watch-list opened 30.0 s ago has not delivered its "
                                      "k8s.io/initial-events-end bookmark (timeout 30 s)"),
                       0, {}, QStringLiteral("configmaps"));
    case AnomalyKind::StreamError:
        return anomaly(kind, AnomalySource::Apiserver, QStringLiteral("informer-0"),
                       QStringLiteral("malformed watch stream from apiserver: unexpected end of "
                                      "JSON object"));
    case AnomalyKind::CacheInconsistent:
        return anomaly(kind, AnomalySource::Apiserver, QStringLiteral("cacher/pods@apiserver-0"),
                       QStringLiteral("Cache consistency check failed at RV 5360: etcd digest "
                                      "1a6464cdcd5ee4f7, cache digest 76619d261763acf0; first "
                                      "difference: cache ns-0/pod-102@104, etcd "
                                      "ns-0/pod-105@5235 (apiserver_storage_consistency_checks_"
                                      "total{status=\"failure\"}); the cache is not relisted"),
                       5360, QStringLiteral("/registry/pods/ns-0/pod-102"));
    case AnomalyKind::CacheNotReady:
        return anomaly(kind, AnomalySource::Apiserver, QStringLiteral("informer-7"),
                       QStringLiteral("requests refused by a watch cache that is not ready for "
                                      "30.9 s (6 times); last: 429 TooManyRequests: storage is "
                                      "(re)initializing (Retry-After up to 2 s)"));
    case AnomalyKind::ListPressure:
        return anomaly(kind, AnomalySource::Apiserver, QStringLiteral("apiserver-0"),
                       QStringLiteral("apiserver-0 OOM-killed: memory 74.52 GiB above its limit "
                                      "7.45 GiB; 2000 lists in flight hold 72.66 GiB"),
                       0, {}, QStringLiteral("pods"));
    }
    return {};
}

QString all(const AnomalyExplanation& e) {
    return e.toPlainText();
}

// Each of `needles` in `haystack`, with the haystack printed when one is missing.
void expectIn(const QString& haystack, const QStringList& needles, const QStringList& absent = {}) {
    for (const QString& n : needles)
        QVERIFY2(haystack.contains(n),
                 qPrintable(QStringLiteral("missing \"%1\" in:\n%2").arg(n, haystack)));
    for (const QString& n : absent)
        QVERIFY2(!haystack.contains(n),
                 qPrintable(QStringLiteral("unexpected \"%1\" in:\n%2").arg(n, haystack)));
}

QStringList list(const QString& joined) {
    return joined.isEmpty() ? QStringList() : joined.split(QLatin1Char('|'));
}

} // namespace

class TestAnomalyExplainer : public QObject {
    Q_OBJECT
private slots:
    // Every kind, under versions old and new and unknown, from either source: what, why and fix
    // say something, and no placeholder is left unfilled.
    void everyKindIsExplained_data() {
        QTest::addColumn<VersionContext>("context");
        QTest::newRow("unknown") << VersionContext{};
        QTest::newRow("1.16 0.16 3.4.23") << versions("1.16", "0.16", "3.4.23");
        QTest::newRow("1.18 0.18 3.4") << versions("1.18", "0.18", "3.4");
        QTest::newRow("1.24 0.22 3.4.23") << versions("1.24", "0.22", "3.4.23");
        QTest::newRow("1.27.0 current 3.4.23") << versions("1.27.0", "current", "3.4.23");
        QTest::newRow("1.28 0.27 3.5") << versions("1.28", "0.27", "3.5");
        QTest::newRow("v1.31.2-eks 0.35 3.5.13") << versions("v1.31.2-eks-1234", "0.35", "3.5.13");
        QTest::newRow("1.36 current-watchlist 3.6.0")
            << versions("1.36", "current-watchlist", "3.6.0");
        QTest::newRow("1.12 (not modelled)") << versions("1.12", "0.9", "2.3.7");
    }
    void everyKindIsExplained() {
        QFETCH(VersionContext, context);
        static const QRegularExpression placeholder(QStringLiteral("%\\d"));
        for (const AnomalyKind kind : allAnomalyKinds()) {
            for (const AnomalySource source : {AnomalySource::Etcd, AnomalySource::Apiserver}) {
                Anomaly a = sample(kind);
                a.source = source;
                const AnomalyExplanation e = AnomalyExplainer::explain(a, context);
                const QString name = kindName(kind) + QLatin1Char('/') + sourceName(source);
                QVERIFY2(!e.what.isEmpty(), qPrintable(name));
                QVERIFY2(!e.why.isEmpty(), qPrintable(name));
                QVERIFY2(!e.fix.isEmpty(), qPrintable(name));
                QVERIFY2(!all(e).contains(placeholder),
                         qPrintable(name + QLatin1Char('\n') + all(e)));
                // The kind's generic meaning alone is not an explanation.
                QVERIFY2(e.why.size() > 150, qPrintable(name));
                // WS_PRINT_EXPLANATIONS=1: read them all.
                if (qEnvironmentVariableIsSet("WS_PRINT_EXPLANATIONS"))
                    qInfo().noquote() << QStringLiteral("=== %1 under %2\n%3\n")
                                             .arg(name, context.describe(), all(e));
            }
        }
    }

    // PrevKv=nil: what the cacher does next and who shares its stream depend on the server; the
    // silent skip on etcd.
    void prevKvNil_data() {
        QTest::addColumn<VersionContext>("context");
        QTest::addColumn<QString>("expected"); // '|'-separated substrings of the whole text
        QTest::addColumn<QString>("absent");
        QTest::newRow("1.24 relists")
            << versions("1.24", "current", "3.4.23")
            << "kube-apiserver 1.24 (before 1.25) makes its watch cache relist|no stale object is "
               "expected|kube-apiserver 1.24: the cacher relists after PrevKv=nil (before 1.25)|"
               "Each PrevKv=nil costs a relist"
            << "re-watches from its last RV|1.27.13+|RV=\"\" watches served from etcd";
        QTest::newRow("1.27.0 over 3.4.23: seed 000")
            << versions("1.27.0", "current", "3.4.23")
            << "Since 1.25 (PR #111387) the cacher re-watches from its last RV without relisting|"
               "30 s|etcd 3.4.23 (before 3.4.31 / 3.5.13) has etcd issue #17529|stale-object|"
               "kube-apiserver 1.27.0: RV=\"\" watches served from etcd (PR #115096)|"
               "SeparateCacheWatchRPC is off|etcd 3.4.23: watch starvation bug #17529 (fixed in "
               "3.4.31 / 3.5.13)|Upgrade etcd 3.4.23 to 3.4.31+ or 3.5.13+|"
               "Upgrade kube-apiserver 1.27.0 to 1.27.13+|kubernetes PR #111387|"
               "etcd issue #17529|etcd PR #17555|kubernetes PR #115096|served by etcd directly"
            << "no stale object is expected|SeparateCacheWatchRPC is on";
        QTest::newRow("1.27.0 with SeparateCacheWatchRPC set")
            << versions("1.27.0", "current", "3.4.23",
                        {{QStringLiteral("SeparateCacheWatchRPC"), true}})
            << "SeparateCacheWatchRPC is on (set in this session)|own|"
               "kube-apiserver 1.27.0: SeparateCacheWatchRPC on (set)"
            << "SeparateCacheWatchRPC is off";
        QTest::newRow("1.28.9 over 3.4.23")
            << versions("1.28.9", "current", "3.4.23")
            << "kube-apiserver 1.28.9 serves watches with resourceVersion=\"\" from the watch "
               "cache|SeparateCacheWatchRPC is on|kube-apiserver 1.28.9: SeparateCacheWatchRPC "
               "on (default)|Upgrade etcd 3.4.23 to 3.4.31+"
            << "1.28.9+ (or 1.30+)|served from etcd (PR #115096)";
        QTest::newRow("1.28.8 over 3.4.23")
            << versions("1.28.8", "current", "3.4.23")
            << "served from etcd (PR #115096)|Upgrade kube-apiserver 1.28.8 to 1.28.9+|"
               "SeparateCacheWatchRPC is on"
            << "";
        QTest::newRow("1.30 over 3.5.13")
            << versions("1.30", "current", "3.5.13")
            << "etcd 3.5.13 has the fix of etcd issue #17529|etcd 3.5.13: #17529 fixed|"
               "SeparateCacheWatchRPC is on"
            << "Upgrade etcd|has etcd issue #17529|Restart a kube-apiserver";
        // Each resource has its own etcd client and 1.33 sends no watch of a cached resource to
        // etcd: the gate cannot help, and is not offered as the fix.
        QTest::newRow("1.33 over 3.4.23")
            << versions("1.33", "current", "3.4.23")
            << "off (the default from 1.33), which changes nothing here|alone on its stream|"
               "Upgrade etcd 3.4.23 to 3.4.31+"
            << "Turn SeparateCacheWatchRPC on";
        QTest::newRow("1.28 without patch")
            << versions("1.28", "current", "3.4.31")
            << "Without its patch number, kube-apiserver 1.28|the patch number decides|"
               "etcd 3.4.31 has the fix"
            << "";
        QTest::newRow("unknown versions")
            << VersionContext{}
            << "before 1.25 it relists|From 1.25 (PR #111387)|kube-apiserver: version unknown|"
               "etcd: version unknown|With etcd before 3.4.31 / 3.5.13 (issue #17529)|"
               "1.27.0-1.27.12, 1.28.0-1.28.8 and 1.29.0-1.29.3|upgrade to 1.27.13+, 1.28.9+ or "
               "1.29.4+|Upgrade etcd to 3.4.31+ or 3.5.13+"
            << "";
    }
    void prevKvNil() {
        QFETCH(VersionContext, context);
        QFETCH(QString, expected);
        QFETCH(QString, absent);
        const AnomalyExplanation e = AnomalyExplainer::explain(prevKvFromApiserver(), context);
        expectIn(all(e), list(expected), list(absent));
        // The anomaly's own details.
        expectIn(e.what, {QStringLiteral("DELETE"), QStringLiteral("/registry/pods/ns-2/pod-167"),
                          QStringLiteral("514"), QStringLiteral("node-agent-8"),
                          QStringLiteral("served by etcd directly")});
    }

    void prevKvNilFromEtcdUsesTheMessage() {
        const AnomalyExplanation e =
            AnomalyExplainer::explain(prevKvFromEtcd(), versions("1.27.0", "current", "3.4.23"));
        expectIn(e.what, {QStringLiteral("the watch cache of pods on apiserver-0"),
                          QStringLiteral("a DELETE of /registry/pods/default/a at revision 1234"),
                          QStringLiteral("compact revision 1200")});
        expectIn(e.why, {QStringLiteral("mod_revision-1"), QStringLiteral("etcd issue #10681")});
    }

    // seed 002: who loops on a 504 depends on client-go and on the server's body (§1, §6).
    void tooLargeRv_data() {
        QTest::addColumn<QString>("client");
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("verdict"); // "loops", "recovers" or "depends"
        QTest::addColumn<QString>("expected");
        QTest::newRow("0.18.3 vs 1.20") << "0.18.3"
                                        << "1.20"
                                        << "loops"
                                        << "client-go 0.18.3 recognises no too-large-RV 504 at "
                                           "all|0.16/0.17 and 0.18.0-0.18.5|Upgrade client-go "
                                           "0.18.3 to 0.27+";
        QTest::newRow("0.18.3 vs unknown server") << "0.18.3"
                                                  << ""
                                                  << "loops"
                                                  << "kube-apiserver: version unknown";
        QTest::newRow("0.18.6 vs 1.18.6") << "0.18.6"
                                          << "1.18.6"
                                          << "recovers"
                                          << "only the cause reason ResourceVersionTooLarge|"
                                             "0.18.6-0.18.8 and 0.19.0|kube-apiserver 1.18.6: "
                                             "504 body with a cause with reason "
                                             "ResourceVersionTooLarge";
        QTest::newRow("0.18.6 vs 1.20") << "0.18.6"
                                        << "1.20"
                                        << "recovers"
                                        << "so this one too";
        QTest::newRow("0.18.6 vs 1.18.5") << "0.18.6"
                                          << "1.18.5"
                                          << "loops"
                                          << "not this server's|a cause with only the message";
        QTest::newRow("0.18.6 vs 1.16") << "0.18.6"
                                        << "1.16"
                                        << "loops"
                                        << "no causes at all (1.16)";
        QTest::newRow("0.18.9 vs 1.17") << "0.18.9"
                                        << "1.17"
                                        << "recovers"
                                        << "0.18.9+, 0.19.1+ and 0.20-0.26";
        QTest::newRow("0.20 vs 1.16") << "0.20"
                                      << "1.16"
                                      << "loops"
                                      << "not the bare 1.16 body|before 1.21|Run 1.21+";
        QTest::newRow("0.22 vs 1.20") << "0.22"
                                      << "1.20"
                                      << "recovers"
                                      << "resourceVersion=\"\" (paginated, limit 500";
        QTest::newRow("0.27 vs 1.16") << "0.27"
                                      << "1.16"
                                      << "recovers"
                                      << "recognises every shape|0.27.0+";
        QTest::newRow("current vs 1.16") << "current"
                                         << "1.16"
                                         << "recovers"
                                         << "recognises every shape";
        QTest::newRow("unknown client vs 1.16")
            << ""
            << "1.16"
            << "depends"
            << "depends on its client-go|0.18.0-0.18.5 recognise no 504|client-go: version "
               "unknown";
        QTest::newRow("0.18 without patch vs 1.20") << "0.18"
                                                    << "1.20"
                                                    << "depends"
                                                    << "patch unknown";
        QTest::newRow("0.18.6 vs 1.18 without patch") << "0.18.6"
                                                      << "1.18"
                                                      << "depends"
                                                      << "without its patch number";
    }
    void tooLargeRv() {
        QFETCH(QString, client);
        QFETCH(QString, server);
        QFETCH(QString, verdict);
        QFETCH(QString, expected);
        const AnomalyExplanation e =
            AnomalyExplainer::explain(tooLarge(), versions(server, client, "3.4.23"));
        const QString text = all(e);
        expectIn(text, list(expected));
        expectIn(e.what, {QStringLiteral("from RV 904"), QStringLiteral("cache is at 304"),
                          QStringLiteral("agent-0-20-1")});
        const bool loops = e.why.contains(QLatin1String("A retry loop"));
        const bool recovers = e.why.contains(QLatin1String("It recovers."));
        QCOMPARE(loops, verdict == QLatin1String("loops"));
        QCOMPARE(recovers, verdict == QLatin1String("recovers"));
        QCOMPARE(e.fix.contains(QLatin1String("Restart the stuck client")), !recovers);
    }

    // A session of several clients: each anomaly is explained with its own client's client-go.
    void tooLargeRvUsesTheWatchersClient() {
        VersionContext v = versions("1.20", {}, "3.4.23");
        v.clientGoByClient.insert(QStringLiteral("agent-0-20"), QStringLiteral("0.18.3"));
        v.clientGoByClient.insert(QStringLiteral("agent-0-2"), QStringLiteral("0.27"));
        const AnomalyExplanation e = AnomalyExplainer::explain(tooLarge(), v);
        expectIn(e.why, {QStringLiteral("client-go 0.18.3"), QStringLiteral("A retry loop")});
    }

    // 410: the reason by server version (Gone up to 1.16, Expired from 1.17), the window.
    void tooOldRv_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("reason");
        QTest::addColumn<QString>("resource");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("absent");
        QTest::newRow("1.16 Gone") << "1.16"
                                   << "Gone"
                                   << "pods"
                                   << "kube-apiserver 1.16: 410 reason Gone|refused with 410 Gone|"
                                      "1000 events for pods|only one, 2 s before its timeout"
                                   << "another, older apiserver";
        QTest::newRow("1.17 Expired") << "1.17"
                                      << "Expired"
                                      << "configmaps"
                                      << "kube-apiserver 1.17: 410 reason Expired|100 events for "
                                         "configmaps|Run 1.19+"
                                      << "";
        QTest::newRow("1.18 pods") << "1.18"
                                   << "Expired"
                                   << "pods"
                                   << "fixed ring per resource|1000 events for pods|"
                                      "--watch-cache-sizes"
                                   << "";
        QTest::newRow("1.20 Gone: an older apiserver")
            << "1.20"
            << "Gone"
            << "pods"
            << "dynamic watch cache, 100..102400 events|another, older apiserver answered"
            << "Run 1.19+";
        QTest::newRow("1.33 window") << "1.33"
                                     << "Expired"
                                     << "pods"
                                     << "max(75 s, request-timeout + 15 s)"
                                     << "";
        QTest::newRow("unknown, Gone") << ""
                                       << "Gone"
                                       << "pods"
                                       << "Up to 1.18 the ring has a fixed size|from 1.19 it "
                                          "resizes|a watch cache of 1.16 or older answered|"
                                          "kube-apiserver: version unknown"
                                       << "";
    }
    void tooOldRv() {
        QFETCH(QString, server);
        QFETCH(QString, reason);
        QFETCH(QString, resource);
        QFETCH(QString, expected);
        QFETCH(QString, absent);
        const AnomalyExplanation e =
            AnomalyExplainer::explain(tooOld(reason, resource), versions(server, "0.20", "3.4.23"));
        expectIn(all(e), list(expected), list(absent));
        expectIn(e.what, {QStringLiteral("from RV 401"), QStringLiteral("2157")});
    }

    // A cluster reflector's relist past what its watch delivered: not etcd's #17529.
    void revisionGapFromARelist() {
        const Anomaly gap = anomaly(
            AnomalyKind::RevisionGap, AnomalySource::Apiserver,
            QStringLiteral("informer/configmaps"),
            QStringLiteral("events of configmaps at RVs 547..1132 (if any: RVs count every "
                           "resource's writes) not received: relisted at 1132 from apiserver "
                           "after 429 TooManyRequests (storage is (re)initializing), then 410 "
                           "Expired (too old resource version: 546 (547)); the list holds only "
                           "their net effect"),
            1132, {}, QStringLiteral("configmaps"));
        const AnomalyExplanation e =
            AnomalyExplainer::explain(gap, versions("1.31", "0.35", "3.5.13"));
        expectIn(all(e),
                 {QStringLiteral("relisted at RV 1132: any change of the resource at RVs "
                                 "547..1132"),
                  QStringLiteral("how many of them were this resource's is not known"),
                  QStringLiteral("then 410 Expired"), QStringLiteral("fresh cache"),
                  QStringLiteral("bookmarks")},
                 {QStringLiteral("#17529"), QStringLiteral("(586)")});
    }

    void tooOldRvClientAndEtcdCancel() {
        // client-go before 0.18 relists with RV="0".
        AnomalyExplanation e =
            AnomalyExplainer::explain(tooOld(QStringLiteral("Gone")), versions("1.16", "0.16", {}));
        expectIn(e.why, {QStringLiteral("client-go 0.16 (before 0.18) always relists with "
                                        "RV=\"0\"")});
        e = AnomalyExplainer::explain(tooOld(QStringLiteral("Expired")),
                                      versions("1.20", "0.22", {}));
        expectIn(e.why, {QStringLiteral("first with its last RV")});
        // 0.17.0 alone had 0.18's relist RV rules (reverted in 0.17.1); "0.17" says both.
        e = AnomalyExplainer::explain(tooOld(QStringLiteral("Expired")),
                                      versions("1.17", "0.17.0", {}));
        expectIn(all(e),
                 {QStringLiteral("client-go 0.17.0 relists on a fixed 1 s period with "
                                 "resourceVersion=\"\" after a 410"),
                  QStringLiteral("last RV, then RV=\"\"")},
                 {QStringLiteral("always relists with RV=\"0\"")});
        e = AnomalyExplainer::explain(tooOld(QStringLiteral("Expired")),
                                      versions("1.17", "0.17.3", {}));
        expectIn(e.why, {QStringLiteral("client-go 0.17.3 (before 0.18) always relists with "
                                        "RV=\"0\"")});
        e = AnomalyExplainer::explain(tooOld(QStringLiteral("Expired")),
                                      versions("1.17", "0.17", {}));
        expectIn(all(e), {QStringLiteral("0.17.0 alone with its last RV"),
                          QStringLiteral("RV=\"0\" but in 0.17.0")});
        // etcd's compacted cancel.
        const Anomaly cancel =
            anomaly(AnomalyKind::TooOldRv, AnomalySource::Etcd, QStringLiteral("etcd"),
                    QStringLiteral("watch from RV 100 canceled: compacted at revision 1200"), 100);
        e = AnomalyExplainer::explain(cancel, versions({}, {}, "3.4.23"));
        expectIn(all(e), {QStringLiteral("compact revision 1200"),
                          QStringLiteral("list revision + 1"), QStringLiteral("etcd 3.4.23")});
    }

    void retryLoop() {
        const Anomaly loop = sample(AnomalyKind::RetryLoop);
        AnomalyExplanation e = AnomalyExplainer::explain(loop, versions("1.16", "0.22", "3.4.23"));
        expectIn(all(e), {QStringLiteral("5 times"), QStringLiteral("800 ms"),
                          QStringLiteral("client-go 0.22"), QStringLiteral("A retry loop"),
                          QStringLiteral("Upgrade client-go 0.22 to 0.27+")});
        // The versions say it recovers: the text says so and doubts them.
        e = AnomalyExplainer::explain(loop, versions("1.20", "0.27", "3.4.23"));
        expectIn(e.why, {QStringLiteral("Yet it looped")});
        const Anomaly busy =
            anomaly(AnomalyKind::RetryLoop, AnomalySource::Apiserver, QStringLiteral("c"),
                    QStringLiteral("429 TooManyRequests received 5 times in a "
                                   "row without progress (watcher stays at RV "
                                   "9): storage is (re)initializing"),
                    9);
        e = AnomalyExplainer::explain(busy, VersionContext{});
        expectIn(e.why, {QStringLiteral("ResilientWatchCacheInitialization"),
                         QStringLiteral("Retry-After")});
        // A connection failure: no status code, the dead apiserver named, its fix.
        Anomaly reset =
            anomaly(AnomalyKind::RetryLoop, AnomalySource::Apiserver, QStringLiteral("agent-1721"),
                    QStringLiteral("connection reset 5 times in a row without progress "
                                   "(watcher stays at RV 4431): read tcp apiserver-1 "
                                   "(via load balancer): connection reset by peer"),
                    4431);
        reset.apiserver = QStringLiteral("apiserver-1");
        e = AnomalyExplainer::explain(reset, versions("1.30", "0.30", "3.5.13"));
        expectIn(e.what,
                 {QStringLiteral("Watcher agent-1721 got the same error (connection "
                                 "reset) 5 times without moving its RV")},
                 {QStringLiteral(" 0 "), QStringLiteral("error 0")});
        expectIn(e.why,
                 {QStringLiteral("No HTTP status came back (connection reset): "
                                 "apiserver-1 could not be reached")},
                 {QStringLiteral("Too large")});
        expectIn(e.fix,
                 {QStringLiteral("Find why apiserver-1 is down"), QStringLiteral("list-pressure")});
    }

    void watcherTerminated_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("expected");
        QTest::newRow("1.24") << "1.24"
                              << "kube-apiserver 1.24 (before 1.25) gives every watcher a "
                                 "buffer of 10 events|1000 for watchers of pods, nodes, secrets "
                                 "or configmaps that do not use the trigger index|1.25+ give "
                                 "most watchers a larger buffer|A watch cache that relists";
        QTest::newRow("1.30") << "1.30"
                              << "kube-apiserver 1.30 (1.25+) sizes it clamp(ceil(capacity/75 s), "
                                 "10, max)|1000 for indexed watchers without one";
        QTest::newRow("unknown") << ""
                                 << "a fixed 10 events before 1.25|from 1.25|kube-apiserver: "
                                    "version unknown";
    }
    void watcherTerminated() {
        QFETCH(QString, server);
        QFETCH(QString, expected);
        const AnomalyExplanation e = AnomalyExplainer::explain(
            sample(AnomalyKind::WatcherTerminated), versions(server, "0.22", "3.4.23"));
        expectIn(all(e), list(expected) << QStringLiteral("50 ms") << QStringLiteral("100 ms")
                                        << QStringLiteral("apiserver_terminated_watchers_total")
                                        << QStringLiteral("at RV 3330 after 20.8 s"));
    }

    void initialEventsStalled_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("client");
        QTest::addColumn<QString>("expected");
        QTest::newRow("1.33 and 0.35") << "1.33"
                                       << "0.35"
                                       << "WatchList gate off|would have answered 422|"
                                          "client-go 0.35 uses watch-list by default|"
                                          "WatchListClient on by default (v0.35+)";
        QTest::newRow("1.34 gate on") << "1.34"
                                      << "current-watchlist"
                                      << "kube-apiserver 1.34 has the WatchList gate on|look for "
                                         "what sits between";
        QTest::newRow("1.33 gate set on") << "1.33"
                                          << "0.35"
                                          << "kube-apiserver 1.33 has the WatchList gate on";
        QTest::newRow("1.18 stalls by itself")
            << "1.18"
            << "0.35"
            << "knows neither resourceVersionMatch (1.19) nor sendInitialEvents (1.27)|stalls a "
               "watch-list by itself";
        QTest::newRow("1.24 rejects resourceVersionMatch")
            << "1.24"
            << "0.35"
            << "rejects the watch-list's resourceVersionMatch with 422 itself";
        QTest::newRow("0.28 client") << "1.32"
                                     << "0.28"
                                     << "only when WatchListClient is turned on|falls back to a "
                                        "LIST only on a 422";
        QTest::newRow("unknown") << ""
                                 << ""
                                 << "kube-apiserver: version unknown|client-go: version unknown|"
                                    "on in 1.32 and 1.34+";
    }
    void initialEventsStalled() {
        QFETCH(QString, server);
        QFETCH(QString, client);
        QFETCH(QString, expected);
        VersionContext v = versions(server, client, "3.4.23");
        if (QTest::currentDataTag() == QLatin1String("1.33 gate set on"))
            v.featureGates.insert(QStringLiteral("WatchList"), true);
        const AnomalyExplanation e =
            AnomalyExplainer::explain(sample(AnomalyKind::InitialEventsStalled), v);
        expectIn(all(e), list(expected) << QStringLiteral("KUBE_FEATURE_WatchListClient=false")
                                        << QStringLiteral("422")
                                        << QStringLiteral("proxy or an aggregated API server")
                                        << QStringLiteral("in 30.0 s"));
    }

    // cache-not-ready: what the client was told depends on the version (cacher.go at v1.26.0,
    // v1.27.0, v1.31.0, v1.33.0; the readyz hook from 1.36).
    void cacheNotReady_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("absent");
        QTest::newRow("1.26 blocks") << "1.26"
                                     << "no deadline at all|watches block on a cache"
                                     << "answers WATCH|until the watch's own deadline";
        QTest::newRow("1.30 blocks then 503") << "1.30"
                                              << "until the watch's own deadline|"
                                                 "\"context deadline exceeded\""
                                              << "answers WATCH|no deadline at all";
        QTest::newRow("1.31 429, Retry-After 1")
            << "1.31"
            << "answers WATCH and LISTs that need the cache with 429|always 1 s|"
               "429 while the cache initializes (1.31+)"
            << "clamp(e^(0.06|/readyz fails";
        QTest::newRow("1.34 429, Retry-After grows")
            << "1.34"
            << "answers WATCH and LISTs that need the cache with 429|clamp(e^(0.06 x s), 1, 30)"
            << "always 1 s|/readyz fails";
        QTest::newRow("1.36 readyz hook") << "1.36"
                                          << "clamp(e^(0.06 x s), 1, 30)|/readyz fails"
                                          << "always 1 s";
        QTest::newRow("unknown") << ""
                                 << "kube-apiserver: version unknown|get 429 from 1.31"
                                 << "";
    }
    void cacheNotReady() {
        QFETCH(QString, server);
        QFETCH(QString, expected);
        QFETCH(QString, absent);
        const AnomalyExplanation e = AnomalyExplainer::explain(sample(AnomalyKind::CacheNotReady),
                                                               versions(server, "0.30", "3.5.13"));
        expectIn(all(e),
                 list(expected) << QStringLiteral("for 30.9 s")
                                << QStringLiteral("fixed 1 s period")
                                << QStringLiteral("required revision has been compacted"),
                 list(absent));
    }

    // list-pressure: where an RV="" list is served depends on the version (etcd up to 1.30,
    // the cache from 1.31), and 1.33+ encodes lists item by item; APF bounds the lists at once.
    void listPressure_data() {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("absent");
        QTest::newRow("1.30 from etcd") << "1.30"
                                        << "sends every resourceVersion=\"\" list to etcd"
                                        << "serves resourceVersion=\"\" lists from the watch "
                                           "cache|streaming collection encoding";
        QTest::newRow("1.31 from the cache")
            << "1.31"
            << "serves resourceVersion=\"\" lists from the watch cache"
            << "sends every resourceVersion|streaming collection encoding";
        // Streaming encoding is on by default from 1.33 (kube_features.go@v1.33.0).
        QTest::newRow("1.33 streams") << "1.33"
                                      << "serves resourceVersion=\"\" lists from the watch "
                                         "cache|From 1.33 streaming collection encoding"
                                      << "sends every resourceVersion";
        QTest::newRow("1.34 streams") << "1.34"
                                      << "serves resourceVersion=\"\" lists from the watch "
                                         "cache|streaming collection encoding"
                                      << "sends every resourceVersion";
        QTest::newRow("unknown") << ""
                                 << "kube-apiserver: version unknown"
                                 << "streaming collection encoding";
    }
    void listPressure() {
        QFETCH(QString, server);
        QFETCH(QString, expected);
        QFETCH(QString, absent);
        const AnomalyExplanation e = AnomalyExplainer::explain(sample(AnomalyKind::ListPressure),
                                                               versions(server, "0.30", "3.5.13"));
        expectIn(all(e),
                 list(expected) << QStringLiteral("apiserver-0 was OOM-killed")
                                << QStringLiteral("selectors such as spec.nodeName")
                                << QStringLiteral("WatchListClient") << QStringLiteral("KEP-3157")
                                << QStringLiteral("workload-low's 245 of 600 seats")
                                << QStringLiteral("a typed List() stays a LIST"),
                 list(absent));
    }

    void staleObject() {
        const Anomaly stale = sample(AnomalyKind::StaleObject);
        AnomalyExplanation e =
            AnomalyExplainer::explain(stale, versions("1.27.0", "current", "3.4.23"));
        expectIn(all(e), {QStringLiteral("The watch cache of pods on apiserver-0, at RV 1285, "
                                         "still holds /registry/pods/ns-0/pod-0 (RV 449) although "
                                         "etcd deleted it at revision 804"),
                          QStringLiteral("etcd 3.4.23 (before 3.4.31 / 3.5.13) has etcd issue "
                                         "#17529"),
                          QStringLiteral("Since 1.25 (PR #111387)"),
                          QStringLiteral("Upgrade kube-apiserver 1.27.0 to 1.27.13+")});
        e = AnomalyExplainer::explain(stale, versions("1.24", "current", "3.4.23"));
        expectIn(all(e), {QStringLiteral("does not apply here")},
                 {QStringLiteral("has etcd issue #17529")});
        Anomaly again = stale;
        again.watcher = QStringLiteral("controller");
        again.source = AnomalySource::Apiserver;
        again.message = QStringLiteral("store at RV 600 holds /registry/pods/ns-0/pod-0 (RV 460) "
                                       "again: deleted in etcd at 815, which this watcher had "
                                       "already seen (RV 1200)");
        e = AnomalyExplainer::explain(again, versions("1.22", "current", "3.4.23"));
        expectIn(all(e), {QStringLiteral("kubernetes issue #59848"),
                          QStringLiteral("resourceVersion=0"), QStringLiteral("RV 1200")});
    }

    // The apiserver's own check (1.34+): names the first difference, says it does not relist,
    // and the lost-DELETE path of the session's versions (gate and etcd named).
    void cacheInconsistent() {
        const Anomaly a = sample(AnomalyKind::CacheInconsistent);
        AnomalyExplanation e = AnomalyExplainer::explain(
            a, versions("1.34", "current", "3.5.12",
                        {{QStringLiteral("WatchFromStorageWithoutResourceVersion"), true}}));
        expectIn(all(e), {QStringLiteral("found the watch cache of pods on apiserver-0 different "
                                         "from etcd at RV 5360"),
                          QStringLiteral("the cache has ns-0/pod-102@104, etcd has "
                                         "ns-0/pod-105@5235"),
                          QStringLiteral("The cache is not relisted"),
                          QStringLiteral("etcd 3.5.12"), QStringLiteral("#17529")});
        // Before 1.25 a PrevKv=nil relists the cache: the lost-DELETE story is not told.
        e = AnomalyExplainer::explain(a, versions("1.24", "current", "3.4.23"));
        expectIn(all(e), {QStringLiteral("The cache is not relisted")},
                 {QStringLiteral("#111387")});
    }

    void revisionRegressionAndGap() {
        AnomalyExplanation e = AnomalyExplainer::explain(sample(AnomalyKind::RevisionRegression),
                                                         versions("1.31", "current", "3.5.13"));
        expectIn(all(e), {QStringLiteral("#59848"), QStringLiteral("list returned RV 600"),
                          QStringLiteral("ConsistentListFromCache (on in kube-apiserver 1.31) "
                                         "does not help an RV=0 list"),
                          QStringLiteral("KEP-5504")});
        const Anomaly gap = sample(AnomalyKind::RevisionGap);
        e = AnomalyExplainer::explain(gap, versions({}, {}, "3.4.23"));
        expectIn(e.what, {QStringLiteral("delivered the event at 120 right after 100: it skipped "
                                         "revisions 101..119 (19)")});
        expectIn(all(e), {QStringLiteral("Reliable"), QStringLiteral("revisions 101..119"),
                          QStringLiteral("etcd 3.4.23: watch starvation bug #17529"),
                          QStringLiteral("Upgrade etcd to 3.4.31+ / 3.5.13+")});
        e = AnomalyExplainer::explain(gap, versions({}, {}, "3.5.13"));
        expectIn(all(e), {QStringLiteral("etcd 3.5.13 has its fix")},
                 {QStringLiteral("Upgrade etcd")});
    }

    void relistStorm() {
        const Anomaly storm = sample(AnomalyKind::RelistStorm);
        AnomalyExplanation e =
            AnomalyExplainer::explain(storm, versions("1.31", "current", "3.4.23"));
        expectIn(all(e), {QStringLiteral("10 relists of pods"),
                          QStringLiteral("needs etcd 3.4.31+ / 3.5.13+"), QStringLiteral("429")});
        e = AnomalyExplainer::explain(storm, versions("1.30", "current", "3.5.13"));
        expectIn(all(e), {QStringLiteral("RV=\"\" lists go to etcd"),
                          QStringLiteral("blocks requests, then answers 503"),
                          QStringLiteral("Run kube-apiserver 1.31+")});
        e = AnomalyExplainer::explain(storm, versions("1.34", "current", "3.5.13"));
        expectIn(all(e), {QStringLiteral("serves RV=\"\" lists from the cache")},
                 {QStringLiteral("Run kube-apiserver 1.31+")});
    }

    void stuckAndLaggingWatchers() {
        const Anomaly stuck = sample(AnomalyKind::StuckWatcher);
        AnomalyExplanation e = AnomalyExplainer::explain(stuck, versions("1.16", "0.20", "3.4.23"));
        expectIn(all(e), {QStringLiteral("kube-apiserver 1.16 (before 1.21) asks etcd for no "
                                         "progress notifications"),
                          QStringLiteral("Run 1.21+")});
        e = AnomalyExplainer::explain(stuck, versions("1.22", "0.20", "3.4.10"));
        expectIn(all(e), {QStringLiteral("10 min by default"),
                          QStringLiteral("etcd 3.4.10: progress-notify interval fixed at 10 min")});
        Anomaly lag = sample(AnomalyKind::WatcherLag);
        e = AnomalyExplainer::explain(lag, versions("1.24", "0.22", "3.4.23"));
        expectIn(all(e), {QStringLiteral("1510 revisions (10.1 s)"),
                          QStringLiteral("buffers only 10 events per watcher")});
        lag.watcher = QStringLiteral("cacher/pods@apiserver-0");
        lag.source = AnomalySource::Etcd;
        e = AnomalyExplainer::explain(lag, versions("1.27.0", "current", "3.4.23"));
        expectIn(all(e), {QStringLiteral("every watcher served by that watch cache lags"),
                          QStringLiteral("RV=\"\" watches served from etcd"),
                          QStringLiteral("prevkv-nil")});
    }

    void streamErrorsByMessage() {
        Anomaly a = sample(AnomalyKind::StreamError);
        expectIn(AnomalyExplainer::explain(a, {}).why, {QStringLiteral("length-prefixed")});
        a.message = QStringLiteral("undecodable value of PUT at 5: bad magic");
        expectIn(AnomalyExplainer::explain(a, {}).why, {QStringLiteral("k8s:enc:")});
        a.message = QStringLiteral("IsCreate: PUT at 5 is a create (create_revision 5) but the "
                                   "key exists");
        expectIn(AnomalyExplainer::explain(a, {}).why, {QStringLiteral("IsCreate guarantee")});
    }

    // The small value types the explainer reads versions with.
    void versionFacts() {
        QCOMPARE(ServerFacts(QStringLiteral("v1.31.2-eks-1234"), {}).name(),
                 QStringLiteral("kube-apiserver 1.31.2"));
        QCOMPARE(ServerFacts(QStringLiteral("1.27.12"), {}).rvEmptyWatchFromEtcd(), Tri::Yes);
        QCOMPARE(ServerFacts(QStringLiteral("1.27.13"), {}).rvEmptyWatchFromEtcd(), Tri::No);
        QCOMPARE(ServerFacts(QStringLiteral("1.27.13"),
                             {{QStringLiteral("WatchFromStorageWithoutResourceVersion"), true}})
                     .rvEmptyWatchFromEtcd(),
                 Tri::Yes);
        QCOMPARE(ServerFacts(QStringLiteral("1.29"), {}).rvEmptyWatchFromEtcd(), Tri::Unknown);
        QCOMPARE(ServerFacts(QStringLiteral("1.29.3"), {}).separateCacheWatchRpc(), Tri::Yes);
        QCOMPARE(ServerFacts(QStringLiteral("1.29.2"), {}).separateCacheWatchRpc(), Tri::No);
        QCOMPARE(ServerFacts(QStringLiteral("1.33"), {}).separateCacheWatchRpc(), Tri::No);
        QCOMPARE(ServerFacts(QStringLiteral("1.33"), {}).watchList(), Tri::No);
        QCOMPARE(ServerFacts(QStringLiteral("1.34"), {}).watchList(), Tri::Yes);
        QCOMPARE(ServerFacts(QStringLiteral("1.14"), {}).known(), false);
        QVERIFY(ServerFacts(QStringLiteral("1.14"), {}).note().contains(QLatin1String("1.16")));
        QCOMPARE(ServerFacts(QStringLiteral("1.18.5"), {}).tooLargeBody(),
                 ServerFacts::TooLargeBody::MessageCause);
        QCOMPARE(EtcdFacts(QStringLiteral("3.4.30")).hasStarvationFix(), Tri::No);
        QCOMPARE(EtcdFacts(QStringLiteral("3.4.31")).hasStarvationFix(), Tri::Yes);
        QCOMPARE(EtcdFacts(QStringLiteral("3.5.12")).hasStarvationFix(), Tri::No);
        QCOMPARE(EtcdFacts(QStringLiteral("v3.5.13")).hasStarvationFix(), Tri::Yes);
        QCOMPARE(EtcdFacts(QStringLiteral("3.6.0")).hasStarvationFix(), Tri::Yes);
        QCOMPARE(EtcdFacts(QStringLiteral("3.5")).hasStarvationFix(), Tri::Unknown);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.18.5")).tooLarge(), ClientGoFacts::TooLarge::None);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.18.8")).tooLarge(),
                 ClientGoFacts::TooLarge::ReasonOnly);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.19.0")).tooLarge(),
                 ClientGoFacts::TooLarge::ReasonOnly);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.19.1")).tooLarge(),
                 ClientGoFacts::TooLarge::Causes);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.26")).tooLarge(), ClientGoFacts::TooLarge::Causes);
        QCOMPARE(ClientGoFacts(QStringLiteral("v0.27.1")).tooLarge(),
                 ClientGoFacts::TooLarge::Full);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.35")).watchListByDefault(), Tri::Yes);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.17.0")).listsFromZeroOnly(), Tri::No);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.17.1")).listsFromZeroOnly(), Tri::Yes);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.17")).listsFromZeroOnly(), Tri::Unknown);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.16")).listsFromZeroOnly(), Tri::Yes);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.19.0")).backsOffBeforeRewatch(), Tri::No);
        QCOMPARE(ClientGoFacts(QStringLiteral("0.20")).backsOffBeforeRewatch(), Tri::Yes);
        QCOMPARE(ClientGoFacts(QStringLiteral("current")).watchListByDefault(), Tri::No);
    }

    void versionContext() {
        VersionContext v = VersionContext::fromConnectionVersions(
            QStringLiteral("kube-apiserver v1.31.2, client-go 0.27"));
        QCOMPARE(v.kubeApiserver, QStringLiteral("v1.31.2"));
        QCOMPARE(v.clientGo, QStringLiteral("0.27"));
        QVERIFY(v.etcd.isEmpty());
        // Before discovery the cluster source names no apiserver version.
        v = VersionContext::fromConnectionVersions(QStringLiteral(", client-go current"));
        QVERIFY(v.kubeApiserver.isEmpty());
        QCOMPARE(v.clientGo, QStringLiteral("current"));
        v.fillFrom(VersionContext::fromConnectionVersions(QStringLiteral("etcd 3.4.23")));
        QCOMPARE(v.etcd, QStringLiteral("3.4.23"));
        QCOMPARE(v.clientGo, QStringLiteral("current"));
        v.clientGoByClient.insert(QStringLiteral("agent"), QStringLiteral("0.20"));
        v.clientGoByClient.insert(QStringLiteral("agent-0"), QStringLiteral("0.22"));
        QCOMPARE(v.clientGoFor(QStringLiteral("agent-0-3")), QStringLiteral("0.22"));
        QCOMPARE(v.clientGoFor(QStringLiteral("agent-7")), QStringLiteral("0.20"));
        QCOMPARE(v.clientGoFor(QStringLiteral("agent")), QStringLiteral("0.20"));
        QCOMPARE(v.clientGoFor(QStringLiteral("agentx")), QStringLiteral("current"));
        QVERIFY(v.describe().contains(QLatin1String("etcd 3.4.23")));
    }

    // The simulator's session reports its scenario's versions in every EngineUpdate.
    void simulatorSessionReportsVersions_data() {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("etcd");
        QTest::addColumn<QString>("clientGo");
        QTest::newRow("cacher-retry-stale-object") << "cacher-retry-stale-object"
                                                   << "1.27.0"
                                                   << "3.4.23"
                                                   << "current";
        QTest::newRow("too-large-rv-loop") << "too-large-rv-loop"
                                           << "1.16"
                                           << "3.4.23"
                                           << "";
        QTest::newRow("separate-cache-rpc") << "separate-cache-rpc"
                                            << "1.28.8"
                                            << "3.4.23"
                                            << "current";
    }
    void simulatorSessionReportsVersions() {
        QFETCH(QString, scenario);
        QFETCH(QString, server);
        QFETCH(QString, etcd);
        QFETCH(QString, clientGo);
        ScenarioSourceSpec spec;
        spec.scenario = scenario;
        spec.speed = 0;
        std::vector<std::unique_ptr<Source>> sources;
        sources.push_back(std::make_unique<SimSource>(spec, seconds(2)));
        Session session(std::move(sources), PipelineOptions{});
        int updates = 0;
        VersionContext last;
        QString error;
        QVERIFY2(session.runHere(
                     [&](const EngineUpdate& u) {
                         ++updates;
                         last = u.versions;
                     },
                     &error),
                 qPrintable(error));
        QVERIFY(updates > 0);
        QCOMPARE(last.kubeApiserver, server);
        QCOMPARE(last.etcd, etcd);
        QCOMPARE(last.clientGo, clientGo);
        if (scenario == QLatin1String("too-large-rv-loop")) {
            QCOMPARE(last.clientGoFor(QStringLiteral("agent-0-20-1")), QStringLiteral("0.20"));
            QCOMPARE(last.clientGoFor(QStringLiteral("agent-0-22-0")), QStringLiteral("0.22"));
            // Each loop explained with its own client: 0.20 does not read a 1.16 body.
            const AnomalyExplanation e = AnomalyExplainer::explain(tooLarge(), last);
            expectIn(e.why, {QStringLiteral("client-go 0.20"), QStringLiteral("A retry loop")});
        }
        if (scenario == QLatin1String("separate-cache-rpc"))
            QCOMPARE(last.featureGates.value(QStringLiteral("SeparateCacheWatchRPC")), true);
        else
            QVERIFY(last.featureGates.isEmpty());
        // Updates merged while the window lags keep the newest versions.
        EngineUpdate older;
        EngineUpdate newer;
        newer.versions = last;
        mergeUpdate(older, std::move(newer));
        QCOMPARE(older.versions, last);
    }

    // A replayed etcd capture names the etcd that was recorded; a what-if of it, the versions
    // it runs under.
    void captureReportsVersions() {
        const QString path = qEnvironmentVariable("WS_SOURCE_DIR") +
                             QStringLiteral("/tests/fixtures/etcd/pods-burst.wscap");
        QVERIFY2(QFile::exists(path), "run by ctest, or set WS_SOURCE_DIR");
        SourceSpec spec;
        spec.capture = path;
        QString error;
        std::vector<std::unique_ptr<Source>> sources;
        auto replay = CaptureReplay::create(spec, &error);
        QVERIFY2(replay, qPrintable(error));
        sources.push_back(std::move(replay));
        Session session(std::move(sources), PipelineOptions{});
        VersionContext last;
        QVERIFY2(session.runHere([&](const EngineUpdate& u) { last = u.versions; }, &error),
                 qPrintable(error));
        QCOMPARE(last.etcd, QStringLiteral("3.4.23"));
        QVERIFY(last.kubeApiserver.isEmpty());

        spec.whatIf.serverVersion = QStringLiteral("1.27.0");
        auto whatIf = CaptureReplay::create(spec, &error);
        QVERIFY2(whatIf, qPrintable(error));
        QVERIFY2(whatIf->prepare(&error), qPrintable(error));
        const VersionContext v = whatIf->versions();
        QCOMPARE(v.kubeApiserver, QStringLiteral("1.27.0"));
        QCOMPARE(v.etcd, QStringLiteral("3.4.23"));
    }
};

QTEST_GUILESS_MAIN(TestAnomalyExplainer)
#include "tst_anomalyexplainer.moc"

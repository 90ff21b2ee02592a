#include "AnomalyExplainer.h"

#include "ClientGoFacts.h"
#include "EtcdFacts.h"
#include "ServerFacts.h"

#include <QRegularExpression>

// Every fact here comes from reference/kubernetes-watch.md (§ numbers below), reference/
// etcd-watch.md, or the version profiles (ServerProfile, ClientProfile). Texts are plain: short
// paragraphs, versions named, ranges with ASCII hyphens.

namespace ws {

namespace {

using Body = ServerFacts::TooLargeBody;

struct Facts {
    ServerFacts server;
    EtcdFacts etcd;
    ClientGoFacts client; // the anomaly's watcher's client-go (unknown for a cacher)
};

// Collects the parts of one explanation; versions and references without duplicates.
struct Writer {
    QStringList what, why, fix, versions, references;

    void version(const QString& line) {
        if (!versions.contains(line))
            versions << line;
    }
    void ref(const char* reference) {
        const QString r = QString::fromLatin1(reference);
        if (!references.contains(r))
            references << r;
    }
    AnomalyExplanation finish() const {
        AnomalyExplanation e;
        e.what = what.join(QLatin1Char(' '));
        e.why = why.join(QStringLiteral("\n\n"));
        e.fix = fix.join(QStringLiteral("\n\n"));
        e.versions = versions;
        e.references = references;
        return e;
    }
};

QString captured(const QString& text, const char* pattern, int group = 1) {
    const QRegularExpression re(QString::fromLatin1(pattern));
    const auto m = re.match(text);
    return m.hasMatch() ? m.captured(group) : QString();
}

bool isCacher(const Anomaly& a) {
    return a.watcher.startsWith(QLatin1String("cacher/"));
}

// "cacher/pods@apiserver-0" -> "the watch cache of pods on apiserver-0".
QString watcherLabel(const Anomaly& a) {
    if (isCacher(a)) {
        const QString rest = a.watcher.mid(7);
        const qsizetype at = rest.indexOf(QLatin1Char('@'));
        return at < 0 ? QStringLiteral("the watch cache of %1").arg(rest)
                      : QStringLiteral("the watch cache of %1 on %2")
                            .arg(rest.left(at), rest.mid(at + 1));
    }
    if (!a.watcher.isEmpty())
        return QStringLiteral("watcher %1").arg(a.watcher);
    return QStringLiteral("the watcher");
}

QString keyOr(const Anomaly& a, const QString& otherwise) {
    return a.key.isEmpty() ? otherwise : a.key;
}

QString resourceOr(const Anomaly& a) {
    return a.resource.isEmpty() ? QStringLiteral("the resource") : a.resource;
}

// --- lines of "Versions involved" for what is not known ----------------------------------------

void serverUnknown(const Facts& f, Writer& t, const QString& dependsOn) {
    if (!f.server.note().isEmpty())
        t.version(f.server.note() + QStringLiteral(": ") + dependsOn);
    else
        t.version(QStringLiteral("kube-apiserver: version unknown; ") + dependsOn);
}

void etcdUnknown(Writer& t, const QString& dependsOn) {
    t.version(QStringLiteral("etcd: version unknown; ") + dependsOn);
}

void clientUnknown(Writer& t, const QString& dependsOn) {
    t.version(QStringLiteral("client-go: version unknown; ") + dependsOn);
}

// --- shared mechanisms
// ----------------------------------------------------------------------------

// etcd #17529: the silent skip of a compacted unsynced watcher on a full shared stream.
void etcdSkip(const Facts& f, Writer& t) {
    t.ref("etcd issue #17529");
    t.ref("etcd PR #17555");
    switch (f.etcd.hasStarvationFix()) {
    case Tri::No:
        t.why << QStringLiteral(
                     "But %1 (before 3.4.31 / 3.5.13) has etcd issue #17529: when the shared "
                     "stream's 128-slot buffer is full, a compacted unsynced watcher is moved past "
                     "the compacted revisions silently, with no cancel. The DELETE is never "
                     "delivered, no error fires, progress notifications move the cache's RV past "
                     "it, and the object stays in the watch cache and in every informer that "
                     "lists from it (stale-object).")
                     .arg(f.etcd.name());
        t.version(QStringLiteral("%1: watch starvation bug #17529 (fixed in 3.4.31 / 3.5.13)")
                      .arg(f.etcd.name()));
        break;
    case Tri::Yes:
        t.why << QStringLiteral("%1 has the fix of etcd issue #17529 (3.4.31 / 3.5.13, PR "
                                "#17555): the compacted watch is canceled, the cacher gets 410 "
                                "and relists; no stale object is expected from this path.")
                     .arg(f.etcd.name());
        t.version(
            QStringLiteral("%1: #17529 fixed (3.4.31 / 3.5.13, PR #17555)").arg(f.etcd.name()));
        break;
    case Tri::Unknown:
        t.why << QStringLiteral(
            "With etcd before 3.4.31 / 3.5.13 (issue #17529) a compacted unsynced watcher on a "
            "full shared stream is instead moved past the compacted revisions silently: a DELETE "
            "lost that way stays in the watch cache and in every informer that lists from it. "
            "etcd 3.4.31+ / 3.5.13+ (PR #17555) cancel the watch as they should.");
        if (f.etcd.known())
            t.version(QStringLiteral("%1: #17529 fixed in 3.4.31 / 3.5.13; this version's patch "
                                     "decides")
                          .arg(f.etcd.name()));
        else
            etcdUnknown(t, QStringLiteral("#17529 (silent skip) fixed in 3.4.31 / 3.5.13"));
        break;
    }
}

// What the watch cache does after a PrevKv=nil InternalError (§5).
void cacherReaction(const Facts& f, Writer& t) {
    t.ref("kubernetes PR #111387");
    switch (f.server.retriesInternalErrors()) {
    case Tri::No:
        t.why << QStringLiteral(
                     "%1 (before 1.25) makes its watch cache relist after any watch error: the "
                     "cache is rebuilt from a consistent list, its watchers are closed and come "
                     "back with 410 and relist. Noisy (a relist of the whole resource), but no "
                     "stale object is expected.")
                     .arg(f.server.name());
        t.version(QStringLiteral("%1: the cacher relists after PrevKv=nil (before 1.25)")
                      .arg(f.server.name()));
        return;
    case Tri::Yes:
        t.why << QStringLiteral(
                     "Since 1.25 (PR #111387) the cacher re-watches from its last RV without "
                     "relisting, for up to 30 s (MaxInternalErrorRetryDuration; the window resets "
                     "after 1 min without errors), and %1 does. The new watch starts below etcd's "
                     "compact revision, so etcd should cancel it with compact_revision: 410, then "
                     "a relist.")
                     .arg(f.server.name());
        t.version(QStringLiteral("%1: PrevKv=nil retried from the last RV for 30 s without "
                                 "relist (1.25+, PR #111387)")
                      .arg(f.server.name()));
        break;
    case Tri::Unknown:
        t.why << QStringLiteral(
            "What the watch cache does next depends on the kube-apiserver: before 1.25 it "
            "relists (the cache is rebuilt; noisy, but no stale object). From 1.25 (PR #111387) "
            "it re-watches from its last RV for up to 30 s without relisting; etcd should then "
            "cancel that watch as compacted (410, relist).");
        serverUnknown(f, t,
                      QStringLiteral("before 1.25 the cacher relists after PrevKv=nil, from 1.25 "
                                     "it retries from its last RV"));
        break;
    }
    etcdSkip(f, t);
}

// Who shares the cacher's gRPC stream to etcd (§3, §5, §9; etcd-watch.md §2).
void streamSharing(const Facts& f, Writer& t) {
    t.ref("kubernetes PR #115096");
    t.ref("kubernetes PR #123532");
    if (!f.server.known()) {
        t.why << QStringLiteral(
            "Which watches share the cacher's gRPC stream depends on the kube-apiserver: "
            "1.27.0-1.27.12, 1.28.0-1.28.8 and 1.29.0-1.29.3 serve watches with "
            "resourceVersion=\"\" from etcd (PR #115096), on the cacher's stream; "
            "SeparateCacheWatchRPC (PR #123532; on by default in 1.28.8+, 1.29.3+ and 1.30-1.32, "
            "off from 1.33) gives the cacher a stream of its own.");
        serverUnknown(f, t,
                      QStringLiteral("RV=\"\" watches come from etcd in 1.27.0-1.27.12, "
                                     "1.28.0-1.28.8, 1.29.0-1.29.3"));
        return;
    }
    const QString server = f.server.name();
    QString sharing;
    switch (f.server.rvEmptyWatchFromEtcd()) {
    case Tri::Yes:
        sharing = QStringLiteral(
                      "In %1, watches with resourceVersion=\"\" are served by etcd directly (PR "
                      "#115096; 1.27.0-1.27.12, 1.28.0-1.28.8, 1.29.0-1.29.3), and Go's clientv3 "
                      "puts them on the same gRPC stream as the cacher's own watch: every such "
                      "client multiplies the traffic on the stream the cache depends on.")
                      .arg(server);
        t.version(QStringLiteral("%1: RV=\"\" watches served from etcd (PR #115096)").arg(server));
        break;
    case Tri::No:
        sharing = QStringLiteral("%1 serves watches with resourceVersion=\"\" from the watch cache "
                                 "(only 1.27.0-1.27.12, 1.28.0-1.28.8 and 1.29.0-1.29.3 send them "
                                 "to etcd, PR #115096).")
                      .arg(server);
        t.version(QStringLiteral("%1: RV=\"\" watches served from the watch cache").arg(server));
        break;
    case Tri::Unknown:
        sharing = QStringLiteral("Without its patch number, %1 may serve watches with "
                                 "resourceVersion=\"\" from etcd on the cacher's gRPC stream (PR "
                                 "#115096: 1.27.0-1.27.12, 1.28.0-1.28.8, 1.29.0-1.29.3) or from "
                                 "the watch cache (1.27.13, 1.28.9, 1.29.4 and later).")
                      .arg(server);
        t.version(QStringLiteral("%1: patch unknown; RV=\"\" watches from etcd before 1.27.13 / "
                                 "1.28.9 / 1.29.4")
                      .arg(server));
        break;
    }
    t.why << sharing;
    const bool set = f.server.gateSet(QStringLiteral("SeparateCacheWatchRPC"));
    switch (f.server.separateCacheWatchRpc()) {
    case Tri::Yes:
        t.why << QStringLiteral("SeparateCacheWatchRPC is on%1 (PR #123532): the cacher's etcd "
                                "watch carries the gRPC metadata source=cache and gets a stream "
                                "of its own, which client watches cannot starve.")
                     .arg(set ? QStringLiteral(" (set in this session)") : QString());
        t.version(QStringLiteral("%1: SeparateCacheWatchRPC on%2")
                      .arg(server, set ? QStringLiteral(" (set)") : QStringLiteral(" (default)")));
        break;
    case Tri::No:
        // Each resource's storage has its own etcd client (storagebackend/factory/etcd3.go), so
        // the gate only matters where etcd serves watches of the cacher's own resource.
        if (f.server.rvEmptyWatchFromEtcd() == Tri::No)
            t.why << QStringLiteral("SeparateCacheWatchRPC is off%1, which changes nothing here: "
                                    "each resource's storage has its own etcd client, so the "
                                    "cacher could share its gRPC stream only with etcd watches "
                                    "of its own resource, and %2 sends none of them to etcd. "
                                    "The cacher's watch is alone on its stream; it falls behind "
                                    "only when its own resource changes faster than the "
                                    "apiserver reads the stream.")
                         .arg(set                      ? QStringLiteral(" (set in this session)")
                              : f.server.minor() >= 33 ? QStringLiteral(" (the default from 1.33)")
                                                       : QString(),
                              server);
        else
            t.why << QStringLiteral("SeparateCacheWatchRPC is off%1 (PR #123532; on by default in "
                                    "1.30-1.32, backported to 1.28.8 and 1.29.3): the cacher "
                                    "shares its gRPC stream with the etcd watches of its own "
                                    "resource (each resource's storage has its own etcd client).")
                         .arg(set ? QStringLiteral(" (set in this session)") : QString());
        t.version(QStringLiteral("%1: SeparateCacheWatchRPC off%2")
                      .arg(server, set ? QStringLiteral(" (set)") : QStringLiteral(" (default)")));
        break;
    case Tri::Unknown:
        t.why << QStringLiteral("SeparateCacheWatchRPC (PR #123532), which gives the cacher a "
                                "stream of its own, is on by default from 1.28.8 / 1.29.3; the "
                                "patch number decides.");
        break;
    }
}

// Fixes for a PrevKv=nil and for the lost DELETE it can leave (§3, §5, §9).
void lostDeleteFixes(const Facts& f, Writer& t) {
    const Tri etcdFixed = f.etcd.hasStarvationFix();
    if (etcdFixed != Tri::Yes)
        t.fix << QStringLiteral("Upgrade %1 to 3.4.31+ or 3.5.13+ (PR #17555, the fix of "
                                "#17529).")
                     .arg(f.etcd.name());
    switch (f.server.rvEmptyWatchFromEtcd()) {
    case Tri::Yes: {
        const int minor = f.server.minor();
        const QString target = minor == 27   ? QStringLiteral("1.27.13+")
                               : minor == 28 ? QStringLiteral("1.28.9+")
                               : minor == 29 ? QStringLiteral("1.29.4+")
                                             : QStringLiteral("a version with the gate off");
        t.fix << QStringLiteral("Upgrade %1 to %2 (or 1.30+): watches with resourceVersion=\"\" "
                                "are then served from the watch cache again, behind the gate "
                                "WatchFromStorageWithoutResourceVersion, which must stay off "
                                "(#123935, #124007).")
                     .arg(f.server.name(), target);
        break;
    }
    case Tri::Unknown:
        t.fix << QStringLiteral("On kube-apiserver 1.27.0-1.27.12, 1.28.0-1.28.8 or "
                                "1.29.0-1.29.3, upgrade to 1.27.13+, 1.28.9+ or 1.29.4+ (RV=\"\" "
                                "watches back to the watch cache).");
        break;
    case Tri::No:
        break;
    }
    const Tri separate = f.server.separateCacheWatchRpc();
    if (!f.server.known()) {
        t.fix << QStringLiteral("Keep SeparateCacheWatchRPC on where it is available (on by "
                                "default in 1.28.8+, 1.29.3+ and 1.30-1.32; off by default from "
                                "1.33).");
    } else if (separate == Tri::No && f.server.minor() >= 28 && etcdFixed != Tri::Yes &&
               f.server.rvEmptyWatchFromEtcd() != Tri::No) {
        t.fix << QStringLiteral("Turn SeparateCacheWatchRPC on "
                                "(--feature-gates=SeparateCacheWatchRPC=true) while etcd is older "
                                "than 3.4.31 / 3.5.13.");
    }
    if (f.server.retriesInternalErrors() != Tri::No && etcdFixed != Tri::Yes)
        t.fix << QStringLiteral("Restart a kube-apiserver whose watch cache may hold deleted "
                                "objects: its cache is rebuilt from etcd. Comparing "
                                "apiserver_watch_cache_events_dispatched_total across apiservers "
                                "finds it; on 1.34+ DetectCacheInconsistency reports it (it does "
                                "not relist).");
}

// --- kinds
// ------------------------------------------------------------------------------------------

void prevKvNil(const Anomaly& a, const Facts& f, Writer& t) {
    QString type = captured(a.message, "type=(\\w+)");
    if (type.isEmpty())
        type = captured(a.message, "^(PUT|DELETE) at");
    const QString event =
        type.isEmpty() ? QStringLiteral("a non-create event") : QStringLiteral("a %1").arg(type);
    const QString at = a.rv ? QStringLiteral(" at revision %1").arg(a.rv) : QString();
    if (a.source == AnomalySource::Etcd) {
        t.what << QStringLiteral("etcd sent %1 %2 of %3%4 without prev_kv, the key's previous "
                                 "value.")
                      .arg(watcherLabel(a), event, keyOr(a, QStringLiteral("a key")), at);
        const QString created = captured(a.message, "created at (\\d+)");
        if (!created.isEmpty())
            t.what << QStringLiteral("The key exists since revision %1, so the event is not a "
                                     "create: prev_kv must be there.")
                          .arg(created);
        const QString compact = captured(a.message, "compact revision (\\d+)");
        if (!compact.isEmpty())
            t.what << QStringLiteral("Its previous revision was already compacted (compact "
                                     "revision %1).")
                          .arg(compact);
    } else {
        t.what << QStringLiteral("The kube-apiserver's etcd watcher received %1 of %2%3 "
                                 "without prev_kv and ended the watch of %4 with an ERROR event: "
                                 "500 InternalError \"etcd event received with PrevKv=nil\".")
                      .arg(event, keyOr(a, QStringLiteral("a key")), at, watcherLabel(a));
        if (!isCacher(a))
            t.what << QStringLiteral("A client sees this error only on a watch served by etcd "
                                     "directly, not from the watch cache: this one was.");
    }
    t.ref("etcd issue #10681");
    t.ref("kubernetes PR #76675");
    t.why << QStringLiteral(
        "etcd looks prev_kv up when it sends an event, at mod_revision-1. When a watch stream is "
        "so far behind that compaction has already passed that revision, the event goes out "
        "with prev_kv nil, with no cancel and no compact_revision (etcd issue #10681; rpc.proto "
        "allows it). A stream falls that far behind when it is slow or shared: Go's clientv3 "
        "puts every watch with the same gRPC metadata on one stream, whose watchers share one "
        "128-slot buffer and one send loop in etcd.");
    t.why << QStringLiteral("Since 1.15 (PR #76675) the kube-apiserver fails any non-create event "
                            "without prev_kv: an ERROR event, code 500, reason InternalError.");
    cacherReaction(f, t);
    if (f.server.retriesInternalErrors() != Tri::No)
        streamSharing(f, t);
    lostDeleteFixes(f, t);
    if (f.server.retriesInternalErrors() == Tri::No)
        t.fix << QStringLiteral("Each PrevKv=nil costs a relist of the whole resource: keep the "
                                "cacher's stream fast (apiserver CPU, no huge objects) and "
                                "--etcd-compaction-interval well above the longest watch lag.");
    else
        t.fix << QStringLiteral("Keep --etcd-compaction-interval well above the longest watch lag "
                                "(the watcher-lag series show it).");
    if (a.source == AnomalySource::Apiserver && !isCacher(a))
        t.fix << QStringLiteral("Make clients watch with the RV of a list (as informers do), so "
                                "the watch cache serves them instead of etcd.");
}

void timeTravelWhy(const Facts& f, Writer& t) {
    t.ref("kubernetes issue #59848");
    t.why << QStringLiteral(
        "A client that lists with resourceVersion=0 gets \"any state from the cache, no wait\". "
        "Against an apiserver whose watch cache lags (HA apiservers, one partitioned from "
        "etcd) that state can be older than one the client already saw: deleted objects come "
        "back, RVs go down. client-go's reflector lists with RV=0 whenever it starts (never "
        "synced), so a restarted client that lands on the lagging apiserver goes back in time. "
        "Kubernetes issue #59848, still open in every version.");
    if (f.server.consistentListFromCache() == Tri::Yes)
        t.why << QStringLiteral("ConsistentListFromCache (on in %1) does not help an RV=0 list: "
                                "it only serves RV=\"\" lists from the cache.")
                     .arg(f.server.name());
    t.fix << QStringLiteral("Controllers that must not act on old data: list with "
                            "resourceVersion=\"\" (a consistent read), or remember the highest "
                            "RV seen and refuse older lists (RVs are comparable as integers: "
                            "KEP-5504, GA in 1.35).");
    t.fix << QStringLiteral("Take an apiserver that loses etcd out of the load balancer, so it "
                            "stops receiving clients while its cache is frozen.");
}

void cacheInconsistent(const Anomaly& a, const Facts& f, Writer& t) {
    const QString rv = QString::number(a.rv);
    const QString cacheItem = captured(a.message, "first difference: cache (\\S+), etcd");
    const QString etcdItem = captured(a.message, ", etcd ([^ ;(]+)\\s");
    t.what << QStringLiteral("The apiserver's own consistency check found %1 different from etcd "
                             "at RV %2.")
                  .arg(isCacher(a) ? watcherLabel(a) : QStringLiteral("a watch cache"), rv);
    if (!cacheItem.isEmpty() || !etcdItem.isEmpty())
        t.what << QStringLiteral("The first difference in key order: the cache has %1, etcd has "
                                 "%2 (\"<nil>\": missing on that side).")
                      .arg(cacheItem, etcdItem);
    t.why << QStringLiteral(
        "DetectCacheInconsistency (beta, on from 1.34) makes every watch cache list itself and "
        "etcd at the same RV every 5 to 7.5 minutes, hash namespace/name/resourceVersion of "
        "every object and compare (staging/src/k8s.io/apiserver/pkg/storage/cacher/consistency/"
        "checker.go). A mismatch is logged as \"Cache consistency check failed\" and counted in "
        "apiserver_storage_consistency_checks_total{status=\"failure\"}; the cache's snapshots "
        "are purged so exact-RV and continue lists go to etcd. The cache is not relisted: what "
        "it lost stays in it, and in every informer that lists or watches through it, until the "
        "apiserver restarts.");
    t.version(QStringLiteral("kube-apiserver 1.34+: DetectCacheInconsistency reports, does not "
                             "repair"));
    if (f.server.retriesInternalErrors() != Tri::No) {
        t.why << QStringLiteral("The usual cause is a lost DELETE: the cacher's etcd stream falls "
                                "behind, a compaction passes a DELETE still queued, etcd sends it "
                                "with prev_kv nil and the cacher retries from its last RV without "
                                "relisting (PR #111387). Look for prevkv-nil on this resource.");
        t.ref("kubernetes PR #111387");
        streamSharing(f, t);
        lostDeleteFixes(f, t);
    }
    t.fix << QStringLiteral("Restart the apiserver that reported it (its caches are rebuilt from "
                            "etcd) and relist the affected clients; on a test cluster "
                            "KUBE_WATCHCACHE_CONSISTENCY_CHECKER=true makes the apiserver panic "
                            "on the first mismatch instead.");
}

void staleObject(const Anomaly& a, const Facts& f, Writer& t) {
    const QString who = isCacher(a) ? watcherLabel(a)
                        : a.watcher.isEmpty()
                            ? QStringLiteral("A store")
                            : QStringLiteral("The store of %1").arg(watcherLabel(a));
    const QString Who = who.left(1).toUpper() + who.mid(1);
    const QString key = keyOr(a, QStringLiteral("an object"));
    const bool again = a.message.contains(QLatin1String(" again: "));
    const QString storeRv = captured(a.message, "store at RV (\\d+)");
    const QString deletedAt = captured(a.message, "deleted in etcd at (\\d+)");
    const QString etcdRv = captured(a.message, "etcd has it at (\\d+)");
    if (again) {
        t.what << QStringLiteral("%1 holds %2 again at RV %3: etcd deleted it at %4, and this "
                                 "watcher had already seen that (RV %5). It went back in time.")
                      .arg(Who, key, storeRv, deletedAt,
                           captured(a.message, "already seen \\(RV (\\d+)\\)"));
        timeTravelWhy(f, t);
        return;
    }
    if (!deletedAt.isEmpty())
        t.what << QStringLiteral("%1, at RV %2, still holds %3 (RV %4) although etcd deleted it "
                                 "at revision %5.")
                      .arg(Who, storeRv, key, QString::number(a.rv), deletedAt);
    else if (!etcdRv.isEmpty())
        t.what << QStringLiteral("%1, at RV %2, holds %3 at RV %4, but etcd has a newer version "
                                 "(RV %5).")
                      .arg(Who, storeRv, key, QString::number(a.rv), etcdRv);
    else
        t.what << QStringLiteral("%1 holds %2 in a state etcd no longer has.").arg(Who, key);
    if (!isCacher(a))
        t.why << QStringLiteral("An informer's store follows what its apiserver serves: a change "
                                "missing from the watch cache is missing from every informer "
                                "that lists or watches through it.");
    if (f.server.retriesInternalErrors() == Tri::No) {
        t.why << QStringLiteral("%1 (before 1.25) relists its watch cache after a PrevKv=nil, so "
                                "the lost-DELETE path of 1.25+ (PR #111387) does not apply here. "
                                "Look for a watch that skipped events (revision-gap) or a list "
                                "from a lagging apiserver (revision-regression, issue #59848).")
                     .arg(f.server.name());
        t.ref("kubernetes PR #111387");
        t.ref("kubernetes issue #59848");
        t.version(QStringLiteral("%1: the cacher relists after PrevKv=nil (before 1.25)")
                      .arg(f.server.name()));
        t.fix << QStringLiteral("Relist the client (restart it) to drop the stale object; find "
                                "the watch that lost the change.");
        return;
    }
    t.why << QStringLiteral(
        "The known way a deleted object stays in a watch cache: the cacher's etcd "
        "stream falls behind, compaction passes a DELETE still queued, etcd sends it with "
        "prev_kv nil, and the apiserver turns it into a PrevKv=nil InternalError.");
    t.ref("kubernetes PR #76675");
    cacherReaction(f, t);
    streamSharing(f, t);
    lostDeleteFixes(f, t);
    if (f.etcd.hasStarvationFix() == Tri::Yes)
        t.fix << QStringLiteral("%1 has the #17529 fix, so this object was lost another way: look "
                                "for a revision-gap or prevkv-nil on the same key. Restarting the "
                                "apiserver (its cache is rebuilt) or relisting the client drops "
                                "it.")
                     .arg(f.etcd.name());
}

// The 410 window of a watch cache (§1, §4).
void tooOldRv(const Anomaly& a, const Facts& f, Writer& t) {
    const bool onList = a.message.startsWith(QLatin1String("list"));
    const QString compact = captured(a.message, "compacted at revision (\\d+)");
    const QString rv = a.rv ? QString::number(a.rv) : QStringLiteral("its RV");
    const QString fromRv = a.rv ? QStringLiteral(" from RV %1").arg(a.rv) : QString();
    if (!compact.isEmpty()) {
        t.what << QStringLiteral("etcd canceled the watch of %1%2: its start revision is below "
                                 "the compact revision %3, so the events it asks for are gone.")
                      .arg(watcherLabel(a), fromRv, compact);
        t.why << QStringLiteral(
            "etcd answers a watch from below the compact revision with created, then canceled "
            "with compact_revision and no events. Retrying the same start revision fails again: "
            "the watcher must relist (a Range pinned to the first page's revision) and watch "
            "from the list revision + 1.");
        t.why << QStringLiteral("The kube-apiserver's cacher sees this as 410 Expired on its etcd "
                                "watch (the etcd path says Expired in every version) and relists.");
        t.fix << QStringLiteral("Relist and watch from the list's revision + 1. Keep "
                                "--etcd-compaction-interval well above the longest watch lag so "
                                "a slow watcher is not overtaken.");
        if (f.etcd.known())
            t.version(QStringLiteral("%1: a watch below the compact revision is canceled with "
                                     "compact_revision")
                          .arg(f.etcd.name()));
        return;
    }
    const QString reason = captured(a.message, "410 (\\w+)");
    const QString oldest = captured(a.message, "too old resource version: \\d+ \\((\\d+)\\)");
    t.what << QStringLiteral("The %1 of %2%3 was refused with 410%4.")
                  .arg(onList ? QStringLiteral("list") : QStringLiteral("watch"), watcherLabel(a),
                       fromRv, reason.isEmpty() ? QString() : QLatin1Char(' ') + reason);
    if (!oldest.isEmpty())
        t.what << QStringLiteral("The oldest RV this server can resume from is %1, so %2 is "
                                 "too old.")
                      .arg(oldest, rv);
    if (a.message.contains(QLatin1String("The resourceVersion for the provided watch is too old")))
        t.what << QStringLiteral("The message is the etcd path's: the watch was served by etcd "
                                 "(cache off, or compaction), not by the watch cache.");
    // Why: the window.
    QString window = QStringLiteral(
        "A watch cache keeps only a window of recent events, and a watch from an RV older than "
        "its oldest event minus one is refused: HTTP 200 with one ERROR event (410) and EOF.");
    const QString res = resourceOr(a);
    const bool big = QStringList{QStringLiteral("pods"), QStringLiteral("nodes"),
                                 QStringLiteral("endpoints"), QStringLiteral("services")}
                         .contains(a.resource);
    const QString fixedSize =
        a.resource == QLatin1String("events")
            ? QStringLiteral("none for events (served by etcd)")
            : QStringLiteral("%1 events for %2").arg(big ? 1000 : 100).arg(res);
    switch (f.server.atLeast(19)) {
    case Tri::No:
        window += QStringLiteral(" %1 (before 1.19) has a fixed ring per resource "
                                 "(DefaultWatchCacheSizes: %2), which a busy resource fills in "
                                 "seconds.")
                      .arg(f.server.name(), fixedSize);
        t.version(
            QStringLiteral("%1: fixed watch-cache size (%2)").arg(f.server.name(), fixedSize));
        break;
    case Tri::Yes:
        window += QStringLiteral(" %1 resizes the ring between 100 and 102400 events to hold %2 "
                                 "of history (1.19+).")
                      .arg(f.server.name(), f.server.atLeast(33) == Tri::Yes
                                                ? QStringLiteral("max(75 s, request-timeout + "
                                                                 "15 s)")
                                                : QStringLiteral("about 75 s"));
        t.version(QStringLiteral("%1: dynamic watch cache, 100..102400 events (1.19+)")
                      .arg(f.server.name()));
        break;
    case Tri::Unknown:
        window += QStringLiteral(" Up to 1.18 the ring has a fixed size per resource (%1); from "
                                 "1.19 it resizes between 100 and 102400 events to hold about "
                                 "75 s.")
                      .arg(fixedSize);
        serverUnknown(f, t,
                      QStringLiteral("fixed watch-cache sizes up to 1.18, dynamic from 1.19"));
        break;
    }
    t.why << window;
    t.why << QStringLiteral("A restarted apiserver's cache starts empty at its list RV: every "
                            "older RV gets 410 there. A watcher with a selector that sees no "
                            "events keeps an old RV while other objects churn the window on.");
    // Bookmarks.
    switch (f.server.atLeast(19)) {
    case Tri::No:
        t.why << QStringLiteral("Bookmarks carry a quiet watcher's RV forward, but %1 sends a "
                                "watcher only one, 2 s before its timeout (about every minute "
                                "from 1.19).")
                     .arg(f.server.name());
        break;
    case Tri::Yes:
        t.why << QStringLiteral("Bookmarks (allowWatchBookmarks) carry a quiet watcher's RV "
                                "forward about once a minute, when it advances.");
        break;
    case Tri::Unknown:
        t.why << QStringLiteral("Bookmarks carry a quiet watcher's RV forward: from 1.19 about "
                                "every minute; before 1.19 only once, 2 s before the watch's "
                                "timeout.");
        break;
    }
    // The reason.
    if (f.server.known()) {
        const QString expected = f.server.tooOldReason();
        t.version(QStringLiteral("%1: 410 reason %2 from the watch cache (Gone up to 1.16, "
                                 "Expired from 1.17; the etcd path always Expired)")
                      .arg(f.server.name(), expected));
        if (reason == QLatin1String("Gone") && expected != reason)
            t.why << QStringLiteral("The reason Gone comes from a watch cache of 1.16 or older, "
                                    "not from %1: another, older apiserver answered.")
                         .arg(f.server.name());
    } else if (reason == QLatin1String("Gone")) {
        t.why << QStringLiteral("The reason Gone says a watch cache of 1.16 or older answered "
                                "(1.17+ say Expired).");
    } else if (reason == QLatin1String("Expired")) {
        t.why << QStringLiteral(
            "The reason Expired comes from a 1.17+ watch cache or from the etcd "
            "path (Gone from caches up to 1.16).");
    }
    // The client's reaction (§6).
    QString reaction;
    if (onList)
        reaction = QStringLiteral("A 410 on a list makes client-go 0.18+ list again at once with "
                                  "resourceVersion=\"\" (a consistent list from etcd); 0.16/0.17 "
                                  "always list with RV=\"0\".");
    else
        reaction = QStringLiteral("client-go relists after a watch 410, first with its last RV "
                                  "(served from the cache); only a 410 or 504 on that list makes "
                                  "it list with resourceVersion=\"\", from etcd.");
    if (f.client.known()) {
        const Tri zero = f.client.listsFromZeroOnly();
        if (zero == Tri::Yes)
            reaction = QStringLiteral("%1 (before 0.18) always relists with RV=\"0\", from the "
                                      "cache, on a fixed 1 s period.")
                           .arg(f.client.name());
        else if (zero == Tri::Unknown)
            reaction = QStringLiteral("%1 relists on a fixed 1 s period with RV=\"0\", from the "
                                      "cache (0.17.0 alone with its last RV, and with "
                                      "resourceVersion=\"\" after a 410).")
                           .arg(f.client.name());
        else if (f.client.before018() == Tri::Yes)
            reaction = QStringLiteral("%1 relists on a fixed 1 s period with resourceVersion=\"\" "
                                      "after a 410 on the watch or the list (the relist RV rules "
                                      "of 0.18, reverted in 0.17.1).")
                           .arg(f.client.name());
        t.version(QStringLiteral("%1: relists after 410 (%2)")
                      .arg(f.client.name(), zero == Tri::Yes       ? QStringLiteral("RV=\"0\"")
                                            : zero == Tri::Unknown ? QStringLiteral("RV=\"0\" "
                                                                                    "but in 0.17.0")
                                                                   : QStringLiteral("last RV, then "
                                                                                    "RV=\"\"")));
    }
    t.why << reaction + QStringLiteral(" One relist per resumed watcher; many at once are a "
                                       "relist storm.");
    // Fix.
    if (f.server.atLeast(19) != Tri::Yes)
        t.fix << QStringLiteral("Run 1.19+ (periodic bookmarks, a ring sized to 75 s); on older "
                                "servers raise --watch-cache-sizes for busy resources.");
    t.fix << QStringLiteral("Keep allowWatchBookmarks on, so quiet watchers resume from a recent "
                            "RV.");
    t.fix << QStringLiteral("Restart apiservers slowly (let each cache fill and clients settle); "
                            "expect one 410 and relist per filtered watcher after a restart.");
}

// The 504 "Too large resource version" and who recovers from it (§1, §6).
QString bodyText(Body body) {
    switch (body) {
    case Body::NoCauses:
        return QStringLiteral("no causes at all (1.16)");
    case Body::MessageCause:
        return QStringLiteral("a cause with only the message \"Too large resource version\" "
                              "(1.17.0-1.18.5)");
    case Body::ReasonCause:
        return QStringLiteral("a cause with reason ResourceVersionTooLarge (1.18.6+)");
    case Body::Unknown:
        break;
    }
    return {};
}

// Appends whether the client recovers from the 504; true when it loops (or may).
Tri tooLargeVerdict(const Facts& f, Writer& t) {
    const Body body = f.server.tooLargeBody();
    const QString table = QStringLiteral(
        "client-go 0.16/0.17 and 0.18.0-0.18.5 recognise no 504 (they loop against every "
        "server); 0.18.6-0.18.8 and 0.19.0 only the cause reason ResourceVersionTooLarge "
        "(servers 1.18.6+); 0.18.9+, 0.19.1+ and 0.20-0.26 also Timeout with the cause message "
        "(servers 1.17+); 0.27.0+ also the message alone (1.16 servers too).");
    if (body != Body::Unknown) {
        t.why << QStringLiteral("The 504 of %1 carries %2.").arg(f.server.name(), bodyText(body));
        t.version(QStringLiteral("%1: 504 body with %2").arg(f.server.name(), bodyText(body)));
    } else if (f.server.known()) {
        t.why << QStringLiteral("%1 without its patch number: 1.18.0-1.18.5 send a cause with only "
                                "the message, 1.18.6+ a cause with reason "
                                "ResourceVersionTooLarge.")
                     .arg(f.server.name());
    } else {
        t.why << QStringLiteral("The 504's body depends on the server: no causes (1.16), a cause "
                                "with only the message (1.17.0-1.18.5), a cause with reason "
                                "ResourceVersionTooLarge (1.18.6+).");
        serverUnknown(f, t,
                      QStringLiteral("the 504 body has no causes on 1.16, a message cause "
                                     "on 1.17.0-1.18.5, a reason cause on 1.18.6+"));
    }
    if (!f.client.known() || f.client.tooLarge() == ClientGoFacts::TooLarge::Unknown) {
        t.why << QStringLiteral("Whether the client recovers depends on its client-go: ") + table;
        if (f.client.known())
            t.version(QStringLiteral("%1: patch unknown; recognition of the 504 changed within "
                                     "0.18 and 0.19")
                          .arg(f.client.name()));
        else
            clientUnknown(t, QStringLiteral("0.18.0-0.18.5 loop against every server, 0.27+ "
                                            "recover from every server"));
        return Tri::Unknown;
    }
    const ClientGoFacts::TooLarge rec = f.client.tooLarge();
    const QString range = ClientGoFacts::tooLargeRange(rec);
    QString recognises;
    switch (rec) {
    case ClientGoFacts::TooLarge::None:
        recognises = QStringLiteral("recognises no too-large-RV 504 at all");
        break;
    case ClientGoFacts::TooLarge::ReasonOnly:
        recognises = QStringLiteral("recognises only the cause reason ResourceVersionTooLarge "
                                    "(servers 1.18.6+)");
        break;
    case ClientGoFacts::TooLarge::Causes:
        recognises = QStringLiteral("recognises the cause reason, or Timeout with the cause "
                                    "message (servers 1.17+), not the bare 1.16 body");
        break;
    case ClientGoFacts::TooLarge::Full:
        recognises = QStringLiteral("recognises every shape, the message alone included");
        break;
    case ClientGoFacts::TooLarge::Unknown:
        break;
    }
    t.version(QStringLiteral("%1: %2 (as %3)").arg(f.client.name(), recognises, range));
    const Tri recovers = f.client.recognisesTooLarge(body);
    if (recovers == Tri::Yes) {
        t.why << QStringLiteral("%1 %2%3: it marks its RV unavailable and lists again at once "
                                "with resourceVersion=\"\" (paginated, limit 500, from etcd), "
                                "then watches from the fresh RV. It recovers.")
                     .arg(f.client.name(), recognises,
                          body == Body::Unknown ? QString() : QStringLiteral(", so this one too"));
        return Tri::No;
    }
    if (recovers == Tri::No) {
        t.why << QStringLiteral("%1 %2%3. To it the 504 is just an error: it backs off and "
                                "relists with the same RV, and gets the same 504 for as long as "
                                "the cache stays behind. A retry loop, forever on a quiet "
                                "resource.")
                     .arg(f.client.name(), recognises,
                          rec == ClientGoFacts::TooLarge::None
                              ? QString()
                              : QStringLiteral(", not this server's"));
        return Tri::Yes;
    }
    t.why << QStringLiteral("%1 %2: whether it recovers depends on the server's body.")
                 .arg(f.client.name(), recognises);
    return Tri::Unknown;
}

void tooLargeFixes(const Facts& f, Tri loops, Writer& t) {
    if (loops != Tri::No) {
        if (f.client.tooLarge() != ClientGoFacts::TooLarge::Full)
            t.fix << QStringLiteral("Upgrade %1 to 0.27+, which recognises every 504 body; "
                                    "0.18.9+ / 0.20-0.26 are enough against 1.17+ servers, "
                                    "0.18.6+ against 1.18.6+.")
                         .arg(f.client.name());
        if (f.client.tooLarge() != ClientGoFacts::TooLarge::None &&
            f.server.tooLargeBody() != Body::ReasonCause)
            t.fix << QStringLiteral("Or upgrade %1 to 1.18.6+ (the cause reason every client from "
                                    "0.18.6 recognises).")
                         .arg(f.server.name());
        t.fix << QStringLiteral("Restart the stuck client: never synced, it lists with RV=\"0\", "
                                "which the cache serves at once.");
    }
    if (f.server.atLeast(21) != Tri::Yes)
        t.fix << QStringLiteral("Run 1.21+: the cacher's etcd watch asks for progress "
                                "notifications, so a quiet resource's cache RV keeps up with "
                                "etcd and the 504 becomes rare.");
    t.fix << QStringLiteral("Alert on repeated 504s for the same RV.");
}

void tooLargeRv(const Anomaly& a, const Facts& f, Writer& t) {
    const QString current = captured(a.message, "current: (\\d+)");
    const QString fromRv = a.rv ? QStringLiteral(" from RV %1").arg(a.rv) : QString();
    const bool onList = !a.message.startsWith(QLatin1String("watch"));
    t.what << QStringLiteral("The %1 of %2%3 was answered 504 \"Too large resource "
                             "version\"%4.")
                  .arg(onList ? QStringLiteral("list") : QStringLiteral("watch-list"),
                       watcherLabel(a), fromRv,
                       current.isEmpty()
                           ? QString()
                           : QStringLiteral(": the server's cache is at %1, behind the RV the "
                                            "client asks for")
                                 .arg(current));
    t.why << QStringLiteral(
        "The client's RV came from a newer view (another apiserver behind a load balancer, "
        "before this cache caught up). For a list or get with RV>0, a consistent read or a "
        "watch-list, the cache waits up to 3 s for its RV to reach the requested one, then "
        "fails with 504; RV=0 never waits, and a plain watch with a future RV just streams "
        "newer events.");
    switch (f.server.atLeast(21)) {
    case Tri::No:
        t.why << QStringLiteral("%1 (before 1.21) asks etcd for no progress notifications on the "
                                "cacher's watch: a quiet resource's cache RV only moves with its "
                                "own events, so it may never reach the RV.")
                     .arg(f.server.name());
        t.version(QStringLiteral("%1: no progress notifications for the cacher (before 1.21)")
                      .arg(f.server.name()));
        break;
    case Tri::Yes:
        t.why << QStringLiteral("%1 (1.21+) has the cacher ask etcd for progress notifications, "
                                "which move a quiet cache's RV at etcd's interval (default 10 "
                                "min; --experimental-watch-progress-notify-interval since "
                                "3.4.11).")
                     .arg(f.server.name());
        break;
    case Tri::Unknown:
        t.why << QStringLiteral("Before 1.21 the cacher asks etcd for no progress notifications, "
                                "so a quiet resource's cache RV only moves with its own events; "
                                "from 1.21 progress notifications move it.");
        break;
    }
    const Tri loops = tooLargeVerdict(f, t);
    tooLargeFixes(f, loops, t);
}

void retryLoop(const Anomaly& a, const Facts& f, Writer& t) {
    // "504 Timeout received 5 times in a row ...", or a connection failure without a status:
    // "connection reset 5 times in a row ...".
    const QString code = captured(a.message, "^(\\d{3})\\b");
    const QString times = captured(a.message, "(\\d+) times in a row");
    const QString failure =
        code.isEmpty() ? captured(a.message, "^(.+?) \\d+ times in a row") : QString();
    const QString error = !code.isEmpty()      ? QLatin1Char(' ') + code
                          : !failure.isEmpty() ? QStringLiteral(" (%1)").arg(failure)
                                               : QString();
    t.what << QStringLiteral("%1 got the same error%2%3 without moving its RV%4.")
                  .arg(a.watcher.isEmpty() ? QStringLiteral("A watcher")
                                           : QStringLiteral("Watcher %1").arg(a.watcher),
                       error, times.isEmpty() ? QString() : QStringLiteral(" %1 times").arg(times),
                       a.rv ? QStringLiteral(" (it stays at %1)").arg(a.rv) : QString());
    QString backoff = QStringLiteral(
        "client-go's reflector retries ListAndWatch with a backoff of 800 ms growing to 30 s "
        "(factor 2, jitter 1, reset after 2 min; 0.18+), 0.16/0.17 on a fixed 1 s period. A "
        "retry that asks for the same thing gets the same answer. Below the reflector the REST "
        "client sends an answer with Retry-After (the watch cache's 504 for an RV it lacks, a "
        "429) or a GET whose connection was reset again itself, up to ten times (watches from "
        "0.22), "
        "so one try of the reflector can be eleven of these answers.");
    t.why << backoff;
    if (!failure.isEmpty()) {
        const QString server =
            a.apiserver.isEmpty() ? QStringLiteral("the apiserver") : a.apiserver;
        t.why << QStringLiteral("No HTTP status came back (%1): %2 could not be reached. It was "
                                "down (OOM-killed, restarting, partitioned), or a load balancer "
                                "still sent connections to it and reset them. Every client sent "
                                "there loops the same way: the incident is %2's, with the "
                                "clients it touched counted.")
                     .arg(failure, server);
        t.fix << QStringLiteral("Find why %1 is down: its logs and restarts, OOM kills (see "
                                "list-pressure: a burst of LISTs can exhaust its memory), "
                                "/readyz. Let the load balancer health-check /readyz so it stops "
                                "sending clients to a dead apiserver.")
                     .arg(server);
        return;
    }
    if (code == QLatin1String("504") ||
        a.message.contains(QLatin1String("Too large resource version"))) {
        t.why << QStringLiteral("Here the error is 504 \"Too large resource version\": the "
                                "cache this client reaches is behind the RV it asks for.");
        const Tri loops = tooLargeVerdict(f, t);
        if (loops == Tri::No)
            t.why << QStringLiteral("Yet it looped: check that the client really is %1 and which "
                                    "apiserver answered.")
                         .arg(f.client.name());
        tooLargeFixes(f, loops == Tri::No ? Tri::Unknown : loops, t);
        return;
    }
    if (code == QLatin1String("429")) {
        t.why << QStringLiteral("A 429 \"storage is (re)initializing\" (ResilientWatchCacheInit"
                                "ialization, 1.31+) comes with Retry-After = clamp(e^(0.06 x "
                                "downtime_s), 1, 30) s while a watch cache initializes; client-go "
                                "0.22+ backs off and re-watches on a 429.");
        t.fix << QStringLiteral("Wait for the cache to initialize; if it never does, the "
                                "apiserver's own reflector cannot list from etcd: check its "
                                "logs and etcd.");
        return;
    }
    if (code == QLatin1String("503")) {
        t.why << QStringLiteral("While a watch cache (re)initializes, 1.27-1.30 block then answer "
                                "503 (up to 1.26 they only block; 1.31+ answer 429).");
        t.fix << QStringLiteral("Wait for the cache to initialize; check that the apiserver can "
                                "list from etcd.");
        return;
    }
    if (code == QLatin1String("410")) {
        t.why << QStringLiteral("A 410 repeated: client-go relists after a watch 410 with its "
                                "last RV, and only a 410 or 504 on that list makes 0.18+ list "
                                "with resourceVersion=\"\"; 0.16/0.17 always list with RV=\"0\".");
        t.fix << QStringLiteral("Check that the relist succeeds and that watches resume from "
                                "its RV; keep bookmarks on.");
        return;
    }
    if (code == QLatin1String("500")) {
        t.why << QStringLiteral("A 500 InternalError repeated, such as \"etcd event received "
                                "with PrevKv=nil\" on a watch served by etcd: re-watching from "
                                "the same RV meets the same compacted revision.");
        t.fix << QStringLiteral("Relist instead of re-watching (a list gives a fresh RV); see the "
                                "prevkv-nil anomalies.");
        return;
    }
    t.fix << QStringLiteral("Find why the request fails (the message) and fix that; the loop "
                            "ends when the client gets a fresh RV (a relist with "
                            "resourceVersion=\"\") or the server catches up.");
}

void relistStorm(const Anomaly& a, const Facts& f, Writer& t) {
    const QString n = captured(a.message, "^(\\d+) relists");
    const QString by = captured(a.message, "by (\\d+ of \\d+) watchers");
    t.what << QStringLiteral("%1 relists of %2 in a short time%3.")
                  .arg(n.isEmpty() ? QStringLiteral("Many") : n, resourceOr(a),
                       by.isEmpty() ? QString() : QStringLiteral(", by %1 watchers").arg(by));
    t.why << QStringLiteral(
        "Clients relist after a 410 (their RV fell out of a watch cache, often because an "
        "apiserver restarted and its cache starts at its list RV), after a 504 they recognise, "
        "or when their watch was closed by a cacher that relisted itself. Restarts move many "
        "clients at once, so their relists bunch up exactly when the control plane has less "
        "capacity.");
    t.why << QStringLiteral("A relist with resourceVersion=\"\" is a paginated LIST (500 per "
                            "page) that bypasses the cache and goes to etcd; LIST pods on a "
                            "10k+ pod cluster returns 500-800 MB, and lists dominate apiserver "
                            "memory.");
    switch (f.server.consistentListFromCache()) {
    case Tri::Yes:
        if (f.etcd.hasStarvationFix() == Tri::No) {
            t.why << QStringLiteral("%1 has ConsistentListFromCache, but it needs etcd 3.4.31+ / "
                                    "3.5.13+: with %2 those lists still go to etcd.")
                         .arg(f.server.name(), f.etcd.name());
            t.version(QStringLiteral("%1: too old for consistent lists from cache (needs "
                                     "3.4.31+ / 3.5.13+)")
                          .arg(f.etcd.name()));
        } else {
            t.why << QStringLiteral("%1 serves RV=\"\" lists from the cache "
                                    "(ConsistentListFromCache, 1.31+) when etcd is 3.4.31+ / "
                                    "3.5.13+.")
                         .arg(f.server.name());
        }
        t.version(QStringLiteral("%1: ConsistentListFromCache on").arg(f.server.name()));
        break;
    case Tri::No:
        t.version(QStringLiteral("%1: RV=\"\" lists go to etcd (ConsistentListFromCache is "
                                 "1.31+)")
                      .arg(f.server.name()));
        break;
    case Tri::Unknown:
        t.why << QStringLiteral("From 1.31 (ConsistentListFromCache, with etcd 3.4.31+ / 3.5.13+) "
                                "RV=\"\" lists are served from the cache instead.");
        serverUnknown(f, t,
                      QStringLiteral("RV=\"\" lists come from the cache from 1.31 "
                                     "(ConsistentListFromCache)"));
        break;
    }
    switch (f.server.atLeast(31)) {
    case Tri::Yes:
        t.why << QStringLiteral("While a cache (re)initializes, %1 answers watches and "
                                "non-delegable lists with 429 and a Retry-After "
                                "(ResilientWatchCacheInitialization, 1.31+).")
                     .arg(f.server.name());
        break;
    case Tri::No:
        t.why << QStringLiteral("While a cache (re)initializes, %1 %2 (1.31+ answer 429 with a "
                                "Retry-After).")
                     .arg(f.server.name(), f.server.atLeast(27) == Tri::Yes
                                               ? QStringLiteral("blocks requests, then answers 503")
                                               : QStringLiteral("blocks requests"));
        break;
    case Tri::Unknown:
        break;
    }
    t.fix << QStringLiteral("Restart apiservers slowly, letting each cache fill and clients "
                            "settle; watch relist rates and "
                            "apiserver_watch_cache_initializations_total during upgrades; cap "
                            "LIST concurrency with API Priority and Fairness.");
    if (f.server.atLeast(31) != Tri::Yes || f.etcd.hasStarvationFix() != Tri::Yes)
        t.fix << QStringLiteral("Run kube-apiserver 1.31+ with etcd 3.4.31+ / 3.5.13+, so RV=\"\" "
                                "lists come from the cache (ConsistentListFromCache).");
    t.fix << QStringLiteral("Watch-list clients avoid the LIST altogether: client-go 0.35+ "
                            "(WatchListClient on by default) against a server with the WatchList "
                            "gate on (1.32, 1.34+).");
}

void watcherLag(const Anomaly& a, const Facts& f, Writer& t) {
    const QString behind = captured(a.message, "^(\\d+) revisions behind");
    const QString seconds = captured(a.message, "([\\d.]+) s behind");
    t.what << QStringLiteral("%1 is %2 revisions%3 behind the head.")
                  .arg(watcherLabel(a).left(1).toUpper() + watcherLabel(a).mid(1),
                       behind.isEmpty() ? QStringLiteral("many") : behind,
                       seconds.isEmpty() ? QString() : QStringLiteral(" (%1 s)").arg(seconds));
    if (isCacher(a) || a.source == AnomalySource::Etcd) {
        t.why << QStringLiteral(
            "An etcd watch stream falls behind when it is slower than the writes or shared: "
            "etcd's watchers on one gRPC stream share a 128-slot buffer and one send loop; a slow "
            "stream makes them victims, then unsynced, and catch-up responses batch up to 1000 "
            "revisions.");
        if (isCacher(a)) {
            t.why << QStringLiteral("When the cacher lags, every watcher served by that watch "
                                    "cache lags with it.");
            streamSharing(f, t);
        }
        t.why << QStringLiteral("The risk: compaction overtakes the lagging watch, and its events "
                                "arrive with prev_kv nil (prevkv-nil) or the watch is canceled as "
                                "compacted (too-old-rv).");
        if (f.etcd.hasStarvationFix() == Tri::No)
            t.version(QStringLiteral("%1: watch starvation bug #17529 (fixed in 3.4.31 / 3.5.13)")
                          .arg(f.etcd.name()));
        t.ref("etcd issue #17529");
        t.fix << QStringLiteral("Keep the stream fast (apiserver CPU, no huge objects, fewer "
                                "watches multiplexed on one stream) and --etcd-compaction-interval "
                                "above the lag.");
        if (f.etcd.hasStarvationFix() != Tri::Yes)
            t.fix << QStringLiteral("Upgrade etcd to 3.4.31+ / 3.5.13+ (#17529).");
        return;
    }
    t.why << QStringLiteral("A client lags when it reads slower than the events come (slow "
                            "handlers, a starved CPU), when the watch cache behind it lags, or "
                            "when its watch is served by etcd on a congested stream.");
    switch (f.server.atLeast(25)) {
    case Tri::No:
        t.why << QStringLiteral(
                     "In %1 (before 1.25) the apiserver buffers only 10 events per "
                     "watcher (1000 for watchers of pods, nodes, secrets or configmaps that "
                     "do not use the trigger index, cacher.go); past "
                     "that the dispatcher blocks on it and may close it "
                     "(watcher-terminated).")
                     .arg(f.server.name());
        t.version(QStringLiteral("%1: per-watcher buffer of 10 events (before 1.25)")
                      .arg(f.server.name()));
        break;
    case Tri::Yes:
        t.why << QStringLiteral("In %1 (1.25+) the apiserver buffers clamp(ceil(capacity/75 s), "
                                "10, max) events per watcher, max 100 (1000 for indexed watchers "
                                "without a trigger, 10 with one); past that the dispatcher "
                                "blocks on it and may close it (watcher-terminated).")
                     .arg(f.server.name());
        t.version(QStringLiteral("%1: per-watcher buffer sized from the cache capacity (1.25+)")
                      .arg(f.server.name()));
        break;
    case Tri::Unknown:
        t.why << QStringLiteral("The apiserver buffers a fixed 10 events per watcher before 1.25, "
                                "and clamp(ceil(capacity/75 s), 10, 100) from 1.25; past that "
                                "the dispatcher blocks on it and may close it.");
        break;
    }
    if (f.server.rvEmptyWatchFromEtcd() == Tri::Yes)
        t.why << QStringLiteral("In %1 a watch with resourceVersion=\"\" is served by etcd (PR "
                                "#115096) and lags with the gRPC stream it shares.")
                     .arg(f.server.name());
    t.fix << QStringLiteral("Move heavy work out of event handlers (work queues), give the "
                            "client CPU, or narrow the watch with selectors; compare with the "
                            "cacher's lag to see whether the apiserver is behind.");
}

void stuckWatcher(const Anomaly& a, const Facts& f, Writer& t) {
    const QString secs = captured(a.message, "unchanged for ([\\d.]+) s");
    t.what << QStringLiteral("%1 has stayed at RV %2%3 while the head moved on.")
                  .arg(watcherLabel(a).left(1).toUpper() + watcherLabel(a).mid(1),
                       QString::number(a.rv),
                       secs.isEmpty() ? QString() : QStringLiteral(" for %1 s").arg(secs));
    if (isCacher(a)) {
        t.why << QStringLiteral(
            "A watch cache's RV moves with the events of its etcd watch and with etcd's progress "
            "notifications, which the cacher turns into internal bookmarks (etcd_bookmark_counts). "
            "A cache that stays while the head moves watches a quiet resource, or has lost (or "
            "is starved on) its etcd watch. Clients that got a higher RV from another apiserver "
            "then get 504 here (too-large-rv).");
        switch (f.server.atLeast(21)) {
        case Tri::No:
            t.why << QStringLiteral("%1 (before 1.21) asks etcd for no progress notifications on "
                                    "the cacher's watch: a quiet resource's cache RV only moves "
                                    "with its own events, so it stays while other resources "
                                    "move the head. Clients that got a higher RV from another "
                                    "apiserver then get 504 here (too-large-rv).")
                         .arg(f.server.name());
            t.version(QStringLiteral("%1: no progress notifications for the cacher (before "
                                     "1.21)")
                          .arg(f.server.name()));
            t.fix << QStringLiteral("Run 1.21+, whose cacher follows etcd's progress "
                                    "notifications.");
            break;
        case Tri::Yes:
            t.why << QStringLiteral("%1 (1.21+) moves a quiet cache's RV with etcd's progress "
                                    "notifications, but only at etcd's interval: 10 min by "
                                    "default (--experimental-watch-progress-notify-interval, "
                                    "since 3.4.11). A cache stuck longer has lost its etcd "
                                    "watch or is starved.")
                         .arg(f.server.name());
            t.fix << QStringLiteral("Lower etcd's --experimental-watch-progress-notify-interval; "
                                    "if the cache is stuck for longer, restart that apiserver.");
            break;
        case Tri::Unknown:
            t.why << QStringLiteral("Before 1.21 a quiet resource's cache RV only moves with its "
                                    "own events; from 1.21 it follows etcd's progress "
                                    "notifications (every 10 min by default).");
            serverUnknown(f, t,
                          QStringLiteral("progress notifications move a quiet cache from "
                                         "1.21"));
            t.fix << QStringLiteral("Run 1.21+ and a short etcd "
                                    "--experimental-watch-progress-notify-interval.");
            break;
        }
        if (f.etcd.hasProgressNotifyInterval() == Tri::No)
            t.version(QStringLiteral("%1: progress-notify interval fixed at 10 min (the flag "
                                     "is 3.4.11+)")
                          .arg(f.etcd.name()));
        return;
    }
    t.why << QStringLiteral(
        "A client's RV moves with its events and its bookmarks. It stays when the client is in "
        "a retry loop (a 504 it does not recognise keeps it at its RV: see retry-loop), when "
        "its reads are blocked, or when a selector filters out every event and no bookmark "
        "comes.");
    switch (f.server.atLeast(19)) {
    case Tri::No:
        t.why << QStringLiteral("%1 sends a watcher only one bookmark, 2 s before its timeout "
                                "(periodic bookmarks are 1.19+).")
                     .arg(f.server.name());
        break;
    case Tri::Yes:
        t.why << QStringLiteral("%1 sends bookmarks about once a minute to watchers that ask "
                                "(allowWatchBookmarks).")
                     .arg(f.server.name());
        break;
    case Tri::Unknown:
        t.why << QStringLiteral("Bookmarks come about once a minute from 1.19; before, only once, "
                                "2 s before the watch's timeout.");
        break;
    }
    t.fix << QStringLiteral("Look at the client's other anomalies (retry-loop, too-large-rv); "
                            "keep allowWatchBookmarks on; restart a client that never recovers.");
}

void watcherTerminated(const Anomaly& a, const Facts& f, Writer& t) {
    const QString after = captured(a.message, "after ([\\d.]+) s");
    t.what << QStringLiteral("The server closed the watch of %1%2%3 without an ERROR event.")
                  .arg(watcherLabel(a), a.rv ? QStringLiteral(" at RV %1").arg(a.rv) : QString(),
                       after.isEmpty() ? QString() : QStringLiteral(" after %1 s").arg(after));
    t.why << QStringLiteral(
        "The watch cache dispatches each event to its watchers through a per-watcher buffer. "
        "When a watcher's buffer is full the dispatcher blocks on it, and one blocked watcher "
        "holds the dispatch of every watcher of that resource. It may block only out of a "
        "shared time budget (refilled 50 ms per second, capped at 100 ms); when that runs out, "
        "the watcher is closed with no ERROR event (\"Forcing watcher close due to "
        "unresponsiveness\", apiserver_terminated_watchers_total).");
    switch (f.server.atLeast(25)) {
    case Tri::No:
        t.why << QStringLiteral(
                     "%1 (before 1.25) gives every watcher a buffer of 10 events (1000 "
                     "for watchers of pods, nodes, secrets or configmaps that do not use "
                     "the trigger index, cacher.go).")
                     .arg(f.server.name());
        t.version(QStringLiteral("%1: per-watcher buffer of 10 events (before 1.25)")
                      .arg(f.server.name()));
        break;
    case Tri::Yes:
        t.why << QStringLiteral("%1 (1.25+) sizes it clamp(ceil(capacity/75 s), 10, max): max 10 "
                                "for indexed watchers with a trigger (kubelet-style pod watches), "
                                "1000 for indexed watchers without one, 100 for everything else.")
                     .arg(f.server.name());
        t.version(QStringLiteral("%1: per-watcher buffer clamp(ceil(capacity/75 s), 10, "
                                 "10/1000/100) (1.25+)")
                      .arg(f.server.name()));
        break;
    case Tri::Unknown:
        t.why << QStringLiteral("The buffer is a fixed 10 events before 1.25 (1000 for "
                                "watchers of an indexed resource that do not use the trigger); "
                                "from 1.25 "
                                "clamp(ceil(capacity/75 s), 10, max) with max 10, 1000 or 100 "
                                "by index and trigger.");
        serverUnknown(f, t,
                      QStringLiteral("per-watcher buffers are 10 events before 1.25, up to "
                                     "100/1000 from 1.25"));
        break;
    }
    if (f.server.retriesInternalErrors() != Tri::Yes)
        t.why << QStringLiteral("A watch cache that relists (before 1.25, after a PrevKv=nil) or "
                                "an apiserver shutting down also closes its watchers this way.");
    else
        t.why << QStringLiteral("An apiserver shutting down closes its watchers the same way.");
    t.why << QStringLiteral("client-go treats a clean close as normal and re-watches from its "
                            "last RV at once; a reader that stays slow is cut again, and its lag "
                            "grows.");
    t.fix << QStringLiteral("Find slow consumers with apiserver_terminated_watchers_total and "
                            "the watcher-lag series; move heavy work out of event handlers (work "
                            "queues), give the client CPU, or narrow the watch with selectors.");
    if (f.server.atLeast(25) != Tri::Yes)
        t.fix << QStringLiteral("1.25+ give most watchers a larger buffer (up to 100 events; 1000 "
                                "for indexed watchers without a trigger).");
}

void initialEventsStalled(const Anomaly& a, const Facts& f, Writer& t) {
    const QString secs = captured(a.message, "opened ([\\d.]+) s ago");
    t.what << QStringLiteral("The watch-list of %1 (sendInitialEvents=true) has not delivered "
                             "its k8s.io/initial-events-end bookmark%2: the informer is not "
                             "synced and its controllers do not start.")
                  .arg(watcherLabel(a),
                       secs.isEmpty() ? QString() : QStringLiteral(" in %1 s").arg(secs));
    t.why << QStringLiteral(
        "A watch-list (KEP-3157) replaces the LIST: the server streams the current state as "
        "synthetic ADDED events, then a BOOKMARK annotated \"k8s.io/initial-events-end\": "
        "\"true\". Until it comes, the client keeps collecting and never declares itself "
        "synced.");
    t.why << QStringLiteral(
        "A kube-apiserver with the WatchList gate off rejects such a watch with 422 Invalid "
        "(\"sendInitialEvents is forbidden for watch unless the WatchList feature gate is "
        "enabled\"; 1.19-1.26 complain about resourceVersionMatch), and client-go falls back to "
        "a LIST. A stall therefore means something accepted the watch and never sent the "
        "bookmark: a proxy or an aggregated API server that passes sendInitialEvents on or "
        "ignores it (k9s \"Synchronizing\"; static-kas and k8shark had to add the bookmark).");
    switch (f.server.watchList()) {
    case Tri::Yes:
        t.why << QStringLiteral("%1 has the WatchList gate on, so it sends the bookmark itself: "
                                "look for what sits between it and the client.")
                     .arg(f.server.name());
        t.version(QStringLiteral("%1: WatchList gate on (1.32, 1.34+)").arg(f.server.name()));
        break;
    case Tri::No:
        if (f.server.minor() < 19)
            t.why << QStringLiteral("%1 knows neither resourceVersionMatch (1.19) nor "
                                    "sendInitialEvents (1.27): it ignores both and serves a plain "
                                    "watch that never sends the bookmark, so it stalls a "
                                    "watch-list by itself.")
                         .arg(f.server.name());
        else if (f.server.minor() < 27)
            t.why << QStringLiteral("%1 has no WatchList yet (alpha from 1.27): it rejects the "
                                    "watch-list's resourceVersionMatch with 422 itself, so the "
                                    "watch that stalled was accepted by something else.")
                         .arg(f.server.name());
        else
            t.why << QStringLiteral("%1 has the WatchList gate off (alpha 1.27, on 1.32, off 1.33, "
                                    "on 1.34): by itself it would have answered 422, so the watch "
                                    "that stalled was accepted by something else, or by a server "
                                    "that ignores sendInitialEvents.")
                         .arg(f.server.name());
        t.version(QStringLiteral("%1: WatchList gate off (on only in 1.32 and 1.34+)")
                      .arg(f.server.name()));
        break;
    case Tri::Unknown:
        serverUnknown(f, t, QStringLiteral("the WatchList gate is on in 1.32 and 1.34+"));
        break;
    }
    switch (f.client.watchListByDefault()) {
    case Tri::Yes:
        t.why << QStringLiteral("%1 uses watch-list by default (WatchListClient, on from "
                                "v0.35).")
                     .arg(f.client.name());
        t.version(
            QStringLiteral("%1: WatchListClient on by default (v0.35+)").arg(f.client.name()));
        break;
    case Tri::No:
        t.why << QStringLiteral("%1 uses watch-list only when WatchListClient is turned on (on by "
                                "default from v0.35).")
                     .arg(f.client.name());
        break;
    case Tri::Unknown:
        clientUnknown(t, QStringLiteral("WatchListClient is on by default from v0.35"));
        break;
    }
    if (f.client.fallsBackOnAnyError() == Tri::No)
        t.why << QStringLiteral("%1 falls back to a LIST only on a 422 (0.27-0.28; 0.29+ on any "
                                "error).")
                     .arg(f.client.name());
    t.ref("KEP-3157");
    t.ref("kubernetes PR #122791");
    t.fix << QStringLiteral("Make the proxy or aggregated API server send (or pass on) the "
                            "initial-events-end bookmark, or reject sendInitialEvents with 422 "
                            "so clients fall back to a LIST.");
    t.fix << QStringLiteral("Meanwhile turn watch-list off in the client: "
                            "KUBE_FEATURE_WatchListClient=false in its environment (client-go's "
                            "feature gates, PR #122791).");
    t.fix << QStringLiteral("Give the initial sync a deadline (WatchScope flags it after 30 s).");
}

void revisionRegression(const Anomaly& a, const Facts& f, Writer& t) {
    if (a.message.startsWith(QLatin1String("time travel"))) {
        const QString seen = captured(a.message, "below RV (\\d+) already seen");
        const QString what = captured(a.message, "^time travel: ([^,]+(?:, [A-Z]+ at \\d+)?)");
        t.what << QStringLiteral("%1 went back in time: %2, below RV %3 that it had already "
                                 "seen.")
                      .arg(watcherLabel(a).left(1).toUpper() + watcherLabel(a).mid(1),
                           what.isEmpty() ? QStringLiteral("RV %1").arg(a.rv) : what, seen);
        timeTravelWhy(f, t);
        return;
    }
    t.what << QStringLiteral("On one watch of %1 an event came at RV %2 after a higher one: %3.")
                  .arg(watcherLabel(a), QString::number(a.rv), a.message);
    t.why << QStringLiteral(
        "On one watch stream RVs must strictly increase (etcd's Ordered guarantee; Kubernetes "
        "watches too), except the synthetic ADDED burst at the start of an RV=0 or "
        "sendInitialEvents watch. A decrease means events were reordered between etcd and the "
        "client: a proxy, a merge of two streams, or a server bug.");
    t.fix << QStringLiteral("Find what sits between etcd and the client; a client that relists "
                            "gets a consistent state back.");
}

// A cluster reflector's relist that landed past what its watch had delivered.
void relistGap(const Anomaly& a, Writer& t) {
    const QString range = captured(a.message, "^events of [^ ]+ at (RVs [0-9.]+(?:, [0-9.]+)*)");
    const QString after = captured(a.message, " after (.+); the list holds");
    t.what << QStringLiteral("The watch of %1 could not resume, so it relisted at RV %2: any "
                             "change of the resource at %3 was never delivered as an event. RVs "
                             "count the writes of every resource of the cluster, so how many of "
                             "them were this resource's is not known, only that the list holds "
                             "their net effect.")
                  .arg(watcherLabel(a), QString::number(a.rv),
                       range.isEmpty() ? QStringLiteral("the RVs since its last one") : range);
    if (!after.isEmpty())
        t.what << QStringLiteral("What the server answered before the relist: %1.").arg(after);
    t.why << QStringLiteral(
        "A list is the state at its RV, not the history up to it: objects created and deleted "
        "in between, and every intermediate version, are gone for the client (an informer's "
        "handlers see a Replace). A watch cannot resume when its RV left the watch cache's ring "
        "(410 too old resource version), when etcd compacted it (410 Expired on the etcd path, "
        "resources without a watch cache such as events), or when a restarted kube-apiserver's "
        "fresh cache starts above it (429 while it initializes from 1.31, then 410).");
    t.fix << QStringLiteral("Keep watches moving: bookmarks (allowWatchBookmarks) keep the RV "
                            "fresh on quiet resources; a larger watch cache or a longer "
                            "--etcd-compaction-interval keeps more history; avoid long stalls "
                            "between client and apiserver. A controller that must see every "
                            "change cannot rely on a watch alone: reconcile from the state.");
}

void revisionGap(const Anomaly& a, const Facts& f, Writer& t) {
    if (a.message.contains(QLatin1String("not received: relisted at"))) {
        relistGap(a, t);
        return;
    }
    QString missing = captured(a.message, "missing (.+)$");
    if (missing.isEmpty())
        missing = captured(a.message, ": ([^:]+) missing$");
    const QString event = captured(a.message, "^event at (\\d+)");
    const QString after = captured(a.message, "^event at \\d+ after (\\d+)");
    if (!event.isEmpty() && !after.isEmpty() && !missing.isEmpty())
        t.what << QStringLiteral("The watch of %1 delivered the event at %2 right after %3: it "
                                 "skipped %4.")
                      .arg(watcherLabel(a), event, after, missing);
    else
        t.what << QStringLiteral("The watch of %1 skipped revisions it must see: %2.")
                      .arg(watcherLabel(a), a.message);
    t.why << QStringLiteral(
        "etcd guarantees every watch is Reliable: its events are exactly the matching history "
        "from its start to the last one seen, with no gaps (a whole-prefix watch such as "
        "/registry/ sees every revision, so each event must be the previous + 1). Fragments of "
        "one response must be merged first.");
    t.why << QStringLiteral("The known way to lose events silently is etcd issue #17529: a slow "
                            "shared stream makes its watchers victims, then unsynced, and a "
                            "compacted unsynced watcher is skipped ahead with no cancel.");
    t.ref("etcd issue #17529");
    t.ref("etcd PR #17555");
    switch (f.etcd.hasStarvationFix()) {
    case Tri::No:
        t.version(QStringLiteral("%1: watch starvation bug #17529 (fixed in 3.4.31 / 3.5.13)")
                      .arg(f.etcd.name()));
        t.why << QStringLiteral("%1 has that bug.").arg(f.etcd.name());
        break;
    case Tri::Yes:
        t.version(QStringLiteral("%1: #17529 fixed (3.4.31 / 3.5.13)").arg(f.etcd.name()));
        t.why << QStringLiteral("%1 has its fix (3.4.31 / 3.5.13), so look elsewhere: a proxy, "
                                "the client's resume revision, a lost response.")
                     .arg(f.etcd.name());
        break;
    case Tri::Unknown:
        etcdUnknown(t, QStringLiteral("#17529 (silent skips) fixed in 3.4.31 / 3.5.13"));
        break;
    }
    if (a.source == AnomalySource::Apiserver) {
        t.why << QStringLiteral("Through an apiserver the same loss shows as a watch cache that "
                                "missed events: see stale-object and prevkv-nil.");
        streamSharing(f, t);
    }
    if (f.etcd.hasStarvationFix() != Tri::Yes)
        t.fix << QStringLiteral("Upgrade etcd to 3.4.31+ / 3.5.13+ (PR #17555).");
    t.fix << QStringLiteral("Relist to recover a consistent state; keep watches that must not "
                            "lose events off crowded streams (grpc++ gives every Watch call its "
                            "own HTTP/2 stream; Go's clientv3 shares one per gRPC metadata).");
}

void duplicateEvent(const Anomaly& a, const Facts&, Writer& t) {
    t.what << QStringLiteral("%1 received the same change twice: %2.")
                  .arg(watcherLabel(a).left(1).toUpper() + watcherLabel(a).mid(1), a.message);
    t.why << QStringLiteral(
        "etcd guarantees every watch is Unique: no (revision, key) twice. A watch resumed with "
        "start_revision must begin at the first matching event at or after it (Resumable), so "
        "a resume from the last revision seen instead of last + 1 repeats it; a Kubernetes watch "
        "from RV N carries only events newer than N. A duplicate means the watch was resumed at "
        "a revision already received, or something between etcd and the client replayed a "
        "response.");
    t.fix << QStringLiteral("Resume etcd watches at the last revision + 1; check proxies and the "
                            "client's reconnect logic. Handlers must be idempotent anyway.");
}

void splitRevision(const Anomaly& a, const Facts&, Writer& t) {
    t.what << QStringLiteral("%1: %2.").arg(
        watcherLabel(a).left(1).toUpper() + watcherLabel(a).mid(1), a.message);
    t.why << QStringLiteral(
        "etcd guarantees every watch is Atomic: all events of one revision (a transaction) come "
        "in one response. With fragment=true a large response comes in pieces marked "
        "fragment, which the client must merge before it reads them; catch-up responses batch "
        "up to 1000 revisions and can pass grpc++'s 4 MiB receive limit. A split seen after "
        "merging means the stream was cut or re-assembled wrongly.");
    t.fix << QStringLiteral("Merge fragments before validating, raise the gRPC receive limit or "
                            "watch with fragment=true; a client should apply a revision only "
                            "once it has all of it.");
}

void bookmarkViolation(const Anomaly& a, const Facts& f, Writer& t) {
    t.what << QStringLiteral("%1: %2.").arg(
        watcherLabel(a).left(1).toUpper() + watcherLabel(a).mid(1), a.message);
    t.why << QStringLiteral(
        "A bookmark (etcd: a progress notification) at R promises that every event up to R was "
        "delivered: no later event may be at or below R, and bookmarks never go backwards "
        "(etcd's Bookmarkable guarantee; Kubernetes sends a watcher a bookmark only when it "
        "advances). Clients store the bookmark's RV as their position, so a resume from it "
        "skips the late event.");
    t.why << QStringLiteral("The kube-apiserver's cacher turns etcd progress notifications into "
                            "internal bookmarks that advance the cache RV "
                            "(etcd_bookmark_counts): a wrong one moves the cache past events it "
                            "has not received.");
    if (f.etcd.known())
        t.version(QStringLiteral("%1: progress notifications %2")
                      .arg(f.etcd.name(), f.etcd.hasProgressNotifyInterval() == Tri::Yes
                                              ? QStringLiteral("with a settable interval "
                                                               "(3.4.11+)")
                                              : QStringLiteral("every 10 min")));
    t.fix << QStringLiteral("Relist to get a consistent state; report it upstream with the "
                            "capture: an event below a bookmark breaks every resume.");
}

void streamError(const Anomaly& a, const Facts&, Writer& t) {
    t.what << QStringLiteral("%1 could not read what it received: %2.")
                  .arg(watcherLabel(a).left(1).toUpper() + watcherLabel(a).mid(1), a.message);
    const QString m = a.message;
    if (m.startsWith(QLatin1String("IsCreate"))) {
        t.why << QStringLiteral("etcd's IsCreate guarantee: an event is a create (create_revision "
                                "== mod_revision) exactly when the key did not exist at revision "
                                "- 1. This one breaks it.");
    } else if (m.startsWith(QLatin1String("PrevKV"))) {
        t.why << QStringLiteral("etcd's PrevKV guarantee: when present, prev_kv equals the key's "
                                "value at revision - 1. This one does not.");
    } else if (m.contains(QLatin1String("undecodable value")) ||
               m.contains(QLatin1String("not the object its key names"))) {
        t.why << QStringLiteral(
            "Kubernetes stores protobuf objects (magic \"k8s\\0\", then runtime.Unknown) and JSON "
            "for custom resources, CRDs and APIServices; values encrypted at rest start with "
            "k8s:enc: and are never decoded. A value that is none of these, or that names "
            "another object than its key, was not written by a kube-apiserver.");
    } else if (m.contains(QLatin1String("watch response"))) {
        t.why << QStringLiteral("An etcd watch response that does not parse: large catch-up "
                                "responses (up to 1000 revisions) can pass grpc++'s 4 MiB "
                                "receive limit unless fragment=true.");
    } else {
        t.why << QStringLiteral(
            "A Kubernetes watch is chunked JSON, one object per event (clients must not rely on "
            "the newline), or 4-byte big-endian length-prefixed protobuf frames; each event has "
            "type ADDED, MODIFIED, DELETED, BOOKMARK or ERROR. Anything else, or a body cut off "
            "mid-object, breaks the stream; a proxy that buffers or rewrites bodies can do that.");
    }
    t.fix << QStringLiteral("Look at the raw frames (record a capture); check proxies and "
                            "encodings between the client and the server. The client must "
                            "relist after a broken stream.");
}

void cacheNotReady(const Anomaly& a, const Facts& f, Writer& t) {
    const QString secs = captured(a.message, "for ([\\d.]+) s");
    const QString span = secs.isEmpty() ? QString() : QStringLiteral(" for %1 s").arg(secs);
    if (isCacher(a))
        t.what << QStringLiteral("The watch cache of %1 stayed not ready%2: its LIST did not "
                                 "lead to a watch that held.")
                      .arg(watcherLabel(a), span);
    else
        t.what << QStringLiteral("%1 kept being refused by a watch cache that is not ready%2.")
                      .arg(watcherLabel(a).left(1).toUpper() + watcherLabel(a).mid(1), span);
    t.why << QStringLiteral(
        "Each resource's cacher runs its own reflector: a LIST from etcd, then a watch from the "
        "list's RV, retried by wait.Until on a fixed 1 s period with no backoff. Its cache is not "
        "ready from the start of an apiserver, and again whenever that ListAndWatch ends "
        "(a \"too old\" watch, an etcd error), until the next list is in the cache.");
    t.why << QStringLiteral(
        "A list that outlives etcd's compaction window (slow CRD conversion, huge resources) "
        "starts a watch from an RV that is already compacted: \"required revision has been "
        "compacted\", relist, and again - the cache never becomes ready.");
    switch (f.server.resilientWatchCacheInitialization()) {
    case Tri::Yes:
        t.why << QStringLiteral(
                     "%1 (ResilientWatchCacheInitialization, beta 1.31, GA 1.34) answers WATCH "
                     "and LISTs that need the cache with 429 \"storage is (re)initializing\" at "
                     "once; GETs and LISTs with a limit and no selector go to etcd.")
                     .arg(f.server.name());
        if (f.server.minor() >= 33)
            t.why << QStringLiteral("Its Retry-After grows with the time since the cache's "
                                    "readiness changed: clamp(e^(0.06 x s), 1, 30) s, and the "
                                    "message carries the last ListAndWatch error.");
        else
            t.why << QStringLiteral("Its Retry-After is always 1 s (it grows with the downtime "
                                    "from 1.33).");
        t.version(
            QStringLiteral("%1: 429 while the cache initializes (1.31+)").arg(f.server.name()));
        break;
    case Tri::No:
        if (f.server.minor() >= 27)
            t.why << QStringLiteral("%1 makes such a watch wait for the cache until the watch's "
                                    "own deadline (timeoutSeconds), then answers 503 "
                                    "\"context deadline exceeded\"; RV=0 lists go to etcd.")
                         .arg(f.server.name());
        else
            t.why << QStringLiteral("%1 makes such a watch wait for the cache with no deadline "
                                    "at all: the request hangs, holding its APF seat; RV=0 "
                                    "lists go to etcd.")
                         .arg(f.server.name());
        t.version(QStringLiteral("%1: watches block on a cache that is not ready (429 from 1.31)")
                      .arg(f.server.name()));
        break;
    case Tri::Unknown:
        serverUnknown(f, t,
                      QStringLiteral("watches block up to 1.26, block then 503 on 1.27-1.30, "
                                     "get 429 from 1.31"));
        break;
    }
    if (f.server.known() && f.server.minor() >= 36)
        t.why << QStringLiteral("With WatchCacheInitializationPostStartHook (on from 1.36) "
                                "/readyz fails until the caches are initialized, so a load "
                                "balancer keeps clients away from a restarting apiserver.");
    t.fix << QStringLiteral("Look at the apiserver log for \"unexpected ListAndWatch error\" "
                            "and \"cacher ... initialized\", and at "
                            "apiserver_watch_cache_initializations_total.");
    t.fix << QStringLiteral("For a list slower than the compaction window: speed up the "
                            "conversion webhook or store objects in the served version, or "
                            "raise --etcd-compaction-interval.");
    t.fix << QStringLiteral("Clients should honour Retry-After; restart apiservers one at a time "
                            "behind a load balancer that checks /readyz.");
    t.ref("kubernetes KEP-4568");
    t.ref("kubernetes issue #109603");
    t.ref("kubernetes PR #130899");
    t.ref("kubernetes issue #136950");
}

// list-pressure: kube/ListMemoryRules.h; the kubernetes.io blog "Enhancing Kubernetes API
// Server Efficiency with API Streaming" (2024-12-17) for the mechanism and the cascade.
void listPressure(const Anomaly& a, const Facts& f, Writer& t) {
    const bool oom = a.severity == Severity::Error;
    if (oom)
        t.what << QStringLiteral("%1 was OOM-killed by the memory its LISTs held (%2).")
                      .arg(a.watcher, a.message);
    else
        t.what << QStringLiteral("The LISTs %1 is serving hold more memory than it can spare "
                                 "(%2).")
                      .arg(a.watcher, a.message);
    t.why << QStringLiteral(
        "kube-apiserver builds a whole LIST response in memory before it sends the first byte: "
        "from etcd it holds what it read (an unpaged list reads the whole range at once, a "
        "paged one in chunks of up to 10,000 objects) and the objects decoded from it until "
        "Go's collector frees them - selectors such as spec.nodeName are applied only after "
        "decoding, so a node's small list costs the whole resource - and the encoded response. "
        "A list from the watch cache holds one encoded copy of its selection; a watch-list "
        "streams one object at a time.");
    t.why << QStringLiteral(
        "API Priority and Fairness (on from 1.20) bounds how many lists run at once: service "
        "accounts' requests share workload-low's 245 of 600 seats and a list of 1,000 objects "
        "or more costs the maximum of 10, so about 24 run together (more when the level "
        "borrows idle seats), up to 300 of one client wait in its queues and the rest get 429 "
        "with a Retry-After that client-go's REST client honours. The seats follow object "
        "counts, not bytes: when the lists it admits together hold more than the apiserver can "
        "spare (a DaemonSet rolled out or restarted, informers relisting after 410), it is "
        "OOM-killed; its clients reconnect to the next one and list there again, and it dies "
        "too.");
    switch (f.server.consistentListFromCache()) {
    case Tri::Yes:
        t.why << QStringLiteral("%1 serves resourceVersion=\"\" lists from the watch cache "
                                "(ConsistentListFromCache): only limit+RV, continue and Exact "
                                "lists still read etcd.")
                     .arg(f.server.name());
        break;
    case Tri::No:
        t.why << QStringLiteral("%1 sends every resourceVersion=\"\" list to etcd "
                                "(ConsistentListFromCache is off before 1.31).")
                     .arg(f.server.name());
        break;
    case Tri::Unknown:
        serverUnknown(f, t,
                      QStringLiteral("whether resourceVersion=\"\" lists read etcd "
                                     "(up to 1.30) or the cache (1.31+)"));
        break;
    }
    if (f.server.known()) {
        const ServerProfile& p = f.server.profile();
        if (p.streamingCollectionEncodingToJson && p.streamingCollectionEncodingToProtobuf)
            t.why << QStringLiteral("From 1.33 streaming collection encoding "
                                    "(StreamingCollectionEncodingToJSON/ToProtobuf, on by "
                                    "default) writes a list item by item instead of building it "
                                    "in one buffer.");
        else if (p.streamingCollectionEncodingToJson || p.streamingCollectionEncodingToProtobuf)
            t.why << QStringLiteral("Streaming collection encoding is on for %1 lists only "
                                    "(StreamingCollectionEncodingTo%2 is off): lists in %3 are "
                                    "still built in one buffer.")
                         .arg(p.streamingCollectionEncodingToJson ? QStringLiteral("JSON")
                                                                  : QStringLiteral("protobuf"),
                              p.streamingCollectionEncodingToJson ? QStringLiteral("Protobuf")
                                                                  : QStringLiteral("JSON"),
                              p.streamingCollectionEncodingToJson ? QStringLiteral("protobuf")
                                                                  : QStringLiteral("JSON"));
    }
    t.fix << QStringLiteral("Upgrade to 1.31+ with etcd 3.4.31+ / 3.5.13+ (consistent lists "
                            "from the cache) and 1.33+ (streaming encoding); stagger DaemonSet "
                            "restarts; list from RV=0 or use informers rather than plain "
                            "List() calls.");
    t.fix << QStringLiteral("For informers, client-go watch-list (WatchListClient, on by default "
                            "in v0.35) against 1.32 or 1.34+ streams the initial state from the "
                            "cache one object at a time; a typed List() stays a LIST in every "
                            "client-go release.");
    t.fix << QStringLiteral("Give apiservers memory headroom for their LIST peaks and watch "
                            "apiserver_memory_bytes / list bytes in flight during rollouts.");
    t.version(QStringLiteral("RV=\"\" lists from etcd up to 1.30; from the cache 1.31+"));
    t.version(QStringLiteral("watch-list: served on 1.32 and 1.34+ (WatchList gate)"));
    t.version(QStringLiteral("streaming list encoding: 1.33+"));
    t.ref("kubernetes KEP-3157");
    t.ref("kubernetes.io blog 2024-12-17 kube-apiserver-api-streaming");
    t.ref("kubernetes KEP-5116");
}

} // namespace

AnomalyExplanation AnomalyExplainer::explain(const Anomaly& a, const VersionContext& v) {
    Facts f;
    f.server = ServerFacts(v.kubeApiserver, v.featureGates);
    f.etcd = EtcdFacts(v.etcd);
    if (!isCacher(a))
        f.client = ClientGoFacts(v.clientGoFor(a.watcher));
    Writer t;
    switch (a.kind) {
    case AnomalyKind::PrevKvNil:
        prevKvNil(a, f, t);
        break;
    case AnomalyKind::RevisionGap:
        revisionGap(a, f, t);
        break;
    case AnomalyKind::RevisionRegression:
        revisionRegression(a, f, t);
        break;
    case AnomalyKind::DuplicateEvent:
        duplicateEvent(a, f, t);
        break;
    case AnomalyKind::SplitRevision:
        splitRevision(a, f, t);
        break;
    case AnomalyKind::BookmarkViolation:
        bookmarkViolation(a, f, t);
        break;
    case AnomalyKind::TooOldRv:
        tooOldRv(a, f, t);
        break;
    case AnomalyKind::TooLargeRv:
        tooLargeRv(a, f, t);
        break;
    case AnomalyKind::RetryLoop:
        retryLoop(a, f, t);
        break;
    case AnomalyKind::RelistStorm:
        relistStorm(a, f, t);
        break;
    case AnomalyKind::WatcherLag:
        watcherLag(a, f, t);
        break;
    case AnomalyKind::StuckWatcher:
        stuckWatcher(a, f, t);
        break;
    case AnomalyKind::WatcherTerminated:
        watcherTerminated(a, f, t);
        break;
    case AnomalyKind::StaleObject:
        staleObject(a, f, t);
        break;
    case AnomalyKind::InitialEventsStalled:
        initialEventsStalled(a, f, t);
        break;
    case AnomalyKind::StreamError:
        streamError(a, f, t);
        break;
    case AnomalyKind::CacheInconsistent:
        cacheInconsistent(a, f, t);
        break;
    case AnomalyKind::CacheNotReady:
        cacheNotReady(a, f, t);
        break;
    case AnomalyKind::ListPressure:
        listPressure(a, f, t);
        break;
    }
    return t.finish();
}

} // namespace ws

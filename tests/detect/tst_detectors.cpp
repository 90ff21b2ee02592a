// Data-driven tests of the anomaly detectors behind DetectorHub (SPEC §2). Each row is a small
// script of observations; the expected column lists every kind it must raise with its count, so
// a row also proves that nothing else (a second report of the same fault) is raised.
//
// Script: commands separated by ';', words by spaces, '...' quotes a word with spaces.
//   w NAME etcd|api RESOURCE [every] [history]  register a watcher (every: seesEveryRevision;
//                                           history: checksKeyHistory)
//   at T                                    set the time (T: 1500, 1500ms, 12s)
//   *N COMMAND                              repeat COMMAND N times
//   open W [rv=N] [empty] [wl] [bm]         watchOpened (wl: sendInitialEvents)
//   ev W T:KEY:RV[:FLAGS[:VALUE[:PREV]]] ... one watchResponse; T is A|M|D; flags: n (no
//                                           prev_kv), i (initial); VALUE (ignored for D) and
//                                           PREV (prev_kv's value) give the event content,
//                                           create_revision then being the key's last A
//   prog W RV [end]                         watchProgress (end: initial-events-end)
//   err W CODE REASON [MSG] [req=N] [compact=N] [srv=NAME]    watchError (srv: the apiserver asked)
//   list W [relist] [empty] [rv=N]          listStarted
//   listed W RV ITEMS                       listCompleted
//   lfail W CODE REASON [MSG] [req=N]       listFailed
//   close W server|timeout|error|client|broken
//   pos W RV HEAD LAGSECONDS                watcherPosition
//   truth KEY exists|deleted|missing [RV]   what etcd says about KEY
//   store W STORERV KEY:RV ...              checkStore against the truth table
//   hist RESOURCE RV ...                    a HistoryOracle with these revisions changing RESOURCE
//   tick                                    tick(now)
//   report KIND                             report() a source's own anomaly

#include "detect/DetectorHub.h"
#include "model/KeyTable.h"

#include <QHash>
#include <QMap>
#include <QTest>
#include <map>
#include <set>
#include <time.h>

using namespace ws;

namespace {

class TruthTable : public ConsistencyOracle {
public:
    KeyTruth truth(KeyId key) const override {
        auto it = m_truth.find(key);
        return it == m_truth.end() ? KeyTruth{} : it->second;
    }
    std::map<KeyId, KeyTruth> m_truth;
};

class History : public HistoryOracle {
public:
    ResourceVersion nextRevision(const QString& resource, ResourceVersion after) const override {
        auto it = m_revisions.find(resource);
        if (it == m_revisions.end())
            return 0;
        auto next = it->second.upper_bound(after);
        return next == it->second.end() ? 0 : *next;
    }
    std::map<QString, std::set<ResourceVersion>> m_revisions;
};

QStringList tokenize(const QString& command) {
    QStringList words;
    QString word;
    bool quoted = false, inWord = false;
    for (QChar c : command) {
        if (c == QLatin1Char('\'')) {
            quoted = !quoted;
            inWord = true;
        } else if (c.isSpace() && !quoted) {
            if (inWord)
                words << word;
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        words << word;
    return words;
}

TimeUs parseTime(const QString& s) {
    if (s.endsWith(QLatin1String("ms")))
        return milliseconds(s.chopped(2).toLongLong());
    if (s.endsWith(QLatin1Char('s')))
        return seconds(s.chopped(1).toDouble());
    return milliseconds(s.toLongLong());
}

// Runs scripts against a hub and keeps what it raised.
class Runner {
public:
    explicit Runner(DetectorThresholds thresholds = {}) : hub(keys, thresholds) {
        hub.setSink([this](const Anomaly& a) { raised.push_back(a); });
    }

    void run(const QString& script) {
        const QStringList commands = script.split(QLatin1Char(';'), Qt::SkipEmptyParts);
        for (const QString& command : commands) {
            QStringList words = tokenize(command);
            if (words.isEmpty())
                continue;
            int repeat = 1;
            if (words.front().startsWith(QLatin1Char('*')))
                repeat = words.takeFirst().mid(1).toInt();
            for (int i = 0; i < repeat; ++i)
                exec(words);
        }
    }

    int count(const QString& kind) const {
        int n = 0;
        for (const Anomaly& a : raised)
            n += kindName(a.kind) == kind;
        return n;
    }

    KeyTable keys;
    DetectorHub hub;
    TruthTable truth;
    History history;
    AnomalyList raised;
    QHash<QString, WatcherId> watchers;
    QHash<KeyId, ResourceVersion> createRevs; // the last A of each key (events with content)
    TimeUs now = 0;

private:
    WatcherId watcher(const QString& name) const {
        if (!watchers.contains(name))
            qFatal("unknown watcher %s", qPrintable(name));
        return watchers.value(name);
    }

    // Named options (rv=N) and flags (empty) after the positional words.
    static ResourceVersion option(const QStringList& words, const char* name) {
        const QString prefix = QLatin1String(name) + QLatin1Char('=');
        for (const QString& w : words)
            if (w.startsWith(prefix))
                return w.mid(prefix.size()).toLongLong();
        return 0;
    }

    ObservedStatus status(const QStringList& words) {
        ObservedStatus st;
        st.code = words.value(2).toInt();
        st.reason = words.value(3);
        if (words.size() > 4 && !words[4].startsWith(QLatin1String("req=")) &&
            !words[4].startsWith(QLatin1String("compact=")) &&
            !words[4].startsWith(QLatin1String("ra=")) &&
            !words[4].startsWith(QLatin1String("srv=")))
            st.message = words[4];
        for (const QString& w : words)
            if (w.startsWith(QLatin1String("srv=")))
                st.server = w.mid(4);
        st.requestedRv = option(words, "req");
        st.compactRevision = option(words, "compact");
        st.retryAfterSeconds = static_cast<int>(option(words, "ra"));
        return st;
    }

    void exec(const QStringList& words) {
        const QString& cmd = words[0];
        if (cmd == QLatin1String("w")) {
            WatcherInfo info;
            info.id = words.value(1);
            info.layer =
                words.value(2) == QLatin1String("etcd") ? WatchLayer::Etcd : WatchLayer::Apiserver;
            info.resource = words.value(3);
            info.seesEveryRevision = words.contains(QLatin1String("every"));
            info.checksKeyHistory = words.contains(QLatin1String("history"));
            watchers.insert(info.id, hub.registerWatcher(info));
        } else if (cmd == QLatin1String("at")) {
            now = parseTime(words.value(1));
        } else if (cmd == QLatin1String("open")) {
            WatchRequest r;
            r.rv = option(words, "rv");
            r.rvEmpty = words.contains(QLatin1String("empty"));
            r.sendInitialEvents = words.contains(QLatin1String("wl"));
            r.allowBookmarks = words.contains(QLatin1String("bm"));
            hub.watchOpened(watcher(words.value(1)), now, r);
        } else if (cmd == QLatin1String("ev")) {
            std::vector<ObservedEvent> events;
            for (int i = 2; i < words.size(); ++i) {
                const QStringList parts = words[i].split(QLatin1Char(':'));
                ObservedEvent e;
                const QString t = parts.value(0);
                e.type = t == QLatin1String("A")   ? WatchEventType::Added
                         : t == QLatin1String("D") ? WatchEventType::Deleted
                                                   : WatchEventType::Modified;
                e.key = keys.intern(parts.value(1).toStdString());
                e.rv = parts.value(2).toLongLong();
                const QString flags = parts.value(3);
                e.hasPrevKv = !flags.contains(QLatin1Char('n'));
                e.initial = flags.contains(QLatin1Char('i'));
                e.prevRv = e.hasPrevKv ? e.rv - 1 : 0;
                e.createRv = e.type == WatchEventType::Added ? e.rv : 0;
                if (parts.size() > 4) {
                    // Content for the key-history checks, as a live etcd source fills it.
                    const auto hash = [](const QString& text) {
                        const QByteArray b = text.toUtf8();
                        return contentHash(b.constData(), static_cast<std::size_t>(b.size()));
                    };
                    e.hasContent = true;
                    if (e.type == WatchEventType::Added)
                        createRevs[e.key] = e.rv;
                    else
                        e.createRv = createRevs.value(e.key);
                    if (e.type != WatchEventType::Deleted) {
                        e.valueSize = static_cast<std::uint32_t>(parts[4].toUtf8().size());
                        e.valueHash = hash(parts[4]);
                    }
                    if (e.hasPrevKv) {
                        e.prevValueSize =
                            static_cast<std::uint32_t>(parts.value(5).toUtf8().size());
                        e.prevValueHash = hash(parts.value(5));
                    }
                }
                events.push_back(e);
            }
            hub.watchResponse(watcher(words.value(1)), now, events);
        } else if (cmd == QLatin1String("prog")) {
            hub.watchProgress(watcher(words.value(1)), now, words.value(2).toLongLong(),
                              words.contains(QLatin1String("end")));
        } else if (cmd == QLatin1String("err")) {
            hub.watchError(watcher(words.value(1)), now, status(words));
        } else if (cmd == QLatin1String("lfail")) {
            hub.listFailed(watcher(words.value(1)), now, status(words));
        } else if (cmd == QLatin1String("retried")) {
            hub.requestRetried(watcher(words.value(1)), now, status(words));
        } else if (cmd == QLatin1String("list")) {
            ListRequest r;
            r.isRelist = words.contains(QLatin1String("relist"));
            r.rvEmpty = words.contains(QLatin1String("empty"));
            r.rv = option(words, "rv");
            hub.listStarted(watcher(words.value(1)), now, r);
        } else if (cmd == QLatin1String("listed")) {
            hub.listCompleted(watcher(words.value(1)), now, words.value(2).toLongLong(),
                              words.value(3).toLongLong());
        } else if (cmd == QLatin1String("close")) {
            static const QMap<QString, WatchCloseReason> reasons = {
                {QStringLiteral("server"), WatchCloseReason::ServerClosed},
                {QStringLiteral("timeout"), WatchCloseReason::ClientTimeout},
                {QStringLiteral("error"), WatchCloseReason::AfterError},
                {QStringLiteral("client"), WatchCloseReason::ClientCancelled},
                {QStringLiteral("broken"), WatchCloseReason::Broken},
            };
            QVERIFY2(reasons.contains(words.value(2)), qPrintable(words.join(' ')));
            hub.watchClosed(watcher(words.value(1)), now, reasons.value(words.value(2)));
        } else if (cmd == QLatin1String("pos")) {
            hub.watcherPosition(watcher(words.value(1)), now, words.value(2).toLongLong(),
                                words.value(3).toLongLong(), words.value(4).toDouble());
        } else if (cmd == QLatin1String("truth")) {
            KeyTruth t;
            t.exists = words.value(2) == QLatin1String("exists");
            (t.exists ? t.modRv : t.deletedRv) = words.value(3).toLongLong();
            truth.m_truth[keys.intern(words.value(1).toStdString())] = t;
        } else if (cmd == QLatin1String("store")) {
            std::vector<StoreEntry> entries;
            for (int i = 3; i < words.size(); ++i) {
                const int colon = words[i].lastIndexOf(QLatin1Char(':'));
                entries.push_back({keys.intern(words[i].left(colon).toStdString()),
                                   words[i].mid(colon + 1).toLongLong()});
            }
            hub.checkStore(watcher(words.value(1)), now, words.value(2).toLongLong(), entries,
                           truth);
        } else if (cmd == QLatin1String("hist")) {
            auto& revs = history.m_revisions[words.value(1)];
            for (int i = 2; i < words.size(); ++i)
                revs.insert(words[i].toLongLong());
            hub.setHistoryOracle(&history);
        } else if (cmd == QLatin1String("tick")) {
            hub.tick(now);
        } else if (cmd == QLatin1String("report")) {
            Anomaly a;
            a.time = now;
            a.kind = kindFromName(words.value(1)).value_or(AnomalyKind::StreamError);
            a.severity = Severity::Error;
            a.source = AnomalySource::Apiserver;
            a.resource = QStringLiteral("pods");
            a.message = QStringLiteral("unknown event type \"FOO\" at byte 1234");
            hub.report(a);
        } else {
            QFAIL(qPrintable(QStringLiteral("unknown script command: ") + words.join(' ')));
        }
    }
};

// "prevkv-nil=1,too-old-rv=2" → {kind: count}; kinds not listed must not be raised.
QMap<QString, int> parseExpected(const QString& expected) {
    QMap<QString, int> out;
    for (const QString& item : expected.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList kv = item.trimmed().split(QLatin1Char('='));
        out.insert(kv.value(0), kv.value(1, QStringLiteral("1")).toInt());
    }
    return out;
}

Severity expectedSeverity(AnomalyKind kind) {
    switch (kind) {
    case AnomalyKind::TooOldRv:
    case AnomalyKind::TooLargeRv:
    case AnomalyKind::RelistStorm:
    case AnomalyKind::WatcherLag:
    case AnomalyKind::StuckWatcher:
    case AnomalyKind::WatcherTerminated:
    case AnomalyKind::InitialEventsStalled:
    case AnomalyKind::CacheNotReady:
        return Severity::Warning;
    default:
        return Severity::Error;
    }
}

// Common watcher set-ups.
const char* const kApi = "w i api pods;";
const char* const kEtcd = "w c etcd pods;";
const char* const kEtcdEvery = "w c etcd pods every;";
const char* const kPrevKvNilMessage =
    "'Internal error occurred: etcd event received with PrevKv=nil "
    "(key=\"/registry/configmaps/default/a\", modRevision=101, type=DELETE)'";

} // namespace

class DetectorsTest : public QObject {
    Q_OBJECT

private slots:
    void detects_data();
    void detects();
    void anomalyFields();
    void sourceFollowsLayer();
    void raisedCountMatchesSink();
    void thresholdsAreHonoured();
    void retryLoopMessages_data();
    void retryLoopMessages();
    void hotPathThroughput();
};

void DetectorsTest::detects_data() {
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("needle"); // must appear in some raised message (evidence)

    auto row = [](const char* name, const QString& script, const char* expected,
                  const char* needle = "") {
        QTest::newRow(name) << script << QString::fromLatin1(expected)
                            << QString::fromLatin1(needle);
    };
    const QString api = QLatin1String(kApi);
    const QString etcd = QLatin1String(kEtcd);
    const QString every = QLatin1String(kEtcdEvery);

    // prevkv-nil
    row("prevkv-nil: etcd DELETE without prev_kv", etcd + "open c rv=100; ev c D:a:101:n",
        "prevkv-nil", "DELETE at 101 without prev_kv");
    row("prevkv-nil: etcd PUT (modify) without prev_kv", etcd + "open c rv=100; ev c M:a:101:n",
        "prevkv-nil", "PUT at 101");
    row("prevkv-nil: compact revision named",
        etcd + "open c rv=90; err c 410 Compacted compact=95; open c rv=100; ev c D:a:101:n",
        "prevkv-nil,too-old-rv", "compact revision 95");
    row("no prevkv-nil: create without prev_kv", etcd + "open c rv=100; ev c A:a:101:n", "");

    // cache-not-ready: a client refused by a not-ready cache (what a real cluster source sees),
    // or a simulated cacher whose list does not lead to a lasting watch, for 30 s.
    const QString init = QStringLiteral("'storage is (re)initializing'");
    row("cache-not-ready: 429 storage is (re)initializing for 31 s",
        api + "at 1s; err i 429 TooManyRequests " + init + " ra=1; at 16s; lfail i 429 " +
            "TooManyRequests " + init + " ra=2; at 32s; err i 429 TooManyRequests " + init +
            " ra=6",
        "cache-not-ready", "Retry-After up to 6 s");
    row("no cache-not-ready: refusals spanning less than 30 s, then a client backing off",
        api + "at 1s; err i 429 TooManyRequests " + init + " ra=1; at 20s; err i 429 " +
            "TooManyRequests " + init + " ra=2; at 45s; tick; pos i 5 9 0",
        "");
    row("cache-not-ready: 1.33+ message with the last error",
        api + "at 1s; err i 429 TooManyRequests 'storage is (re)initializing: etcdserver: "
              "request timed out' ra=1; at 31s; err i 429 TooManyRequests 'storage is "
              "(re)initializing: etcdserver: request timed out' ra=6",
        "cache-not-ready",
        "429 TooManyRequests: storage is (re)initializing: etcdserver: request timed out "
        "(Retry-After up to 6 s)");
    row("cache-not-ready: one 503 after a watch blocked until its timeout (1.27-1.30)",
        api + "at 300s; err i 503 ServiceUnavailable 'context deadline exceeded'",
        "cache-not-ready", "waited for a watch cache that is not ready until its own timeout");
    row("no cache-not-ready: the cache took the watch within 30 s",
        api + "at 1s; err i 429 TooManyRequests " + init +
            " ra=1; at 20s; open i rv=5; at 60s; "
            "tick",
        "");
    row("no cache-not-ready: another 429 (APF)",
        api + "at 1s; err i 429 TooManyRequests 'Too many requests, please try again later.' "
              "ra=1; at 40s; tick",
        "");
    row("no cache-not-ready: another 503",
        api + "at 1s; err i 503 ServiceUnavailable 'the server is currently unable to handle the "
              "request'; at 40s; tick",
        "");
    const QString cacher = QStringLiteral("w cacher/pods etcd pods;");
    row("cache-not-ready: a cacher list that takes 31 s",
        cacher + "list cacher/pods empty; at 31s; tick", "cache-not-ready",
        "watch cache not ready for 31.0 s: its LIST has not completed");
    row("cache-not-ready: a cacher whose watch is compacted after every list",
        cacher + "list cacher/pods empty; at 12s; listed cacher/pods 100 5; open cacher/pods "
                 "rv=100; err cacher/pods 410 Compacted compact=120; at 13s; list cacher/pods "
                 "empty relist; at 25s; listed cacher/pods 130 5; open cacher/pods rv=130; err "
                 "cacher/pods 410 Compacted compact=140; at 26s; list cacher/pods empty relist; "
                 "at 31s; tick",
        "cache-not-ready,too-old-rv=2",
        "its list and watch failed 2 times without a watch that held, the current LIST running "
        "for 5.0 s");
    row("no cache-not-ready: a cacher whose watch held 5 s",
        cacher + "list cacher/pods empty; at 20s; listed cacher/pods 100 5; open cacher/pods "
                 "rv=100; at 25s; tick; at 40s; tick",
        "");
    row("no cache-not-ready: a slow first list of an etcd source (no cacher)",
        etcd + "list c empty; at 40s; tick", "");

    // Key history (IsCreate, PrevKV content) of a watcher whose events carry content; "open c"
    // (start revision 1) replays the whole history, so every key starts absent.
    const QString history = QStringLiteral("w c etcd pods every history; open c;");
    row("IsCreate: a create of a key that exists", history + "ev c A:a:1:n:v1; ev c A:a:2:n:v2",
        "stream-error",
        "IsCreate: PUT at 2 is a create (create_revision 2) but the key exists since "
        "mod_revision 1");
    row("IsCreate: a DELETE of a key that was deleted",
        history + "ev c A:a:1:n:v1; ev c D:a:2::-:v1; ev c D:a:3::-:v1", "stream-error",
        "IsCreate: DELETE at 3 (create_revision 1) of a key that does not exist (deleted at 2)");
    row("PrevKV: prev_kv of other content at the same revision",
        history + "ev c A:a:1:n:v1; ev c M:a:2::v2:v9", "stream-error",
        "PrevKV: prev_kv of PUT at 2 is mod_revision 1 (2 bytes) but the value at 1 is "
        "mod_revision 1 (2 bytes), same revision, other content");
    row("no key-history error: create, update, delete, create again",
        history + "ev c A:a:1:n:v1; ev c M:a:2::v2:v1; ev c D:a:3::-:v2; ev c A:a:4:n:v4", "");
    row("no key-history error: the same stream without history checks",
        "w c etcd pods every; open c; ev c A:a:1:n:v1; ev c A:a:2:n:v2; ev c M:a:3::v3:v9", "");
    row("no prevkv-nil: DELETE with prev_kv", etcd + "open c rv=100; ev c D:a:101", "");
    row("no prevkv-nil: apiserver events have no prev_kv", api + "open i rv=100; ev i D:a:101:n",
        "");
    row("prevkv-nil: apiserver InternalError",
        api + "open i rv=100; err i 500 InternalError " + kPrevKvNilMessage, "prevkv-nil",
        "PrevKv=nil");
    row("no prevkv-nil: other InternalError",
        api + "open i rv=100; err i 500 InternalError 'etcdserver: no leader'", "");
    row("no prevkv-nil: PrevKv=nil text with another code",
        api + "open i rv=100; err i 410 Expired 'PrevKv=nil'", "too-old-rv");
    row("prevkv-nil: event and error of one fault reported once",
        QStringLiteral("w c etcd configmaps; open c rv=100;"
                       "ev c D:/registry/configmaps/default/a:101:n; err c 500 InternalError ") +
            QLatin1String(kPrevKvNilMessage),
        "prevkv-nil=1");
    row("prevkv-nil: two events, two reports", etcd + "open c rv=100; ev c D:a:101:n M:b:102:n",
        "prevkv-nil=2");

    // revision-regression: within one stream
    row("regression: reordered on one stream",
        api + "open i rv=100; ev i M:a:101; ev i M:b:103; ev i M:c:102", "revision-regression",
        "102 after an event at 103");
    row("regression: reordered inside one etcd response",
        etcd + "open c rv=100; ev c M:a:101 M:b:103 M:c:102", "revision-regression");
    row("no regression: increasing stream",
        api + "open i rv=100; ev i M:a:101; ev i M:b:102; ev i M:c:110", "");
    row("no regression: initial events carry their own RVs",
        api + "open i wl bm; ev i A:a:50:i; ev i A:b:30:i; ev i A:c:40:i; prog i 120 end;"
              "ev i M:a:121",
        "");
    // revision-regression: time travel across reconnects and apiservers (#59848)
    row("regression: relist RV=0 from a lagging apiserver",
        api + "list i; listed i 200 5; open i rv=200; ev i M:a:201; close i broken;"
              "list i relist rv=0; listed i 150 5",
        "revision-regression", "150");
    row("regression: relist RV=\"\" returns a lower RV",
        api + "list i; listed i 200 5; open i rv=200; ev i M:a:230; close i timeout;"
              "list i relist empty; listed i 210 5",
        "revision-regression", "20 revisions back");
    row("no regression: relist at the same RV",
        api + "list i; listed i 200 5; open i rv=200; ev i M:a:201; close i timeout;"
              "list i relist rv=201; listed i 201 5",
        "");
    row("regression: bookmark below what was listed",
        api + "list i; listed i 200 3; open i rv=200 bm; prog i 150", "revision-regression");
    row("regression: bookmark below an event of the same stream",
        api + "open i rv=100 bm; ev i M:a:120; prog i 110", "revision-regression");
    row("regression: RV=0 watch on a lagging apiserver",
        api + "list i; listed i 200 3; open i; ev i A:a:120:i; ev i M:b:160; ev i M:c:170",
        "revision-regression=1", "first event of a new watch");
    row("no regression: reconnect resumes where it was",
        api + "list i; listed i 200 3; open i rv=200; ev i M:b:201; close i timeout;"
              "open i rv=201; ev i M:c:202",
        "");
    row("no regression: cacher re-watches from its last processed RV",
        etcd + "list c; listed c 100 3; open c rv=100; ev c M:a:101 M:b:102 M:d:103;"
               "close c broken; open c rv=101; ev c M:b:102; ev c M:d:103 M:e:104",
        "");
    row("no regression: redelivery at the highest RV after reconnect",
        etcd + "open c rv=100; ev c M:a:101; close c broken; open c rv=100; ev c M:a:101;"
               "ev c M:b:102",
        "");

    // duplicate-event
    row("duplicate: same event twice on an apiserver watch",
        api + "open i rv=100; ev i M:a:101; ev i M:a:101", "duplicate-event", "101");
    row("duplicate: same key twice in one etcd response",
        etcd + "open c rv=100; ev c M:a:101 M:a:101", "duplicate-event");
    row("no duplicate: two keys at one revision (txn)",
        etcd + "open c rv=100; ev c M:a:101 M:b:101", "");
    row("no duplicate: redelivered on a new stream",
        api + "open i rv=100; ev i M:a:101; close i timeout; open i rv=100; ev i M:a:101", "");
    row("duplicate: not also a split revision",
        etcd + "open c rv=100; ev c M:a:101 M:b:102; ev c M:b:102 M:c:103", "duplicate-event=1");

    // split-revision
    row("split: revision spread over two responses",
        etcd + "open c rv=100; ev c M:a:101 M:b:102; ev c M:c:102 M:d:103", "split-revision",
        "revision 102 split");
    row("no split: revision inside one response",
        etcd + "open c rv=100; ev c M:a:101 M:b:102 M:c:102; ev c M:d:103", "");
    row("no split: apiserver events are one per response",
        api + "open i rv=100; ev i M:a:101; ev i M:b:102; ev i M:c:103", "");

    // bookmark-violation
    row("bookmark: event below a delivered bookmark",
        api + "open i rv=100 bm; ev i M:a:101; prog i 105; ev i M:b:104", "bookmark-violation",
        "104 after a bookmark at 105");
    row("bookmark: event at the bookmark RV",
        etcd + "open c rv=100; ev c M:a:101; prog c 105; ev c M:b:105", "bookmark-violation");
    row("bookmark: bookmark going backwards",
        api + "open i rv=100 bm; ev i M:a:101; prog i 105; prog i 103", "bookmark-violation=1",
        "103 after a bookmark at 105");
    row("no bookmark violation: events after the bookmark",
        api + "open i rv=100 bm; ev i M:a:101; prog i 105; ev i M:b:106; prog i 106; prog i 106",
        "");
    row("no bookmark violation: a new stream starts afresh",
        api + "open i rv=100 bm; prog i 105; close i timeout; open i rv=105 bm; ev i M:b:106", "");

    // revision-gap
    row("gap: whole-prefix watch skips a revision",
        every + "open c rv=100; ev c M:a:101; ev c M:b:103", "revision-gap",
        "revision 102 missing");
    row("gap: first event after the start revision (Resumable)",
        every + "open c rv=100; ev c M:a:104", "revision-gap", "101..103");
    row("gap: inside one response", every + "open c rv=100; ev c M:a:101 M:b:102 M:c:105",
        "revision-gap", "103..104");
    row("no gap: consecutive revisions over responses",
        every + "open c rv=100; ev c M:a:101 M:b:102 M:d:102; ev c M:c:103", "");
    row("no gap: watch from now starts anywhere",
        every + "open c empty; ev c M:a:150; ev c M:b:151", "");
    row("no gap: prefix watch of one resource without history",
        etcd + "open c rv=100; ev c M:a:101; ev c M:b:105", "");
    row("no gap: apiserver watchers skip other resources' RVs",
        api + "open i rv=100; ev i M:a:101; ev i M:b:150", "");
    row("gap: history shows a skipped change of the resource",
        "hist pods 101 103 105;" + etcd + "open c rv=100; ev c M:a:101; ev c M:b:105",
        "revision-gap", "pods changed at 103");
    row("gap: history, first event after the start revision",
        "hist pods 101 103 105;" + etcd + "open c rv=100; ev c M:a:103", "revision-gap", "101");
    row("no gap: history agrees with the jumps",
        "hist pods 101 105 109;" + etcd + "open c rv=100; ev c M:a:101; ev c M:b:105 M:c:109", "");

    // too-old-rv
    row("too-old: watch ERROR 410 Expired",
        api + "open i rv=100; err i 410 Expired 'too old resource version: 100 (150)' req=100",
        "too-old-rv", "too old resource version: 100 (150)");
    row("too-old: list 410 Gone (<=1.17)",
        api + "list i relist rv=100; lfail i 410 Gone 'too old resource version' req=100",
        "too-old-rv", "410 Gone");
    row("too-old: etcd compacted cancel",
        etcd + "open c rv=100; err c 410 Compacted req=100 compact=150", "too-old-rv",
        "compacted at revision 150");
    row("no too-old: 500 InternalError", api + "open i rv=100; err i 500 InternalError 'boom'", "");
    row("no too-old: 429", api + "open i rv=100; err i 429 TooManyRequests 'slow down'", "");

    // too-large-rv
    row("too-large: modern 504 on list",
        api + "list i relist rv=200; lfail i 504 Timeout 'Timeout: Too large resource version: "
              "200, current: 150' req=200",
        "too-large-rv", "current: 150");
    row("too-large: v1.16 body (no causes, reason Timeout)",
        api + "lfail i 504 Timeout 'Timeout: Too large resource version: 200, current: 150'",
        "too-large-rv");
    row("too-large: message only",
        api + "lfail i 504 '' 'Too large resource version: 200, current: 150'", "too-large-rv");
    row("no too-large: other 504", api + "lfail i 504 GatewayTimeout 'upstream timed out'", "");
    row("no too-large: not a 504", api + "lfail i 500 InternalError 'Too large resource version'",
        "");

    // retry-loop
    const QString tooLarge =
        QStringLiteral("lfail i 504 Timeout 'Too large resource version: 200, current: 150' "
                       "req=200;");
    row("retry-loop: 504 five times in a row", api + "*5 " + tooLarge, "retry-loop,too-large-rv=5",
        "5 times in a row");
    row("no retry-loop: four times", api + "*4 " + tooLarge, "too-large-rv=4");
    row("retry-loop: once per loop", api + "*12 " + tooLarge, "retry-loop=1,too-large-rv=12");
    row("no retry-loop: a successful relist in between",
        api + "*3 " + tooLarge + "list i relist empty; listed i 300 5; *3 " + tooLarge,
        "too-large-rv=6");
    row("retry-loop: re-armed after progress",
        api + "*5 " + tooLarge + "listed i 300 5; *5 " + tooLarge, "retry-loop=2,too-large-rv=10");
    row("no retry-loop: different errors alternate",
        api + "*3 lfail i 504 Timeout; lfail i 410 Expired; *3 lfail i 504 Timeout",
        "too-large-rv=6,too-old-rv");
    row("no retry-loop: events advance between watch errors",
        api + "*3 err i 410 Expired; open i rv=100; ev i M:a:101; *3 err i 410 Expired",
        "too-old-rv=6");
    row("retry-loop: watch errors without progress",
        api + "*5 err i 500 InternalError 'etcdserver: no leader'", "retry-loop");
    // client-go's REST layer sends a 504 with Retry-After again ten times before the reflector
    // sees it: those count, but a loop needs the reflector to have tried again.
    const QString retried = QStringLiteral(
        "*10 retried i 504 Timeout 'Too large resource version: 200, current: 150' req=200;");
    row("retry-loop: the reflector's second try after REST retries",
        api + retried + tooLarge + retried + tooLarge, "retry-loop,too-large-rv=2");
    row("no retry-loop: REST retries, one error, a relist that works",
        api + retried + tooLarge + "list i relist empty; listed i 300 5;", "too-large-rv");
    row("no retry-loop: REST retries alone",
        api + "*12 retried i 504 Timeout 'Too large resource version: 200, current: 150';", "");

    // relist-storm
    const QString four = QStringLiteral("w a api pods; w b api pods; w c api pods; w d api pods;");
    row("relist-storm: too many relists of one resource", api + "*10 list i relist", "relist-storm",
        "10 relists of pods");
    row("no relist-storm: nine relists", api + "*9 list i relist", "");
    row("no relist-storm: first lists are not relists", api + "*20 list i", "");
    row("no relist-storm: relists spread over time",
        api + "*5 list i relist; at 11s; *5 list i relist", "");
    row("relist-storm: half of the clients at once", four + "list a relist; list b relist",
        "relist-storm", "2 of 4 watchers");
    row("no relist-storm: a share of too few clients",
        "w a api pods; w b api pods; w c api pods; list a relist; list b relist; list c relist",
        "");
    row("no relist-storm: share below threshold",
        four + "list a relist; list a relist; at 11s; list b relist", "");
    row("no relist-storm: other resources' relists do not add up",
        four + "w x api configmaps; w y api configmaps; w z api configmaps; w q api configmaps;"
               "list a relist; list x relist",
        "");
    row("relist-storm: once per window", api + "*10 list i relist; at 5s; *10 list i relist",
        "relist-storm=1");
    // A watch-list is a watch the cache streams (no LIST built in memory, no etcd read): a
    // thousand restarted watch-list informers are no relist storm; their LISTs are.
    row("no relist-storm: watch-list resyncs are watches",
        api + "*10 open i wl bm; *9 open i wl bm", "");
    row("no relist-storm: watch-lists of all clients at once",
        four + "list a; list b; list c; list d; open a wl; open b wl; open c wl; open d wl", "");
    row("relist-storm: the LIST fallback of refused watch-lists",
        four + "list a; list b; list c; list d; open a wl; list a relist; open b wl; "
               "list b relist",
        "relist-storm", "2 of 4 watchers");
    row("no relist-storm: plain watches are not relists", api + "list i; *20 open i rv=5", "");
    row("relist-storm: again after a quiet window",
        api + "*10 list i relist; at 5s; *10 list i relist; at 30s; *10 list i relist",
        "relist-storm=2");

    // watcher-lag
    row("watcher-lag: above threshold", api + "pos i 100 250 12.5", "watcher-lag",
        "150 revisions behind");
    row("no watcher-lag: below threshold", api + "pos i 100 250 9.9", "");
    row("watcher-lag: once while lagging",
        api + "pos i 100 200 12; pos i 100 220 15; pos i 150 "
              "230 11; pos i 160 240 6",
        "watcher-lag=1");
    row("watcher-lag: re-armed under half the threshold",
        api + "pos i 100 200 12; pos i 200 200 4; pos i 200 300 12", "watcher-lag=2");
    // A source without a head (DetectorHub::kLagUnknown): no lag, and no recovery either.
    row("no watcher-lag: lag unknown", api + "pos i 100 0 -1; pos i 100 0 -1", "");
    row("watcher-lag: unknown lag does not re-arm",
        api + "pos i 100 200 12; pos i 100 0 -1; pos i 100 220 12", "watcher-lag=1");

    // stuck-watcher
    row("stuck-watcher: RV frozen while head moves",
        api + "pos i 100 150 1; at 50s; pos i 100 160 1; at 91s; pos i 100 170 1; at 95s;"
              "pos i 100 180 1",
        "stuck-watcher=1", "unchanged for 91.0 s");
    row("no stuck-watcher: idle resource", api + "pos i 100 150 0; at 91s; pos i 100 150 0", "");
    row("no stuck-watcher: caught up", api + "pos i 100 100 0; at 91s; pos i 100 100 0", "");
    row("no stuck-watcher: RV moved",
        api + "pos i 100 150 1; at 50s; pos i 120 160 1; at 91s; pos i 120 170 1", "");
    row("stuck-watcher: again after moving",
        api + "pos i 100 150 1; at 91s; pos i 100 170 1; at 92s; pos i 170 170 1;"
              "at 183s; pos i 170 200 1",
        "stuck-watcher=2");

    // watcher-terminated
    row("watcher-terminated: server closed the stream",
        api + "open i rv=100; ev i M:a:101; at 12s; close i server", "watcher-terminated",
        "after 12.0 s");
    row("no watcher-terminated: normal closes",
        api + "open i rv=100; close i timeout; open i rv=100; close i client; open i rv=100;"
              "err i 500 InternalError 'x'; close i error; open i rv=100; close i broken",
        "");

    // stale-object
    row("stale-object: deleted object still in the store",
        api +
            "truth /registry/pods/default/a deleted 150; store i 160 /registry/pods/default/a:120",
        "stale-object", "deleted in etcd at 150");
    row("stale-object: store missed a newer version",
        api + "truth /a exists 150; store i 160 /a:120", "stale-object", "etcd has it at 150");
    row("no stale-object: delete after the store's RV",
        api + "truth /a deleted 170; store i 160 /a:120", "");
    row("no stale-object: up to date", api + "truth /a exists 150; store i 160 /a:150", "");
    row("no stale-object: update after the store's RV",
        api + "truth /a exists 170; store i 160 /a:120", "");
    row("no stale-object: key etcd never saw", api + "store i 160 /a:120", "");
    row("stale-object: once per store, key and RV",
        api + "w j api pods; truth /a deleted 150; truth /b exists 155;"
              "store i 160 /a:120 /b:100; store i 170 /a:120 /b:100; store j 160 /a:120",
        "stale-object=3");
    // Issue #59848: an informer that already saw RV 200 lists RV=0 from a lagging apiserver and
    // gets a state at 140 holding an object deleted at 170: it went back in time.
    row("stale-object: resurrected after a list from a lagging apiserver",
        api + "open i rv=100; prog i 200; truth /a deleted 170; store i 140 /a:120", "stale-object",
        "which this watcher had already seen (RV 200)");
    row("no stale-object: deleted after everything the informer saw",
        api + "open i rv=100; prog i 200; truth /a deleted 230; store i 140 /a:120", "");
    row("no stale-object: a cache is judged against its own RV",
        etcd + "open c rv=100; prog c 200; truth /a deleted 170; store c 140 /a:120", "");

    // initial-events-stalled
    row("initial-events-stalled: found by tick", api + "open i wl bm; at 31s; tick",
        "initial-events-stalled", "timeout 30 s");
    row("initial-events-stalled: found by an observation",
        api + "open i wl bm; ev i A:a:50:i; at 31s; pos i 50 60 0", "initial-events-stalled");
    row("no initial-events-stalled: end bookmark in time",
        api + "open i wl bm; ev i A:a:50:i; at 5s; prog i 100 end; at 40s; tick", "");
    row("no initial-events-stalled: still within the timeout",
        api + "open i wl bm; prog i 90; at 29s; tick", "");
    row("initial-events-stalled: a plain bookmark does not end it",
        api + "open i wl bm; prog i 90; at 31s; tick", "initial-events-stalled");
    row("no initial-events-stalled: plain watch", api + "open i bm; at 40s; tick", "");
    row("initial-events-stalled: once per watch", api + "open i wl; at 31s; tick; at 60s; tick",
        "initial-events-stalled=1");
    row("no initial-events-stalled: watch closed early",
        api + "open i wl; at 10s; close i broken; at 40s; tick", "");
    row("initial-events-stalled: each watch-list",
        api + "open i wl; at 31s; tick; open i wl; at 62s; tick", "initial-events-stalled=2");

    // stream-error
    row("stream-error: passed through", api + "report stream-error", "stream-error",
        "unknown event type");
    row("no stream-error: clean stream", api + "open i rv=100; ev i M:a:101; close i timeout", "");

    // A healthy life of an informer and a cacher raises nothing.
    row("healthy: informer and cacher",
        every + api +
            "list c; listed c 100 3; open c rv=100; list i; listed i 100 3; open i rv=100 bm;"
            "ev c M:a:101 M:b:101; ev i M:a:101; ev c D:b:102; ev i D:b:102; prog c 102;"
            "prog i 102; at 1s; pos i 102 102 0; pos c 102 102 0; ev c A:d:103:n; ev i A:d:103;"
            "at 60s; close i timeout; open i rv=103 bm; ev c M:d:104; ev i M:d:104; prog i 104;"
            "truth a exists 101; truth d exists 104; store i 104 a:101 d:104; tick",
        "");
}

void DetectorsTest::detects() {
    QFETCH(QString, script);
    QFETCH(QString, expected);
    QFETCH(QString, needle);

    Runner r;
    r.run(script);
    if (QTest::currentTestFailed())
        return;
    if (qEnvironmentVariableIsSet("WS_DUMP_ANOMALIES")) // to review the messages by eye
        for (const Anomaly& a : r.raised)
            qInfo().noquote() << kindName(a.kind) << sourceName(a.source) << a.watcher << a.key
                              << a.rv << "|" << a.message;

    const QMap<QString, int> want = parseExpected(expected);
    for (auto it = want.cbegin(); it != want.cend(); ++it)
        QVERIFY2(kindFromName(it.key()).has_value(), qPrintable(it.key()));
    QStringList problems;
    for (AnomalyKind kind : allAnomalyKinds()) {
        const QString name = kindName(kind);
        const int got = r.count(name);
        if (got != want.value(name, 0))
            problems << QStringLiteral("%1: got %2, want %3")
                            .arg(name)
                            .arg(got)
                            .arg(want.value(name, 0));
    }
    if (!problems.isEmpty()) {
        for (const Anomaly& a : r.raised)
            qInfo().noquote() << kindName(a.kind) << a.key << a.rv << a.message;
        QFAIL(qPrintable(problems.join(QLatin1String("; "))));
    }

    bool needleFound = needle.isEmpty();
    for (const Anomaly& a : r.raised) {
        QCOMPARE(severityName(a.severity), severityName(expectedSeverity(a.kind)));
        QVERIFY(!a.message.isEmpty());
        QVERIFY(!a.resource.isEmpty());
        needleFound = needleFound || a.message.contains(needle);
    }
    if (!needleFound) {
        for (const Anomaly& a : r.raised)
            qInfo().noquote() << kindName(a.kind) << a.message;
        QFAIL(qPrintable(QStringLiteral("no message contains \"%1\"").arg(needle)));
    }
    QCOMPARE(r.hub.raisedCount(), static_cast<std::int64_t>(r.raised.size()));
}

void DetectorsTest::anomalyFields() {
    Runner r;
    r.run(QStringLiteral("w cacher/pods@apiserver-0 etcd pods every; at 2s;"
                         "open cacher/pods@apiserver-0 rv=1233;"
                         "ev cacher/pods@apiserver-0 D:/registry/pods/default/web-0:1234:n"));
    QCOMPARE(r.raised.size(), 1);
    const Anomaly& a = r.raised.front();
    QCOMPARE(a.kind, AnomalyKind::PrevKvNil);
    QCOMPARE(a.severity, Severity::Error);
    QCOMPARE(a.source, AnomalySource::Etcd);
    QCOMPARE(a.resource, QStringLiteral("pods"));
    QCOMPARE(a.watcher, QStringLiteral("cacher/pods@apiserver-0"));
    QCOMPARE(a.key, QStringLiteral("/registry/pods/default/web-0"));
    QCOMPARE(a.rv, ResourceVersion(1234));
    QCOMPARE(a.time, seconds(2));
    QCOMPARE(a.message, QStringLiteral("DELETE at 1234 without prev_kv"));

    // The apiserver's error names key and revision in its message; they become fields.
    Runner e;
    e.run(QLatin1String(kApi) + "open i rv=100; err i 500 InternalError " + kPrevKvNilMessage);
    QCOMPARE(e.raised.size(), 1);
    QCOMPARE(e.raised[0].source, AnomalySource::Apiserver);
    QCOMPARE(e.raised[0].key, QStringLiteral("/registry/configmaps/default/a"));
    QCOMPARE(e.raised[0].rv, ResourceVersion(101));
    QCOMPARE(e.raised[0].watcher, QStringLiteral("i"));

    // A revision gap names its key, the event's RV and the missing range.
    Runner g;
    g.run(QLatin1String(kEtcdEvery) + "open c rv=100; ev c M:a:101; ev c M:b:105");
    QCOMPARE(g.raised.size(), 1);
    QCOMPARE(g.raised[0].key, QStringLiteral("b"));
    QCOMPARE(g.raised[0].rv, ResourceVersion(105));
    QVERIFY2(g.raised[0].message.contains(QLatin1String("102..104")),
             qPrintable(g.raised[0].message));

    // Relist storms belong to a resource, not to the client that tipped them over.
    Runner s;
    s.run(QLatin1String(kApi) + "*10 list i relist");
    QCOMPARE(s.raised.size(), 1);
    QCOMPARE(s.raised[0].resource, QStringLiteral("pods"));
    QVERIFY(s.raised[0].watcher.isEmpty());
}

void DetectorsTest::sourceFollowsLayer() {
    Runner r;
    r.run(QStringLiteral("w e etcd pods; w a api pods; open e rv=1; open a rv=1;"
                         "err e 410 Compacted compact=5; err a 410 Expired;"
                         "close e server; close a server"));
    QCOMPARE(r.raised.size(), 4);
    for (const Anomaly& a : r.raised)
        QCOMPARE(a.source,
                 a.watcher == QLatin1String("e") ? AnomalySource::Etcd : AnomalySource::Apiserver);
}

void DetectorsTest::raisedCountMatchesSink() {
    KeyTable keys;
    DetectorHub hub(keys);
    // No sink: anomalies are still counted.
    WatcherInfo info;
    info.id = QStringLiteral("i");
    info.resource = QStringLiteral("pods");
    const WatcherId w = hub.registerWatcher(info);
    hub.watchClosed(w, 0, WatchCloseReason::ServerClosed);
    hub.watchResponse(w, 0, {}); // empty responses are ignored
    QCOMPARE(hub.raisedCount(), std::int64_t(1));
    QCOMPARE(hub.watcher(w).id, QStringLiteral("i"));
    QCOMPARE(hub.thresholds().retryLoopCount, DetectorThresholds{}.retryLoopCount);
}

void DetectorsTest::thresholdsAreHonoured() {
    DetectorThresholds t;
    t.retryLoopCount = 2;
    t.relistStormCount = 3;
    t.watcherLagSeconds = 1;
    t.stuckWatcherAfter = seconds(5);
    t.initialEventsTimeout = seconds(2);
    Runner r(t);
    r.run(QLatin1String(kApi) +
          "*2 lfail i 504 Timeout; *3 list i relist; pos i 1 10 1.5; at 6s; pos i 1 20 0;"
          "open i wl; at 9s; tick");
    QCOMPARE(r.count(QStringLiteral("retry-loop")), 1);
    QCOMPARE(r.count(QStringLiteral("relist-storm")), 1);
    QCOMPARE(r.count(QStringLiteral("watcher-lag")), 1);
    QCOMPARE(r.count(QStringLiteral("stuck-watcher")), 1);
    QCOMPARE(r.count(QStringLiteral("initial-events-stalled")), 1);
}

// Each kind of error a loop can repeat reads as what it is: an HTTP status with its code and
// reason, a connection failure in words (no status code: there was none); a loop of connection
// failures names the apiserver it could not reach, whose incident it is.
void DetectorsTest::retryLoopMessages_data() {
    QTest::addColumn<QString>("error");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("apiserver");
    QTest::newRow("504 too large")
        << "lfail i 504 Timeout 'Too large resource version: 200, current: 150' req=200 srv=a-0"
        << "504 Timeout received 5 times in a row without progress (watcher stays at RV 150): "
           "Too large resource version: 200, current: 150"
        << "";
    QTest::newRow("410")
        << "err i 410 Expired 'too old resource version: 100 (120)' srv=a-0"
        << "410 Expired received 5 times in a row without progress (watcher stays at RV 150): "
           "too old resource version: 100 (120)"
        << "";
    QTest::newRow("429") << "lfail i 429 TooManyRequests 'the server has received too many "
                            "requests and has asked us to try again later'"
                         << "429 TooManyRequests received 5 times in a row without progress "
                            "(watcher stays at RV 150): the server has received too many "
                            "requests and has asked us to try again later"
                         << "";
    QTest::newRow("500 without a reason") << "err i 500 '' 'etcdserver: no leader'"
                                          << "500 received 5 times in a row without progress "
                                             "(watcher stays at RV 150): etcdserver: no leader"
                                          << "";
    QTest::newRow("connection reset")
        << "lfail i 0 ConnectionReset 'read tcp apiserver-1 (via load balancer): connection "
           "reset by peer' srv=apiserver-1"
        << "connection reset 5 times in a row without progress (watcher stays at RV 150): read "
           "tcp apiserver-1 (via load balancer): connection reset by peer"
        << "apiserver-1";
    QTest::newRow("connection refused")
        << "err i 0 ConnectionRefused 'dial tcp apiserver-2: connect: connection refused' "
           "srv=apiserver-2"
        << "connection refused 5 times in a row without progress (watcher stays at RV 150): dial "
           "tcp apiserver-2: connect: connection refused"
        << "apiserver-2";
    QTest::newRow("cluster transport timeout")
        << "lfail i 0 timeout 'no response from https://10.0.0.1:6443' srv=https://10.0.0.1:6443"
        << "no response (timeout) 5 times in a row without progress (watcher stays at RV 150): "
           "no response from https://10.0.0.1:6443"
        << "https://10.0.0.1:6443";
}

void DetectorsTest::retryLoopMessages() {
    QFETCH(QString, error);
    QFETCH(QString, message);
    QFETCH(QString, apiserver);
    Runner r;
    r.run(QLatin1String(kApi) + "open i rv=100; ev i M:a:150; *5 " + error);
    QCOMPARE(r.count(QStringLiteral("retry-loop")), 1);
    for (const Anomaly& a : r.raised) {
        if (a.kind != AnomalyKind::RetryLoop)
            continue;
        QCOMPARE(a.message, message);
        QCOMPARE(a.apiserver, apiserver);
        QCOMPARE(a.watcher, QStringLiteral("i"));
    }
}

// The per-event path must stay at a few tens of ns (10M deliveries/s for the whole program).
void DetectorsTest::hotPathThroughput() {
    KeyTable keys;
    DetectorHub hub(keys);
    std::int64_t raised = 0;
    hub.setSink([&](const Anomaly&) { ++raised; });
    std::vector<WatcherId> api, etcd;
    auto info = [](const QString& id, WatchLayer layer) {
        WatcherInfo i;
        i.id = id;
        i.resource = QStringLiteral("pods");
        i.layer = layer;
        i.seesEveryRevision = layer == WatchLayer::Etcd;
        return i;
    };
    for (int i = 0; i < 64; ++i)
        api.push_back(
            hub.registerWatcher(info(QStringLiteral("informer-%1").arg(i), WatchLayer::Apiserver)));
    for (int i = 0; i < 4; ++i)
        etcd.push_back(
            hub.registerWatcher(info(QStringLiteral("cacher-%1").arg(i), WatchLayer::Etcd)));
    std::vector<KeyId> keyIds;
    for (int i = 0; i < 1000; ++i)
        keyIds.push_back(keys.intern("/registry/pods/default/p" + std::to_string(i)));
    WatchRequest request;
    request.rv = 1000;
    for (WatcherId w : api)
        hub.watchOpened(w, 0, request);
    for (WatcherId w : etcd)
        hub.watchOpened(w, 0, request);

    // CPU time of this thread, and the fastest of a few rounds: other processes on a 2-core
    // machine (parallel builds, other tests) would otherwise make the number meaningless.
    auto cpuNs = [] {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
    };
    const int rounds = 4, revisionsPerRound = 40000;
    const auto perRound = static_cast<std::int64_t>(revisionsPerRound) *
                          static_cast<std::int64_t>(etcd.size() + api.size());
    double best = 1e9;
    ResourceVersion rv = 1000;
    for (int round = 0; round < rounds; ++round) {
        const std::int64_t start = cpuNs();
        for (int r = 0; r < revisionsPerRound; ++r) {
            ++rv;
            ObservedEvent e;
            e.key = keyIds[static_cast<size_t>(rv % 1000)];
            e.rv = rv;
            e.createRv = 1;
            e.hasPrevKv = true;
            e.prevRv = rv - 1;
            for (WatcherId w : etcd)
                hub.watchResponse(w, rv * 10, {&e, 1});
            for (WatcherId w : api)
                hub.watchResponse(w, rv * 10, {&e, 1});
        }
        best = std::min(best, static_cast<double>(cpuNs() - start) / static_cast<double>(perRound));
    }
    qInfo("%d x %lld deliveries, best %.1f ns per delivery", rounds,
          static_cast<long long>(perRound), best);
    QCOMPARE(raised, std::int64_t(0));
#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__)
    QVERIFY2(best < 100, "the per-event path got slow");
#endif
}

QTEST_GUILESS_MAIN(DetectorsTest)
#include "tst_detectors.moc"

#include "EtcdEventProcessor.h"

#include "EtcdWireRangeResponse.h"
#include "EtcdWireWatchResponse.h"
#include "engine/Pipeline.h"
#include "kube/WatchCache.h"

#include <chrono>
#include <cstring>
#include <deque>
#include <unordered_map>

namespace ws {

namespace {

std::uint64_t hashBytes(const char* p, std::size_t n) {
    return contentHash(p, n);
}

std::uint64_t valueHash(std::string_view v) {
    return contentHash(v.data(), v.size());
}

// The last path segment of a key, and the one before it.
void lastSegments(std::string_view key, std::string_view* name, std::string_view* parent) {
    const auto slash = key.rfind('/');
    *name = slash == std::string_view::npos ? key : key.substr(slash + 1);
    *parent = {};
    if (slash != std::string_view::npos && slash > 0) {
        const auto before = key.rfind('/', slash - 1);
        *parent = before == std::string_view::npos ? key.substr(0, slash)
                                                   : key.substr(before + 1, slash - before - 1);
    }
}

} // namespace

// What the processor keeps per key for its statistics (objects per resource); the checks of a
// key's history are the hub's (KeyHistoryChecker).
struct EtcdEventProcessor::KeyState {
    std::int32_t resource = -1; // index into resources; -1: outside the prefix
    std::uint32_t epoch = 0;    // list epoch that last saw it present
    bool exists = false;
    ResourceVersion modRev = 0; // last PUT or DELETE revision
};

// KeyTable::intern through std::unordered_map costs several cache misses per event (bucket,
// node, string); this open-addressing index keeps the 64-bit hash, the id and the key bytes in
// two flat arrays, so a hit is usually one slot load and one compare in contiguous memory.
class FastKeyIndex {
public:
    explicit FastKeyIndex(KeyTable& keys) : m_keys(keys) { m_slots.resize(1024); }

    KeyId intern(std::string_view key) {
        const std::uint64_t h = hashBytes(key.data(), key.size()) | 1;
        std::size_t i = h & (m_slots.size() - 1);
        for (;;) {
            Slot& s = m_slots[i];
            if (s.hash == 0)
                return insert(i, h, key);
            if (s.hash == h && s.length == key.size() &&
                std::memcmp(m_bytes.data() + s.offset, key.data(), key.size()) == 0)
                return s.id;
            i = (i + 1) & (m_slots.size() - 1);
        }
    }

private:
    struct Slot {
        std::uint64_t hash = 0; // 0: empty
        std::uint64_t offset = 0;
        std::uint32_t length = 0;
        KeyId id = kNoKey;
    };

    KeyId insert(std::size_t i, std::uint64_t h, std::string_view key) {
        Slot& s = m_slots[i];
        s.hash = h;
        s.offset = m_bytes.size();
        s.length = static_cast<std::uint32_t>(key.size());
        s.id = m_keys.intern(key);
        m_bytes.append(key);
        const KeyId id = s.id;
        if (++m_count * 2 > m_slots.size())
            grow();
        return id;
    }

    void grow() {
        std::vector<Slot> old(m_slots.size() * 2);
        old.swap(m_slots);
        for (const Slot& s : old) {
            if (s.hash == 0)
                continue;
            std::size_t i = s.hash & (m_slots.size() - 1);
            while (m_slots[i].hash != 0)
                i = (i + 1) & (m_slots.size() - 1);
            m_slots[i] = s;
        }
    }

    KeyTable& m_keys;
    std::vector<Slot> m_slots;
    std::string m_bytes;
    std::size_t m_count = 0;
};

struct EtcdEventProcessor::Impl {
    Options options;
    Clock clock;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    mutable std::mutex mutex; // guards stats and resources against readers on other threads
    DetectorHub& hub;
    KeyTable& keys;
    EventJournal& journal;
    std::uint16_t journalWatcher = 0;
    FastKeyIndex keyIndex{keys};
    WatcherId watcher = 0;
    KubernetesKeyDecoder decoder;
    DecodedValue decoded;
    std::vector<KeyState> state;
    std::vector<EtcdResourceStats> resources;
    std::vector<std::unique_ptr<WatchCache>> caches; // per resource (watchCache option)
    std::vector<std::vector<KeyValuePtr>> listed;    // per resource, during a list
    std::unordered_map<std::string, int> resourceIndex;
    std::vector<ObservedEvent> scratch;
    EtcdProcessorStats stats;
    std::uint32_t epoch = 0;
    bool baseline = false;
    RevisionAccount account;
    // The last revision the account holds for the current stream: where the next event must
    // follow on (as the ReliabilityChecker counts it: a new stream starts at its start - 1).
    ResourceVersion accounted = 0;
    // The compacted cancel behind the next relist, for the revision-gap it leaves.
    ResourceVersion compactedFrom = 0;
    ResourceVersion compactedAt = 0;
    std::deque<std::pair<ResourceVersion, TimeUs>> headTimes;

    Impl(Options o, DetectorHub& h, KeyTable& k, EventJournal& j)
        : options(std::move(o)), hub(h), keys(k), journal(j), decoder(options.prefix) {}

    // Names a key to the journal the first time an event of it is recorded.
    void describeToJournal(KeyId id, std::string_view key) {
        if (journal.hasKey(id))
            return;
        const DecodedKey dk = decoder.decodeKey(key);
        QString resource;
        if (key.substr(0, options.prefix.size()) == options.prefix)
            resource = dk.resource.empty() ? QStringLiteral("(other)")
                                           : QString::fromStdString(dk.resource);
        if (dk.kubernetes)
            journal.describeKey(id, key, resource, QString::fromStdString(dk.namespace_),
                                QString::fromStdString(dk.name));
        else
            journal.describeKey(id, key, resource, QString(), QString());
    }

    TimeUs now() const {
        if (clock)
            return clock();
        return std::chrono::duration_cast<std::chrono::microseconds>(
                   std::chrono::steady_clock::now() - start)
            .count();
    }

    KeyState& keyState(KeyId id) {
        if (id >= state.size()) {
            state.resize(id + 1);
            const std::string& key = keys.key(id);
            KeyState& ks = state[id];
            if (key.compare(0, options.prefix.size(), options.prefix) == 0) {
                const DecodedKey dk = decoder.decodeKey(key);
                const std::string name = dk.resource.empty() ? std::string("(other)") : dk.resource;
                auto [it, inserted] =
                    resourceIndex.emplace(name, static_cast<int>(resources.size()));
                if (inserted) {
                    EtcdResourceStats rs;
                    rs.resource = QString::fromStdString(name);
                    resources.push_back(rs);
                    if (options.watchCache) {
                        caches.push_back(std::make_unique<WatchCache>());
                        listed.emplace_back();
                        // A resource first seen on the watch: its cache starts empty, current
                        // up to where the stream is.
                        if (baseline)
                            caches.back()->replace({}, stats.position, now());
                    }
                }
                ks.resource = it->second;
            }
        }
        return state[id];
    }

    QString resourceOf(KeyId id) const {
        if (id >= state.size() || state[id].resource < 0)
            return {};
        return resources[static_cast<std::size_t>(state[id].resource)].resource;
    }

    void setExists(KeyState& ks, bool exists) {
        if (ks.exists == exists)
            return;
        ks.exists = exists;
        if (ks.resource >= 0)
            resources[static_cast<std::size_t>(ks.resource)].objects += exists ? 1 : -1;
    }

    void raise(AnomalyKind kind, KeyId key, ResourceVersion rv, QString message) {
        Anomaly a;
        a.time = now();
        a.kind = kind;
        a.severity = Severity::Error;
        a.source = AnomalySource::Etcd;
        a.key = keys.qkey(key);
        a.resource = resourceOf(key);
        a.rv = rv;
        a.watcher = options.watcherId;
        a.message = std::move(message);
        hub.report(a);
    }

    // Decodes a stored value; reports what cannot be decoded or contradicts its key.
    void decodeValue(KeyId id, std::string_view key, const KeyState& ks, std::string_view value,
                     ResourceVersion rv, const char* what) {
        if (!options.decodeValues || ks.resource < 0)
            return;
        if (!decoder.decodeValue(value, &decoded)) {
            ++stats.undecodableValues;
            if (stats.undecodableValues <= options.maxUndecodableReports) {
                // Evidence shows the leading bytes, except for Secrets, whose bytes may be
                // credentials (SPEC §1: never in any output).
                const bool secret = resources[static_cast<std::size_t>(ks.resource)].resource ==
                                    QLatin1String("secrets");
                const QString evidence =
                    secret ? QStringLiteral("%1 bytes, content not shown for secrets")
                                 .arg(value.size())
                           : QString::fromStdString(decoded.error);
                raise(AnomalyKind::StreamError, id, rv,
                      QStringLiteral("undecodable value of %1 at %2: %3")
                          .arg(QLatin1String(what))
                          .arg(rv)
                          .arg(evidence));
            }
            return;
        }
        switch (decoded.encoding) {
        case ValueEncoding::Protobuf:
            ++stats.protobufValues;
            break;
        case ValueEncoding::Json:
            ++stats.jsonValues;
            break;
        case ValueEncoding::Encrypted:
            ++stats.encryptedValues;
            return;
        default:
            return;
        }
        std::string_view name, parent;
        lastSegments(key, &name, &parent);
        if ((!decoded.name.empty() && decoded.name != name) ||
            (!decoded.namespace_.empty() && decoded.namespace_ != parent)) {
            raise(AnomalyKind::StreamError, id, rv,
                  QStringLiteral("value of %1 at %2 is %3 %4/%5, not the object its key names")
                      .arg(QLatin1String(what))
                      .arg(rv)
                      .arg(QString::fromStdString(decoded.kind),
                           QString::fromStdString(decoded.namespace_),
                           QString::fromStdString(decoded.name)));
        }
    }

    void headSeen(ResourceVersion head) {
        account.noteHead(head);
        if (head <= stats.headRevision)
            return;
        stats.headRevision = head;
        headTimes.emplace_back(head, now());
        if (headTimes.size() > 4096)
            headTimes.pop_front();
    }

    void syncCacheStats();
    void reportRelistGap(ResourceVersion listRevision);

    double lagSeconds(TimeUs t) {
        while (!headTimes.empty() && headTimes.front().first <= stats.position)
            headTimes.pop_front();
        if (headTimes.empty())
            return 0;
        return static_cast<double>(t - headTimes.front().second) / kUsPerSecond;
    }
};

EtcdEventProcessor::EtcdEventProcessor(Options options, Pipeline& pipeline, Clock clock)
    : d(std::make_unique<Impl>(std::move(options), pipeline.hub(), pipeline.keys(),
                               pipeline.journal())) {
    pipeline.addKeyResourceResolver([this](const QString& key) { return resourceOfKey(key); });
    d->clock = std::move(clock);
    d->journalWatcher = d->journal.addWatcher(d->options.watcherId);
    WatcherInfo info;
    info.id = d->options.watcherId;
    info.layer = WatchLayer::Etcd;
    info.seesEveryRevision = d->options.seesEveryRevision;
    info.checksKeyHistory = true;
    d->watcher = d->hub.registerWatcher(info);
    d->stats.state = QStringLiteral("connecting");
}

EtcdEventProcessor::~EtcdEventProcessor() = default;

WatcherId EtcdEventProcessor::watcher() const {
    return d->watcher;
}

QString EtcdEventProcessor::resourceOfKey(const QString& key) const {
    const KeyId id = d->keys.find(key.toStdString());
    return id == kNoKey ? QString() : d->resourceOf(id);
}

void EtcdEventProcessor::noteHead(ResourceVersion head) {
    std::lock_guard lock(d->mutex);
    d->headSeen(head);
}

void EtcdEventProcessor::noteCompactRevision(ResourceVersion rev) {
    std::lock_guard lock(d->mutex);
    d->stats.compactRevision = std::max(d->stats.compactRevision, rev);
}

void EtcdEventProcessor::noteError(const QString& line) {
    std::lock_guard lock(d->mutex);
    d->stats.lastError = line;
}

void EtcdEventProcessor::tick() {
    std::lock_guard lock(d->mutex);
    const TimeUs t = d->now();
    if (d->stats.position > 0 && d->stats.headRevision > 0)
        d->hub.watcherPosition(d->watcher, t, d->stats.position,
                               std::max(d->stats.headRevision, d->stats.position),
                               d->lagSeconds(t));
    d->hub.tick(t);
}

EtcdProcessorStats EtcdEventProcessor::stats() const {
    std::lock_guard lock(d->mutex);
    return d->stats;
}

RevisionAccount EtcdEventProcessor::revisionAccount() const {
    std::lock_guard lock(d->mutex);
    return d->account;
}

QVector<EtcdResourceStats> EtcdEventProcessor::resourceStats() const {
    std::lock_guard lock(d->mutex);
    d->syncCacheStats();
    return QVector<EtcdResourceStats>(d->resources.begin(), d->resources.end());
}

QStringList EtcdEventProcessor::resources() const {
    std::lock_guard lock(d->mutex);
    QStringList out;
    for (const auto& r : d->resources)
        out << r.resource;
    out.sort();
    return out;
}

double EtcdEventProcessor::lagSeconds() const {
    std::lock_guard lock(d->mutex);
    return d->lagSeconds(d->now());
}

TimeUs EtcdEventProcessor::now() const {
    return d->now();
}

void EtcdEventProcessor::listStarted(bool relist) {
    std::lock_guard lock(d->mutex);
    ++d->epoch;
    for (auto& l : d->listed)
        l.clear();
    d->stats.state = relist ? QStringLiteral("relisting") : QStringLiteral("listing");
    ListRequest req;
    req.rvEmpty = true;
    req.isRelist = relist;
    req.limit = d->options.pageSize;
    d->hub.listStarted(d->watcher, d->now(), req);
}

void EtcdEventProcessor::listPage(const WireRangeResponse& page) {
    std::lock_guard lock(d->mutex);
    auto& objects = d->scratch;
    objects.clear();
    objects.reserve(page.kvs.size());
    for (const WireKeyValue& kv : page.kvs) {
        const KeyId id = d->keyIndex.intern(kv.key);
        KeyState& ks = d->keyState(id);
        d->setExists(ks, true);
        ks.epoch = d->epoch;
        ks.modRev = kv.modRevision;
        d->stats.bytes += static_cast<qint64>(kv.key.size() + kv.value.size());
        d->decodeValue(id, kv.key, ks, kv.value, kv.modRevision, "listed object");
        if (d->options.watchCache && ks.resource >= 0)
            d->listed[static_cast<std::size_t>(ks.resource)].push_back(
                KeyValue::make(id, kv.createRevision, kv.modRevision, kv.version, kv.value));
        ObservedEvent o;
        o.type = WatchEventType::Added;
        o.key = id;
        o.rv = kv.modRevision;
        o.createRv = kv.createRevision;
        o.hasContent = true;
        o.valueSize = static_cast<std::uint32_t>(kv.value.size());
        o.valueHash = valueHash(kv.value);
        objects.push_back(o);
    }
    d->hub.listedObjects(d->watcher, objects);
}

void EtcdEventProcessor::listCompleted(ResourceVersion listRevision, std::int64_t items) {
    std::lock_guard lock(d->mutex);
    const bool relist = d->stats.lists > 0;
    // Keys absent from the list were deleted while the watch could not see it.
    for (KeyState& ks : d->state) {
        if (ks.exists && ks.epoch != d->epoch) {
            d->setExists(ks, false);
            ks.modRev = listRevision;
        }
    }
    if (relist && listRevision > d->stats.position)
        d->stats.revisionsByList += listRevision - d->stats.position;
    if (!relist) {
        d->account.begin(listRevision + 1); // the list holds everything up to its revision
    } else if (listRevision > d->accounted) {
        // The relist restores the state at listRevision, but the events between the watch's
        // last revision and it are gone: the one place this source loses revisions.
        d->reportRelistGap(listRevision);
    }
    d->accounted = std::max(d->accounted, listRevision);
    d->stats.position = std::max(d->stats.position, listRevision);
    d->stats.listRevision = listRevision;
    ++d->stats.lists;
    d->baseline = true;
    d->headSeen(listRevision);
    if (d->options.watchCache) {
        const TimeUs t = d->now();
        for (std::size_t r = 0; r < d->caches.size(); ++r) {
            d->caches[r]->replace(d->listed[r], listRevision, t);
            d->listed[r].clear();
        }
        d->syncCacheStats();
    }
    d->hub.listCompleted(d->watcher, d->now(), listRevision, items);
}

void EtcdEventProcessor::listFailed(const QString& message, bool compacted) {
    std::lock_guard lock(d->mutex);
    d->stats.lastError = message;
    ObservedStatus st;
    st.code = compacted ? 410 : 503;
    st.reason = compacted ? QStringLiteral("Compacted") : QStringLiteral("Unavailable");
    st.message = message;
    d->hub.listFailed(d->watcher, d->now(), st);
}

void EtcdEventProcessor::watchOpened(ResourceVersion startRevision, const QString& endpoint) {
    std::lock_guard lock(d->mutex);
    d->stats.state = QStringLiteral("watching");
    d->stats.endpoint = endpoint;
    if (startRevision == 1)
        d->baseline = true; // replaying the whole history: every key starts absent
    if (startRevision > 0) {
        d->account.begin(startRevision); // a watch from a revision, without a list
        d->accounted = startRevision - 1;
    }
    for (auto& c : d->caches)
        if (!c->ready() && startRevision > 0)
            c->replace({}, startRevision - 1, d->now());
    WatchRequest req;
    req.rv = startRevision > 0 ? startRevision - 1 : 0;
    req.rvEmpty = startRevision == 0;
    req.allowBookmarks = true;
    d->hub.watchOpened(d->watcher, d->now(), req);
}

void EtcdEventProcessor::watchResponse(const WireWatchResponse& response) {
    std::lock_guard lock(d->mutex);
    auto& evs = d->scratch;
    evs.clear();
    evs.reserve(response.events.size());
    auto& st = d->stats;
    ++st.responses;
    const bool journaling = d->journal.enabled();
    const TimeUs received = journaling ? d->now() : 0;
    for (const WireEvent& ev : response.events) {
        const WireKeyValue& kv = ev.kv;
        const KeyId id = d->keyIndex.intern(kv.key);
        KeyState& ks = d->keyState(id);
        ObservedEvent o;
        o.key = id;
        o.rv = kv.modRevision;
        o.createRv = kv.createRevision;
        const bool isDelete = ev.isDelete;
        o.type = isDelete                    ? WatchEventType::Deleted
                 : kv.createRevision == o.rv ? WatchEventType::Added
                                             : WatchEventType::Modified;
        o.hasPrevKv = ev.hasPrevKv;
        if (o.hasPrevKv) {
            o.prevRv = ev.prevKv.modRevision;
            o.prevValueSize = static_cast<std::uint32_t>(ev.prevKv.value.size());
            o.prevValueHash = valueHash(ev.prevKv.value);
        }
        o.hasContent = true;
        if (!isDelete) {
            o.valueSize = static_cast<std::uint32_t>(kv.value.size());
            o.valueHash = valueHash(kv.value);
        }
        const char* label = isDelete ? "DELETE" : "PUT";
        if (journaling) {
            // Before the hub sees it: an anomaly it raises names an event already recorded.
            d->describeToJournal(id, kv.key);
            EventJournal::Event je;
            je.time = received;
            je.type = o.type;
            je.key = id;
            je.rv = o.rv;
            je.size = static_cast<std::uint32_t>(kv.key.size() + kv.value.size());
            je.watcher = d->journalWatcher;
            je.hasObject = !isDelete;
            je.object = kv.value;
            d->journal.append(je);
        }

        ks.modRev = o.rv;
        if (isDelete) {
            d->setExists(ks, false);
        } else {
            d->setExists(ks, true);
            d->decodeValue(id, kv.key, ks, kv.value, o.rv, label);
        }
        if (d->options.watchCache && ks.resource >= 0) {
            WatchCache& cache = *d->caches[static_cast<std::size_t>(ks.resource)];
            if (cache.ready() && o.rv > cache.resourceVersion()) {
                KeyValuePtr object =
                    isDelete ? cache.object(id)
                             : KeyValue::make(id, kv.createRevision, o.rv, kv.version, kv.value);
                const TimeUs t = d->now();
                cache.add(o.type, id, o.rv, std::move(object), t, t);
            }
        }
        if (ks.resource >= 0) {
            EtcdResourceStats& rs = d->resources[static_cast<std::size_t>(ks.resource)];
            if (isDelete)
                ++rs.deletes;
            else if (o.type == WatchEventType::Added)
                ++rs.creates;
            else
                ++rs.updates;
            rs.lastRv = std::max(rs.lastRv, o.rv);
        }
        st.bytes += static_cast<qint64>(kv.key.size() + kv.value.size());
        if (o.rv > d->accounted) {
            if (!d->options.seesEveryRevision) {
                // A range watch is trusted not to skip its own revisions (etcd's Reliable):
                // everything since the last one belonged to other keys.
                d->account.seen({d->accounted + 1, o.rv});
            } else {
                // The whole keyspace has an event at every revision; a jump is a loss the
                // hub's ReliabilityChecker raises as revision-gap, so it is only booked here.
                if (d->accounted > 0 && o.rv > d->accounted + 1)
                    d->account.lose({d->accounted + 1, o.rv - 1});
                d->account.seen(o.rv);
            }
            d->accounted = o.rv;
        }
        if (o.rv > st.lastRevision) {
            ++st.revisions;
            st.lastRevision = o.rv;
            if (st.firstRevision == 0)
                st.firstRevision = o.rv;
        }
        evs.push_back(o);
    }
    st.events += static_cast<qint64>(evs.size());
    st.position = std::max(st.position, st.lastRevision);
    d->headSeen(std::max(response.headerRevision, st.lastRevision));
    d->hub.watchResponse(d->watcher, d->now(), evs);
}

void EtcdEventProcessor::Impl::reportRelistGap(ResourceVersion listRevision) {
    const std::vector<RevisionRange> lost = account.lose({accounted + 1, listRevision});
    QString cause;
    if (compactedAt > 0)
        cause = QStringLiteral("etcd compacted the history the watch needed (watch from %1, "
                               "compact revision %2)")
                    .arg(compactedFrom)
                    .arg(compactedAt);
    else
        cause = QStringLiteral("the watch could not resume");
    for (const RevisionRange& r : lost) {
        Anomaly a;
        a.time = now();
        a.kind = AnomalyKind::RevisionGap;
        a.severity = Severity::Warning;
        a.source = AnomalySource::Etcd;
        a.rv = listRevision;
        a.watcher = options.watcherId;
        a.message = QStringLiteral("%1 lost: %2; the relist at %3 restored the state without "
                                   "their events")
                        .arg(r.text(), cause)
                        .arg(listRevision);
        hub.report(a);
    }
    compactedFrom = compactedAt = 0;
}

void EtcdEventProcessor::Impl::syncCacheStats() {
    for (std::size_t r = 0; r < caches.size(); ++r) {
        const WatchCache& c = *caches[r];
        EtcdResourceStats& rs = resources[r];
        rs.cacheReady = c.ready();
        rs.cacheRv = c.resourceVersion();
        rs.bufferUsed = static_cast<qint64>(c.ring().size());
        rs.bufferCapacity = static_cast<qint64>(c.ring().capacity());
        rs.bufferOldestRv = c.ready() ? c.oldestRv() : 0;
        rs.cacheObjects = static_cast<qint64>(c.objectCount());
    }
}

void EtcdEventProcessor::watchProgress(ResourceVersion revision) {
    std::lock_guard lock(d->mutex);
    ++d->stats.progressNotifications;
    d->stats.position = std::max(d->stats.position, revision);
    // Synced and idle at `revision`: nothing since the last event is missing.
    if (revision > d->accounted && d->accounted > 0) {
        d->account.seen({d->accounted + 1, revision});
        d->accounted = revision;
    }
    d->headSeen(revision);
    for (auto& c : d->caches)
        c->updateResourceVersion(revision); // the cacher's internal bookmark
    d->hub.watchProgress(d->watcher, d->now(), revision, false);
}

void EtcdEventProcessor::watchCompacted(ResourceVersion startRevision,
                                        ResourceVersion compactRevision) {
    std::lock_guard lock(d->mutex);
    ++d->stats.compactedCancels;
    d->stats.compactRevision = std::max(d->stats.compactRevision, compactRevision);
    d->compactedFrom = startRevision;
    d->compactedAt = compactRevision;
    d->stats.state = QStringLiteral("relisting");
    ObservedStatus st;
    st.code = 410;
    st.reason = QStringLiteral("Compacted");
    st.message = QStringLiteral("etcdserver: mvcc: required revision has been compacted "
                                "(watch from %1, compact revision %2)")
                     .arg(startRevision)
                     .arg(compactRevision);
    st.requestedRv = startRevision;
    st.compactRevision = compactRevision;
    const TimeUs t = d->now();
    d->hub.watchError(d->watcher, t, st);
    d->hub.watchClosed(d->watcher, t, WatchCloseReason::AfterError);
}

void EtcdEventProcessor::watchBroken(const QString& message, bool transport,
                                     std::chrono::milliseconds retryIn) {
    std::lock_guard lock(d->mutex);
    ++d->stats.brokenStreams;
    d->stats.lastError = message;
    d->stats.state = QStringLiteral("reconnecting in %1 ms").arg(retryIn.count());
    if (message.contains(QLatin1String("malformed"))) {
        Anomaly a;
        a.time = d->now();
        a.kind = AnomalyKind::StreamError;
        a.source = AnomalySource::Etcd;
        a.watcher = d->options.watcherId;
        a.rv = d->stats.position;
        a.message = QStringLiteral("undecodable watch response after revision %1: %2")
                        .arg(d->stats.position)
                        .arg(message);
        d->hub.report(a);
    } else {
        // Said once per break, as information: the stream resumes by itself and the revision
        // account shows whether anything was lost on the way.
        Anomaly a;
        a.time = d->now();
        a.kind = AnomalyKind::StreamError;
        a.severity = Severity::Info;
        a.source = AnomalySource::Etcd;
        a.watcher = d->options.watcherId;
        a.rv = d->accounted;
        a.message = QStringLiteral("watch stream broken after revision %1: %2; resuming from "
                                   "revision %3 in %4 ms")
                        .arg(d->accounted)
                        .arg(message)
                        .arg(d->accounted + 1)
                        .arg(retryIn.count());
        d->hub.report(a);
    }
    d->hub.watchClosed(d->watcher, d->now(),
                       transport ? WatchCloseReason::Broken : WatchCloseReason::ServerClosed);
}

} // namespace ws

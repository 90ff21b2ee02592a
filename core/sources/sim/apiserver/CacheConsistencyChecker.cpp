#include "CacheConsistencyChecker.h"

#include "Cacher.h"
#include "detect/DetectorHub.h"
#include "sources/sim/SimContext.h"
#include "sources/sim/etcd/SimEtcd.h"

#include <algorithm>
#include <map>

namespace ws {

using namespace cacheconsistency;

CacheConsistencyChecker::CacheConsistencyChecker(SimContext& ctx, const Cacher& cacher,
                                                 std::uint64_t seed)
    : m_ctx(ctx), m_cacher(cacher), m_rng(seed) {}

void CacheConsistencyChecker::start() {
    m_next = m_ctx.now + nextCheckDelay(m_rng.uniform());
}

void CacheConsistencyChecker::stop() {
    m_next = -1;
}

void CacheConsistencyChecker::tick() {
    if (m_next < 0 || m_ctx.now < m_next)
        return;
    const Result result = run();
    ++m_counts[static_cast<std::size_t>(result.status)];
    if (result.status != Status::Error)
        m_consistent = result.status == Status::Success;
    if (result.status == Status::Failure)
        raise(result);
    // JitterUntil with sliding=true: the next period starts when this check ends.
    m_next = m_ctx.now + nextCheckDelay(m_rng.uniform());
}

Result CacheConsistencyChecker::run() const {
    const WatchCache& cache = m_cacher.cache();
    if (!cache.ready())
        return failedToRun(QStringLiteral("cache is not ready"));
    const SimKeyspace& keyspace = m_ctx.keyspace;
    const auto item = [&](KeyId key, ResourceVersion rv) {
        return Item{keyspace.namespaceOf(key), keyspace.nameOf(key), rv};
    };
    // Both lists in key order, as a LIST returns them.
    const auto byKey = [&](KeyId a, KeyId b) {
        return keyspace.keys().qkey(a) < keyspace.keys().qkey(b);
    };
    std::vector<KeyId> keys = cache.store().keys();
    std::sort(keys.begin(), keys.end(), byKey);
    std::vector<Item> cacheItems;
    cacheItems.reserve(keys.size());
    for (KeyId k : keys)
        cacheItems.push_back(item(k, cache.object(k)->modRev));
    const ResourceVersion rv = cache.resourceVersion();
    std::vector<Item> etcdItems;
    QString error;
    if (!etcdItemsAt(rv, &etcdItems, &error))
        return failedToRun(error);
    return compare(rv, cacheItems, etcdItems);
}

bool CacheConsistencyChecker::etcdItemsAt(ResourceVersion rv, std::vector<Item>* out,
                                          QString* error) const {
    const SimEtcd& etcd = m_ctx.etcd;
    if (rv < etcd.compactRevision()) {
        // An Exact list below the compaction is a 410 from etcd: the check errors out.
        *error = QStringLiteral("failed calculating etcd digest: The resourceVersion for the "
                                "provided list is too old.");
        return false;
    }
    const int resource = m_cacher.resource();
    std::map<KeyId, ResourceVersion> state;
    for (KeyId k : etcd.liveKeys(resource))
        state[k] = etcd.get(k)->modRev;
    // Undo the revisions after rv.
    for (ResourceVersion rev = etcd.currentRevision(); rev > rv; --rev) {
        const MvccEvent* ev = etcd.eventAt(rev);
        if (!ev) {
            *error = QStringLiteral("failed calculating etcd digest: revision %1 not in history")
                         .arg(rev);
            return false;
        }
        if (m_ctx.keyspace.resourceOf(ev->key) != resource)
            continue;
        if (ev->isCreate())
            state.erase(ev->key);
        else
            state[ev->key] = ev->prevModRev;
    }
    std::vector<KeyId> keys;
    keys.reserve(state.size());
    for (const auto& [k, modRev] : state)
        keys.push_back(k);
    const SimKeyspace& keyspace = m_ctx.keyspace;
    std::sort(keys.begin(), keys.end(),
              [&](KeyId a, KeyId b) { return keyspace.keys().qkey(a) < keyspace.keys().qkey(b); });
    out->reserve(keys.size());
    for (KeyId k : keys)
        out->push_back(Item{keyspace.namespaceOf(k), keyspace.nameOf(k), state[k]});
    return true;
}

void CacheConsistencyChecker::raise(const Result& result) {
    const WatcherInfo& info = m_ctx.hub.watcher(m_cacher.hubId());
    Anomaly a;
    a.time = m_ctx.now;
    a.kind = AnomalyKind::CacheInconsistent;
    a.severity = Severity::Error;
    a.source = AnomalySource::Apiserver;
    a.resource = info.resource;
    a.watcher = info.id;
    a.rv = result.rv;
    const std::optional<Item>& diff = result.cacheItem ? result.cacheItem : result.etcdItem;
    if (diff) {
        const KeyId key = m_ctx.keyspace.findKey(m_cacher.resource(), diff->ns, diff->name);
        if (key != kNoKey)
            a.key = m_ctx.keyspace.keys().qkey(key);
    }
    a.message = result.describe() +
                QStringLiteral(" (apiserver_storage_consistency_checks_total{status=\"failure\"}); "
                               "the cache is not relisted");
    m_ctx.hub.report(a);
}

} // namespace ws

#include "ScriptedWriter.h"

#include "kube/KubernetesKeyDecoder.h"
#include "sources/sim/etcd/SimEtcd.h"
#include "sources/sim/etcd/SimKeyspace.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace ws {

namespace {

// The node a JSON object is bound to ("spec":{"nodeName":"node-3"} -> 3), the selector group the
// simulated field selectors match; -1 when it has none or is not JSON.
int selectorGroupOf(std::string_view value) {
    constexpr std::string_view field = "\"nodeName\":\"node-";
    const auto at = value.find(field);
    if (at == std::string_view::npos)
        return -1;
    int group = -1;
    const char* begin = value.data() + at + field.size();
    const auto [end, ec] = std::from_chars(begin, value.data() + value.size(), group);
    return ec == std::errc() && end != begin ? group : -1;
}

} // namespace

QStringList ScriptedWriter::resources(const RecordedEtcdStream& stream) {
    KubernetesKeyDecoder decoder;
    QStringList out;
    std::set<std::string> seen;
    auto add = [&](const std::string& key) {
        const DecodedKey dk = decoder.decodeKey(key);
        if (!dk.kubernetes || dk.resource.empty() || !seen.insert(dk.resource).second)
            return;
        out << QString::fromStdString(dk.resource);
    };
    for (const auto& o : stream.initial)
        add(o.key);
    for (const auto& w : stream.writes)
        add(w.key);
    return out;
}

ScriptedWriter::ScriptedWriter(SimKeyspace& keyspace, SimEtcd& etcd,
                               std::shared_ptr<const RecordedEtcdStream> stream)
    : m_keyspace(keyspace), m_etcd(etcd), m_stream(std::move(stream)) {
    m_unwatched = m_keyspace.addResource(QStringLiteral("(outside the recorded prefix)"));
    m_filler = m_keyspace.addKeyAs("\x01watchscope-what-if-filler", m_unwatched, {}, {}, -1);
}

ScriptedWriter::~ScriptedWriter() = default;

KeyId ScriptedWriter::keyFor(const std::string& key, std::string_view value) {
    if (auto it = m_keys.find(key); it != m_keys.end())
        return it->second;
    static thread_local KubernetesKeyDecoder decoder;
    const DecodedKey dk = decoder.decodeKey(key);
    const int resource =
        dk.kubernetes ? m_keyspace.resourceIndex(QString::fromStdString(dk.resource)) : -1;
    if (resource < 0) {
        m_keys.emplace(key, kNoKey);
        return kNoKey;
    }
    const KeyId id = m_keyspace.addKeyAs(key, resource, QString::fromStdString(dk.namespace_),
                                         QString::fromStdString(dk.name), selectorGroupOf(value));
    m_keys.emplace(key, id);
    return id;
}

void ScriptedWriter::populate() {
    const auto& initial = m_stream->initial;
    const auto count = static_cast<ResourceVersion>(initial.size());
    m_etcd.startAt(std::max<ResourceVersion>(1, m_stream->startRevision - count));
    for (const auto& o : initial)
        if (const KeyId key = keyFor(o.key, o.value); key != kNoKey)
            m_etcd.put(0, key, o.value);
    fillTo(0, m_stream->startRevision + 1);
}

void ScriptedWriter::fillTo(TimeUs now, ResourceVersion revision) {
    while (m_etcd.currentRevision() + 1 < revision)
        m_etcd.put(now, m_filler, std::string_view());
}

void ScriptedWriter::tick(TimeUs now) {
    const auto& writes = m_stream->writes;
    while (m_nextWrite < writes.size() && writes[m_nextWrite].at <= now) {
        const auto& w = writes[m_nextWrite++];
        const KeyId key = keyFor(w.key, w.value);
        if (key == kNoKey)
            continue; // outside Kubernetes' layout: its revision is filled by the next write
        fillTo(now, w.revision);
        if (w.isDelete) {
            if (m_etcd.remove(now, key) == 0)
                continue;
        } else {
            m_etcd.put(now, key, w.value);
        }
        ++m_writes;
    }
    const auto& compactions = m_stream->compactions;
    while (m_nextCompaction < compactions.size() && compactions[m_nextCompaction].at <= now) {
        const ResourceVersion rev =
            std::min(compactions[m_nextCompaction++].revision, m_etcd.currentRevision());
        m_etcd.compact(rev);
    }
}

} // namespace ws

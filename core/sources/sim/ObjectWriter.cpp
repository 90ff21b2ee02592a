#include "ObjectWriter.h"

#include "kube/ResourceCatalog.h"
#include "sources/sim/etcd/SimEtcd.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace ws {

ObjectWriter::ObjectWriter(SimKeyspace& keyspace, SimEtcd& etcd, int resource,
                           const ResourceSpec& spec)
    : m_keyspace(keyspace), m_etcd(etcd), m_resource(resource), m_spec(spec),
      m_rate(spec.writesPerSecond) {
    // The real kind and group/version, so that served objects decode in real clients.
    const ResourceInfo info = ResourceCatalog::lookup(spec.name);
    m_kind = info.kind.toStdString();
    m_apiVersion = info.groupVersion().toStdString();
}

void ObjectWriter::write(TimeUs now, KeyId key, std::int64_t generation, ResourceVersion uidSeed) {
    // resourceVersion is empty as etcd stores it (the object's RV is its mod_revision).
    std::string& v = m_head;
    v.clear();
    v += R"({"apiVersion":")";
    v += m_apiVersion;
    v += R"(","kind":")";
    v += m_kind;
    v += R"(","metadata":{"name":")";
    v += m_keyspace.nameUtf8(key);
    v += R"(","namespace":")";
    v += m_keyspace.namespaceUtf8(key);
    v += R"(","uid":"00000000-0000-4000-8000-)";
    char buf[24];
    auto r = std::to_chars(buf, buf + sizeof buf,
                           static_cast<unsigned long long>(uidSeed) + 100000000000ULL);
    v.append(buf, r.ptr);
    v += R"(","resourceVersion":"","generation":)";
    r = std::to_chars(buf, buf + sizeof buf, generation);
    v.append(buf, r.ptr);
    v += R"(},"spec":{"nodeName":"node-)";
    r = std::to_chars(buf, buf + sizeof buf, m_keyspace.selectorGroupOf(key));
    v.append(buf, r.ptr);
    v += R"("},"data":{"payload":")";
    static constexpr std::string_view tail = "\"}}";
    const std::size_t minimum = v.size() + tail.size();
    const std::size_t size = std::max(minimum, static_cast<std::size_t>(m_spec.valueBytes));
    m_etcd.put(now, key, size, [&](char* out) {
        std::memcpy(out, v.data(), v.size());
        std::memset(out + v.size(), 'x', size - minimum);
        std::memcpy(out + size - tail.size(), tail.data(), tail.size());
    });
    ++m_writes;
}

void ObjectWriter::create(TimeUs now, SeededRandom& rng) {
    // Half the creates reuse a deleted object's name, as controllers recreating pods do; it
    // also keeps the keyspace (and every per-key index) bounded on long runs.
    if (!m_deleted.empty() && rng.chance(0.5)) {
        const KeyId key = m_deleted.back();
        m_deleted.pop_back();
        write(now, key, 1, m_etcd.currentRevision() + 1);
        return;
    }
    const std::int64_t n = m_nextName++;
    const QString ns = QStringLiteral("ns-%1").arg(n % m_spec.namespaces);
    const QString name =
        QStringLiteral("%1-%2").arg(QString::fromStdString(m_kind).toLower()).arg(n);
    const int group = static_cast<int>(rng.between(0, m_spec.selectorGroups - 1));
    const KeyId key = m_keyspace.addKey(m_resource, ns, name, group);
    write(now, key, 1, m_etcd.currentRevision() + 1);
}

void ObjectWriter::update(TimeUs now, KeyId key) {
    const bool exists = m_etcd.exists(key);
    write(now, key, exists ? m_etcd.version(key) + 1 : 1,
          exists ? m_etcd.createRevision(key) : m_etcd.currentRevision() + 1);
}

void ObjectWriter::populate(TimeUs now, SeededRandom& rng) {
    for (int i = 0; i < m_spec.objects; ++i)
        create(now, rng);
}

void ObjectWriter::adopt() {
    const std::string prefix = QString::fromStdString(m_kind).toLower().toStdString() + '-';
    m_deleted.clear();
    for (KeyId key : m_keyspace.keysOf(m_resource)) {
        if (m_keyspace.isExternal(key))
            continue;
        const std::string& name = m_keyspace.nameUtf8(key);
        std::int64_t n = -1;
        if (name.starts_with(prefix))
            std::from_chars(name.data() + prefix.size(), name.data() + name.size(), n);
        m_nextName = std::max(m_nextName, n + 1);
        if (!m_etcd.exists(key))
            m_deleted.push_back(key);
    }
}

void ObjectWriter::tick(TimeUs now, TimeUs dt, SeededRandom& rng) {
    m_carry += m_rate * static_cast<double>(dt) / kUsPerSecond;
    while (m_carry >= 1.0) {
        m_carry -= 1.0;
        const auto& live = m_etcd.liveKeys(m_resource);
        const double p = rng.uniform();
        const auto below = static_cast<double>(live.size()) < m_spec.objects;
        if (live.empty() || (p < m_spec.deleteShare && below) ||
            (p >= m_spec.deleteShare && p < 2 * m_spec.deleteShare && below)) {
            create(now, rng);
        } else if (p < 2 * m_spec.deleteShare) {
            const KeyId victim = live[static_cast<size_t>(
                rng.between(0, static_cast<std::int64_t>(live.size()) - 1))];
            if (m_keyspace.isExternal(victim))
                continue; // a served client's object: the workload leaves it alone
            m_etcd.remove(now, victim);
            m_deleted.push_back(victim);
            ++m_writes;
        } else {
            const KeyId key = live[static_cast<size_t>(
                rng.between(0, static_cast<std::int64_t>(live.size()) - 1))];
            if (!m_keyspace.isExternal(key))
                update(now, key);
        }
    }
}

} // namespace ws
